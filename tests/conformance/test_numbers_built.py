"""Numbers the Python runtimes compute with as they build the model, against the real ones: YaRN's theta of 1
or 0, a beta of 0 or null, an original context of 0 (in the transformers 4 layout); a norm's eps of 0 or less;
a head_dim of null, 0 or less.

mlx-lm's YarnRoPE takes the logarithms of its correction range when the model is built, before the
tokenizer loads (a ZeroDivisionError, a math domain error, null times an int); a family whose mlx-lm module
runs no YaRN loads, and then AutoTokenizer's transformers 5 refuses what it refuses (an original context of
0 divides by zero in validate_rope). The llama.cpp converter's vocabulary step stops on that refusal too,
where it loads the config through AutoTokenizer; its Phi-3 writes a scaling only from long factors, which a
YaRN scaling has none of. Each checkpoint is built by transformers 5 without the
RoPE keys, and config.json is then written as the case's.
"""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from tests.conformance.test_families import checkpoint_for, mismatches, predicted, same_words
from tests.families import BASES

FAMILIES = ("qwen2", "qwen3", "mistral", "mixtral", "gemma2", "deepseek_v3", "phi3")
# name -> (rope_theta, the YaRN parameters besides its type, factor and original context)
NUMBERS = {
    "theta-one": (1, {}), "theta-zero": (0, {}), "beta-zero": (10000.0, {"beta_fast": 0}),
    "beta-null": (10000.0, {"beta_slow": None}), "context-zero": (10000.0, {"original_max_position_embeddings": 0}),
}
RUNTIMES = ("mlx-lm", "llama-cpp")
# mlx's nn.RMSNorm refuses an eps of 0 or less when the model is built; Gemma's own RMSNorm does not check.
# (name, eps, the keys transformers 5 builds the checkpoint without: it refuses an eps of 0 itself)
EPSILONS = (("eps-negative", -1e-06, ()), ("eps-zero", 0, ("rms_norm_eps",)))
EPS_FAMILIES = ("qwen2", "mistral", "olmo2", "gemma2", "deepseek_v3")
# A head_dim the attention divides by, multiplies or sizes a projection with (mlx-lm's modules that read it:
# knowledge.mlx_lm.ATTENTION_HEAD_DIM; Qwen2's sizes its heads as hidden // heads); the converter packs it as
# the key length. Each checkpoint is built without head_dim.
HEAD_DIMS = {"head-dim-null": None, "head-dim-zero": 0, "head-dim-negative": -4, "head-dim-string": "16"}
HEAD_DIM_FAMILIES = ("qwen2", "qwen3", "qwen3_moe", "mistral", "gemma", "gemma2", "gemma3_text", "olmo2", "gpt_oss")


def _cases() -> dict[str, dict]:
    out = {}
    for family in FAMILIES:
        base = {k: v for k, v in copy.deepcopy(BASES[family]).items() if k != "rope_parameters"}
        for name, (theta, extra) in NUMBERS.items():
            scaling = {"rope_type": "yarn", "factor": 2.0, "original_max_position_embeddings": 64, **extra}
            out[f"{family}-{name}"] = dict(copy.deepcopy(base), rope_theta=theta, rope_scaling=scaling)
    for family in EPS_FAMILIES:
        for name, eps, _ in EPSILONS:
            out[f"{family}-{name}"] = dict(copy.deepcopy(BASES[family]), rms_norm_eps=eps)
    for family in HEAD_DIM_FAMILIES:
        for name, value in HEAD_DIMS.items():
            out[f"{family}-{name}"] = dict(copy.deepcopy(BASES[family]), head_dim=value)
    return out


def _built_without(case: str) -> tuple[str, ...]:
    if any(case.endswith(name) for name in HEAD_DIMS):
        return ("head_dim",)
    return next((without for name, _, without in EPSILONS if case.endswith(name)), ("rope_scaling", "rope_theta"))


CASES = _cases()


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("numbers-built")
    return {case: checkpoint_for(config, root / case, built_without=_built_without(case)) for case, config in CASES.items()}


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize("case", sorted(CASES))
def test_the_runtime_does_what_cfglint_predicts(case, runtime, checkpoints, observed):
    actual, view = observed(runtime)[case], predicted(checkpoints[case], runtime)
    assert mismatches(view, actual) == [], (view.message, actual["message"])
    if actual["outcome"] != "loads":
        assert same_words(view.message, actual["message"]), (view.message, actual["message"])


def test_the_cases_reach_the_correction_range_and_the_validation(observed):
    """mlx-lm really built YaRN here and failed in its arithmetic, and transformers 5's validation stopped
    the ones that run no YaRN."""
    mlx = observed("mlx-lm")
    assert mlx["qwen2-theta-one"]["message"].startswith("ZeroDivisionError: float division by zero")
    assert mlx["qwen2-context-zero"]["message"].startswith("ValueError: math domain error")
    assert mlx["qwen2-beta-null"]["message"].startswith("TypeError: unsupported operand type(s) for *: 'NoneType'")
    assert mlx["gemma2-theta-one"]["outcome"] == "loads"
    assert mlx["gemma2-context-zero"]["message"].startswith("ZeroDivisionError: division by zero")
    assert observed("llama-cpp")["qwen2-context-zero"]["message"].startswith("ZeroDivisionError: division by zero")
    phi3 = observed("llama-cpp")["phi3-theta-one"]["values"]
    assert "rope_scaling" in phi3 and phi3["rope_scaling"] is None
    assert mlx["qwen2-eps-negative"]["message"] == "ValueError: [RMSNorm] 'eps' must be positive but got -1e-06."
    assert mlx["gemma2-eps-negative"]["outcome"] == "loads"
    assert mlx["qwen3-head-dim-zero"]["message"].startswith("ZeroDivisionError: 0.0 cannot be raised to a negative power")
    assert mlx["gemma2-head-dim-zero"]["message"].startswith("ZeroDivisionError: float division by zero")
    assert mlx["mistral-head-dim-negative"]["message"].startswith("ValueError: [bits] Negative dimensions not allowed.")
    assert mlx["qwen2-head-dim-negative"]["outcome"] == "loads"  # hidden // heads, whatever the file says
    assert observed("llama-cpp")["qwen2-head-dim-zero"]["values"]["head_dim"] == 0
