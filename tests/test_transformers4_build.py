"""transformers 4's reading refuses what building the model refuses, not only what its config class refuses.

The expected outcomes are what real transformers 4.57.6 with torch raised for these files
(tests/conformance/test_transformers4_rope_build.py runs the same kinds of case against it).
"""

from __future__ import annotations

import copy
import json

import pytest

from cfglint import consumers, document
from cfglint.compat import BASE as LLAMA_BASE
from cfglint.compat import FAMILY_BASES
from cfglint.engine import context_of


def _reading(tmp_path, family: str, **changes):
    config = copy.deepcopy(LLAMA_BASE if family == "llama" else FAMILY_BASES[family])
    config.pop("rope_parameters", None)
    for key, value in changes.items():
        if value is _ABSENT:
            config.pop(key, None)
        else:
            config[key] = value
    (tmp_path / "config.json").write_text(json.dumps(config), encoding="utf-8")
    return context_of(document.load(tmp_path / "config.json"), [consumers.get("transformers-4")]).views["transformers-4"]


_ABSENT = object()
_MISSING_TYPE = "KeyError: \"Missing required keys in `rope_scaling` for 'rope_type'='None': {'rope_type'}\""


@pytest.mark.parametrize(("family", "changes", "outcome", "message", "pointer"), [
    # a type ROPE_INIT_FUNCTIONS does not build: the config class only warns
    ("qwen2", {"rope_scaling": {"rope_type": "proportional"}}, "error", "KeyError: 'proportional'", "/rope_scaling/rope_type"),
    ("llama", {"rope_scaling": {"type": "su", "factor": 2.0}}, "error", "KeyError: 'su'", "/rope_scaling/type"),
    ("mistral", {"rope_scaling": {"type": None, "factor": 2.0}}, "error", "KeyError: None", "/rope_scaling/type"),
    # a class that copies the legacy type over rope_type runs it; one that does not runs rope_type
    ("qwen2", {"rope_scaling": {"type": "linear", "rope_type": "foo", "factor": 2.0}}, "loads", None, None),
    ("gemma2", {"rope_scaling": {"type": "linear", "rope_type": "foo", "factor": 2.0}}, "error", "KeyError: 'foo'", "/rope_scaling/rope_type"),
    # a dict without a type: every validator requires rope_type; a class that validates nothing builds None
    ("llama", {"rope_scaling": {}}, "error", _MISSING_TYPE, "/rope_scaling"),
    ("qwen3", {"rope_scaling": {"factor": 2.0}}, "error", _MISSING_TYPE, "/rope_scaling"),
    ("mixtral", {"rope_scaling": {"factor": 2.0}}, "error", "KeyError: None", "/rope_scaling"),
    # an init function's own keys, where no validator asked for them first
    ("gemma", {"rope_scaling": {"rope_type": "linear"}}, "error", "KeyError: 'factor'", "/rope_scaling"),
    ("mistral", {"rope_scaling": {"rope_type": "llama3", "factor": 2.0}}, "error", "KeyError: 'low_freq_factor'", "/rope_scaling"),
    # dynamic, yarn and longrope multiply the head_dim attribute: Mixtral's is None unless the file gives one
    ("mixtral", {"rope_scaling": {"rope_type": "yarn", "factor": 2.0}, "head_dim": _ABSENT}, "error",
     "TypeError: unsupported operand type(s) for *: 'NoneType' and 'float'", "/rope_scaling"),
    # ... unless the layers' attention, built first, divides by it (Qwen2's scale)
    ("qwen2", {"rope_scaling": {"rope_type": "dynamic", "factor": 2.0}, "head_dim": None}, "error",
     "TypeError: unsupported operand type(s) for ** or pow(): 'NoneType' and 'float'", "/head_dim"),
    ("mixtral", {"rope_scaling": {"rope_type": "dynamic", "factor": 2.0}, "head_dim": None}, "error",
     "TypeError: unsupported operand type(s) for *: 'NoneType' and 'float'", "/head_dim"),
    ("llama", {"rope_scaling": {"rope_type": "dynamic", "factor": 2.0}, "head_dim": None}, "loads", None, None),
    ("mixtral", {"rope_scaling": {"rope_type": "linear", "factor": 2.0}, "head_dim": _ABSENT}, "loads", None, None),
    # a value that is not a dict: __init__'s `"type" in rope_scaling`, or the validator's .get
    ("llama", {"rope_scaling": False}, "error", "TypeError: argument of type 'bool' is not iterable", "/rope_scaling"),
    ("qwen2", {"rope_scaling": "linear"}, "error", "AttributeError: 'str' object has no attribute 'get'", "/rope_scaling"),
    ("granite", {"rope_scaling": 0}, "error", "AttributeError: 'int' object has no attribute 'get'", "/rope_scaling"),
    ("mistral", {"rope_scaling": "linear"}, "loads", None, None),
])
def test_transformers4_refuses_what_building_its_model_refuses(tmp_path, family, changes, outcome, message, pointer):
    view = _reading(tmp_path, family, **changes)
    assert (view.outcome, view.message) == (outcome, message)
    assert (view.failure.pointer if view.failure else None) == pointer
