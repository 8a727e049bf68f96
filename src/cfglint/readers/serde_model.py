"""The pydantic model of a serde entry: its fields with serde's types, read as serde_json does.

Built once per entry (`pydantic.create_model`, declaration order kept, so serde's "first missing field" order
holds); it is what `cfglint schema` exports for the runtime and family, and what words serde's refusals where
the serde reader's plain-Python path leaves them to it.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Annotated, Any, Literal, Mapping, Optional, Union

from pydantic import BaseModel, ConfigDict, Strict, create_model

from cfglint import knowledge
from cfglint.consumers.serde import F32, F64, U32, Bool, Rust, USize
from cfglint.knowledge.entry import REQUIRED, Entry, Struct, inner_type
from cfglint.serde_json import EXPECTED

String = Annotated[str, Strict(), Rust(EXPECTED["string"])]
SCALARS: dict[str, Any] = {"usize": USize, "u32": U32, "f32": F32, "f64": F64, "bool": Bool, "string": String, "json": Any, "map": dict}


def _activation(runtime: str) -> Any:
    module = knowledge.module(runtime)
    if module is None:
        raise KeyError(f"no knowledge module for {runtime}")  # every serde entry's runtime has one
    newtype = tuple(getattr(module, "NEWTYPE_ACTIVATIONS", ()))
    units = tuple(a for a in module.ACTIVATIONS if a not in newtype)
    return Annotated[Literal[units], Rust("enum Activation", variants=tuple(module.ACTIVATIONS), newtype=newtype)]


def annotation(type_name: str, runtime: str, types: Mapping[str, Any] = MappingProxyType({})) -> Any:
    inner = inner_type(type_name, "option")
    if inner is not None:
        return Optional[annotation(inner, runtime, types)]
    named = types.get(type_name)
    if isinstance(named, Struct):
        return Annotated[model_of(named), Rust(f"struct {named.struct}")]
    if isinstance(named, tuple):
        return Annotated[Literal[named], Rust(f"enum {type_name}", variants=named)]
    if named == "eos" or type_name == "eos":
        name = type_name if named else "EosToks"
        return Annotated[Union[U32, list[U32]], Rust(f"untagged enum {name}", untagged=True)]
    if type_name == "activation":
        return _activation(runtime)
    element = inner_type(type_name, "list")
    if element is not None:
        return Annotated[list[annotation(element, runtime)], Rust("a sequence")]  # type: ignore[misc]  # an element type built at run time
    if type_name not in SCALARS:
        raise ValueError(f"unknown serde field type {type_name!r}")
    return SCALARS[type_name]


_MODELS: dict[int, type[BaseModel]] = {}  # entries and structs live as long as the process


def model_of(entry: Entry | Struct) -> type[BaseModel]:
    if id(entry) not in _MODELS:
        _MODELS[id(entry)] = _build(entry)
    return _MODELS[id(entry)]


def _build(entry: Entry | Struct) -> type[BaseModel]:
    declared: dict[str, Any] = {}
    types = getattr(entry, "types", {})
    for name, spec in entry.fields.items():
        kind = annotation(spec.type, entry.runtime, types)
        if spec.default is not REQUIRED:
            declared[name] = (kind, spec.default)
        elif inner_type(spec.type, "option") is not None:
            declared[name] = (kind, None)
        else:
            declared[name] = (kind, ...)
    doc = getattr(entry, "doc", "") or None
    model = create_model(entry.struct, __config__=ConfigDict(extra="ignore"), __doc__=doc, **declared)
    # `#[serde(default)]` fields: what a JSON array may leave out (an Option without it may not), serde.py
    model.serde_defaulted = frozenset(name for name, spec in entry.fields.items() if spec.default is not REQUIRED)
    return model
