"""Reading a config the way Rust's serde_json + `#[derive(Deserialize)]` does, through a pydantic schema.

A profile declares its struct as a pydantic model whose fields carry `Rust("usize")`-style markers. serde
walks the JSON in document order and stops at the first problem; pydantic reports every problem at once. So
each pydantic error is translated into serde's wording and ordered by where serde would meet it: members in
document order, then missing fields (declaration order) when their object closes. Unknown keys are ignored,
as serde does without `deny_unknown_fields`; a known key written twice is serde's "duplicate field" error.
"""

from __future__ import annotations

import math
import typing
from dataclasses import dataclass
from functools import partial
from typing import Annotated, Any, Callable, Mapping, Sequence

from pydantic import BaseModel, Field, Strict, ValidationError

from cfglint.consumers.base import Failure
from cfglint.document import Document, escape
from cfglint.serde_json import EXPECTED, UNSIGNED_MAX, unexpected


@dataclass(frozen=True)
class Rust:
    """The Rust type a field deserializes into, as serde names it in errors."""

    name: str
    untagged: bool = False  # an untagged enum: serde reports one error for all variants
    variants: tuple[str, ...] = ()  # an enum's accepted strings, in the order serde lists them
    newtype: tuple[str, ...] = ()  # variants that carry a value, so a bare string is the wrong shape


USize = Annotated[int, Strict(), Field(ge=0, le=UNSIGNED_MAX["usize"]), Rust(EXPECTED["usize"])]
U32 = Annotated[int, Strict(), Field(ge=0, le=UNSIGNED_MAX["u32"]), Rust(EXPECTED["u32"])]
F32 = Annotated[float, Strict(), Rust(EXPECTED["f32"])]
F64 = Annotated[float, Strict(), Rust(EXPECTED["f64"])]
Bool = Annotated[bool, Strict(), Rust(EXPECTED["bool"])]


def deserialize(model: type[BaseModel], doc: Document) -> BaseModel | Failure:
    """The struct serde builds from the document, or the first error serde reports."""
    if doc.bom or doc.literals:
        # serde_json accepts neither a byte-order mark nor NaN/Infinity; it stops at the first.
        pointer = "" if doc.bom else doc.literals[0].pointer
        return Failure("expected value", pointer, "syntax")
    # Each error with where serde would meet it (a callable: positions are found only to choose among several).
    candidates: list[tuple[Callable[[], tuple], Failure]] = []
    for dup in doc.duplicates:
        parent, _, key = dup.pointer.rpartition("/")
        owner = _field_model(model, parent)
        if owner is not None and key in owner.model_fields:
            candidates.append((partial(_key_order, doc, dup.pointer), Failure(f"duplicate field `{key}`", dup.pointer, "duplicate")))
    data = doc.data
    if not isinstance(data, dict):
        return Failure(f"invalid type: {unexpected(data)}, expected struct {model.__name__}", "", "type")
    try:
        parsed = model.model_validate(_sequences_as_maps(model, doc, data))
    except ValidationError as err:
        for error in _collapse_untagged(model, err.errors(include_url=False)):
            candidates.append(_translate(model, doc, error))
        parsed = None
    if len(candidates) == 1:
        return candidates[0][1]
    if candidates:
        return min(candidates, key=lambda c: c[0]())[1]
    assert parsed is not None
    return parsed


def _field_model(model: type[BaseModel], pointer: str) -> type[BaseModel] | None:
    """The struct that a JSON Pointer's object deserializes into, if it is one."""
    for part in [p for p in pointer.split("/") if p]:
        info = model.model_fields.get(part)
        nested = _nested_model(info.annotation) if info else None
        if nested is None:
            return None
        model = nested
    return model


def _nested_model(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in typing.get_args(annotation):
        found = _nested_model(arg)
        if found is not None:
            return found
    return None


def _marker(model: type[BaseModel], loc: tuple) -> Rust | None:
    info = None
    for part in loc:
        if info is not None:
            nested = _nested_model(info.annotation)
            if nested is None:
                break
            model = nested
        info = model.model_fields.get(part) if isinstance(part, str) else None
        if info is None:
            break
    if info is None:
        return None
    for meta in info.metadata:
        if isinstance(meta, Rust):
            return meta
    for arg in typing.get_args(info.annotation):
        for meta in getattr(arg, "__metadata__", ()):
            if isinstance(meta, Rust):
                return meta
    return None


def _field_loc(model: type[BaseModel], loc: tuple) -> tuple:
    """Strip pydantic's union-branch tags from a location, keeping field names."""
    out: list = []
    current: type[BaseModel] | None = model
    for part in loc:
        if current is not None and isinstance(part, str) and part in current.model_fields:
            out.append(part)
            current = _nested_model(current.model_fields[part].annotation)
        elif isinstance(part, int) and out:
            out.append(part)
    return tuple(out)


def _collapse_untagged(model: type[BaseModel], errors: Sequence[Mapping[str, Any]]) -> list[dict]:
    out: list[dict] = []
    seen = set()
    for error in errors:
        loc = _field_loc(model, error["loc"])
        marker = _marker(model, loc[:1] if loc else loc)
        if marker is not None and marker.untagged:
            if loc[:1] in seen:
                continue
            seen.add(loc[:1])
            out.append({"type": "untagged", "loc": loc[:1], "marker": marker})
            continue
        error = dict(error, loc=loc)
        out.append(error)
    return out


def _pointer(loc: tuple) -> str:
    return "".join("/" + escape(str(p)) for p in loc)


def _key_order(doc: Document, pointer: str) -> tuple:
    return (float(doc.spans[pointer].key_start or 0),)


def _path(data: Any, loc: tuple) -> tuple:
    """Where a location sits in the text, as member indices along its path: json's parser keeps members in
    the order written, so comparing these compares positions, without finding any (a parsed document has no
    duplicate keys; one with duplicates has its spans already)."""
    out: list[float] = []
    node = data
    for part in loc:
        if isinstance(node, dict) and part in node:
            out.append(list(node).index(part))
            node = node[part]
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            out.append(part)
            node = node[part]
        else:
            break
    return tuple(out)


def _missing_order(model: type[BaseModel], doc: Document, loc: tuple) -> tuple:
    """serde meets a missing field at the end of its object, in the order the struct declares fields."""
    if doc.duplicates:
        span = doc.spans.get(_pointer(loc[:-1]))
        return ((span.end if span else len(doc.text)) + _declaration_index(model, loc) / 1000,)
    return (*_path(doc.data, loc[:-1]), math.inf, _declaration_index(model, loc))


def _value_order(doc: Document, pointer: str, loc: tuple) -> tuple:
    if doc.duplicates:
        span = doc.spans.get(pointer)
        return (float(span.start if span else len(doc.text)),)
    return _path(doc.data, loc)


def _translate(model: type[BaseModel], doc: Document, error: dict) -> tuple[Callable[[], tuple], Failure]:
    loc, kind = error["loc"], error["type"]
    pointer = _pointer(loc)
    marker = error.get("marker") or _marker(model, loc)
    expected = marker.name if marker else "a valid value"
    if kind == "missing":
        return partial(_missing_order, model, doc, loc), Failure(f"missing field `{loc[-1]}`", pointer, "missing")
    order = partial(_value_order, doc, pointer, loc)
    value = error.get("input")
    if isinstance(value, list) and expected.startswith("struct ") and (nested := _field_model(model, pointer)):
        failure = _struct_from_sequence(nested, doc, value, pointer, expected)
        assert failure is not None  # an array that fills the struct was validated as its map
        return order, failure
    if kind == "untagged":
        return order, Failure(f"data did not match any variant of untagged enum {expected.split()[-1]}", pointer, "type")
    if kind in ("greater_than_equal", "less_than_equal", "less_than", "greater_than"):
        if isinstance(value, int) and not -(2**63) <= value <= 2**64 - 1:  # a float to serde_json: a type error
            return order, Failure(f"invalid type: {unexpected(value)}, expected {expected}", pointer, "type")
        return order, Failure(f"invalid value: {unexpected(value)}, expected {expected}", pointer, "type")
    if kind == "literal_error":
        if isinstance(value, str) and marker is not None and value in marker.newtype:
            return order, Failure("invalid type: unit variant, expected newtype variant", pointer, "type")
        if isinstance(value, str):
            names = [f"`{v}`" for v in (marker.variants if marker else ())]
            expected_text = " or ".join(names) if len(names) <= 2 else "one of " + ", ".join(names)
            return order, Failure(f"unknown variant `{value}`, expected {expected_text}", pointer, "variant")
        if not isinstance(value, dict):
            # serde_json's deserialize_enum takes a string or a one-key map; anything else is ExpectedSomeValue.
            return order, Failure("expected value", pointer, "type")
        return order, Failure(f"invalid type: {unexpected(value)}, expected variant identifier", pointer, "type")
    return order, Failure(f"invalid type: {unexpected(value)}, expected {expected}", pointer, "type")


def _sequences_as_maps(model: type[BaseModel], doc: Document, data: dict) -> dict:
    """The data with each JSON array that fills a nested struct (serde's visit_seq) as the map it stands for,
    so pydantic, which takes maps only, builds the struct serde builds; arrays that do not fill one stay."""
    out = data
    for name, info in model.model_fields.items():
        value, nested = data.get(name), _nested_model(info.annotation)
        if nested is None or not isinstance(value, (list, dict)):
            continue
        if isinstance(value, dict):
            mapped = _sequences_as_maps(nested, doc, value)
        elif _struct_from_sequence(nested, doc, value, "", "") is None:
            mapped = _sequences_as_maps(nested, doc, dict(zip(nested.model_fields, value)))
        else:
            continue
        if mapped is not value:
            out = {**out, name: mapped}
    return out


def _struct_from_sequence(model: type[BaseModel], doc: Document, value: list, pointer: str, expected: str) -> Failure | None:
    """What serde's derived `visit_seq` reports for a JSON array where a struct is expected: the elements fill
    the fields in declaration order, each read as its field's type; a field past the end without
    `#[serde(default)]` is "invalid length", and an element past the last field is trailing characters."""
    names = list(model.model_fields)
    try:
        model.model_validate(dict(zip(names, value)))
    except ValidationError as err:
        errors = [e for e in _collapse_untagged(model, err.errors(include_url=False)) if e["type"] != "missing" and e["loc"]]
        if errors:
            error = min(errors, key=lambda e: names.index(e["loc"][0]))
            index = names.index(error["loc"][0])
            failure = _translate(model, doc, error)[1]
            return failure._replace(pointer=f"{pointer}/{index}{_pointer(error['loc'][1:])}")
    defaulted: frozenset[str] = getattr(model, "serde_defaulted", frozenset())
    missing = next((i for i in range(len(value), len(names)) if names[i] not in defaulted), None)
    if missing is not None:
        return Failure(f"invalid length {missing}, expected {expected} with {len(names)} elements", pointer, "type")
    if len(value) > len(names):
        return Failure("trailing characters", f"{pointer}/{len(names)}", "syntax")
    return None


def _declaration_index(model: type[BaseModel], loc: tuple) -> int:
    owner = _field_model(model, _pointer(loc[:-1])) or model
    names = list(owner.model_fields)
    return names.index(loc[-1]) if loc[-1] in names else len(names)
