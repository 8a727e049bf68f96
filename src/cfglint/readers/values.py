"""From what a runtime parsed to the values it reports: expressions, sources, refusals after the parse."""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable, Optional

from cfglint.consumers.base import Failure, View
from cfglint.knowledge.entry import REQUIRED, Check, Entry
from cfglint.knowledge.expr import compile_expression
from cfglint.reading import ALL_KEYS, DEFAULT, DERIVED, FIXED
from cfglint.readers.rope import read_rope

# Reading keys an entry need not spell out: the runtime reads the key of the same name, or derives it so.
IMPLIED = {
    "num_key_value_heads": "num_key_value_heads if num_key_value_heads is not None else num_attention_heads",
}


@lru_cache(maxsize=None)
def _shape(expression: str) -> tuple[str | None, str]:
    """Where a value comes from: (the key that is its source when the file has it, else the fallback).
    A constant is hard-coded; a bare name is that key or the default; `name or ...` is that key when written
    (`head_dim or hidden // heads` with head_dim written), derived otherwise; anything else is derived."""
    import ast

    node = ast.parse(expression, mode="eval").body
    if isinstance(node, ast.Constant):
        return None, FIXED
    if isinstance(node, ast.Name):
        return node.id, DEFAULT
    if isinstance(node, ast.BoolOp) and isinstance(node.values[0], ast.Name):
        return node.values[0].id, DERIVED
    return None, DERIVED


# A step: (reading key, compiled expression or None for the RoPE reading's, the key that is its source when
# present, that key's pointer, the source otherwise).
Step = tuple[str, Optional[Callable[[dict], Any]], Optional[str], str, str]
_PLANS: dict[int, tuple[tuple[Step, ...], tuple[tuple[Callable[[dict], Any], Check], ...]]] = {}  # entries live as long as the process


def plan(entry: Entry) -> tuple[tuple[Step, ...], tuple[tuple[Callable[[dict], Any], Check], ...]]:
    """What to compute for each reading key, in report order, and the refusals' conditions: compiled once
    per entry."""
    if id(entry) not in _PLANS:
        out: list[Step] = []
        for key in ALL_KEYS:
            expression = entry.derive.get(key) or IMPLIED.get(key)
            if expression is None and key in entry.fields:
                expression = key
            if expression is None:
                out.append((key, None, None, "", ""))
            else:
                name, fallback = _shape(expression)
                out.append((key, compile_expression(expression), name, f"/{name}", fallback))
        checks = tuple((compile_expression(check.when), check) for check in entry.checks)
        _PLANS[id(entry)] = tuple(out), checks
    return _PLANS[id(entry)]


def fill(view: View, entry: Entry, env: dict[str, Any], present: set[str], doc_data: dict, intent: Any) -> View:
    """Set every reading key the entry gives, then apply its refusals; `present` holds the keys the file has
    (non-null) that the runtime read."""
    steps, checks = plan(entry)
    for when, check in checks:
        if when(env):
            return view.fail(Failure(check.message.format_map(_Lenient(env)), check.pointer, check.kind, check.outcome))
    try:
        rope = read_rope(entry, env, present, doc_data, intent)
    except (TypeError, ValueError, KeyError, AttributeError, IndexError, ZeroDivisionError, OverflowError) as err:
        # A value of a type the runtime's RoPE code does arithmetic on: a Python runtime stops with this same
        # kind of error; either way it does not load as meant.
        return view.fail(Failure(f"{type(err).__name__}: {err}", "/rope_scaling" if "rope_scaling" in doc_data else "", "type"))
    if isinstance(rope, Failure):
        return view.fail(rope)
    values, sources = view.values, view.sources
    for key, compute, name, pointer, fallback in steps:
        if key in rope:
            values[key], sources[key] = rope[key]
        elif compute is not None:
            values[key] = compute(env)
            sources[key] = pointer if name is not None and name in present else fallback
    kinds = values.get("layer_types")
    if isinstance(kinds, list) and "sliding_attention" not in kinds and values.get("sliding_window") is not None:
        view.set("sliding_window", None, DERIVED)  # no layer slides: the window is never applied
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
