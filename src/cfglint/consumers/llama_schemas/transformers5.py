"""transformers 5's config classes as pydantic schemas, built from the table of their fields
(knowledge/transformers5_fields.py): every field a class declares, with its annotation as the strict
dataclass checks it, its bounds and its default. `LlamaConfig` is Llama's; readers/schema.py builds the
families' (`cfglint schema transformers-5 --family F`). See cfglint.consumers.transformers5 for the source.
"""

from __future__ import annotations

from typing import Annotated, Any, Optional, Union

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StrictBool, StrictFloat, StrictInt, StrictStr, create_model

from cfglint.knowledge.transformers5_fields import DEFAULTS, FIELDS, INTERVALS


def _not_an_integer(value: object) -> object:
    if type(value) is int:  # the strict dataclass compares types: 1 is no float (pydantic's strict float takes it)
        raise ValueError("an int is not a float")
    return value


Float = Annotated[StrictFloat, BeforeValidator(_not_an_integer)]

# An annotation's members as pydantic types; `RopeParameters` is a TypedDict the validator can test no value
# against, so only its `dict` member takes one.
_MEMBERS: dict[str, Any] = {
    "int": StrictInt, "float": Float, "str": StrictStr, "bool": StrictBool, "dict": dict,
    "list[str]": list[StrictStr], "list[int]": list[StrictInt],
}


def class_annotation(annotation: str) -> Any:
    """A class field's annotation as Python writes it ("int | list[int] | None") as a strict pydantic type."""
    members = [m.strip() for m in annotation.split("|")]
    types = tuple(_MEMBERS[m] for m in members if m in _MEMBERS)
    found = types[0] if len(types) == 1 else Union[types]
    return Optional[found] if "None" in members else found


def class_fields(family: str) -> dict[str, Any]:
    """(annotation, pydantic Field with the class's default and bounds) for every field of a class, in order."""
    out = {}
    for name, annotation in FIELDS[family]:
        bounds = INTERVALS.get(family, {}).get(name)
        limits = {}
        if bounds is not None:
            low, high, open_low, open_high = bounds
            if low is not None:
                limits["gt" if open_low else "ge"] = low
            if high is not None:
                limits["lt" if open_high else "le"] = high
        out[name] = (class_annotation(annotation), Field(DEFAULTS[family][name], **limits))
    return out


LlamaConfig: type[BaseModel] = create_model(
    "LlamaConfig", __config__=ConfigDict(extra="allow", defer_build=True), __doc__="transformers 5's LlamaConfig: every field its strict dataclass checks.",
    **class_fields("llama"),
)
