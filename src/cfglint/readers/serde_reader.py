"""The serde reader: an entry's fields become a pydantic model with serde's types, read as serde_json does.

The pydantic model is built once per entry (`pydantic.create_model`, declaration order kept, so serde's
"first missing field" order holds) and is also what `cfglint schema` exports for the runtime and family.
Most files need no model: `accepted` checks each field's value against its serde type in plain Python, and
only a file with a value serde refuses (or a byte-order mark, a NaN literal, a duplicate key) goes through
pydantic and the translation of its errors into serde's words. tests/knowledge/test_serde_fast_path.py
holds the two equal.
"""

from __future__ import annotations

import sys
from typing import Annotated, Any, Callable, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Strict, create_model

from cfglint import knowledge
from cfglint.consumers.base import Failure, View
from cfglint.consumers.serde import F32, F64, U32, Bool, Rust, USize, deserialize, f32
from cfglint.document import Document, escape
from cfglint.knowledge.entry import REQUIRED, Entry
from cfglint.readers.values import fill

String = Annotated[str, Strict(), Rust("a string")]
SCALARS: dict[str, Any] = {"usize": USize, "u32": U32, "f32": F32, "f64": F64, "bool": Bool, "string": String, "json": Any}


def _activation(runtime: str) -> Any:
    module = knowledge.module(runtime)
    if module is None:
        raise KeyError(f"no knowledge module for {runtime}")  # every serde entry's runtime has one
    newtype = tuple(getattr(module, "NEWTYPE_ACTIVATIONS", ()))
    units = tuple(a for a in module.ACTIVATIONS if a not in newtype)
    return Annotated[Literal[units], Rust("enum Activation", variants=tuple(module.ACTIVATIONS), newtype=newtype)]


def annotation(type_name: str, runtime: str) -> Any:
    if type_name.startswith("option<") and type_name.endswith(">"):
        return Optional[annotation(type_name[7:-1], runtime)]
    if type_name == "activation":
        return _activation(runtime)
    if type_name == "eos":
        return Annotated[Union[U32, list[U32]], Rust("untagged enum EosToks", untagged=True)]
    if type_name.startswith("list<") and type_name.endswith(">"):
        return Annotated[list[annotation(type_name[5:-1], runtime)], Rust("a sequence")]  # type: ignore[misc]  # an element type built at run time
    if type_name not in SCALARS:
        raise ValueError(f"unknown serde field type {type_name!r}")
    return SCALARS[type_name]


_MODELS: dict[tuple[str, str], type[BaseModel]] = {}


def model_of(entry: Entry) -> type[BaseModel]:
    key = (entry.runtime, entry.family)
    if key not in _MODELS:
        _MODELS[key] = _build(entry)
    return _MODELS[key]


def _build(entry: Entry) -> type[BaseModel]:
    declared: dict[str, Any] = {}
    for name, spec in entry.fields.items():
        kind = annotation(spec.type, entry.runtime)
        if spec.default is not REQUIRED:
            declared[name] = (kind, spec.default)
        elif spec.type.startswith("option<"):
            declared[name] = (kind, None)
        else:
            declared[name] = (kind, ...)
    return create_model(entry.struct, __config__=ConfigDict(extra="ignore"), **declared)


# ---------------------------------------------------------------------------------------- the fast path

_U64, _U32 = 2**64 - 1, 2**32 - 1
_FLOAT_MAX = int(sys.float_info.max)
_ABSENT = object()
_REFUSED = object()  # a value serde does not take: the pydantic path says how it words the refusal


def _usize(value: Any) -> Any:
    return value if type(value) is int and 0 <= value <= _U64 else _REFUSED


def _u32(value: Any) -> Any:
    return value if type(value) is int and 0 <= value <= _U32 else _REFUSED


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


def _checker(type_name: str, runtime: str) -> Callable[[Any], Any]:
    """The value serde holds for a JSON value of this field type, or _REFUSED."""
    if type_name.startswith("option<"):
        return _optional(_checker(type_name[7:-1], runtime))
    if type_name == "activation":
        module = knowledge.module(runtime)
        names, newtype = getattr(module, "ACTIVATIONS", ()), getattr(module, "NEWTYPE_ACTIVATIONS", ())
        units = frozenset(a for a in names if a not in newtype)
        return lambda value: value if type(value) is str and value in units else _REFUSED
    simple = {"usize": _usize, "u32": _u32, "f32": _float, "f64": _float, "bool": _bool, "eos": _eos}
    if type_name == "json":
        return lambda value: value
    return simple[type_name]


_FIELDS: dict[int, tuple[tuple[str, Callable[[Any], Any], Any], ...]] = {}  # entries live as long as the process


def _fields(entry: Entry) -> tuple[tuple[str, Callable[[Any], Any], Any], ...]:
    """(name, checker, default or _ABSENT when serde requires the key) per field, in declaration order."""
    if id(entry) not in _FIELDS:
        _FIELDS[id(entry)] = tuple(
            (name, _checker(spec.type, entry.runtime),
             None if spec.default is REQUIRED and spec.type.startswith("option<") else
             _ABSENT if spec.default is REQUIRED else spec.default)
            for name, spec in entry.fields.items()
        )
    return _FIELDS[id(entry)]


def accepted(entry: Entry, doc: Document) -> dict[str, Any] | Failure | None:
    """The fields serde parses from the document; the missing-field error when every value written is one
    serde takes (serde meets missing fields when the object closes, the first declared first); None when
    the pydantic path must decide (a value refused, or a text serde_json stops at before any field)."""
    data = doc.data
    if doc.bom or doc.literals or doc.duplicates or type(data) is not dict:
        return None
    parsed: dict[str, Any] = {}
    missing = None
    for name, check, default in _fields(entry):
        value = data.get(name, _ABSENT)
        if value is _ABSENT:
            if default is _ABSENT:
                missing = missing or name
            parsed[name] = default
            continue
        value = check(value)
        if value is _REFUSED:
            return None
        parsed[name] = value
    if missing is not None:
        return Failure(f"missing field `{missing}`", "/" + escape(missing), "missing")
    return parsed


def parse(entry: Entry, doc: Document) -> dict[str, Any] | Failure:
    """What serde parses: the fast path, or pydantic's model and serde's wording of what it refuses."""
    fast = accepted(entry, doc)
    if fast is not None:
        return fast
    parsed = deserialize(model_of(entry), doc)
    if isinstance(parsed, Failure):
        return parsed
    return {name: getattr(parsed, name) for name in entry.fields}


def read(entry: Entry, doc: Document, intent: Any) -> View:
    view = View(consumer=entry.runtime)
    parsed = parse(entry, doc)
    if isinstance(parsed, Failure):
        return view.fail(parsed)
    meaning = getattr(knowledge.module(entry.runtime), "ACTIVATION_MEANING", {})
    env: dict[str, Any] = {}
    for name, spec in entry.fields.items():
        value = parsed[name]
        if "activation" in spec.type and isinstance(value, str):
            value = meaning.get(value, value)
        if spec.type in ("f32", "option<f32>") and isinstance(value, float):
            value = f32(value)
        env[name] = value
    data = doc.data if isinstance(doc.data, dict) else {}
    present = {k for k in entry.fields if data.get(k) is not None}
    return fill(view, entry, env, present, data, intent)
