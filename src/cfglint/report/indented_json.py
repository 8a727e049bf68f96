"""`json.dumps(value, indent=2, ensure_ascii=False)`, several times faster.

With an indent, the standard library encodes in pure Python through a generator per container; a report
of thousands of findings spends more time there than in the rules. This builds each container's text
with one join. The output is the standard library's, byte for byte: anything this encoder does not
handle (another type, a circular reference) goes to `json.dumps`, which encodes or raises as it would.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring as _quote  # the C function ensure_ascii=False uses
from typing import Any

_INF = float("inf")


def dumps(value: Any) -> str:
    try:
        return _encode(value, "\n")
    except (TypeError, ValueError, RecursionError):
        return json.dumps(value, indent=2, ensure_ascii=False)


def _float(number: float) -> str:
    if number != number:
        return "NaN"
    if number == _INF:
        return "Infinity"
    if number == -_INF:
        return "-Infinity"
    return float.__repr__(number)


def _key(key: Any) -> str:
    """A member name as json spells it: strings as they are, numbers, booleans and null as their JSON text."""
    if isinstance(key, str):
        return key
    if key is None or isinstance(key, (int, float)):  # bool is an int
        return _encode(key, "")
    raise TypeError(f"keys must be str, int, float, bool or None, not {type(key).__name__}")


def _encode(value: Any, pad: str) -> str:
    """`pad` is a newline and the current level's indent: the text of a closing bracket's line."""
    if isinstance(value, str):
        return _quote(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        return _float(value)
    inner = pad + "  "
    if isinstance(value, (list, tuple)):
        if not value:
            return "[]"
        items = [_quote(item) if type(item) is str else _encode(item, inner) for item in value]
        return "[" + inner + ("," + inner).join(items) + pad + "]"
    if isinstance(value, dict):
        if not value:
            return "{}"
        return "{" + inner + ("," + inner).join(members(value, inner)) + pad + "}"
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def members(value: dict, inner: str) -> list[str]:
    """An object's members as they are written at the indent `inner` (a newline and spaces), without the
    separators: `"key": value`. Raises TypeError for what dumps leaves to json.dumps."""
    return [  # most keys and values are plain strings or integers: no call for them
        _quote(k if type(k) is str else _key(k)) + ": "
        + (_quote(v) if type(v) is str else int.__repr__(v) if type(v) is int else _encode(v, inner))
        for k, v in value.items()
    ]
