"""transformers 4.57's layer_type_validation, on the classes that run it (knowledge.transformers4.
VALIDATES_LAYER_TYPES): every entry among its four known types, so transformers 5's legacy names ("attention",
which 5.x renames to "full_attention") are refused, and as many as the layers; gpt-oss and Gemma 2 run it before
the RoPE validation, the others after. Ministral's class validates nothing, and each layer it builds indexes the
list (INDEXES_LAYER_TYPES). The real 4.57 with torch reads each case (transformers4_family_probe.py);
cfglint's transformers-4 reading must load or refuse as it does, in its words.
"""

from __future__ import annotations

import copy

import pytest

from cfglint.compat import FAMILY_BASES
from cfglint.knowledge.transformers4 import INDEXES_LAYER_TYPES, VALIDATES_LAYER_TYPES
from tests.conformance.test_families import predicted
from tests.conformance.test_transformers4_rope_build import transformers4_reports

# two classes without layer types (not Mistral: AutoConfig reads a Mistral file with layer_types as Ministral),
# and those whose layers index theirs unvalidated
FAMILIES = (*sorted(VALIDATES_LAYER_TYPES), "phi3", "qwen2_moe", *sorted(INDEXES_LAYER_TYPES))
INDEXING = tuple(f"{family}-" for family in INDEXES_LAYER_TYPES)
_BROKEN_SCALING = {"rope_type": "yarn"}  # no factor: rope_config_validation's KeyError


def _cases() -> dict[str, dict]:
    out = {}
    for family in FAMILIES:
        base = {k: v for k, v in copy.deepcopy(FAMILY_BASES[family]).items() if k not in ("layer_types", "rope_scaling")}
        n = base["num_hidden_layers"]
        spoilt = {
            "legacy-names": ["attention"] * n,
            "one-legacy-name": ["full_attention"] * (n - 1) + ["attention"],
            "unknown-name": ["local"] * n,
            "too-short": ["full_attention"] * (n - 1),
            "a-number": 3,
            "a-string": "full_attention",
            "an-object": {"full_attention": 1},
            "null": None,
            "known-names": ["full_attention"] * n,
            "an-object-entry": [{"full_attention": 1}] * n,
            "a-number-entry": [0] * n,
        }
        for name, layer_types in spoilt.items():
            out[f"{family}-{name}"] = dict(base, layer_types=layer_types)
        out[f"{family}-legacy-names-and-broken-scaling"] = dict(base, layer_types=["attention"] * n, rope_scaling=dict(_BROKEN_SCALING))
    return out


CASES = _cases()


@pytest.fixture(scope="module")
def observed(tmp_path_factory):
    """Ministral's cases built whole (every layer indexes its layer type), the others their first layer."""
    root = tmp_path_factory.mktemp("transformers4-layer-types")
    (root / "first").mkdir()
    (root / "whole").mkdir()
    whole = {case: config for case, config in CASES.items() if case.startswith(INDEXING)}
    return {**transformers4_reports(root / "first", {c: v for c, v in CASES.items() if c not in whole}),
            **transformers4_reports(root / "whole", whole, "--generate")}


@pytest.mark.parametrize("case", sorted(CASES))
def test_transformers4_validates_layer_types_as_predicted(case, observed):
    directory, actual = observed[case]
    view = predicted(directory, "transformers-4")
    assert (view.outcome, view.message) == (actual["outcome"], actual["message"])


def test_the_cases_split_both_ways(observed):
    """transformers 4.57 refuses the legacy names in a validating class and ignores them in another, and the
    validation comes before the RoPE's in gpt-oss and after it in Qwen2 (so the tests above could fail)."""
    message = {case: actual["message"] or "" for case, (_, actual) in observed.items()}
    assert "layer_types" in message["qwen2-legacy-names"] and message["phi3-legacy-names"] == ""
    assert "layer_types" in message["gpt_oss-legacy-names-and-broken-scaling"]
    assert "KeyError" in message["qwen2-legacy-names-and-broken-scaling"]
    assert message["ministral-too-short"] == "IndexError: list index out of range"
    assert message["ministral-legacy-names"] == "at generation: KeyError: 'attention'" and message["ministral-known-names"] == ""
