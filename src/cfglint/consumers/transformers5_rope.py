"""transformers 5's RoPE parameters as its config classes keep them, and what the classes and the models
built from them refuse.

Source: transformers 5.24.0 modeling_rope_utils.py (convert_rope_params_to_dict, standardize_rope_params,
validate_rope, _check_received_keys; the _compute_*_parameters a model's RotaryEmbedding calls),
models/phi3/configuration_phi3.py (`su` and `yarn` are longrope, every other type but default is refused),
models/gemma3/configuration_gemma3.py (default parameters per layer type, a legacy rope_scaling merged into
full attention's). tests/knowledge/test_transformers5_rope_types.py holds each refusal to the installed
classes and models, family by family.
"""

from __future__ import annotations

from typing import Any

from cfglint.consumers.python_reader import set_text
from cfglint.knowledge.strict_types import class_validation
from cfglint.knowledge.transformers5 import FAMILIES, ROPE_BUILT
from cfglint.knowledge.transformers5_fields import DEFAULTS as FIELD_DEFAULTS

# validate_rope's required keys per type (_validate_<type>_rope_parameters) besides rope_type and rope_theta,
# which standardisation always fills.
REQUIRED = {
    "linear": {"factor"},
    "dynamic": {"factor"},
    "yarn": {"factor", "original_max_position_embeddings"},
    "longrope": {"short_factor", "long_factor", "original_max_position_embeddings"},
    "llama3": {"factor", "low_freq_factor", "high_freq_factor", "original_max_position_embeddings"},
}
# The types whose parameters standardisation gives an original context (standardize_rope_params).
_WITH_ORIGINAL_CONTEXT = ("llama3", "yarn", "longrope")
# Phi3Config.convert_rope_params_to_dict renames these after standardisation: `su` gets no original context.
_PHI3_LONGROPE = ("su", "yarn")
# The types whose parameters read `getattr(config, "head_dim", hidden // heads)`, None where the class keeps
# a None head_dim: longrope while the class validates it, dynamic and yarn when the model is built.
_HEAD_DIM_AS_IS = {"longrope": "validation", "dynamic": "model", "yarn": "model"}
_NONE_TIMES_FLOAT = "TypeError: unsupported operand type(s) for *: 'NoneType' and 'float'"

# Where a config class sets head_dim in __post_init__: hidden // heads when None (configuration_llama.py,
# configuration_mistral.py), the RoPE width whatever the file says (configuration_deepseek_v2.py), or unless
# the file gives one (configuration_deepseek_v3.py declares no head_dim: PreTrainedConfig sets the file's after).
_HEAD_DIM_DERIVED = {"llama", "mistral"}
_HEAD_DIM_IS = {"deepseek_v2": "qk_rope_head_dim"}
_HEAD_DIM_UNLESS_GIVEN = {"deepseek_v3": "qk_rope_head_dim"}
# The layer types a class builds its rope_parameters for, in order, from a file that gives them flat or not at
# all (configuration_gemma3.py): a legacy rope_scaling is merged into full attention's, whose own rope_type
# ("default") a legacy `type` does not replace.
PER_LAYER_TYPE = {"gemma3_text": ("sliding_attention", "full_attention")}
_ABSENT = object()

Parameters = tuple[str, dict, str]  # (layer type, the parameters, where the file gives them)


def class_head_dim(data: dict, family: str) -> Any:
    """The config class's head_dim attribute: the file's, derived, another key's, or the class default
    (`_ABSENT` where the class has none and the file gives none)."""
    defaults = FIELD_DEFAULTS[family]
    if family in _HEAD_DIM_IS:
        return data.get(_HEAD_DIM_IS[family], defaults.get(_HEAD_DIM_IS[family]))
    if family in _HEAD_DIM_UNLESS_GIVEN and "head_dim" not in data:
        return data.get(_HEAD_DIM_UNLESS_GIVEN[family], defaults.get(_HEAD_DIM_UNLESS_GIVEN[family]))
    head_dim = data["head_dim"] if "head_dim" in data else defaults.get("head_dim", _ABSENT)
    return hidden_per_head(data, family) if head_dim is None and family in _HEAD_DIM_DERIVED else head_dim


def hidden_per_head(data: dict, family: str) -> int | None:
    defaults = FIELD_DEFAULTS[family]
    hidden, heads = data.get("hidden_size", defaults["hidden_size"]), data.get("num_attention_heads", defaults["num_attention_heads"])
    return hidden // heads if isinstance(hidden, int) and isinstance(heads, int) and heads else None


def _rotated_head(data: dict, family: str, head_dim: Any) -> int | None:
    """`getattr(config, "head_dim", hidden // heads)`, where it is a number."""
    head_dim = hidden_per_head(data, family) if head_dim is _ABSENT else head_dim
    return head_dim if isinstance(head_dim, int) and not isinstance(head_dim, bool) else None


def parameter_sets(data: dict, family: str, layer_type_keys: list[str] | tuple[str, ...] = ()) -> list[Parameters]:
    """Each set of RoPE parameters the config class keeps for `data`, standardised as it does; the values
    are the file's own (a rope_type of 5 stays 5). Where the dict holds keys named after the config's layer
    types (`layer_type_keys`), the class keeps and validates those, each standardised on its own."""
    if family in PER_LAYER_TYPE:
        return _per_layer_type(data, family)
    if layer_type_keys:
        return _named_layer_types(data, family, layer_type_keys)
    scaling, params = data.get("rope_scaling"), data.get("rope_parameters")
    declared = FAMILIES[family].fields.get("rope_parameters") if family in FAMILIES else None
    if scaling:
        chosen, at = scaling, "/rope_scaling"
    elif params is None and declared is not None and declared.default is not None:
        chosen, at = declared.default, ""  # the class's own parameters (gpt-oss: YaRN x32)
    else:
        chosen, at = params or {}, "/rope_parameters"
    if not isinstance(chosen, dict):
        return []
    chosen = dict(chosen)
    chosen.setdefault("rope_type", chosen.get("type", "default"))
    if chosen["rope_type"] in _WITH_ORIGINAL_CONTEXT:
        chosen.setdefault("original_max_position_embeddings", data.get("max_position_embeddings"))
    partial = data.get("partial_rotary_factor", FIELD_DEFAULTS[family].get("partial_rotary_factor"))
    if partial is not None or family == "phi3":
        chosen.setdefault("partial_rotary_factor", 1.0 if partial is None else partial)
    if family == "phi3" and chosen["rope_type"] in _PHI3_LONGROPE:
        chosen["rope_type"] = "longrope"
    return [("full_attention", chosen, at)]


def given_parameters(data: dict) -> tuple[Any, str]:
    """The RoPE dict the class takes (`rope_scaling or rope_parameters`) and where the file gives it."""
    return (data["rope_scaling"], "/rope_scaling") if data.get("rope_scaling") else (data.get("rope_parameters"), "/rope_parameters")


def _named_layer_types(data: dict, family: str, layer_type_keys: list[str] | tuple[str, ...]) -> list[Parameters]:
    """standardize_rope_params' second case: each named layer type's parameters but a null one's."""
    params, at = given_parameters(data)
    out = []
    for layer_type in layer_type_keys:
        given = params[layer_type]
        if not isinstance(given, dict):
            continue
        chosen = dict(given)
        chosen.setdefault("rope_type", chosen.get("type", "default"))
        if chosen["rope_type"] in _WITH_ORIGINAL_CONTEXT:
            chosen.setdefault("original_max_position_embeddings", data.get("max_position_embeddings"))
        out.append((layer_type, chosen, f"{at}/{layer_type}"))
    return out


def layer_type_order(data: dict, family: str) -> tuple[str, ...]:
    """The order of the layer types in the class's rope_parameters: the file's dict keeps its keys where they
    are and gets the missing ones after them, full attention first (Gemma3TextConfig.convert_rope_params_to_dict);
    without a dict, the class's own default order."""
    params = data.get("rope_parameters")
    if not isinstance(params, dict):
        return PER_LAYER_TYPE[family]
    given = [t for t in params if t in PER_LAYER_TYPE[family]]
    return (*given, *(t for t in ("full_attention", "sliding_attention") if t in PER_LAYER_TYPE[family] and t not in given))


def _per_layer_type(data: dict, family: str) -> list[Parameters]:
    params, legacy = data.get("rope_parameters"), data.get("rope_scaling")
    params = params if isinstance(params, dict) else {}
    nested = [t for t in params if t in PER_LAYER_TYPE[family]]
    out = []
    for layer_type in nested or layer_type_order(data, family):
        given = params.get(layer_type) if nested else None
        chosen = dict(given) if isinstance(given, dict) else {"rope_type": "default"}
        at = f"/rope_parameters/{layer_type}" if isinstance(given, dict) else ""
        merged = update_argument(legacy) if layer_type == "full_attention" else None
        if merged is not None:
            chosen.update(merged)
            at = at or "/rope_scaling"
        chosen.setdefault("rope_type", chosen.get("type", "default"))
        if chosen["rope_type"] in _WITH_ORIGINAL_CONTEXT:
            chosen.setdefault("original_max_position_embeddings", data.get("max_position_embeddings"))
        out.append((layer_type, chosen, at))
    return out


def update_argument(legacy: Any) -> dict | None:
    """What `full_attention.update(rope_scaling)` merges: a dict, or a list of key-value pairs (dict.update
    takes either); None for no legacy scaling or one it refuses (transformers5.legacy_scaling_refusal)."""
    if legacy is None or isinstance(legacy, dict):
        return legacy
    try:
        return dict(legacy)
    except (TypeError, ValueError):
        return None


def type_pointer(params: dict, at: str) -> str:
    return at + ("/rope_type" if "rope_type" in params or "type" not in params else "/type") if at else "/rope_parameters"


def rope_refusal(data: dict, family: str, layer_type_keys: list[str] | tuple[str, ...] = ()) -> tuple[str, str] | None:
    """validate_rope's refusal of the RoPE parameters, as the class raises it (a missing key's KeyError is not
    wrapped), or None; the even-dimension check is odd_rotary_dimension."""
    head_dim = class_head_dim(data, family)
    for _, params, at in parameter_sets(data, family, layer_type_keys):
        kind = params["rope_type"] if isinstance(params["rope_type"], str) else ""  # another JSON type: model_refusal
        missing = REQUIRED.get(kind, set()) - set(params)
        if missing:
            return f"KeyError: \"Missing required keys in `rope_parameters` for 'rope_type'='{kind}': {set_text(missing)}\"", at or "/rope_parameters"
        if head_dim is None and _HEAD_DIM_AS_IS.get(kind) == "validation":
            return class_validation("validate_rope", _NONE_TIMES_FLOAT), "/head_dim" if "head_dim" in data else at or "/rope_parameters"
        refused = _yarn_validation_refusal(data, family, params, at or "/rope_parameters") if kind == "yarn" else None
        if refused:
            return refused
    if family == "phi3":
        return _phi3_refusal(data)
    return None


def _yarn_validation_refusal(data: dict, family: str, params: dict, at: str) -> tuple[str, str] | None:
    """_validate_yarn_rope_parameters' arithmetic (yarn_validation_error): the class wraps a TypeError, not the
    ZeroDivisionError of an original context of 0 or the OverflowError of a context beyond a float."""
    context = data.get("max_position_embeddings", FIELD_DEFAULTS[family].get("max_position_embeddings"))
    refused = yarn_validation_error(params, context, null_original_skipped=False)
    if refused is None:
        return None
    err, key = refused
    message = f"{type(err).__name__}: {err}"
    return (message if isinstance(err, ArithmeticError) else class_validation("validate_rope", message)), f"{at}/{key}"


def yarn_validation_error(params: dict, context: Any, null_original_skipped: bool) -> tuple[Exception, str] | None:
    """The arithmetic of both transformers' YaRN validators (the rest only warns): `beta_fast or 32` compared
    with `beta_slow or 1`, then the context divided by the original one (transformers 4 skips a null one).
    The error Python raises and the key to blame, or None."""
    try:
        (params.get("beta_fast") or 32) < (params.get("beta_slow") or 1)  # noqa: B015  (whether Python can compare them)
    except TypeError as err:
        return err, "beta_fast"
    original = params.get("original_max_position_embeddings")
    if original is None and null_original_skipped:
        return None
    try:
        context / original
    except (TypeError, ZeroDivisionError, OverflowError) as err:
        return err, "original_max_position_embeddings"
    return None


def _phi3_refusal(data: dict) -> tuple[str, str] | None:
    """Phi3Config.validate_rope, after the generic checks: one type, and a longrope factor per frequency."""
    (_, params, at), = parameter_sets(data, "phi3")  # a dict: family_refusal refuses any other RoPE value first
    at = at or "/rope_parameters"
    kind = params["rope_type"]
    if kind not in ("default", "longrope"):
        return class_validation("validate_rope", f"ValueError: `rope_parameters`'s type field must be one of ['longrope'], got {kind}"), type_pointer(params, at)
    per_head, partial = hidden_per_head(data, "phi3"), params.get("partial_rotary_factor")
    if per_head is None or not isinstance(partial, (int, float)):
        return None
    rotary_ndims = rotary_width(per_head, partial)
    if isinstance(rotary_ndims, OverflowError):  # raised as it is, not one the strict dataclass wraps
        return f"OverflowError: {rotary_ndims}", f"{at}/partial_rotary_factor" if "partial_rotary_factor" in params else "/partial_rotary_factor"
    for name in ("short_factor", "long_factor"):
        factors = params.get(name)
        if factors is None:
            continue
        if not (isinstance(factors, list) and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in factors)):
            return class_validation("validate_rope", f"ValueError: `rope_parameters`'s {name} field must be a list of numbers, got {factors}"), f"{at}/{name}"
        if len(factors) != rotary_ndims // 2:
            return class_validation("validate_rope", f"ValueError: `rope_parameters`'s {name} field must have length {rotary_ndims // 2}, got {len(factors)}"), f"{at}/{name}"
    return None


def odd_rotary_dimension(data: dict, family: str) -> tuple[str, str] | None:
    """validate_rope (modeling_rope_utils.py): a fully rotated head of an odd size above 4 is refused, for the
    first layer type whose partial_rotary_factor turns all of it; head_dim is the class's attribute, compared
    as Python compares it (a string's `>` fails)."""
    head_dim = class_head_dim(data, family)
    if head_dim is None or head_dim is _ABSENT:
        return None
    try:
        odd = head_dim > 4 and head_dim % 2
    except TypeError as err:
        return class_validation("validate_rope", f"TypeError: {err}"), "/head_dim"
    if not odd:
        return None
    rope = data.get("rope_scaling") or data.get("rope_parameters") or {}
    layers = {k: v for k, v in rope.items() if k in ("full_attention", "sliding_attention")} if isinstance(rope, dict) else {}
    given = data.get("partial_rotary_factor", FIELD_DEFAULTS[family].get("partial_rotary_factor"))
    if not layers and family in PER_LAYER_TYPE:
        layers, given = dict.fromkeys(layer_type_order(data, family), {}), None
    for layer_type, params in (layers or {"full_attention": rope}).items():
        factor = params.get("partial_rotary_factor", given if given is not None else 1.0) if isinstance(params, dict) else 1.0
        if not isinstance(factor, (int, float)):
            continue
        width = rotary_width(head_dim, factor)
        if isinstance(width, OverflowError):  # raised as it is, not one the strict dataclass wraps
            return f"OverflowError: {width}", "/head_dim"
        if width == head_dim:
            message = (f"ValueError: RoPE requires an even rotary dimension, but got `head_dim`={head_dim} with "
                       f"`partial_rotary_factor`={factor} for `{layer_type}`.")
            return class_validation("validate_rope", message), "/head_dim"
    return None


# The keys of the parameters each type's _compute_<type>_parameters indexes, in the order it reads them.
READ_ORDER = {
    "default": ("rope_theta",),
    "proportional": ("rope_theta",),
    "linear": ("factor", "rope_theta"),
    "dynamic": ("rope_theta", "factor"),
    "yarn": ("rope_theta", "factor", "original_max_position_embeddings"),
    "longrope": ("rope_theta", "long_factor", "short_factor", "original_max_position_embeddings"),
    "llama3": ("rope_theta", "factor", "low_freq_factor", "high_freq_factor", "original_max_position_embeddings"),
}


def shared_parameters_refusal(data: dict, layer_type_keys: list[str]) -> tuple[str, str] | None:
    """A family whose model reads one set of RoPE parameters takes them from the dict's top level; where it
    holds keys named after the config's layer types (`layer_type_keys`), the class reads it per layer type,
    validates only those and fills nothing at its top level (standardize_rope_params), so RotaryEmbedding
    fails on the first key there its type reads and the file leaves out."""
    if not layer_type_keys:
        return None
    params, at = given_parameters(data)
    if "rope_type" not in params:
        return "KeyError: 'rope_type'", at
    kind = params["rope_type"]
    missing = next((key for key in READ_ORDER.get(kind, ()) if key not in params), None) if isinstance(kind, str) else None
    return (f"KeyError: '{missing}'", at) if missing else None


def model_refusal(data: dict, family: str) -> tuple[str, str] | None:
    """What the config class takes and building the model refuses (AutoConfig alone, as AutoTokenizer uses it,
    loads the file): a type RotaryEmbedding looks up in ROPE_INIT_FUNCTIONS in vain (the class only warns of
    a type it has no validator for), a None head_dim the type's parameters multiply, and longrope short
    factors that are not one per frequency (the tensors do not broadcast)."""
    head_dim = class_head_dim(data, family)
    for _, params, at in parameter_sets(data, family):
        kind = params["rope_type"]
        if not isinstance(kind, (str, int, float, bool, type(None))):
            return f"TypeError: unhashable type: '{type(kind).__name__}'", type_pointer(params, at)
        if kind not in ROPE_BUILT:
            return f"KeyError: {kind!r}", type_pointer(params, at)
        if head_dim is None and isinstance(kind, str) and _HEAD_DIM_AS_IS.get(kind) == "model":
            return _NONE_TIMES_FLOAT, "/head_dim" if "head_dim" in data else at or "/rope_parameters"
        if negative_width(head_dim, params.get("partial_rotary_factor", 1.0)):  # arange(0, dim, 2): every type's frequencies
            return NEGATIVE_RANGE, "/head_dim" if "head_dim" in data else at or "/rope_parameters"
        short, width = params.get("short_factor"), _rotated_head(data, family, head_dim)
        if kind == "longrope" and isinstance(short, list) and width is not None:
            partial = params.get("partial_rotary_factor", 1.0)
            frequencies = _frequencies(width, partial)
            if frequencies is not None and len(short) not in (1, frequencies):
                message = f"RuntimeError: The size of tensor a ({len(short)}) must match the size of tensor b ({frequencies}) at non-singleton dimension 0"
                return message, f"{at or '/rope_parameters'}/short_factor"
        if kind == "yarn" and width is not None:
            refused = _yarn_range_refusal(data, family, params, at, width)
            if refused:
                return refused
    return None


NEGATIVE_RANGE = "RuntimeError: upper bound and lower bound inconsistent with step sign"


def negative_width(head_dim: Any, partial: Any) -> bool:
    """`int(head_dim * partial_rotary_factor) < 0`, for numbers (DeepSeek's attention sizes its heads from
    other keys, so a negative head_dim reaches the rotary embedding)."""
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (head_dim, partial)):
        return False
    try:
        width = rotary_width(head_dim, partial)
    except ValueError:  # not a number (NaN): validate_rope says so first
        return False
    return isinstance(width, int) and width < 0  # beyond a float's range: validate_rope says so first


def rotary_width(head_dim: Any, partial: Any) -> int | OverflowError:
    """`int(head_dim * partial_rotary_factor)`, the width every RoPE init function rotates, or the
    OverflowError transformers meets, unwrapped, where the product is beyond a float's range."""
    try:
        return int(head_dim * partial)
    except OverflowError as err:
        return err


def _frequencies(width: int, partial: Any) -> int | None:
    """How many inverse frequencies `torch.arange(0, int(width * partial), 2)` makes, or None where the
    partial factor is no number or the width is beyond what a tensor holds (not followed)."""
    if not isinstance(partial, (int, float)):
        return None
    dim = rotary_width(width, partial)
    return max(0, (dim + 1) // 2) if isinstance(dim, int) and dim < 2**62 else None


def _yarn_range_refusal(data: dict, family: str, params: dict, at: str, head_dim: int) -> tuple[str, str] | None:
    """_compute_yarn_parameters' correction range (yarn_range_error) on the parameters the class keeps."""
    from cfglint.readers.converter import class_theta

    base = params["rope_theta"] if "rope_theta" in params else data.get("rope_theta", class_theta(family))
    partial = params.get("partial_rotary_factor", 1.0)
    context = params.get("original_max_position_embeddings")
    if not all(isinstance(v, (int, float)) for v in (base, partial, context)):
        return None  # the class refuses another type, or the ramp's tensors do
    dim = rotary_width(head_dim, partial)
    if isinstance(dim, OverflowError):  # as _compute_yarn_parameters meets it
        return f"OverflowError: {dim}", "/head_dim" if "head_dim" in data else at or "/rope_parameters"
    refused = yarn_range_error(dim, base, context, or_defaulted_betas(params), params.get("truncate", True))
    if refused is None:
        return None
    message, key = refused
    where = (f"{at}/rope_theta" if "rope_theta" in params else "/rope_theta") if key == "rope_theta" else f"{at or '/rope_parameters'}/{key}"
    return message, where


def yarn_range_error(dim: int, base: Any, context: Any, betas: tuple[tuple[str, Any], ...], truncate: Any = True) -> tuple[str, str] | None:
    """What YaRN's correction range raises in Python floats, before any tensor (transformers 4.57 and 5's
    find_correction_range, mlx-lm's yarn_find_correction_range): for each (name, beta), `dim * log(context /
    (beta * 2 * pi)) / (2 * log(base))`, floored when `truncate`. A base of 1 (true included) divides by
    zero; a base or a context/beta ratio of 0 or less is a math domain error; a beta of 0 divides by zero,
    a null or a list cannot be multiplied by pi. None of it depends on the rotated width, a positive whole
    number. (message, the key to blame) or None."""
    import math

    for name, beta in betas:
        try:
            rotations = dim * math.log(context / (beta * 2 * math.pi))
        except (TypeError, ValueError, ZeroDivisionError, OverflowError) as err:
            blamed = "original_max_position_embeddings" if isinstance(beta, (int, float)) and beta > 0 else name
            return f"{type(err).__name__}: {err}", blamed
        try:
            found = rotations / (2 * math.log(base))
            if truncate:
                math.floor(found)
        except (ValueError, ZeroDivisionError, OverflowError) as err:
            return f"{type(err).__name__}: {err}", "rope_theta"
    return None


def or_defaulted_betas(params: dict) -> tuple[tuple[str, Any], ...]:
    """transformers' betas: `beta_fast or 32`, `beta_slow or 1`."""
    return ("beta_fast", params.get("beta_fast") or 32), ("beta_slow", params.get("beta_slow") or 1)
