"""The shape of runtime knowledge: one Entry says how one runtime reads one model family.

An entry is data, not code: the keys the runtime reads (in declaration order, with their types and
defaults), what it derives or hard-codes (expressions over those keys, written as the runtime's code reads
them, see expr.py), which named RoPE reading applies, the refusals it raises after a clean parse, and the
source it was taken from. A few generic readers (cfglint.readers) turn an entry and a config into a reading.

Field types, as the reader understands them:
- serde readers: `usize`, `u32`, `f32`, `f64`, `bool`, `string`, `activation` (candle_nn::Activation or
  mistral.rs' own, per entry), `json` (any value), `list<f32>`, `eos` (u32 or a list of u32), and
  `option<T>` for each (absent or null -> None). A serde default fires only when the key is absent; null
  is still a type error unless the field is an option.
- Python readers (dataclass, kwargs): `any`. Nothing is type-checked; null passes through as None.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any, Mapping, NamedTuple


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()


class Source(NamedTuple):
    """Where the knowledge comes from: repository, path(s), tag or commit; and what checks it."""

    repo: str
    path: str
    ref: str
    checked_by: str = ""

    def __str__(self) -> str:
        return f"{self.repo} {self.path} @ {self.ref}"


class Field(NamedTuple):
    type: str = "any"
    default: Any = REQUIRED


class Check(NamedTuple):
    """A refusal after a clean parse: when `when` is true, the runtime stops with `message`."""

    when: str  # expression over the parsed fields
    message: str
    pointer: str = ""
    outcome: str = "error"  # or "panic"
    kind: str = "validation"
    stage: str = ""  # RUN: the runtime refuses what a converter wrote, once the conversion went through


RUN = "run"


class Entry(NamedTuple):
    runtime: str
    family: str
    reader: str  # "serde" | "dataclass" | "kwargs" | "converter" | "transformers-5"
    title: str  # e.g. "candle-transformers 0.11 models/qwen2.rs"
    source: Source
    fields: dict[str, Field]  # every key read, in declaration order
    derive: Mapping[str, str] = MappingProxyType({})  # reading key -> expression; a field of the same name is read as is
    rope: str = "plain"  # the named RoPE reading, cfglint.readers.rope
    checks: tuple[Check, ...] = ()
    struct: str = "Config"  # the serde struct or dataclass, as errors name it
    notes: str = ""  # what the runtime does that the values do not show


class Struct(NamedTuple):
    """A serde struct a hand-written reading declares: like an entry's fields, plus the named types they use
    (a nested struct, an enum's variants in serde's order, or "eos" for an untagged u32-or-list enum)."""

    runtime: str
    struct: str  # as serde names it in errors
    fields: dict[str, Field]
    types: Mapping[str, Any] = MappingProxyType({})  # type name -> Struct | tuple of variants | "eos"
    doc: str = ""


def inner_type(type_name: str, wrapper: str) -> str | None:
    """T of a field type `wrapper<T>` (`inner_type("option<usize>", "option")` is "usize"), else None."""
    if type_name.startswith(wrapper + "<") and type_name.endswith(">"):
        return type_name[len(wrapper) + 1 : -1]
    return None


# The numbers a field type holds, across the readers' vocabularies (serde's, the dataclasses', transformers
# 5's strict types), once option<T> or T? is unwrapped.
INTEGER_TYPES = frozenset({"int", "usize", "u32", "u64", "i32", "i64"})
FLOAT_TYPES = frozenset({"float", "f32", "f64"})


def number_kind(type_name: str) -> str | None:
    """"integer" or "float" for a field that holds only that kind of number, else None (`number` and
    `float | int` take both). An annotation as Python writes it ("float | None") is read member by member."""
    members = {m.strip() for m in type_name.split("|")} - {"None", "NoneType"}
    kinds = {_member_kind(m) for m in members}
    return kinds.pop() if len(kinds) == 1 else None


def _member_kind(type_name: str) -> str | None:
    base = (inner_type(type_name, "option") or type_name).rstrip("?")
    return "integer" if base in INTEGER_TYPES else "float" if base in FLOAT_TYPES else None


def fields(**declared: str | Field | tuple[str, Any]) -> dict[str, Field]:
    """`fields(vocab_size="usize", rope_theta=("f64", 10000.0))`: a type, or a (type, default) pair."""
    out = {}
    for name, spec in declared.items():
        if isinstance(spec, Field):
            out[name] = spec
        elif isinstance(spec, tuple):
            out[name] = Field(spec[0], spec[1])
        else:
            out[name] = Field(spec)
    return out
