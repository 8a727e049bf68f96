"""RoPE parameters named after a layer type (`full_attention`, `sliding_attention`) in the dict of a family that
runs one RoPE for every layer, against llama.cpp's real converter.

The converter writes full attention's type, scaling and base frequency whenever its RoPE dict holds the key,
and sliding attention's base as `rope.freq_base_swa` (conversion/base.py set_gguf_parameters; llama.py's llama3
tensor; phi.py's own base), from what transformers 5 standardised of them where the class names that layer
type (Qwen2, Qwen3: `layer_types`) or from the file as written where it names none (Llama, Mistral, Granite).
cfglint predicts each outcome and value. Families: LlamaModel's (llama, granite), TextModel's with layer types
(qwen2), Phi-3's own.
"""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from cfglint.compat import BASE as LLAMA_BASE
from tests.conformance.test_families import checkpoint_for, mismatches, predicted, probe_reports
from tests.families import BASES, resaved

FAMILIES = ("llama", "qwen2", "granite", "phi3")
FULL = {"rope_type": "default", "rope_theta": 500000.0}
_LLAMA3 = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 64}
# name -> rope_parameters; every top level is theta 1e6, so a reading of full attention's shows.
VARIANTS = {
    "beside-the-top": {"rope_type": "default", "rope_theta": 1e6, "full_attention": FULL},
    "full-only": {"full_attention": FULL},
    "full-linear": {"rope_type": "default", "rope_theta": 1e6, "full_attention": {"rope_type": "linear", "factor": 4.0, "rope_theta": 5e5}},
    "top-linear": {"rope_type": "linear", "factor": 2.0, "rope_theta": 1e6, "full_attention": FULL},
    "full-and-sliding": {"rope_type": "default", "rope_theta": 1e6, "full_attention": FULL, "sliding_attention": {"rope_type": "default", "rope_theta": 2e4}},
    "sliding-only": {"rope_type": "linear", "factor": 2.0, "rope_theta": 1e6, "sliding_attention": {"rope_type": "default", "rope_theta": 2e4}},
    "full-without-theta": {"rope_type": "default", "rope_theta": 1e6, "full_attention": {"rope_type": "default"}},
    "full-null": {"rope_type": "default", "rope_theta": 1e6, "full_attention": None},
    "full-legacy-type": {"rope_type": "default", "rope_theta": 1e6, "full_attention": {"type": "linear", "factor": 4.0, "rope_theta": 5e5}},
    "full-yarn-without-context": {"rope_type": "default", "rope_theta": 1e6, "full_attention": {"rope_type": "yarn", "factor": 4.0, "rope_theta": 5e5}},
    "full-llama3": {"rope_type": "default", "rope_theta": 1e6, "full_attention": {**_LLAMA3, "rope_theta": 5e5}},
    "flat-llama3": {**_LLAMA3, "rope_theta": 5e5},
    "full-number-type": {"rope_type": "default", "rope_theta": 1e6, "full_attention": {"rope_type": 5, "rope_theta": 5e5}},
    # Phi-3 reads the original context from the whole dict: TextModel.__init__ mirrors none into a layered one
    "context-beside": {"rope_type": "default", "rope_theta": 1e6, "original_max_position_embeddings": 64, "full_attention": FULL},
    "context-full-without-theta": {"rope_type": "default", "rope_theta": 1e6, "original_max_position_embeddings": 64, "full_attention": {"rope_type": "default"}},
    "context-longrope": {"rope_type": "longrope", "rope_theta": 1e6, "original_max_position_embeddings": 64,
                         "short_factor": [1.0] * 8, "long_factor": [2.0] * 8, "full_attention": FULL},
}


def _cases() -> dict[str, dict]:
    out = {}
    for family in FAMILIES:
        base = resaved(copy.deepcopy(LLAMA_BASE if family == "llama" else BASES[family]))
        for key in ("rope_scaling", "rope_parameters", "rope_theta"):
            base.pop(key, None)
        for name, rope in VARIANTS.items():
            out[f"{family}-{name}"] = dict(base, rope_parameters=copy.deepcopy(rope))
    return out


CASES = _cases()


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory) -> dict[str, Path]:
    """Each case's checkpoint, built by transformers 5 without the RoPE dict, which config.json then gets."""
    root = tmp_path_factory.mktemp("layer-type-rope")
    return {case: checkpoint_for(config, root / case, built_without=("rope_parameters",)) for case, config in CASES.items()}


@pytest.fixture(scope="module")
def observed(checkpoints):
    return probe_reports(checkpoints)("llama-cpp")


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_converter_does_what_cfglint_predicts(case, checkpoints, observed):
    actual, view = observed[case], predicted(checkpoints[case], "llama-cpp")
    assert mismatches(view, actual) == [], (view.message, actual["message"])
    if actual["outcome"] != "loads":
        assert actual["message"] in view.message


def test_the_cases_are_worth_their_runs(observed):
    """Full attention's base is written where the top one is another; some cases stop the converter."""
    assert observed["qwen2-beside-the-top"]["values"]["rope_theta"] == 500000.0
    assert observed["llama-full-and-sliding"]["values"]["rope_local_base_freq"] == 20000.0
    assert {report["outcome"] for report in observed.values()} == {"loads", "error"}
