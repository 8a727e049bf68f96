"""L001's fix: a key the config class defaults and another runtime requires is written with the value
transformers 5 reads (tests/test_fix_families.py builds the model before and after with real transformers 5)."""

from __future__ import annotations

import json

import pytest

import cfglint
from cfglint.cli import main
from cfglint.compat import BASE as LLAMA_BASE
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


@pytest.mark.parametrize(("family", "key", "integer"), [
    ("qwen2", "rms_norm_eps", 1), ("gemma2", "final_logit_softcapping", 30), ("deepseek_v3", "routed_scaling_factor", 2),
    # typed by the config class alone (no reading consults them), and in a Llama file
    ("qwen2_moe", "router_aux_loss_coef", 0), ("qwen3", "initializer_range", 0), ("llama", "initializer_range", 0),
    ("llama", "rms_norm_eps", 1),
])
def test_an_integer_where_a_float_is_held_is_written_as_that_float(family, key, integer, write_config, capsys):
    config = {**(LLAMA_BASE if family == "llama" else variants(family)["base"]), key: integer}
    directory = write_config(config)
    before = cfglint.check([directory])
    [finding] = [d for d in before.findings if d.code == "L001" and d.pointer == f"/{key}"]
    assert finding.fix is not None and finding.fix.applicability.value == "safe"

    assert main(["fix", str(directory), "--write"]) in (0, 1)
    capsys.readouterr()
    written = json.loads((directory / "config.json").read_text())
    assert type(written[key]) is float and written[key] == integer
    assert f'"{key}": {float(integer)!r}' in (directory / "config.json").read_text()
    after = cfglint.check([directory])
    assert not [d for d in after.findings if d.code == "L001" and d.pointer == f"/{key}"]


@pytest.mark.parametrize("value", [2**53 + 1, True])
def test_no_float_is_written_for_what_a_float_would_change(value, write_config):
    """Beyond 2**53 a float is another number; a boolean is no integer to begin with."""
    directory = write_config({**variants("qwen2")["base"], "rms_norm_eps": value})
    found = [d for d in cfglint.check([directory]).findings if d.code == "L001" and d.pointer == "/rms_norm_eps"]
    assert found and all(d.fix is None for d in found)
