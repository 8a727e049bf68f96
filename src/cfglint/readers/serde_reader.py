"""The serde reader: what candle's and mistral.rs' `#[derive(Deserialize)]` structs parse from a config.

Most files are decided in plain Python: each field's value checked against its serde type in document order,
serde's words for the first value it refuses when that value is a scalar's (a number, a boolean, or null
where none is allowed), then the first missing field. Only a file with an enum, list or untagged value serde
refuses, or a byte-order mark, a NaN literal or a duplicate key, goes through the entry's pydantic model
(readers/serde_model.py) and the translation of pydantic's errors into serde's words, so a plain check
imports pydantic only for such a file. tests/knowledge/test_serde_fast_path.py holds the two paths equal.
"""

from __future__ import annotations

import sys
from typing import Any, Callable, Mapping, NamedTuple

from cfglint import knowledge
from cfglint.consumers.base import Failure, View
from cfglint.document import Document, escape
from cfglint.knowledge.entry import REQUIRED, Entry, Struct, inner_type
from cfglint.readers.values import fill
from cfglint.serde_json import UNSIGNED_MAX, f32, refusal


# ---------------------------------------------------------------------------------------- the fast path

_FLOAT_MAX = int(sys.float_info.max)
_ABSENT = object()
_REFUSED = object()  # a value serde does not take


def _usize(value: Any) -> Any:
    return value if type(value) is int and 0 <= value <= UNSIGNED_MAX["usize"] else _REFUSED


def _u32(value: Any) -> Any:
    return value if type(value) is int and 0 <= value <= UNSIGNED_MAX["u32"] else _REFUSED


def _float(value: Any) -> Any:
    if type(value) is float:
        return value
    if type(value) is int and -_FLOAT_MAX <= value <= _FLOAT_MAX:  # serde_json reads any integer literal as an f64
        return float(value)
    return _REFUSED


def _bool(value: Any) -> Any:
    return value if type(value) is bool else _REFUSED


def _eos(value: Any) -> Any:
    if type(value) is list:
        return list(value) if all(_u32(v) is not _REFUSED for v in value) else _REFUSED
    return _u32(value)


def _optional(inner: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda value: None if value is None else inner(value)


_SCALARS = {"usize": _usize, "u32": _u32, "f32": _float, "f64": _float, "bool": _bool}


def _checker(type_name: str, runtime: str, types: Mapping[str, Any]) -> Callable[[Any], Any]:
    """The value serde holds for a JSON value of this field type, _REFUSED, or (a nested struct) its Failure."""
    inner = inner_type(type_name, "option")
    if inner is not None:
        return _optional(_checker(inner, runtime, types))
    named = types.get(type_name)
    if isinstance(named, Struct):  # a nested struct: its members, walked as the outer ones are
        return lambda value: _struct(named, value) if type(value) is dict else _struct_of_sequence(named, value) if type(value) is list else _REFUSED
    if isinstance(named, tuple):  # a unit enum: one of its variants' strings
        return lambda value: value if type(value) is str and value in named else _REFUSED
    if named == "eos":
        return _eos
    if type_name == "activation":
        module = knowledge.module(runtime)
        names, newtype = getattr(module, "ACTIVATIONS", ()), getattr(module, "NEWTYPE_ACTIVATIONS", ())
        units = frozenset(a for a in names if a not in newtype)
        return lambda value: value if type(value) is str and value in units else _REFUSED
    if type_name == "json":
        return lambda value: value
    if type_name == "map":
        return lambda value: value if type(value) is dict else _REFUSED
    if type_name == "eos":
        return _eos
    return _SCALARS[type_name]


class _Field(NamedTuple):
    check: Callable[[Any], Any]  # the value serde holds, or _REFUSED
    default: Any  # _ABSENT when serde requires the key
    scalar: str | None  # the scalar type whose refusal is worded here; None: the pydantic path words it
    defaulted: bool  # `#[serde(default)]`: a JSON array filling the struct may leave it out


_FIELDS: dict[int, dict[str, _Field]] = {}  # entries live as long as the process


def _fields(entry: Entry | Struct) -> dict[str, _Field]:
    """Each field's check, default and scalar type, in declaration order."""
    if id(entry) not in _FIELDS:
        out = {}
        for name, spec in entry.fields.items():
            inner = inner_type(spec.type, "option")
            base = inner or spec.type
            default = None if spec.default is REQUIRED and inner is not None else _ABSENT if spec.default is REQUIRED else spec.default
            check = _checker(spec.type, entry.runtime, getattr(entry, "types", {}))
            out[name] = _Field(check, default, base if base in _SCALARS else None, spec.default is not REQUIRED)
        _FIELDS[id(entry)] = out
    return _FIELDS[id(entry)]


def accepted(entry: Entry | Struct, doc: Document) -> dict[str, Any] | Failure | None:
    """What serde parses from the document, or its error, where plain Python can tell. None when the
    pydantic path must decide (an enum, list, untagged or nested value refused, or a text serde_json stops at
    before any field)."""
    data = doc.data
    if doc.bom or doc.literals or doc.duplicates or type(data) is not dict:
        return None
    return _members(entry, data)


def _members(entry: Entry | Struct, data: dict) -> dict[str, Any] | Failure | None:
    """serde walks the members in document order and stops at the first value it refuses (a nested
    struct's own first error included), then meets missing fields when the object closes, the first
    declared first."""
    fields = _fields(entry)
    parsed: dict[str, Any] = {}
    for name, value in data.items():  # json keeps members in the order written
        field = fields.get(name)
        if field is None:
            continue  # serde ignores a key its struct does not declare
        held = field.check(value)
        if held is None and value is not None:
            return None  # a nested struct the pydantic path must word
        if held is _REFUSED:
            if field.scalar is None:
                return None
            return Failure(refusal(field.scalar, value), "/" + escape(name), "type")
        if isinstance(held, Failure):
            return held._replace(pointer="/" + escape(name) + held.pointer)
        parsed[name] = held
    if len(parsed) < len(fields):
        for name, field in fields.items():
            if name not in parsed:
                if field.default is _ABSENT:
                    return Failure(f"missing field `{name}`", "/" + escape(name), "missing")
                parsed[name] = field.default
    return parsed  # in the order written, then the defaults: a dict of every field either way


def _struct(struct: Struct, data: dict) -> dict[str, Any] | Failure | None:
    """A nested struct's value: its fields in declaration order, as the pydantic path and serde hold it (the
    outer struct's order does not show: its fields become the reading's env)."""
    parsed = _members(struct, data)
    return {name: parsed[name] for name in _fields(struct)} if type(parsed) is dict else parsed


def _struct_of_sequence(struct: Struct, value: list) -> dict[str, Any] | None:
    """serde's derived visit_seq: a JSON array fills a struct's fields in declaration order. The struct where
    every element reads and every field past the end has a default; else None, for the pydantic path to word."""
    fields = _fields(struct)
    if len(value) > len(fields) or any(not f.defaulted for f in list(fields.values())[len(value):]):
        return None
    parsed = _members(struct, dict(zip(fields, value)))
    return {name: parsed[name] for name in fields} if type(parsed) is dict else None


def parse(entry: Entry | Struct, doc: Document) -> dict[str, Any] | Failure:
    """What serde parses: the plain-Python path, or the pydantic model and serde's wording of what it refuses."""
    fast = accepted(entry, doc)
    if fast is not None:
        return fast
    from cfglint.consumers.serde import deserialize
    from cfglint.readers.serde_model import model_of

    parsed = deserialize(model_of(entry), doc)
    if isinstance(parsed, Failure):
        return parsed
    return plain(parsed)


def plain(parsed: Any) -> Any:
    """A parsed pydantic struct as the plain path gives it: a dict of its fields, nested structs too."""
    if hasattr(type(parsed), "model_fields"):
        return {name: plain(getattr(parsed, name)) for name in type(parsed).model_fields}
    return parsed


def read(entry: Entry, doc: Document, intent: Any) -> View:
    view = View(consumer=entry.runtime)
    parsed = parse(entry, doc)
    if isinstance(parsed, Failure):
        return view.fail(parsed)
    env = parsed  # a dict of its own, with the values as the runtime holds them:
    for name, convert in _conversions(entry):
        value = env[name]
        if type(value) is str or type(value) is float:
            env[name] = convert(value)
    data = doc.data if isinstance(doc.data, dict) else {}
    present = {k for k in entry.fields if data.get(k) is not None}
    return fill(view, entry, env, present, data, intent)


_CONVERSIONS: dict[int, tuple[tuple[str, Callable[[Any], Any]], ...]] = {}  # entries live as long as the process


def _conversions(entry: Entry) -> tuple[tuple[str, Callable[[Any], Any]], ...]:
    """The fields whose parsed value the runtime holds otherwise: an activation's name as what it computes
    (ACTIVATION_MEANING), an f32 rounded to single precision."""
    if id(entry) not in _CONVERSIONS:
        meaning = getattr(knowledge.module(entry.runtime), "ACTIVATION_MEANING", {})
        out: list[tuple[str, Callable[[Any], Any]]] = []
        for name, spec in entry.fields.items():
            if "activation" in spec.type:
                out.append((name, lambda value: meaning.get(value, value) if type(value) is str else value))
            elif (inner_type(spec.type, "option") or spec.type) == "f32":
                out.append((name, lambda value: f32(value) if type(value) is float else value))
        _CONVERSIONS[id(entry)] = tuple(out)
    return _CONVERSIONS[id(entry)]
