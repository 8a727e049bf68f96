"""L001's fix: a key the config class defaults and another runtime requires is written with the value
transformers 5 reads (tests/test_fix_families.py builds the model before and after with real transformers 5)."""

from __future__ import annotations

import json

import pytest

import cfglint
from cfglint.cli import main
from tests.families import CLASS_DEFAULTED, variants

FILLED = ("rms_norm_eps", "max_position_embeddings")  # not num_key_value_heads: the weights decide it (W004)


@pytest.mark.parametrize("family", ["llama", "qwen2", "mistral", "gemma2", "phi3"])
def test_fix_writes_what_transformers5_reads_for_the_keys_it_defaults(family, write_config, capsys):
    config = variants(family)["defaults-absent"] if family != "llama" else {
        k: v for k, v in variants("mistral")["base"].items() if k not in CLASS_DEFAULTED} | {"model_type": "llama"}
    directory = write_config(config)
    before = cfglint.check([directory])
    intent = before.results[0].ctx.intent.values
    assert {d.pointer for d in before.findings if d.code == "L001"} & {f"/{k}" for k in FILLED}

    assert main(["fix", str(directory), "--write"]) in (0, 1)
    capsys.readouterr()
    written = json.loads((directory / "config.json").read_text())
    assert "num_key_value_heads" not in written
    filled = {k: written[k] for k in FILLED if k in written}
    assert filled and filled == {k: intent[k] for k in filled}  # transformers 5's values, nothing else
    assert {k: v for k, v in written.items() if k not in filled} == config
    after = cfglint.check([directory])
    assert not [d for d in after.findings if d.code == "L001" and d.pointer in {f"/{k}" for k in FILLED}]
