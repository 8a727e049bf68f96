"""huggingface_hub's strict dataclass validation (`@strict`, utils/_strict_dataclasses.py, 2.4), as transformers
5's config classes apply it to every field they declare (transformers5_fields): which values an annotation
takes, in what order the fields are checked, and the words of a refusal. cfglint.consumers.transformers5
refuses with it, and cfglint.memo keeps readings apart by it.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Callable, Mapping

from cfglint.knowledge.transformers5_fields import FIELDS, INTERVALS

__all__ = ["INTERVALS", "class_checks", "class_typed", "field_annotations", "strict_message", "strict_refusal", "strict_types", "field_refusal"]

# A strict type's members as huggingface_hub 2.4's validator (utils/_strict_dataclasses.py, `type_validator`)
# names them: a type of one member is checked as it is, a union member by member ("int?": an int or None).
_UNIONS = {
    "ids": ("int", "list[int]", "NoneType"),  # int | list[int] | None
    "number": ("float", "int"),  # float | int: Granite's multipliers
    "rope": ("RopeParameters", "dict"),  # RopeParameters | dict: a TypedDict no value is an instance of
}
_CLASSES = {"int": int, "float": float, "str": str, "bool": bool, "dict": dict, "NoneType": type(None)}
_SHOWN = {"list": "list[str]", "list[str]": "list[str]", "list[int]": "list[int]", "RopeParameters": "<class 'transformers.modeling_rope_utils.RopeParameters'>"}


def _members(type_name: str) -> tuple[str, ...]:
    """A type's members: an annotation as Python writes it ("int | None", knowledge/transformers5_fields.py),
    or an entry's short name ("int?", "ids")."""
    if "|" in type_name or type_name.startswith("list["):
        return tuple("NoneType" if m == "None" else m for m in (part.strip() for part in type_name.split("|")))
    base = type_name.rstrip("?")
    members = _UNIONS.get(base, (base,))
    return members + ("NoneType",) if type_name.endswith("?") else members


def _takes(member: str, value: object) -> bool:
    """Whether one member takes the value: the validator compares types (bool is no int, an int no float),
    and a list's items too (`list` fields are list[str])."""
    return _accepts((member,))(value)


@lru_cache(maxsize=None)
def _accepts(members: tuple[str, ...]) -> Callable[[object], bool]:
    """Whether a union of these members takes a value, as one test (a file is checked for each typed field)."""
    classes = tuple(_CLASSES[m] for m in members if m in _CLASSES)
    items = tuple(int if m == "list[int]" else str for m in members if m.startswith("list"))
    if not items:
        return (lambda v: type(v) is classes[0]) if len(classes) == 1 else (lambda v: type(v) in classes)
    return lambda v: type(v) in classes or (type(v) is list and any(all(type(i) is t for i in v) for t in items))


def _error(key: str, value: object, member: str) -> str:
    """The validator's words for a value one member refuses."""
    got = type(value).__name__
    if member in _CLASSES:
        return f"Field '{key}' expected {member}, got {got} (value: {value!r})"
    if member == "RopeParameters":
        return "TypedDict does not support instance and class checks"
    if type(value) is not list:
        return f"Field '{key}' expected a list, got {got}"
    item = int if member == "list[int]" else str  # `list` fields are list[str]
    bad = next(i for i, v in enumerate(value) if type(v) is not item)
    return f"Invalid item at index {bad} in list '{key}'"


def _outside(value: object, bounds: tuple | None) -> str | None:
    """transformers' `interval` validator's words for a number outside the field's bounds, else None."""
    if bounds is None:
        return None
    low, high, open_low, open_high = bounds
    inside = (low is None or (low < value if open_low else low <= value)) and (high is None or (value < high if open_high else value <= high))  # the type check passed: a number
    if inside:
        return None
    parts = [f"greater {'than' if open_low else 'or equal to'} {low}" if low is not None else "",
             f"smaller {'than' if open_high else 'or equal to'} {high}" if high is not None else ""]
    return f"ValueError: Value must be {' and '.join(p for p in parts if p)}, got {value}."


def class_validation(validator: str, error: str) -> str:
    """A class validator's refusal as the strict dataclass raises it (huggingface_hub 2.4 wraps the error)."""
    return f"StrictDataclassClassValidationError: Class validation error for validator '{validator}': {error}"


def strict_message(key: str, value: object, type_name: str, bounds: tuple | None = None) -> str:
    """StrictDataclassFieldValidationError as the config class raises it for a value of this field, its two
    lines joined: the type's refusal, else the bounds'."""
    members = _members(type_name)
    if any(_takes(member, value) for member in members):
        return f"StrictDataclassFieldValidationError: Validation error for field '{key}': {_outside(value, bounds)}"
    errors = [_error(key, value, member) for member in members if not _takes(member, value)]
    if len(members) == 1:
        reason = errors[0]
    else:
        shown = ", ".join(_SHOWN.get(m, f"<class '{m}'>") for m in members)
        reason = f"Field '{key}' with value {value!r} doesn't match any type in ({shown}). Errors: " + "; ".join(errors)
    return f"StrictDataclassFieldValidationError: Validation error for field '{key}': TypeError: {reason}"


_STRICT = frozenset({*_CLASSES, *_UNIONS, "list"})  # the entries' short names of the types the strict dataclass checks


Typed = tuple[tuple[str, Callable[[object], bool], "tuple | None"], ...]


def strict_types(types: Mapping[str, str], bounds: Mapping[str, tuple] | None = None) -> Typed:
    """(key, the test its type makes, its bounds) for each checked key, in declaration order."""
    return tuple(
        (key, _accepts(_members(t)), (bounds or {}).get(key)) for key, t in types.items()
        if "|" in t or t.startswith("list[") or t.rstrip("?") in _STRICT
    )


def class_checks(family: str) -> tuple[tuple[str, Callable[[object], bool]], ...]:
    """(field, whether the family's config class takes a value there) for every field it checks."""
    return tuple(
        (key, lambda value, accepts=accepts, bounds=bounds: accepts(value) and (bounds is None or _outside(value, bounds) is None))
        for key, accepts, bounds in class_typed(family)
    )


def strict_refusal(data: dict, typed: Typed) -> str | None:
    """The first declared key whose value the strict dataclass refuses (`typed` from strict_types), or None."""
    for key, accepts, bounds in typed:
        if key in data and (not accepts(data[key]) or (bounds is not None and _outside(data[key], bounds))):
            return key
    return None


@lru_cache(maxsize=None)
def class_typed(family: str) -> Typed:
    """Every field the family's config class declares, read or not (knowledge/transformers5_fields.py)."""
    return strict_types(dict(FIELDS[family]), INTERVALS.get(family))


@lru_cache(maxsize=None)
def field_annotations(family: str) -> dict[str, str]:
    return dict(FIELDS[family])


def field_refusal(data: dict, kind: str) -> tuple[str, str] | None:
    """(message, pointer) of the first of its own fields the model type's strict config class refuses (a
    family's, or a multimodal wrapper's such as Gemma3Config, which checks its fields before it builds its
    text model's config), or None; None too for a class the table does not hold."""
    key = strict_refusal(data, class_typed(kind)) if kind in FIELDS else None
    if key is None:
        return None
    return strict_message(key, data[key], field_annotations(kind)[key], INTERVALS.get(kind, {}).get(key)), "/" + key
