"""What each construct of the entry expression language means, now that an expression compiles to one
Python function: names read env (None when absent), arithmetic and ordering on the wrong types give None,
`or`/`and` return an operand as Python does, and nothing but env and the language's functions is reachable."""

from __future__ import annotations

import pytest

from cfglint.knowledge.expr import ExpressionError, compile_expression, evaluate

CASES = [
    ("absent", {}, None),
    ("a or b", {"a": 0, "b": ""}, ""),  # the last operand when none is truthy
    ("a or b", {"a": 0, "b": 5}, 5),
    ("a and b", {"a": [], "b": 5}, []),
    ("not a", {"a": None}, True),
    ("-a", {"a": 2.5}, -2.5),
    ("-a", {"a": "x"}, None),
    ("-a", {"a": True}, None),  # a boolean is not a number here
    ("a + b", {"a": True, "b": 1}, None),
    ("a / b", {"a": 1, "b": 0}, None),
    ("a * b", {"a": 1e308, "b": 10}, float("inf")),  # float overflow is inf, not an error
    ("a % b", {"a": 7, "b": 4}, 3),
    ("a > b", {"a": "x", "b": 1}, None),  # ordering across types raises TypeError in Python: None
    ("a == b", {"a": "x", "b": 1}, False),
    ("a is None", {}, True),
    ("a is not None", {"a": 0}, True),
    ("a in ['x', 'y']", {"a": "y"}, True),
    ("a not in b", {"a": 1, "b": None}, None),  # `in` on None raises TypeError: None
    ("a['k']", {"a": {"k": 3}}, 3),
    ("a['k']", {"a": [1]}, None),
    ("get(a, 'k')", {"a": {"k": None}}, None),
    ("x if c else y", {"c": 1, "x": "yes", "y": "no"}, "yes"),
    ("x if c else y", {"c": 0, "x": "yes", "y": "no"}, "no"),
    ("[a, 2, 'three']", {"a": None}, [None, 2, "three"]),
    ("int(a)", {"a": float("inf")}, None),
    ("float(a)", {"a": 10**400}, None),
    ("pattern(n, 2)", {"n": 4}, ["sliding_attention", "full_attention"] * 2),
    ("len", {"len": 3}, 3),  # a name is a key of the config, never a Python builtin
]


@pytest.mark.parametrize("text, env, expected", CASES, ids=[c[0] for c in CASES])
def test_meaning(text, env, expected):
    assert evaluate(text, env) == expected


def test_builtins_are_out_of_reach():
    with pytest.raises(ExpressionError):
        compile_expression("len(a)")  # only the language's functions may be called
    assert evaluate("__builtins__", {}) is None  # a name, read from env


def test_constants_keep_their_type():
    assert evaluate("1000000.0", {}) == 1e6 and isinstance(evaluate("1000000.0", {}), float)
    assert evaluate("'a\\'b'", {}) == "a'b"
