"""A legacy `rope_scaling` that is no dict (a number, a string, a list, a list of pairs), against the real runtimes.

Each runtime stops in its own code, before or instead of transformers 5's refusal: mlx-lm's initialize_rope
calls `.get` on anything but None (0 included) and Phi-3's ModelArgs tests `in` on it; the converter, where
AutoConfig refuses the file, works on the raw JSON in TextModel.__init__ (`in` and item assignment on it),
and for Gemma 3 its vocabulary step meets transformers 5's TypeError again; transformers 4 and mistral.rs
have their own words. cfglint predicts each outcome and its message. Families: Llama (hand-written readings)
and the data-driven families that read RoPE scaling differently (qwen2, mistral, gemma2, gemma3_text, phi3).
"""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from cfglint.compat import BASE as LLAMA_BASE
from tests.conformance.test_families import checkpoint_for, mismatches, predicted, same_words
from tests.families import BASES

FAMILIES = ("llama", "qwen2", "mistral", "gemma2", "gemma3_text", "phi3")
VALUES = {"one": 1, "true": True, "zero": 0, "string": "x", "list": [1], "pairs": [["factor", 2.0]]}
RUNTIMES = ("transformers-4", "mlx-lm", "mistralrs", "llama-cpp")


def _cases() -> dict[str, dict]:
    out = {}
    for family in FAMILIES:
        base = copy.deepcopy(LLAMA_BASE if family == "llama" else BASES[family])
        base.pop("rope_scaling", None)
        for name, value in VALUES.items():
            out[f"{family}-{name}"] = dict(base, rope_scaling=copy.deepcopy(value))
    return out


CASES = _cases()


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory) -> dict[str, Path]:
    """Each case's checkpoint, built by transformers 5 without rope_scaling, which config.json then gets."""
    root = tmp_path_factory.mktemp("scaling-not-a-dict")
    return {case: checkpoint_for(config, root / case, built_without=("rope_scaling",)) for case, config in CASES.items()}


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize("case", sorted(CASES))
def test_the_runtime_does_what_cfglint_predicts(case, runtime, checkpoints, observed):
    actual, view = observed(runtime)[case], predicted(checkpoints[case], runtime)
    if view.outcome == "not-applicable":
        assert actual["outcome"] == "not-applicable", actual
        return
    assert mismatches(view, actual) == [], (view.message, actual["message"])
    if actual["outcome"] != "loads":
        assert same_words(view.message, actual["message"]), (view.message, actual["message"])  # serde adds the position
