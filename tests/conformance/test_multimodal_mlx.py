"""mlx-lm 0.32 on multimodal Gemma 3 checkpoints that real transformers 5 builds: models/gemma3.py writes its
own head counts (8 and 4) into a text_config that has none, over gemma3_text's defaults (4 and 1), as
transformers' Gemma3TextConfig also defaults them. cfglint's mlx-lm reading must say what the loaded model has.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from tests.conformance.test_families import mismatches, predicted
from tests.conformance.tiny_checkpoint import _tokenizer_config, tokenizer_json
from tests.conformance.venvs import run_probe, runtime_python
from tests.families import multimodal, resaved, variants

_HEADS = ("num_attention_heads", "num_key_value_heads")


def _cases() -> dict[str, dict]:
    base = variants("gemma3_text")["base"]
    without = {k: v for k, v in copy.deepcopy(base).items() if k not in _HEADS}
    # models/gemma3.py also sizes the embedding by the top level's vocab_size (262208 without one), whatever
    # text_config says: the tiny vocabulary is written there too, or mlx-lm refuses the embedding's shape.
    out = {name: dict(multimodal(text), vocab_size=base["vocab_size"]) for name, text in (("tf4-base", base), ("tf4-heads-absent", without))}
    out["tf5-heads-absent"] = resaved(out["tf4-heads-absent"])
    return out


CASES = _cases()


def write_checkpoint(config: dict, out_dir: Path) -> Path:
    """Gemma3ForConditionalGeneration as transformers 5 builds and saves it, config.json then the case's."""
    import torch
    from transformers import AutoConfig, AutoModelForImageTextToText

    out_dir.mkdir(parents=True)
    (out_dir / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    torch.manual_seed(0)
    AutoModelForImageTextToText.from_config(AutoConfig.from_pretrained(out_dir)).save_pretrained(out_dir)
    (out_dir / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    (out_dir / "tokenizer.json").write_text(json.dumps(tokenizer_json(int(config["text_config"]["vocab_size"]))))
    (out_dir / "tokenizer_config.json").write_text(json.dumps(_tokenizer_config()))
    return out_dir


@pytest.fixture(scope="module")
def observed(tmp_path_factory) -> dict[str, tuple[Path, dict]]:
    root = tmp_path_factory.mktemp("multimodal-mlx")
    dirs = {str(write_checkpoint(config, root / name)): name for name, config in CASES.items()}
    python = runtime_python("mlx-lm", ["mlx[cpu]", "mlx-lm"])
    report = run_probe(python, "mlx_lm_family_probe.py", *dirs, timeout=900)["results"]
    return {name: (Path(d), report[d]) for d, name in dirs.items()}


@pytest.mark.parametrize("case", sorted(CASES))
def test_mlx_lm_reads_a_multimodal_text_model_as_predicted(case, observed):
    directory, actual = observed[case]
    view = predicted(directory, "mlx-lm")
    # the probe's tie ("lm_head" not in the model) looks at the wrapper, which keeps its head in language_model
    found = [m for m in mismatches(view, actual) if m[0] != "tie_word_embeddings"]
    assert not found, found
    assert actual["outcome"] == "loads" and "num_key_value_heads" in actual["values"], actual
    expected = CASES[case]["text_config"].get("num_key_value_heads", 4)
    assert actual["values"]["num_key_value_heads"] == view.values["num_key_value_heads"] == expected
