"""transformers 4.46-4.57 `LlamaConfig`: keeps unknown keys, checks no types, knows nothing of rope_parameters.

Source: transformers 4.57.6 wheel, models/llama/configuration_llama.py (`__init__` identical in 4.46.3) and
modeling_rope_utils.py (`rope_config_validation`). Missing keys take Llama-2-7B defaults (hidden 4096, 32
layers...), `rope_theta` defaults to 10000, a legacy `type` in rope_scaling is copied to `rope_type`, and the
per-type validators raise KeyError for missing required keys. `rope_parameters` is kept as an inert attribute.
4.57's YaRN reads `truncate` as transformers 5 does (default true; modeling_rope_utils.py:359): the dict is
kept as written; its validator compares the betas and divides the context by a given original one.
Building the model can still refuse what the config class took: the layers' attention first
(attention_refusal: a null or 0 head_dim its scale divides by, a negative one no projection has), then
(rotary_refusal) every family's RotaryEmbedding looks the type up in ROPE_INIT_FUNCTIONS, its init function
indexes its own keys, and YaRN's takes the logarithms of its correction range. A model that builds can still
fail at generation (generation_refusal: a sliding window of 0 or less in DynamicCache's sliding layers).
"""

from __future__ import annotations

import math
from typing import Any

from cfglint import knowledge
from cfglint.consumers.base import Consumer, Failure, View
from cfglint.consumers.python_reader import set_text, take, unreadable
from cfglint.document import Document
from cfglint.intent import LLAMA_DEFAULTS, Intent, read_llama_fields
from cfglint.knowledge import transformers4 as known
from cfglint.knowledge.entry import Entry
from cfglint.knowledge.transformers4 import ROPE_REQUIRED as REQUIRED


def scaling_as_read(scaling: Any, max_position_embeddings: Any, family: str = "llama") -> tuple[dict | None, str | None]:
    """(the scaling the modeling code runs, or None; the error when the config class refuses it) for a class
    that copies a legacy `type` over rope_type and then runs rope_config_validation (TYPE_COPIED)."""
    if scaling is None:
        return None, None
    if not isinstance(scaling, dict):
        return None, _not_a_dict(scaling)
    scaling = dict(scaling)
    if "type" in scaling:
        scaling["rope_type"] = scaling["type"]  # __init__ copies the legacy key over rope_type
    for key in known.FLOATED.get(family, ()):
        if key in scaling:
            try:
                scaling[key] = float(scaling[key])
            except (TypeError, ValueError) as err:
                return None, f"{type(err).__name__}: {err}"
    kind = scaling.get("rope_type", "default")
    if isinstance(kind, (dict, list)):
        # rope_config_validation looks the type up in a dict of validators: Python refuses the key.
        return None, f"TypeError: unhashable type: '{type(kind).__name__}'"
    missing = REQUIRED.get(kind, set()) - (set(scaling) - {"type"})
    if missing:
        named = scaling.get("rope_type")  # the validator's message names the file's type, None where it has none
        return None, f"KeyError: \"Missing required keys in `rope_scaling` for 'rope_type'='{named}': {set_text(missing)}\""
    if kind == "default":
        return None, None
    if kind == "yarn":
        refused = _yarn_validation_error(scaling, max_position_embeddings)
        if refused:
            return None, refused
    out = {k: v for k, v in scaling.items() if k not in ("type", "rope_type", "rope_theta")}
    if kind in ("yarn", "longrope") and "original_max_position_embeddings" not in out:
        out["original_max_position_embeddings"] = max_position_embeddings
    return {"rope_type": kind, **out}, None


def _yarn_validation_error(scaling: dict, max_position_embeddings: Any) -> str | None:
    """_validate_yarn_parameters' arithmetic (yarn_validation_error), unwrapped: no strict dataclass here."""
    from cfglint.consumers.transformers5_rope import yarn_validation_error

    refused = yarn_validation_error(scaling, max_position_embeddings, null_original_skipped=True)
    return f"{type(refused[0]).__name__}: {refused[0]}" if refused else None


def _not_a_dict(scaling: Any) -> str:
    """What __init__'s `"type" in rope_scaling` and the validator's rope_scaling.get raise for another JSON
    value: the same operations, run on a copy of it (a string, a list, a number or a boolean)."""
    value: Any = list(scaling) if isinstance(scaling, list) else scaling
    try:
        if "type" in value:
            value["rope_type"] = value["type"]
        value.get("rope_type")
    except (TypeError, AttributeError) as err:
        return f"{type(err).__name__}: {err}"
    raise AssertionError(f"a {type(scaling).__name__} passed rope_config_validation")  # not a JSON value


NO_ARGUMENT = object()  # a class without a head_dim argument: getattr falls back unless the file gives the key


def rotary_refusal(data: dict, family: str, head_dim_default: Any = NO_ARGUMENT) -> tuple[str, str] | None:
    """(message, pointer) of what building the model raises for a config its class took: the family's
    RotaryEmbedding looks the type up in ROPE_INIT_FUNCTIONS, and the init function indexes its keys and
    multiplies the head_dim attribute (modeling_rope_utils.py @ v4.57.6). `head_dim_default` is the default
    of the class's head_dim argument."""
    scaling = data.get("rope_scaling")
    if not isinstance(scaling, dict):  # "default": its inverse frequencies raise the base to a tensor
        return _negative_range(data, family, head_dim_default) or _base_refusal(data, family)
    copied = family in known.TYPE_COPIED and "type" in scaling
    written = "rope_type" if "rope_type" in scaling and not copied else "type" if "type" in scaling else None
    at = f"/rope_scaling/{written}" if written else "/rope_scaling"  # the member the type comes from
    scaling = dict(scaling)
    if copied:
        scaling["rope_type"] = scaling["type"]
    if family in known.TYPE_RENAMED and scaling.get("type") in known.TYPE_RENAMED[family]:
        scaling["type"] = known.TYPE_RENAMED[family][scaling["type"]]
    kind = scaling.get("rope_type", scaling.get("type"))
    if isinstance(kind, (dict, list)):
        return f"TypeError: unhashable type: '{type(kind).__name__}'", at
    if kind not in known.ROPE_INIT_KEYS:
        return f"KeyError: {kind!r}", at
    if kind in known.ROPE_HEAD_DIM_AS_IS:
        head_dim = _head_dim_attribute(data, family, head_dim_default)
        partial = data.get("partial_rotary_factor", 1.0)
        at = "/head_dim" if "head_dim" in data else "/rope_scaling"
        if head_dim is None or partial is None:  # Python's words for it, whatever the other operand
            return f"TypeError: unsupported operand type(s) for *: '{type(head_dim).__name__}' and '{type(partial).__name__}'", at
        if _number(head_dim) and _number(partial):  # not a string or a list, which Python would repeat
            try:
                head_dim * partial
            except OverflowError as err:
                return f"OverflowError: {err}", at
    missing = next((key for key in known.ROPE_INIT_KEYS[kind] if key not in scaling), None)
    if missing:
        return f"KeyError: {missing!r}", "/rope_scaling"
    return (_negative_range(data, family, head_dim_default) or _base_refusal(data, family)
            or (_linear_refusal(scaling["factor"]) if kind == "linear" else None)
            or (_yarn_range_refusal(data, family, scaling, head_dim_default) if kind == "yarn" else None))


def _linear_refusal(factor: Any) -> tuple[str, str] | None:
    """`inv_freq /= factor` (a tensor divided by a JSON value that is not a number), after the base's power."""
    if _number(factor):
        return None
    return f"TypeError: unsupported operand type(s) for /=: 'Tensor' and '{type(factor).__name__}'", "/rope_scaling/factor"


def _negative_range(data: dict, family: str, head_dim_default: Any) -> tuple[str, str] | None:
    """The rotary width `int(head_dim * partial_rotary_factor)` and `torch.arange(0, dim, 2)` of it, which every
    init function computes before it raises the base to it: a string or a list head_dim times a float factor
    (Python's TypeError; times an integer it would be a repetition, not followed), a negative width."""
    from cfglint.consumers.transformers5_rope import NEGATIVE_RANGE, negative_width

    head_dim, partial = _head_dim_attribute(data, family, head_dim_default), data.get("partial_rotary_factor", 1.0)
    at = "/head_dim" if "head_dim" in data else "/rope_scaling"
    if isinstance(head_dim, (str, list)) and type(partial) is float:
        return "TypeError: can't multiply sequence by non-int of type 'float'", at
    if negative_width(head_dim, partial):
        return NEGATIVE_RANGE, at
    return None


def _yarn_range_refusal(data: dict, family: str, scaling: dict, head_dim_default: Any) -> tuple[str, str] | None:
    """_compute_yarn_parameters' correction range (yarn_range_error) on config.rope_theta, the head_dim
    attribute (or hidden // heads) times the partial factor, and the original context or the context."""
    from cfglint import knowledge
    from cfglint.consumers.transformers5_rope import or_defaulted_betas, rotary_width, yarn_range_error

    entry = knowledge.entry("transformers-4", family)
    defaults = {k: f.default for k, f in entry.fields.items()} if entry is not None else LLAMA_DEFAULTS
    base = data.get("rope_theta", defaults.get("rope_theta", 10000.0))
    head_dim = _head_dim_attribute(data, family, head_dim_default)
    if head_dim == 0:  # getattr's fallback
        hidden, heads = (data.get(k, defaults.get(k)) for k in ("hidden_size", "num_attention_heads"))
        head_dim = hidden // heads if _number(hidden) and _number(heads) and heads else None
    partial = data.get("partial_rotary_factor", 1.0)
    context = scaling.get("original_max_position_embeddings") or data.get("max_position_embeddings", defaults.get("max_position_embeddings"))
    if not all(_number(v) for v in (base, head_dim, partial, context)):
        return None
    dim = rotary_width(head_dim, partial)
    if isinstance(dim, OverflowError):  # as _compute_yarn_parameters meets it
        return f"OverflowError: {dim}", "/head_dim" if "head_dim" in data else "/rope_scaling"
    refused = yarn_range_error(dim, base, context, or_defaulted_betas(scaling), scaling.get("truncate", True))
    if refused is None:
        return None
    message, key = refused
    return message, "/rope_theta" if key == "rope_theta" else f"/rope_scaling/{key}"


def _base_refusal(data: dict, family: str) -> tuple[str, str] | None:
    """Every init function computes `base ** (torch.arange(0, dim, 2) / dim)` with config.rope_theta (Gemma 3's
    local RotaryEmbedding with rope_local_base_freq): a base of another JSON type than a number raises."""
    for key in ("rope_theta", "rope_local_base_freq") if family == "gemma3_text" else ("rope_theta",):
        base = data.get(key, 0)
        if not _number(base):
            return f"TypeError: unsupported operand type(s) for ** or pow(): '{type(base).__name__}' and 'Tensor'", "/" + key
    return None


def _number(value: Any) -> bool:
    return isinstance(value, (int, float))


def _head_dim_attribute(data: dict, family: str, default: Any) -> Any:
    """config.head_dim, or 0 where getattr(config, "head_dim", hidden // heads) takes a number instead."""
    if family in known.HEAD_DIM_IS_ROPE_WIDTH or (family in known.HEAD_DIM_DEFAULTS_TO_ROPE_WIDTH and "head_dim" not in data):
        return data.get("qk_rope_head_dim", 64)  # both classes' default
    if "head_dim" not in data:
        return 0 if default is NO_ARGUMENT or default is None and family in known.HEAD_DIM_FALLBACK else default
    return 0 if data["head_dim"] is None and family in known.HEAD_DIM_FALLBACK else data["head_dim"]


class Transformers4(Consumer):
    name = "transformers-4"
    runtime = "transformers 4.57"
    title = "transformers 4.46-4.57 LlamaConfig"
    source = "transformers 4.57.6 models/llama/configuration_llama.py, modeling_rope_utils.py"
    schema_ref = "transformers4:LlamaConfig"
    through_autoconfig = True

    def read(self, doc: Document, intent: Intent) -> View:
        view = View(consumer=self.name)
        failure = unreadable(doc)
        if failure:
            return view.fail(failure)
        data = doc.data
        take(view, data, "rope_theta", 10000.0)
        max_pos = data.get("max_position_embeddings", LLAMA_DEFAULTS["max_position_embeddings"])
        scaling, error = scaling_as_read(data.get("rope_scaling"), max_pos)
        if error:
            return view.fail(Failure(error, "/rope_scaling", "missing"))
        view.set("rope_scaling", scaling, "/rope_scaling" if scaling else "default")
        read_llama_fields(view, data)
        refused = attention_refusal(data, "llama") or rotary_refusal(data, "llama")
        return view.fail(Failure(refused[0], refused[1], "validation")) if refused else view

    def build_refusal(self, data: dict, entry: Entry) -> tuple[str, str] | None:
        field = entry.fields.get("head_dim")
        layer_types = layer_types_refusal(data, entry) if entry.family not in known.LAYER_TYPES_BEFORE_ROPE else None
        return (layer_types or attention_refusal(data, entry.family)
                or rotary_refusal(data, entry.family, field.default if field is not None else NO_ARGUMENT))

    def read_family(self, doc: Document, intent: Intent, entry: Entry) -> View:
        early = layer_types_refusal(doc.data, entry) if entry.family in known.LAYER_TYPES_BEFORE_ROPE and isinstance(doc.data, dict) else None
        if early:  # validated before the RoPE parameters
            return View(consumer=self.name).fail(Failure(early[0], early[1], "validation"))
        view = super().read_family(doc, intent, entry)
        if view.failure is None and entry.family in known.INDEXES_LAYER_TYPES:
            unmasked = _unmasked_layer_type(doc.data.get("layer_types"))
            if unmasked:
                return view.fail(Failure(unmasked, "/layer_types", "validation"))
        refused = generation_refusal(view.values, entry.family) if view.failure is None else None
        return view.fail(Failure(refused, "/sliding_window", "validation")) if refused else view


def layer_types_refusal(data: dict, entry: Entry) -> tuple[str, str] | None:
    """layer_type_validation of the file's layer_types (known.VALIDATES_LAYER_TYPES; a null one is filled in
    first), as Python runs it on the JSON value: its entries, then its length against num_hidden_layers; or,
    in a class that does not validate them, the layers' own indexing (known.INDEXES_LAYER_TYPES)."""
    given = data.get("layer_types")
    field = entry.fields.get("num_hidden_layers")
    layers = data.get("num_hidden_layers", field.default if field is not None else None)
    if entry.family in known.INDEXES_LAYER_TYPES and given is not None:
        return _indexing_refusal(given, layers)
    if entry.family not in known.VALIDATES_LAYER_TYPES or given is None:
        return None
    try:
        if not all(layer_type in known.ALLOWED_LAYER_TYPES for layer_type in given):
            return f"ValueError: The `layer_types` entries must be in {known.ALLOWED_LAYER_TYPES}", "/layer_types"
        if layers is not None and layers != len(given):
            return (f"ValueError: `num_hidden_layers` ({layers}) must be equal to the number of layer types ({len(given)})",
                    "/layer_types")
    except TypeError as err:  # a number or a boolean is no list
        return f"TypeError: {err}", "/layer_types"
    return None


def _indexing_refusal(given: Any, layers: Any) -> tuple[str, str] | None:
    """`config.layer_types[layer_idx]` for each layer the model builds, as Python indexes the JSON value: a
    list or a string as far as the layers go, anything else from its first."""
    if isinstance(given, (list, str)):
        if type(layers) is int and len(given) < layers:
            return f"IndexError: {'list' if isinstance(given, list) else 'string'} index out of range", "/layer_types"
        return None
    try:
        given[0]
    except (TypeError, KeyError) as err:
        return f"{type(err).__name__}: {err}", "/layer_types"
    return None


def _unmasked_layer_type(given: Any) -> str | None:
    """The forward's lookup of each layer's type among its masks (known.MASKED_LAYER_TYPES), on a list or
    string the model built from; a null one is filled with known types."""
    if not isinstance(given, (list, str)):
        return None
    unknown = next((layer_type for layer_type in given if layer_type not in known.MASKED_LAYER_TYPES), None)
    if isinstance(unknown, (list, dict)):
        return f"at generation: TypeError: unhashable type: '{type(unknown).__name__}'"
    return None if unknown is None else f"at generation: KeyError: {unknown!r}"


def generation_refusal(values: dict, family: str) -> str | None:
    """What generate() refuses of a model that builds: DynamicCache's sliding layers (known.CONFIG_LAYER_TYPES)
    with `config.sliding_window or None` as their window."""
    window = values.get("sliding_window")
    if (window is not None and (type(window) is not int or window > 0)) or family in known.LEGACY_MASK:
        return None  # a window that generates, or one this does not follow
    effective = window or None
    if family in known.CONFIG_LAYER_TYPES:
        layers = values.get("layer_types")
        sliding = isinstance(layers, list) and "sliding_attention" in layers
    else:
        sliding = effective is not None
    if not sliding:
        return None
    if effective is None:
        return "at generation: TypeError: '>=' not supported between instances of 'int' and 'NoneType'"
    return "at generation: RuntimeError: upper bound and lower bound inconsistent with step sign"


def attention_refusal(data: dict, family: str) -> tuple[str, str] | None:
    """What building the first layer's attention refuses, before the RoPE is built: of the file's head_dim
    (known.ATTENTION_HEAD_DIM; Llama's and gpt-oss's classes derive a null one), and of a scaling whose
    factor DeepSeek-V3's reads."""
    from cfglint.consumers.transformers5_attention import head_size_refusal

    if family in known.ATTENTION_READS_SCALING:
        return _mscale_refusal(data.get("rope_scaling"))
    if family not in known.ATTENTION_HEAD_DIM:
        return None
    if "head_dim" in data:
        head_dim = data["head_dim"]
    else:  # the argument's default where the class takes one (Ministral's null, which it keeps), else none
        declared = knowledge.entry("transformers-4", family)
        field = declared.fields.get("head_dim") if declared is not None else None
        if field is None or field.default is not None:
            return None
        head_dim = None
    if head_dim is None and family in known.HEAD_DIM_FALLBACK:
        return None
    return head_size_refusal(data, family, head_dim, known.ATTENTION_HEAD_DIM)


def _mscale_refusal(scaling: Any) -> tuple[str, str] | None:
    """`rope_scaling["factor"]`, then `yarn_get_mscale(factor, mscale_all_dim)` where mscale_all_dim is truthy
    (`scale <= 1`, then `0.1 * mscale * math.log(scale) + 1.0`), in Python's words."""
    if not isinstance(scaling, dict):
        return None  # none, or one the config class refused
    if "factor" not in scaling:
        return "KeyError: 'factor'", "/rope_scaling"
    factor: Any = scaling["factor"]
    mscale: Any = scaling.get("mscale_all_dim", 0)
    if isinstance(mscale, (list, dict)) or not mscale:
        return None  # a list or a dict is truthy too, but not followed here
    try:
        if factor <= 1:
            return None
    except TypeError as err:
        return f"TypeError: {err}", "/rope_scaling/factor"
    try:
        0.1 * mscale * math.log(factor) + 1.0
    except (TypeError, ValueError, OverflowError) as err:
        return f"{type(err).__name__}: {err}", "/rope_scaling/mscale_all_dim"
    return None
