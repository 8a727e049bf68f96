"""serde_json's own rules that need no schema: the value an f32 field holds, and how serde displays a JSON
value it did not expect (`Unexpected`). Shared by the serde readers' fast path and the pydantic path."""

from __future__ import annotations

import json
import struct
import sys
from typing import Any

# How serde names a scalar field type in its errors ("invalid type: null, expected a boolean").
EXPECTED = {"usize": "usize", "u32": "u32", "f32": "f32", "f64": "f64", "bool": "a boolean", "string": "a string"}
UNSIGNED_MAX = {"usize": 2**64 - 1, "u32": 2**32 - 1}


def f32(value: float) -> float:
    """The value a Rust f32 field holds."""
    try:
        return struct.unpack("f", struct.pack("f", value))[0]
    except OverflowError:  # serde_json rounds out-of-range numbers to infinity
        return float("inf") if value > 0 else float("-inf")


def unexpected(value: Any) -> str:
    """serde's `Unexpected` display for a JSON value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean `{'true' if value else 'false'}`"
    if isinstance(value, int) and not -(2**63) <= value <= 2**64 - 1:
        if abs(value) > sys.float_info.max:
            return "number out of range"  # serde_json's words for a literal no f64 holds
        value = float(value)  # serde_json reads an integer literal no i64/u64 holds as an f64
    if isinstance(value, int):
        return f"integer `{value}`"
    if isinstance(value, float):
        return f"floating point `{repr(value).replace('e+', 'e')}`"  # Rust prints 1e20, not 1e+20
    if isinstance(value, str):
        return f"string {json.dumps(value, ensure_ascii=False)}"
    if isinstance(value, list):
        return "sequence"
    return "map"


def refusal(type_name: str, value: Any) -> str:
    """serde's error for a JSON value a scalar field does not take: a number out of an unsigned type's
    range is an invalid value, anything else (null, a boolean, a float for an integer) an invalid type."""
    expected = EXPECTED[type_name]
    in_range = type(value) is int and -(2**63) <= value <= 2**64 - 1  # serde_json reads larger literals as f64
    if type_name in UNSIGNED_MAX and in_range:
        return f"invalid value: {unexpected(value)}, expected {expected}"
    return f"invalid type: {unexpected(value)}, expected {expected}"
