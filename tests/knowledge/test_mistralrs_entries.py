"""The mistral.rs entries against the real 0.9.5 wheel (CPU), installed into its own cached venv.

Two kinds of runs, both through a small probe script executed in the wheel's venv:
- parse order: a config built from the entry's own fields (one placeholder value per serde type), with
  each required field left out in turn, must be refused with ``missing field `<that field>` `` in the
  entry's declaration order, and the complete one must get past the config (to the weights);
- real loads: tiny random checkpoints saved by transformers 5 (`rope_parameters` only) and the same
  file in the transformers-4 layout (top-level `rope_theta`), with the outcome observed in the table
  OUTCOMES below.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from cfglint.knowledge import mistralrs as knowledge
from cfglint.knowledge.entry import REQUIRED
from tests.conformance.tiny_checkpoint import tokenizer_json
from tests.conformance.venvs import runtime_python

ENTRIES = {entry.family: entry for entry in knowledge.ENTRIES}
# family -> the wheel's Architecture name
ARCH = {"qwen2": "Qwen2", "qwen3": "Qwen3", "mistral": "Mistral", "gemma2": "Gemma2", "gemma": "Gemma",
        "phi3": "Phi3", "mixtral": "Mixtral", "qwen3_moe": "Qwen3Moe", "deepseek_v2": "DeepseekV2", "deepseek_v3": "DeepseekV3", "gpt_oss": "GptOss"}

# (family, layout) -> what the 0.9.5 wheel did (observed), as a substring of its message, or "loads".
# "tf5": as transformers 5.24 saves it; "tf4": rope_parameters replaced by a top-level rope_theta;
# "tf4-untied": also without tie_word_embeddings, as transformers 4.57 saves Gemma;
# "tf4-both-activations": also hidden_activation set to hidden_act's value, as CodeGemma files have it.
OUTCOMES = {
    ("qwen2", "tf5"): "missing field `rope_theta`",
    ("qwen2", "tf4"): "loads",
    ("mistral", "tf5"): "loads",
    ("mistral", "tf4"): "loads",
    ("gemma2", "tf5"): "missing field `rope_theta`",
    ("gemma2", "tf4"): "loads",
    ("gemma2", "tf4-untied"): "lm_head.weight",
    ("gemma", "tf5"): "missing field `rope_theta`",
    ("gemma", "tf4"): "loads",
    ("gemma", "tf4-both-activations"): "both hidden_act and hidden_activation are set",
    ("phi3", "tf5"): "missing field `rope_theta`",
    ("phi3", "tf4"): "loads",
}

TINY = {"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4,
        "num_key_value_heads": 2, "vocab_size": 256, "max_position_embeddings": 128}
TRANSFORMERS_KWARGS = {
    "qwen2": {},
    "mistral": {"sliding_window": 32},
    "gemma": {"head_dim": 16},
    "gemma2": {"head_dim": 16, "query_pre_attn_scalar": 16, "sliding_window": 32},
    "phi3": {"original_max_position_embeddings": 128, "pad_token_id": 0, "bos_token_id": 1, "eos_token_id": 2},
}

# One placeholder per serde type the entries use.
PLACEHOLDER = {"usize": 1, "u32": 1, "f32": 1.0, "f64": 1.0, "bool": False, "activation": "silu", "json": []}

PROBE = r'''
import json, os, sys
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["RUST_BACKTRACE"] = "0"
import mistralrs
results = []
for model_dir, arch, config_text in json.loads(open(sys.argv[1]).read()):
    if config_text is not None:
        open(os.path.join(model_dir, "config.json"), "w").write(config_text)
    try:
        mistralrs.Runner(
            which=mistralrs.Which.Plain(model_id=model_dir, arch=getattr(mistralrs.Architecture, arch),
                                        dtype=mistralrs.ModelDType.F32),
            token_source="none",
        )
        results.append({"outcome": "loads", "message": None})
    except BaseException as exc:
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        lines = str(exc).strip().splitlines()
        results.append({"outcome": "panic" if type(exc).__name__ == "PanicException" else "error",
                        "message": lines[0] if lines else type(exc).__name__})
print(json.dumps(results))
'''


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    python = runtime_python("mistralrs", ["mistralrs==0.9.5"])
    scratch = tmp_path_factory.mktemp("mistralrs-probe")
    script = scratch / "probe.py"
    script.write_text(PROBE, encoding="utf-8")

    def run(jobs: list[tuple[Path, str, str | None]]) -> list[dict]:
        jobs_file = scratch / "jobs.json"
        jobs_file.write_text(json.dumps([[str(d), arch, text] for d, arch, text in jobs]), encoding="utf-8")
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
        env.update(HF_HUB_OFFLINE="1", PYTHONNOUSERSITE="1", RUST_BACKTRACE="0")
        done = subprocess.run([str(python), str(script), str(jobs_file)], capture_output=True, text=True,
                              timeout=300, env=env, check=False)
        assert done.returncode == 0, done.stderr[-3000:]
        return json.loads(done.stdout.strip().splitlines()[-1])

    return run


def _write_tokenizer(out_dir: Path, vocab_size: int) -> None:
    (out_dir / "tokenizer.json").write_text(json.dumps(tokenizer_json(vocab_size)), encoding="utf-8")
    (out_dir / "tokenizer_config.json").write_text(
        json.dumps({"tokenizer_class": "PreTrainedTokenizerFast", "bos_token": "<s>", "eos_token": "</s>",
                    "unk_token": "<unk>"}), encoding="utf-8")


def _parse_only_dir(tmp_path: Path) -> Path:
    """Tokenizer plus a placeholder safetensors file: enough for mistral.rs to reach the config parse."""
    from safetensors.numpy import save_file
    import numpy as np

    out = tmp_path / "parse-only"
    out.mkdir()
    _write_tokenizer(out, 256)
    save_file({"placeholder": np.zeros(1, dtype=np.float32)}, str(out / "model.safetensors"))
    return out


def _placeholder_config(entry) -> dict:
    """One placeholder value per required field (no serde default, not an Option), in declaration order."""
    return {name: PLACEHOLDER[field.type] for name, field in entry.fields.items()
            if field.default is REQUIRED and not field.type.startswith("option<")}


def test_activation_variants_are_the_wheels(probe, tmp_path):
    directory = _parse_only_dir(tmp_path)
    config = dict(_placeholder_config(ENTRIES["qwen2"]), hidden_act="no_such_activation")
    (result,) = probe([(directory, "Qwen2", json.dumps(config))])
    message = result["message"]
    listed = message.split("expected one of ", 1)[1].rsplit(" at line", 1)[0]
    assert tuple(name.strip("`") for name in listed.split(", ")) == knowledge.ACTIVATIONS
    assert set(knowledge.ACTIVATION_MEANING) == set(knowledge.ACTIVATIONS)
    assert set(knowledge.NEWTYPE_ACTIVATIONS) <= set(knowledge.ACTIVATIONS)


def test_missing_architectures_are_absent_from_the_wheel(probe, tmp_path):
    python = runtime_python("mistralrs", ["mistralrs==0.9.5"])
    listed = subprocess.run([str(python), "-c", "import mistralrs; print(' '.join(dir(mistralrs.Architecture)))"],
                            capture_output=True, text=True, check=True, timeout=120).stdout.split()
    assert {ARCH[family] for family in ENTRIES} <= set(listed)
    for name in ("Qwen2Moe", "Gemma3", "Olmo2", "Granite", "Ministral"):
        assert name not in listed
    assert set(knowledge.MISSING) == {"qwen2_moe", "gemma3_text", "olmo2", "granite", "ministral"}


@pytest.mark.parametrize("family", sorted(ARCH))
def test_required_fields_in_declaration_order(probe, tmp_path, family):
    entry = ENTRIES[family]
    directory = _parse_only_dir(tmp_path)
    complete = _placeholder_config(entry)
    # Job i has only the required fields before field i: the first missing one must be field i.
    jobs = []
    names = list(complete)
    for i in range(len(names)):
        jobs.append((directory, ARCH[family], json.dumps({k: complete[k] for k in names[:i]})))
    jobs.append((directory, ARCH[family], json.dumps(complete)))
    results = probe(jobs)
    for name, result in zip(names, results):
        assert result["message"].startswith(f"missing field `{name}`"), (name, result)
    # Everything the struct needs is there: the load goes on to the (placeholder) weights.
    assert "missing field" not in results[-1]["message"] and "invalid type" not in results[-1]["message"], results[-1]


def _transformers_checkpoint(family: str, out_dir: Path) -> dict:
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    torch.manual_seed(0)
    config = AutoConfig.for_model(family, **TINY, **TRANSFORMERS_KWARGS[family])
    model = AutoModelForCausalLM.from_config(config)
    model.save_pretrained(out_dir)
    _write_tokenizer(out_dir, TINY["vocab_size"])
    return json.loads((out_dir / "config.json").read_text(encoding="utf-8"))


def _layout(saved: dict, layout: str) -> dict:
    if layout == "tf5":
        return saved
    out = {k: v for k, v in saved.items() if k != "rope_parameters"}
    out["rope_theta"] = saved["rope_parameters"]["rope_theta"]
    if layout == "tf4-untied":
        out.pop("tie_word_embeddings", None)
    if layout == "tf4-both-activations":
        out["hidden_activation"] = out["hidden_act"]
    return out


def test_real_loads(probe, tmp_path):
    families = sorted({family for family, _ in OUTCOMES})
    saved = {}
    for family in families:
        saved[family] = _transformers_checkpoint(family, tmp_path / family)
        assert "rope_theta" not in saved[family] and "rope_theta" in saved[family]["rope_parameters"]
    cases = sorted(OUTCOMES)
    results = probe([(tmp_path / family, ARCH[family], json.dumps(_layout(saved[family], layout), indent=2))
                     for family, layout in cases])
    for (family, layout), result in zip(cases, results):
        expected = OUTCOMES[(family, layout)]
        if expected == "loads":
            assert result["outcome"] == "loads", (family, layout, result)
        else:
            assert result["outcome"] != "loads" and expected in result["message"], (family, layout, result)


def test_outcomes_agree_with_entries():
    """The observed table and the entries tell the same story about rope_theta."""
    for (family, layout), expected in OUTCOMES.items():
        entry = ENTRIES[family]
        theta = entry.fields["rope_theta"]
        reads_nested = "rope_parameters" in entry.fields
        if layout == "tf5":
            predicted = "loads" if reads_nested or theta.default is not REQUIRED else "missing field `rope_theta`"
            assert predicted == expected, (family, layout)
