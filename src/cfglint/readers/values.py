"""From what a runtime parsed to the values it reports: expressions, sources, refusals after the parse."""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable

from cfglint.consumers.base import Failure, View
from cfglint.knowledge.entry import REQUIRED, RUN, Check, Entry
from cfglint.knowledge.expr import compile_expression, compile_function, python_source
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
    and truthy (`head_dim or hidden // heads` with a head_dim of 0 is derived), `name if name is not None else
    ...` that key when written, derived otherwise; anything else is derived."""
    import ast

    node = ast.parse(expression, mode="eval").body
    if isinstance(node, ast.Constant):
        return None, FIXED
    if isinstance(node, ast.Name):
        return node.id, DEFAULT
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or) and isinstance(node.values[0], ast.Name):
        return node.values[0].id, _TRUTHY
    if (isinstance(node, ast.IfExp) and isinstance(node.body, ast.Name) and isinstance(node.test, ast.Compare)
            and isinstance(node.test.left, ast.Name) and node.test.left.id == node.body.id
            and isinstance(node.test.ops[0], ast.IsNot) and isinstance(node.test.comparators[0], ast.Constant)
            and node.test.comparators[0].value is None):
        return node.body.id, DERIVED
    return None, DERIVED


_TRUTHY = "truthy"  # _shape's fallback for `name or ...`: derived, and the key only where its value is truthy


_Checks = tuple[tuple[Callable[[dict], Any], Check], ...]
_PLANS: dict[int, tuple[Callable[..., None], _Checks, _Checks]] = {}  # entries live as long as the process


def plan(entry: Entry) -> tuple[Callable[..., None], _Checks, _Checks]:
    """The function that sets every reading key the entry gives, in report order, and the refusals'
    conditions, the reading's own and those of a runtime that loads what a converter wrote: compiled once
    per entry. A key the RoPE reading gives is its; any other is its expression
    over env, sourced from its key when the file has that key, from its fallback otherwise."""
    if id(entry) not in _PLANS:
        constants: dict[str, Any] = {}
        lines = ["def steps(env, present, rope, values, sources):"]
        for key in ALL_KEYS:
            expression = entry.derive.get(key) or IMPLIED.get(key)
            if expression is None and key in entry.fields:
                expression = key
            lines += [f"    if {key!r} in rope:", f"        values[{key!r}], sources[{key!r}] = rope[{key!r}]"]
            if expression is not None:
                name, fallback = _shape(expression)
                if name is None:
                    source = repr(fallback)
                elif fallback == _TRUTHY:
                    source = f"{'/' + name!r} if {name!r} in present and env.get({name!r}) else {DERIVED!r}"
                else:
                    source = f"{'/' + name!r} if {name!r} in present else {fallback!r}"
                lines += ["    else:", f"        values[{key!r}] = {python_source(expression, constants)}",
                          f"        sources[{key!r}] = {source}"]
        steps = compile_function("\n".join(lines) + "\n", "steps", constants)
        checks = tuple((compile_expression(check.when), check) for check in entry.checks)
        _PLANS[id(entry)] = steps, tuple(c for c in checks if c[1].stage != RUN), tuple(c for c in checks if c[1].stage == RUN)
    return _PLANS[id(entry)]


def fill(view: View, entry: Entry, env: dict[str, Any], present: set[str], doc_data: dict, intent: Any) -> View:
    """Apply the entry's refusals, set every reading key it gives, then apply the refusals of the runtime
    that loads what a converter wrote (a failure of stage RUN, over a view that keeps the values, so that
    the converter's own later refusals can still take its place); `present` holds the keys the file has
    (non-null) that the runtime read."""
    steps, checks, run_checks = plan(entry)
    for when, check in checks:
        if when(env):
            return view.fail(_failure(check, env))
    try:
        rope = read_rope(entry, env, present, doc_data, intent)
    except (TypeError, ValueError, KeyError, AttributeError, IndexError, ZeroDivisionError, OverflowError) as err:
        # A value of a type the runtime's RoPE code does arithmetic on: a Python runtime stops with this same
        # kind of error; either way it does not load as meant.
        return view.fail(Failure(f"{type(err).__name__}: {err}", "/rope_scaling" if "rope_scaling" in doc_data else "", "type"))
    if isinstance(rope, Failure):
        return view.fail(rope)
    values = view.values
    steps(env, present, rope, values, view.sources)
    kinds = values.get("layer_types")
    if isinstance(kinds, list) and "sliding_attention" not in kinds and values.get("sliding_window") is not None:
        view.set("sliding_window", None, DERIVED)  # no layer slides: the window is never applied
    for when, check in run_checks:
        if when(env):
            return view.fail(_failure(check, env))
    return view


def _failure(check: Check, env: dict[str, Any]) -> Failure:
    return Failure(check.message.format_map(_Lenient(env)), check.pointer, check.kind, check.outcome, check.stage)


_DEFAULTS: dict[int, dict[str, Any]] = {}


def defaults(entry: Entry) -> dict[str, Any]:
    """The fields' defaults (a shared dict: callers copy it before changing anything)."""
    if id(entry) not in _DEFAULTS:
        _DEFAULTS[id(entry)] = {name: f.default for name, f in entry.fields.items() if f.default is not REQUIRED}
    return _DEFAULTS[id(entry)]


class _Lenient(dict):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"
