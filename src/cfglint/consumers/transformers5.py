"""transformers 5 `LlamaConfig`: the reference reading, plus the ways it refuses a config.

Source: transformers 5.24.0 models/llama/configuration_llama.py (a `@strict` dataclass: ints, floats and
bools are type-checked; `validate_architecture` requires hidden_size % num_attention_heads == 0 even when
head_dim is given), modeling_rope_utils.py (`validate_rope`: per-type required keys raise KeyError; an odd
head_dim above 4 is refused). What it reads when it accepts the file is the intent itself.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Callable, Mapping

from cfglint.consumers.base import Consumer, Failure, View
from cfglint.consumers.python_reader import set_text, unreadable
from cfglint.document import Document
from cfglint.intent import Intent, resolve_rope
from cfglint.knowledge.transformers5_fields import FIELDS, INTERVALS

# validate_rope's required keys per type, after standardisation has filled rope_type, rope_theta and
# (llama3, yarn, longrope) original_max_position_embeddings.
REQUIRED = {
    "linear": {"factor"},
    "dynamic": {"factor"},
    "yarn": {"factor"},
    "longrope": {"short_factor", "long_factor"},
    "llama3": {"factor", "low_freq_factor", "high_freq_factor"},
}



# The strict dataclass's typed fields ("int?": an int or None; _UNIONS), in declaration order: the pydantic
# schema (llama_schemas/transformers5.py) declares the same.
LLAMA_TYPES = {
    "vocab_size": "int", "hidden_size": "int", "intermediate_size": "int", "num_hidden_layers": "int",
    "num_attention_heads": "int", "num_key_value_heads": "int?", "hidden_act": "str", "max_position_embeddings": "int",
    "rms_norm_eps": "float", "bos_token_id": "int?", "eos_token_id": "ids", "tie_word_embeddings": "bool",
    "rope_parameters": "rope?", "attention_bias": "bool", "mlp_bias": "bool", "head_dim": "int?",
}


def refusal(data: dict) -> tuple[str, str] | None:
    """(message, pointer) of the first check transformers 5 fails, or None."""
    key = strict_refusal(data, _LLAMA_STRICT)
    if key is not None:
        return strict_message(key, data[key], dict(FIELDS["llama"])[key], INTERVALS.get("llama", {}).get(key)), "/" + key
    hidden, heads = data.get("hidden_size", 4096), data.get("num_attention_heads", 32)
    if heads and hidden % heads != 0:
        return f"ValueError: The hidden size ({hidden}) is not a multiple of the number of attention heads ({heads}).", "/num_attention_heads"
    _, scaling, kind, sources = resolve_rope(data)
    missing = REQUIRED.get(kind, set()) - set(scaling or {})
    if missing:
        where = sources["rope_scaling"] if sources["rope_scaling"] != "default" else "/rope_parameters"
        return f"KeyError: \"Missing required keys in `rope_parameters` for 'rope_type'='{kind}': {set_text(missing)}\"", where
    head_dim = data.get("head_dim") or (hidden // heads if heads else 0)
    if isinstance(head_dim, int) and head_dim > 4 and head_dim % 2:
        return f"ValueError: head_dim {head_dim} must be even for rotary embeddings", "/head_dim"
    return None


class Transformers5(Consumer):
    name = "transformers-5"
    runtime = "transformers 5"
    title = "transformers 5.x LlamaConfig (the reference)"
    source = "transformers 5.24.0 models/llama/configuration_llama.py, modeling_rope_utils.py"
    schema_ref = "transformers5:LlamaConfig"

    def read(self, doc: Document, intent: Intent) -> View:
        return self._intent_unless_refused(doc, intent, lambda: refusal(doc.data))

    def read_family(self, doc: Document, intent: Intent, entry) -> View:
        return self._intent_unless_refused(doc, intent, lambda: refusal_for(doc, intent, entry))

    def _intent_unless_refused(self, doc: Document, intent: Intent, refused_by) -> View:
        """What transformers 5 reads is the intent itself, unless its config class refuses the file."""
        view = View(consumer=self.name)
        failure = unreadable(doc)
        refused = None if failure else refused_by()
        if refused:
            failure = Failure(refused[0], refused[1], "validation")
        if failure:
            return view.fail(failure)
        view.values = dict(intent.values)
        view.sources = dict(intent.sources)
        return view


# The strict dataclass's field types, as the family entries declare them.
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
    item = int if member == "list[int]" else str
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


_VALIDATES_HEADS = {"gemma2", "gemma3_text", "deepseek_v2"}  # validate_architecture: hidden % heads, even with head_dim given


_TYPED: dict[int, Typed] = {}  # entries live as long as the process


def _typed(entry) -> Typed:
    """Every field the family's class declares, read or not (knowledge/transformers5_fields.py), else the
    entry's own."""
    if id(entry) not in _TYPED:
        declared = FIELDS.get(entry.family)
        types = dict(declared) if declared else {key: spec.type for key, spec in entry.fields.items()}
        _TYPED[id(entry)] = strict_types(types, INTERVALS.get(entry.family))
    return _TYPED[id(entry)]


def _annotation(entry, key: str) -> str:
    declared = dict(FIELDS.get(entry.family, ()))
    return declared[key] if key in declared else entry.fields[key].type


def family_refusal(data: dict, entry) -> tuple[str, str] | None:
    """(message, pointer) of the first check a family's strict config class fails, or None."""
    key = strict_refusal(data, _typed(entry))
    if key is not None:
        return strict_message(key, data[key], _annotation(entry, key), INTERVALS.get(entry.family, {}).get(key)), "/" + key
    hidden, heads = data.get("hidden_size", entry.fields["hidden_size"].default), data.get("num_attention_heads", entry.fields["num_attention_heads"].default)
    if entry.family in _VALIDATES_HEADS and isinstance(hidden, int) and isinstance(heads, int) and heads and hidden % heads:
        return f"ValueError: The hidden size ({hidden}) is not a multiple of the number of attention heads ({heads}).", "/num_attention_heads"
    rope = data.get("rope_scaling") or data.get("rope_parameters")
    if isinstance(rope, dict) and not isinstance(rope.get("rope_type", rope.get("type", "default")), str):
        return f"ValueError: rope_type must be a string, got {rope.get('rope_type', rope.get('type'))!r}", "/rope_parameters"
    return None


Typed = tuple[tuple[str, Callable[[object], bool], "tuple | None"], ...]


def strict_types(types: Mapping[str, str], bounds: Mapping[str, tuple] | None = None) -> Typed:
    """(key, the test its type makes, its bounds) for each checked key, in declaration order."""
    return tuple(
        (key, _accepts(_members(t)), (bounds or {}).get(key)) for key, t in types.items()
        if "|" in t or t.startswith("list[") or t.rstrip("?") in _STRICT
    )


def class_checks(family: str) -> tuple[tuple[str, Callable[[object], bool]], ...]:
    """(field, whether the family's config class takes a value there) for every field it checks."""
    typed = strict_types(dict(FIELDS.get(family, ())), INTERVALS.get(family))
    return tuple(
        (key, lambda value, accepts=accepts, bounds=bounds: accepts(value) and (bounds is None or _outside(value, bounds) is None))
        for key, accepts, bounds in typed
    )


def strict_refusal(data: dict, typed: Typed) -> str | None:
    """The first declared key whose value the strict dataclass refuses (`typed` from strict_types), or None."""
    for key, accepts, bounds in typed:
        if key in data and (not accepts(data[key]) or (bounds is not None and _outside(data[key], bounds))):
            return key
    return None


_LLAMA_STRICT = strict_types(dict(FIELDS["llama"]), INTERVALS.get("llama"))  # every field of LlamaConfig, LLAMA_TYPES' and the rest


def refusal_for(doc: Document, intent: Intent, entry) -> tuple[str, str] | None:
    """family_refusal, once per document: transformers 5 and mlx-lm (through AutoTokenizer) both ask."""
    if entry.family not in intent.refusals:
        intent.refusals[entry.family] = family_refusal(doc.data, entry)
    return intent.refusals[entry.family]

