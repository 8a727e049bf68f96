"""The report encoder writes exactly what json.dumps(indent=2, ensure_ascii=False) writes."""

from __future__ import annotations

import json
from enum import Enum, IntEnum

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cfglint.report.indented_json import dumps

scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text()
keys = st.text() | st.integers() | st.floats() | st.booleans() | st.none()
values = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=4) | st.tuples(children, children)
    | st.dictionaries(keys, children, max_size=4),
    max_leaves=30,
)


@settings(max_examples=150, deadline=None)
@given(values)
def test_same_text_as_json_dumps(value):
    assert dumps(value) == json.dumps(value, indent=2, ensure_ascii=False)


class Color(str, Enum):
    RED = "red"


class Size(IntEnum):
    BIG = 7


@pytest.mark.parametrize("value", [
    [Color.RED, {"k": Size.BIG}], {Size.BIG: 1}, {"é\u2028": "\x00\"\\ snow ☃"}, [float("nan"), float("-inf")],
    {"nested": [[], {}, [{}], {"a": []}]}, "plain", 10**40,
])
def test_subclasses_and_escapes(value):
    assert dumps(value) == json.dumps(value, indent=2, ensure_ascii=False)


def test_what_json_refuses_it_refuses_alike():
    circular: list = []
    circular.append(circular)
    with pytest.raises(ValueError, match="Circular reference"):
        dumps(circular)
    with pytest.raises(TypeError, match="not JSON serializable"):
        dumps({"a": {1, 2}})
    with pytest.raises(TypeError, match="keys must be"):
        dumps({(1, 2): 3})
