"""From what a runtime parsed to the values it reports: expressions, sources, refusals after the parse."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from cfglint.consumers.base import Failure, View
from cfglint.knowledge.entry import REQUIRED, Entry
from cfglint.knowledge.expr import compile_expression, evaluate
from cfglint.reading import ALL_KEYS, DEFAULT, DERIVED, FIXED
from cfglint.readers.rope import read_rope

# Reading keys an entry need not spell out: the runtime reads the key of the same name, or derives it so.
IMPLIED = {
    "num_key_value_heads": "num_key_value_heads if num_key_value_heads is not None else num_attention_heads",
}


@lru_cache(maxsize=None)
def _shape(expression: str) -> tuple[str, str | None]:
    """("fixed", None) for a constant, ("key", name) for a bare name, ("first", name) for `name or ...`,
    ("derived", None) otherwise."""
    import ast

    node = ast.parse(expression, mode="eval").body
    if isinstance(node, ast.Constant):
        return "fixed", None
    if isinstance(node, ast.Name):
        return "key", node.id
    if isinstance(node, ast.BoolOp) and isinstance(node.values[0], ast.Name):
        return "first", node.values[0].id
    return "derived", None


def _source(kind: str, name: str | None, present: set[str]) -> str:
    """Where a value comes from: the key its expression names, a hard-coded constant, or a derivation."""
    if kind == "fixed":
        return FIXED
    if kind == "key":
        return "/" + name if name in present else DEFAULT
    if kind == "first" and name in present:
        return "/" + name  # `head_dim or hidden // heads` with head_dim written
    return DERIVED


Step = tuple  # (reading key, compiled expression or None, its shape, the key it names)
_PLANS: dict[int, tuple[Step, ...]] = {}  # entries live as long as the process


def plan(entry: Entry) -> tuple[Step, ...]:
    """What to compute for each reading key, in report order (an expression of None: the RoPE reading's),
    compiled once per entry."""
    if id(entry) not in _PLANS:
        out: list[Step] = []
        for key in ALL_KEYS:
            expression = entry.derive.get(key) or IMPLIED.get(key)
            if expression is None and key in entry.fields:
                expression = key
            if expression is None:
                out.append((key, None, "", None))
            else:
                out.append((key, compile_expression(expression), *_shape(expression)))
        _PLANS[id(entry)] = tuple(out)
    return _PLANS[id(entry)]


def fill(view: View, entry: Entry, env: dict[str, Any], present: set[str], doc_data: dict, intent: Any) -> View:
    """Set every reading key the entry gives, then apply its refusals; `present` holds the keys the file has
    (non-null) that the runtime read."""
    for check in entry.checks:
        if evaluate(check.when, env):
            return view.fail(Failure(check.message.format_map(_Lenient(env)), check.pointer, check.kind, check.outcome))
    try:
        rope = read_rope(entry, env, present, doc_data, intent)
    except (TypeError, ValueError, KeyError, AttributeError, IndexError, ZeroDivisionError, OverflowError) as err:
        # A value of a type the runtime's RoPE code does arithmetic on: a Python runtime stops with this same
        # kind of error; either way it does not load as meant.
        return view.fail(Failure(f"{type(err).__name__}: {err}", "/rope_scaling" if "rope_scaling" in doc_data else "", "type"))
    if isinstance(rope, Failure):
        return view.fail(rope)
    for key, compute, kind, name in plan(entry):
        if key in rope:
            view.set(key, *rope[key])
        elif compute is not None:
            view.set(key, compute(env), _source(kind, name, present))
    kinds = view.values.get("layer_types")
    if isinstance(kinds, list) and "sliding_attention" not in kinds and view.values.get("sliding_window") is not None:
        view.set("sliding_window", None, DERIVED)  # no layer slides: the window is never applied
    if hasattr(view, "ignored"):
        view.ignored = [k for k in doc_data if k not in entry.fields]
    return view


_DEFAULTS: dict[int, dict[str, Any]] = {}


def defaults(entry: Entry) -> dict[str, Any]:
    """The fields' defaults (a shared dict: callers copy it before changing anything)."""
    if id(entry) not in _DEFAULTS:
        _DEFAULTS[id(entry)] = {name: f.default for name, f in entry.fields.items() if f.default is not REQUIRED}
    return _DEFAULTS[id(entry)]


class _Lenient(dict):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"
