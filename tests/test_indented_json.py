"""The report encoder writes exactly what json.dumps(indent=2, ensure_ascii=False) writes."""

from __future__ import annotations

import json
from enum import Enum, IntEnum

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cfglint.report.indented_json import dumps
from tests.conftest import examples

scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text()
keys = st.text() | st.integers() | st.floats() | st.booleans() | st.none()
values = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=4) | st.tuples(children, children)
    | st.dictionaries(keys, children, max_size=4),
    max_leaves=30,
)


@settings(max_examples=examples(150), deadline=None)
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


def _diagnostics():
    from cfglint.diagnostics import Applicability, Diagnostic, Edit, Effect, Fix, Severity

    effects = (Effect("candle", "uses", 10000.0, "default"), Effect("mlx-lm", "uses", [1, {"k": None}], ""))
    fix = Fix("add it", Applicability.SAFE, (Edit("set", "/rope_theta", 1e6),))
    one = dict(code="R001", name="n", severity=Severity.ERROR, message="m", path="a/config.json", line=2, column=3, pointer="/x")
    return [
        Diagnostic(**one, effects=effects, fix=fix),
        Diagnostic(**{**one, "path": "b/config.json", "line": 9}, effects=effects, fix=fix),  # shares its effects and fix
        Diagnostic(**one, effects=effects[:1], fix=None),
        Diagnostic(**one, effects=effects, fix=fix, extra={"message": "replaced", "repo": "o/n"}),
        Diagnostic(**one),
    ]


def test_the_json_report_is_json_dumps_of_the_findings():
    from cfglint.report import json_format

    found = _diagnostics()
    for diagnostics in (found, found[:1], []):
        expected = json.dumps([d.to_json() for d in diagnostics], indent=2, ensure_ascii=False) + "\n"
        assert json_format.render(diagnostics, {}, None) == expected
    assert json.loads(json_format.render(found, {}, None))[3]["message"] == "replaced"


def test_the_json_report_refuses_what_json_refuses():
    from cfglint.diagnostics import Effect
    from cfglint.report import json_format

    bad = _diagnostics()[0]._replace(effects=(Effect("candle", "uses", {1, 2}, ""),))
    with pytest.raises(TypeError, match="not JSON serializable"):
        json_format.render([bad], {}, None)
