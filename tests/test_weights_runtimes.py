"""The weight predictions against real transformers 5 loading every weights sample.

For each `samples/weights-*` directory, transformers 5 (with torch, from the test extras) loads the
checkpoint with `from_pretrained`; what it reports (refuses to load, missing keys, unexpected keys, whether
the head is tied, the dtype it loads in) must be what cfglint's reference plan predicted from headers.
"""

from __future__ import annotations

import pytest

from cfglint import document
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


# --- mlx-lm: its strict load, run for real in its own venv ---------------------------------------------------

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


def mlx_plan(directory):
    """The mlx-lm load predicted for a directory, from mlx-lm's reading: the intent, tie defaulting to true."""
    from cfglint.consumers.base import View

    ctx = context_of(document.load(directory / "config.json"), [])
    values = dict(ctx.intent.values, tie_word_embeddings=ctx.config.get("tie_word_embeddings", True))
    ctx.views = {"mlx-lm": View(values=values, sources=dict(ctx.intent.sources), consumer="mlx-lm")}
    return loading.plan(ctx)["mlx-lm"]


def test_mlx_lm_loads_each_sample_as_predicted():
    import json
    import subprocess

    from tests.conformance.venvs import runtime_python

    python = runtime_python("mlx-lm", ["mlx[cpu]", "mlx-lm"])
    dirs = [str(SAMPLES / s) for s in WEIGHT_SAMPLES]
    proc = subprocess.run([str(python), "-c", MLX_PROBE, *dirs], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    mismatches = {}
    for sample in WEIGHT_SAMPLES:
        plan = mlx_plan(SAMPLES / sample)
        predicted = "error" if plan.outcome in ("error", "panic") else "loads"
        if got[sample]["outcome"] != predicted:
            mismatches[sample] = (plan.outcome, plan.message, got[sample])
        elif predicted == "error" and not plan.message.startswith("model.safetensors"):
            # the tensor cfglint names is the one mlx-lm complains about
            named = (plan.missing + [n for n in plan.unused if not plan.loader.drops(n, plan.tie)] + [m.name for m in plan.mismatched])[0]
            if named not in got[sample]["message"]:
                mismatches[sample] = (plan.message, got[sample]["message"])
    assert mismatches == {}
