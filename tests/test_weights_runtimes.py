"""The weight predictions against the real runtimes loading every weights sample.

For each `samples/weights-*` directory, transformers 5 (with torch, from the test extras) loads the
checkpoint with `from_pretrained`; what it reports (refuses to load, missing keys, unexpected keys, whether
the head is tied, the dtype it loads in) must be what cfglint's reference plan predicted from headers.
mlx-lm, mistral.rs, transformers 4 and llama.cpp's converter load the same directories in their own venvs,
against their consumers' plans.
"""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from cfglint import consumers, document
from cfglint.engine import context_of
from cfglint.weights import loading
from cfglint.weights.layout import HEAD
from tests.conftest import SAMPLES

WEIGHT_SAMPLES = sorted(p.name for p in SAMPLES.glob("weights-*") if (p / "config.json").is_file())
TORCH_DTYPES = {"float16": "torch.float16", "bfloat16": "torch.bfloat16", "float32": "torch.float32"}


def load_with_transformers(directory):
    from transformers import AutoModelForCausalLM

    try:
        model, info = AutoModelForCausalLM.from_pretrained(str(directory), output_loading_info=True)
    except Exception as err:  # the outcome under test: transformers refuses the checkpoint
        return {"outcome": "error", "message": str(err)}
    return {
        "outcome": "loads",
        "missing": set(info["missing_keys"]),
        "unexpected": set(info["unexpected_keys"]),
        "tied": model.lm_head.weight.data_ptr() == model.model.embed_tokens.weight.data_ptr(),
        "dtype": str(model.dtype),
    }


def test_there_are_weight_samples():
    assert len(WEIGHT_SAMPLES) >= 15


@pytest.mark.parametrize("sample", WEIGHT_SAMPLES)
def test_transformers5_loads_each_sample_as_predicted(sample):
    pytest.importorskip("torch")
    directory = SAMPLES / sample
    ctx = context_of(document.load(directory / "config.json"), [])
    plan = loading.plan(ctx)[loading.REFERENCE]
    got = load_with_transformers(directory)
    if plan.outcome == "error":
        assert got["outcome"] == "error", got
        return
    assert got["outcome"] == "loads", got
    refused = {n for n in plan.unused if not plan.loader.drops(n, plan.tie)}
    assert got["missing"] == set(plan.missing)
    assert got["unexpected"] == refused
    assert got["tied"] == (HEAD not in plan.expected)
    assert got["dtype"] == TORCH_DTYPES[ctx.intent.dtype]
    assert (plan.outcome == "warns") == bool(got["missing"] or got["unexpected"] or (plan.tie and not got["tied"]))


# --- mlx-lm and mistral.rs, run for real in their own venvs, against their consumer profiles ------------

MLX_PROBE = """
import json, sys
from pathlib import Path
import mlx_lm.utils
out = {}
for d in sys.argv[1:]:
    try:
        mlx_lm.utils.load_model(Path(d))
        out[Path(d).name] = {"outcome": "loads", "message": None}
    except Exception as err:
        out[Path(d).name] = {"outcome": "error", "message": f"{type(err).__name__}: {err}"}
print(json.dumps(out))
"""


def consumer_plan(directory, consumer):
    """The load cfglint predicts for one consumer, from its real profile; None when its config reading fails."""
    ctx = context_of(document.load(directory / "config.json"), [consumers.get(consumer)])
    return loading.plan(ctx).get(consumer)


def named_tensor(plan):
    """The tensor cfglint names as the first problem, which the runtime's message must name too."""
    refused = [n for n in plan.unused if not plan.loader.drops(n, plan.tie)]
    return (plan.missing + [m.name for m in plan.mismatched] + refused)[0]


def compare(plan, got):
    predicted = "error" if plan.outcome in ("error", "panic") else "loads"
    if got["outcome"] != predicted:
        return (plan.outcome, plan.message, got)
    if predicted == "error" and not plan.message.startswith("model.safetensors") and named_tensor(plan) not in got["message"]:
        return (plan.message, got["message"])
    return None


def test_mlx_lm_loads_each_sample_as_predicted():
    from tests.conformance.venvs import runtime_python

    python = runtime_python("mlx-lm", ["mlx[cpu]", "mlx-lm"])
    dirs = [str(SAMPLES / s) for s in WEIGHT_SAMPLES]
    proc = subprocess.run([str(python), "-c", MLX_PROBE, *dirs], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    mismatches = {s: compare(consumer_plan(SAMPLES / s, "mlx-lm"), got[s]) for s in WEIGHT_SAMPLES}
    assert {s: m for s, m in mismatches.items() if m is not None} == {}


def test_mistralrs_loads_each_sample_as_predicted(tmp_path):
    from tests.conformance.tiny_checkpoint import _tokenizer_config, tokenizer_json
    from tests.conformance.venvs import run_probe, runtime_python

    python = runtime_python("mistralrs", ["mistralrs==0.9.5"])
    mismatches, checked = {}, 0
    for sample in WEIGHT_SAMPLES:
        plan = consumer_plan(SAMPLES / sample, "mistralrs")
        if plan is None:
            continue  # mistral.rs refuses the config itself (L001 covers it)
        model = tmp_path / sample
        shutil.copytree(SAMPLES / sample, model)  # mistral.rs also needs a tokenizer to load
        vocab = json.loads((model / "config.json").read_text())["vocab_size"]
        (model / "tokenizer.json").write_text(json.dumps(tokenizer_json(vocab)))
        (model / "tokenizer_config.json").write_text(json.dumps(_tokenizer_config()))
        got = run_probe(python, "mistralrs_probe.py", str(model), env={"HF_HUB_OFFLINE": "1"})
        got["message"] = got.get("message") or ""
        checked += 1
        if (m := compare(plan, got)) is not None:
            mismatches[sample] = m
    assert checked >= 12 and mismatches == {}


TRANSFORMERS4_PROBE = """
import json, sys
from pathlib import Path
from transformers import AutoModelForCausalLM
out = {}
for d in sys.argv[1:]:
    try:
        model, info = AutoModelForCausalLM.from_pretrained(d, output_loading_info=True)
        tied = model.lm_head.weight.data_ptr() == model.model.embed_tokens.weight.data_ptr()
        out[Path(d).name] = {"outcome": "loads", "missing": sorted(info["missing_keys"]), "unexpected": sorted(info["unexpected_keys"]), "tied": tied}
    except Exception as err:
        out[Path(d).name] = {"outcome": "error", "message": f"{type(err).__name__}: {err}"}
print(json.dumps(out))
"""


def test_transformers4_loads_each_sample_as_predicted():
    from tests.conformance.venvs import TRANSFORMERS4_WITH_TORCH, runtime_python

    # torch pinned to the CPU build; transformers 4 cannot share the test environment's transformers 5.
    python = runtime_python(*TRANSFORMERS4_WITH_TORCH)
    dirs = [str(SAMPLES / s) for s in WEIGHT_SAMPLES]
    proc = subprocess.run([str(python), "-c", TRANSFORMERS4_PROBE, *dirs], capture_output=True, text=True, timeout=900,
                          env={"HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    mismatches = {}
    for sample in WEIGHT_SAMPLES:
        plan = consumer_plan(SAMPLES / sample, "transformers-4")
        if plan.mismatched and got[sample]["outcome"] == "error":
            # transformers 4 names only the parameter's local name: "size mismatch for weight: ..."
            if "size mismatch for weight" not in got[sample]["message"]:
                mismatches[sample] = (plan.message, got[sample]["message"])
        elif (m := compare(plan, got[sample])) is not None:
            mismatches[sample] = m
        elif got[sample]["outcome"] == "loads":
            refused = sorted(n for n in plan.unused if not plan.loader.drops(n, plan.tie))
            seen = (got[sample]["missing"], got[sample]["unexpected"], got[sample]["tied"])
            if seen != (sorted(plan.missing), refused, HEAD not in plan.expected):
                mismatches[sample] = (plan.missing, refused, seen)
    assert mismatches == {}


def test_llama_cpp_converter_converts_each_sample_as_predicted(tmp_path):
    """llama.cpp's side that runs here is its HF -> GGUF converter: it refuses a tensor it cannot map and a
    file it cannot read. A missing tensor or a wrong shape passes conversion and fails in the runtime's
    loader (C++, not built here), so for those the converter must succeed."""
    from tests.conformance.llama_cpp_converter import converter_python, ensure_converter
    from tests.conformance.tiny_checkpoint import _tokenizer_config, tokenizer_json
    from tests.conformance.venvs import run_probe

    python, converter = converter_python("5.24.0"), ensure_converter()
    mismatches, refusals = {}, 0
    for sample in WEIGHT_SAMPLES:
        plan = consumer_plan(SAMPLES / sample, "llama-cpp")
        model = tmp_path / sample
        shutil.copytree(SAMPLES / sample, model)  # the converter also reads the tokenizer
        vocab = json.loads((model / "config.json").read_text())["vocab_size"]
        (model / "tokenizer.json").write_text(json.dumps(tokenizer_json(vocab)))
        (model / "tokenizer_config.json").write_text(json.dumps(_tokenizer_config()))
        got = run_probe(python, "llama_cpp_probe.py", str(model), "--converter", str(converter))
        refused = [n for n in plan.unused if not plan.loader.drops(n, plan.tie)]
        unreadable = plan.outcome == "error" and plan.message.startswith("model.safetensors")
        if refused or unreadable:  # cfglint predicts the converter's refusal, naming the same tensor
            refusals += 1
            named = not refused or (refused[0] in got["message"] and refused[0] in plan.message)
            agrees = got["outcome"] == "error" and plan.outcome == "error" and named
        elif plan.missing or plan.mismatched:  # converted; the runtime's loader refuses it later
            agrees = got["outcome"] == "loads" and plan.outcome == "error"
        else:
            agrees = got["outcome"] == "loads" and plan.outcome != "error"
        if not agrees:
            mismatches[sample] = (plan.outcome, plan.message, got["outcome"], got["message"])
    assert refusals >= 2 and mismatches == {}
