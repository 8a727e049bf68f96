"""transformers 4.57, mlx-lm 0.32 and llama.cpp's converter on multimodal Gemma 3 checkpoints that real
transformers 5 builds (4.57 reads the text model off the same files; its tie is text_config's).

mlx-lm's models/gemma3.py writes its own head counts (8 and 4) into a text_config that has none, over
gemma3_text's defaults (4 and 1), as transformers' Gemma3TextConfig also defaults them. The converter merges
text_config over the top level, and writes output.weight iff the checkpoint has lm_head.weight, which
transformers 5 saves by the wrapper's tie, not text_config's. cfglint's readings must say what each runtime
observed of the same checkpoint, and where a wrapper's own field is spoilt (SPOILT), the refusal and where it points.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from tests.conformance.llama_cpp_converter import converter_python, ensure_converter
from tests.conformance.test_families import mismatches, predicted, same_words
from tests.conformance.tiny_checkpoint import _tokenizer_config, tokenizer_json
from tests.conformance.venvs import TRANSFORMERS4_WITH_TORCH, run_probe, runtime_python
from tests.families import multimodal, resaved, variants

_HEADS = ("num_attention_heads", "num_key_value_heads")


def _cases() -> dict[str, dict]:
    base = variants("gemma3_text")["base"]
    texts = {
        "base": base,
        "heads-absent": {k: v for k, v in copy.deepcopy(base).items() if k not in _HEADS},
        "linear": variants("gemma3_text")["linear"],
        "text-untied": dict(copy.deepcopy(base), tie_word_embeddings=False),  # the wrapper ties all the same
    }
    # models/gemma3.py also sizes the embedding by the top level's vocab_size (262208 without one), whatever
    # text_config says: the tiny vocabulary is written there too, or mlx-lm refuses the embedding's shape.
    out = {f"tf4-{name}": dict(multimodal(text), vocab_size=base["vocab_size"]) for name, text in texts.items()}
    out["tf4-top-untied"] = dict(out["tf4-base"], tie_word_embeddings=False)  # text_config's true: unties
    for name in ("heads-absent", "linear"):
        out[f"tf5-{name}"] = resaved(out[f"tf4-{name}"])
    return out


CASES = _cases()
# The base with one of the wrapper's own fields spoilt, written over the checkpoint transformers 5 builds of the
# base: transformers 5's AutoConfig refuses it (Gemma3Config's strict fields), so mlx-lm's AutoTokenizer and the
# converter's vocabulary step stop on it; 4.57 has no strict fields.
SPOILT = {"tf4-tie-string": ("tie_word_embeddings", "yes"), "tf4-mm-tokens-float": ("mm_tokens_per_image", 4.5)}


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


RUNTIMES = ("transformers-4", "mlx-lm", "llama-cpp")


@pytest.fixture(scope="module")
def observed(tmp_path_factory) -> dict[str, dict[str, tuple[Path, dict]]]:
    """runtime -> case -> (checkpoint, the probe's report); one probe process per runtime."""
    root = tmp_path_factory.mktemp("multimodal")
    dirs = {str(write_checkpoint(config, root / name)): name for name, config in CASES.items()}
    for name, (key, value) in SPOILT.items():
        directory = write_checkpoint(CASES["tf4-base"], root / name)
        (directory / "config.json").write_text(json.dumps(dict(CASES["tf4-base"], **{key: value}), indent=2) + "\n")
        dirs[str(directory)] = name
    probes = {
        "transformers-4": (runtime_python(*TRANSFORMERS4_WITH_TORCH), "transformers4_family_probe.py", ()),
        "mlx-lm": (runtime_python("mlx-lm", ["mlx[cpu]", "mlx-lm"]), "mlx_lm_family_probe.py", ()),
        "llama-cpp": (converter_python("5.24.0"), "llama_cpp_family_probe.py", ("--converter", str(ensure_converter()))),
    }
    out = {}
    for runtime, (python, probe, extra) in probes.items():
        report = run_probe(python, probe, *extra, *dirs, timeout=900)["results"]
        out[runtime] = {name: (Path(d), report[d]) for d, name in dirs.items()}
    return out


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize("case", sorted(CASES) + sorted(SPOILT))
def test_a_multimodal_text_model_is_read_as_predicted(case, runtime, observed):
    directory, actual = observed[runtime][case]
    view = predicted(directory, runtime)
    found = mismatches(view, actual)
    assert not found, found
    if case in SPOILT and runtime != "transformers-4":
        assert actual["outcome"] == "error" and same_words(view.message, actual["message"]), (view.message, actual["message"])
        assert view.failure.pointer == "/" + SPOILT[case][0]
    else:
        assert actual["outcome"] == "loads", actual


@pytest.mark.parametrize("case", sorted(CASES))
def test_mlx_lm_takes_the_head_counts_the_wrapper_fills_in(case, observed):
    _, actual = observed["mlx-lm"][case]
    assert actual["values"]["num_key_value_heads"] == CASES[case]["text_config"].get("num_key_value_heads", 4)


@pytest.mark.parametrize("runtime", ["llama-cpp", "mlx-lm"])
def test_the_converter_and_mlx_lm_tie_by_the_checkpoint_transformers_5_saved(runtime, observed):
    """Both ways text_config's tie and the wrapper's split, the GGUF and mlx-lm's gemma3_text (which ties where
    the weights hold no lm_head) follow the wrapper's."""
    ties = {case: observed[runtime][case][1]["values"]["tie_word_embeddings"] for case in ("tf4-text-untied", "tf4-top-untied")}
    assert ties == {"tf4-text-untied": True, "tf4-top-untied": False}
