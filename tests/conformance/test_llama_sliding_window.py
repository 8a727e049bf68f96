"""A Llama config that gives layer_types or a sliding_window, against real mlx-lm.

transformers' Llama attends fully on every layer whatever the file says (tests/test_intent.py builds it);
mlx-lm 0.32's Llama ModelArgs reads both: a layer typed sliding_attention masks to the window, LlamaModel
builds one layer per entry of layer_types, and layer types without full_attention stop its __init__. cfglint predicts each outcome, the layer types and
the window mlx-lm builds (read off its caches by the probe), and A005 names the difference.
"""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

import cfglint
from cfglint.compat import BASE as LLAMA_BASE
from tests.conformance.test_families import checkpoint_for, mismatches, predicted, probe_reports

_N = LLAMA_BASE["num_hidden_layers"]
CASES = {
    "one-layer-slides": {"layer_types": ["sliding_attention"] + ["full_attention"] * (_N - 1), "sliding_window": 4},
    "every-layer-slides": {"layer_types": ["sliding_attention"] * _N, "sliding_window": 4},
    "window-only": {"sliding_window": 4},
    "types-without-window": {"layer_types": ["sliding_attention"] + ["full_attention"] * (_N - 1)},
    "another-type": {"layer_types": ["full_attention"] * (_N - 1) + ["linear_attention"]},
    # one layer built per entry: fewer or more than the checkpoint has, or a string's characters
    "fewer-types": {"layer_types": ["full_attention"] * (_N - 1)},
    "more-types": {"layer_types": ["full_attention"] * (_N + 1)},
    "types-a-string": {"layer_types": "full_attention"},
}
# The cases where mlx-lm applies a window transformers does not.
WINDOWED = {"one-layer-slides"}


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("llama-sliding")
    return {case: checkpoint_for(dict(copy.deepcopy(LLAMA_BASE), **keys), root / case, built_without=tuple(keys))
            for case, keys in CASES.items()}


@pytest.fixture(scope="module")
def observed(checkpoints):
    return probe_reports(checkpoints)("mlx-lm")


@pytest.mark.parametrize("case", sorted(CASES))
def test_mlx_lm_builds_the_windows_cfglint_predicts(case, checkpoints, observed):
    actual, view = observed[case], predicted(checkpoints[case], "mlx-lm")
    assert mismatches(view, actual) == [], (view.message, actual["message"])
    if actual["outcome"] == "loads":
        assert "layer_types" in actual["values"] and "layer_types" in view.values
    elif "layer_types builds" in view.message:  # the runtime lists the parameters of the checkpoint's layers
        assert actual["message"].startswith(view.message.split(":")[0] + ": " + view.message.split(": ")[1].split()[0])
    else:
        assert actual["message"] == view.message
    codes = {f.code for f in cfglint.check([str(checkpoints[case])], select=["A005"]).findings}
    assert codes == ({"A005"} if case in WINDOWED else set())
