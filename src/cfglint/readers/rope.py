"""The named RoPE readings: how a runtime gets its base frequency and scaling, where runtimes genuinely differ.

- plain: a top-level `rope_theta` (the field's default when absent); any scaling is ignored.
- nested-first: `rope_parameters.rope_theta` when the file has it, else the top-level field (mistral.rs'
  mistral loader, mlx-lm's qwen3); scaling as `scaling` does.
- scaling: the top-level `rope_theta` field and the `rope_scaling` field, run through the runtime's own
  scaling parser (transformers 4's validation, mlx-lm's initialize_rope).
- transformers-5, transformers-5:per-layer-type, transformers-5:phi3: what transformers 5 resolves (the
  intent's own reading, cfglint.intent).
"""

from __future__ import annotations

from typing import Any

from cfglint.consumers.base import Failure
from cfglint.reading import DEFAULT

Values = dict[str, tuple[Any, str]]


def _theta(env: dict, present: set[str]) -> tuple[Any, str]:
    return env.get("rope_theta"), "/rope_theta" if "rope_theta" in present else DEFAULT


def _scaling(runtime: str, env: dict, present: set[str], family: str = "llama") -> tuple[dict | None, str] | Failure:
    scaling = env.get("rope_scaling")
    if runtime == "transformers-4":
        from cfglint.consumers.transformers4 import scaling_as_read

        parsed, error = scaling_as_read(scaling, env.get("max_position_embeddings"), family)
        if error:
            return Failure(error, "/rope_scaling", "missing")
    elif runtime == "mlx-lm":
        from cfglint.consumers.mlx_lm import scaling_as_built, scaling_failure

        parsed, error = scaling_as_built(scaling)
        if error:
            return scaling_failure(error)
    else:
        parsed = scaling if isinstance(scaling, dict) and scaling.get("rope_type", scaling.get("type")) not in (None, "default") else None
    return parsed, "/rope_scaling" if parsed else DEFAULT


def read_rope(entry: Any, env: dict, present: set[str], data: dict, intent: Any) -> Values | Failure:
    kind = entry.rope
    if kind == "plain":
        return {"rope_theta": _theta(env, present), "rope_scaling": (None, DEFAULT)}
    if kind in ("scaling", "nested-first"):
        scaling = _scaling(entry.runtime, env, present, entry.family)
        if isinstance(scaling, Failure):
            return scaling
        theta = _theta(env, present)
        nested = data.get("rope_parameters")
        if kind == "nested-first" and isinstance(nested, dict) and "rope_theta" in nested:
            theta = nested["rope_theta"], "/rope_parameters/rope_theta"
        return {"rope_theta": theta, "rope_scaling": scaling}
    if kind.startswith("transformers-5"):
        return {}  # the intent reader sets RoPE itself
    if kind == "gemma3-local-global":  # full layers: rope_theta + rope_scaling; sliding layers: rope_local_base_freq
        return read_rope(_as(entry, "scaling"), env, present, data, intent)
    if kind == "unvalidated-scaling":
        return {"rope_theta": _theta(env, present), "rope_scaling": _unvalidated(env.get("rope_scaling"))}
    if kind == "gemma3-local":
        refused = type_not_copied(env.get("rope_scaling"))
        if refused:
            return refused
        return read_rope(_as(entry, "scaling"), env, present, data, intent)
    if kind == "top-level-then-rope_parameters":
        return _top_then_nested(entry, env, present, data, intent)
    if kind == "mistral-rope-parameters":
        return _mistralrs_rope_parameters(env, present, data)
    if kind in ("converter", "converter-none"):
        from cfglint.readers.converter import rope as converter_rope

        return converter_rope(entry, data, intent, none=kind == "converter-none")
    from cfglint.readers import rope_families

    special = rope_families.READINGS.get(kind)
    if special is not None:
        return special(entry, env, present, data, intent)
    raise ValueError(f"{entry.runtime} {entry.family}: no RoPE reading named {kind!r}")


def _as(entry: Any, rope: str) -> Any:
    return entry._replace(rope=rope)


def _unvalidated(scaling: Any) -> tuple[dict | None, str]:
    """A rope_scaling kept as an attribute and run as written: rope_type, else the legacy type."""
    if not isinstance(scaling, dict):
        return None, DEFAULT
    kind = scaling.get("rope_type", scaling.get("type"))
    if kind in (None, "default") or not isinstance(kind, str):
        return None, DEFAULT
    return {"rope_type": kind, **{k: v for k, v in scaling.items() if k not in ("type", "rope_type", "rope_theta")}}, "/rope_scaling"


def _top_then_nested(entry: Any, env: dict, present: set[str], data: dict, intent: Any) -> Values | Failure:
    """mlx-lm qwen3: a missing top-level theta or scaling is taken from rope_parameters."""
    nested = data.get("rope_parameters")
    local = dict(env)
    theta_at = "/rope_theta" if "rope_theta" in present else DEFAULT
    if nested and local.get("rope_theta") is None and isinstance(nested, dict):
        local["rope_theta"], theta_at = nested.get("rope_theta"), "/rope_parameters/rope_theta"
    scaling_at = None
    if nested and local.get("rope_scaling") is None:
        local["rope_scaling"], scaling_at = nested, "/rope_parameters"
    if local.get("rope_theta") is None:
        return Failure("ValueError: rope_theta is missing from the model config.", "/rope_theta", "missing")
    scaling = _scaling(entry.runtime, local, present)
    if isinstance(scaling, Failure):
        return scaling
    if scaling[0] is not None and scaling_at:
        scaling = scaling[0], scaling_at
    return {"rope_theta": (local["rope_theta"], theta_at), "rope_scaling": scaling}


MISTRALRS_ROPE_TYPES = ("default", "yarn")


def _mistralrs_rope_parameters(env: dict, present: set[str], data: dict) -> Values | Failure:
    """mistral.rs' mistral loader: `rope_parameters: Option<MistralRopeParameters>` (rope_theta required,
    rope_type default or yarn); its theta wins over the top-level one. Its YaRN (RotaryEmbedding::new_yarn,
    layers.rs:2853) has no truncate: it takes DeepSeek's correction range, always floored and ceiled
    (layers.rs:1933-1936)."""
    params = data.get("rope_parameters")
    if params is None:
        return {"rope_theta": _theta(env, present), "rope_scaling": (None, DEFAULT)}
    if not isinstance(params, dict):
        return Failure("invalid type: expected struct MistralRopeParameters", "/rope_parameters", "type")
    kind = params.get("rope_type", "default")
    if not isinstance(kind, (str, dict)):  # serde_json's deserialize_enum takes a string or a one-key map
        return Failure("expected value", "/rope_parameters/rope_type", "type")
    if kind not in MISTRALRS_ROPE_TYPES:
        return Failure(f"unknown variant `{kind}`, expected `default` or `yarn`", "/rope_parameters/rope_type", "variant")
    if "rope_theta" not in params:
        return Failure("missing field `rope_theta`", "/rope_parameters", "missing")
    scaling = None
    if kind == "yarn":
        scaling = {"rope_type": "yarn", **{k: v for k, v in params.items() if k not in ("rope_type", "type", "rope_theta")},
                   "truncate": True}
    return {"rope_theta": (params["rope_theta"], "/rope_parameters/rope_theta"), "rope_scaling": (scaling, "/rope_parameters" if scaling else DEFAULT)}


def type_not_copied(scaling: Any) -> Failure | None:
    """rope_config_validation where the config class does not copy a legacy `type` to `rope_type` first
    (Gemma3TextConfig, GraniteConfig): the validator the type names (default's where it names none) requires
    rope_type, and the message names the type the file gives, or None; a type without a validator only warns."""
    from cfglint.consumers.python_reader import set_text
    from cfglint.knowledge.transformers4 import ROPE_REQUIRED

    if scaling is None or isinstance(scaling, dict) and "rope_type" in scaling:
        return None
    if not isinstance(scaling, dict):
        return Failure(f"AttributeError: '{type(scaling).__name__}' object has no attribute 'get'", "/rope_scaling", "type")
    kind = scaling.get("type", "default")
    if isinstance(kind, (dict, list)):
        return Failure(f"TypeError: unhashable type: '{type(kind).__name__}'", "/rope_scaling/type", "type")
    if kind not in ROPE_REQUIRED:
        return None
    missing = set_text(ROPE_REQUIRED[kind] - (set(scaling) - {"type"}))
    return Failure(f"KeyError: \"Missing required keys in `rope_scaling` for 'rope_type'='{scaling.get('type')}': {missing}\"", "/rope_scaling", "missing")
