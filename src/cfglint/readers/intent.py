"""The intent for a non-Llama family: what transformers 5 builds from the config, from the family's entry.

The config class keeps every key of the file as an attribute and fills the rest from its defaults; the
modeling code then derives what the entry's expressions say. RoPE follows the family's standardisation:
one set of parameters (most families), one per layer type (Gemma 3), or Phi-3's longrope naming.
"""

from __future__ import annotations

from typing import Any

from cfglint.intent import DEFAULT_THETA, Intent, resolve_rope
from cfglint.knowledge.transformers5 import FAMILIES
from cfglint.knowledge.transformers5_fields import DEFAULTS as FIELD_DEFAULTS
from cfglint.reading import ALL_KEYS, DEFAULT, copied
from cfglint.readers.values import defaults, fill

LEGACY_LOCAL_THETA = "rope_local_base_freq"
_ORDER = {key: i for i, key in enumerate(ALL_KEYS)}  # the reading keys in report order


def family_intent(config: dict, family: str) -> Intent:
    entry = FAMILIES[family]
    architectures = config.get("architectures")
    kind = config.get("model_type")
    intent = Intent(
        family=family,
        named_family=family,
        model_type=kind if isinstance(kind, str) else family,
        architectures=[a for a in architectures if isinstance(a, str)] if isinstance(architectures, list) else [],
        layout="transformers-5" if "rope_parameters" in config else "transformers-4",
    )
    env = {**defaults(entry), **config}
    present = {k for k in config if config[k] is not None}
    for key in ("hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads", "vocab_size"):
        intent.dims[key] = env.get(key)
    # The intent is not a View, but its entries have no checks and no RoPE reading, so fill never fails it.
    fill(intent, entry, env, present, config, None)  # type: ignore[arg-type]
    _set_rope(intent, entry, config, env)
    intent.values = dict(sorted(intent.values.items(), key=lambda kv: _ORDER.get(kv[0], len(_ORDER))))
    dtype = config.get("dtype")
    intent.dtype = dtype if dtype is not None else config.get("torch_dtype")
    return intent


def _set_rope(intent: Intent, entry: Any, config: dict, env: dict) -> None:
    default_theta = entry.fields["rope_theta"].default if "rope_theta" in entry.fields else DEFAULT_THETA
    if entry.rope == "transformers-5:per-layer-type":
        _per_layer_type(intent, entry, config)
        return
    declared = entry.fields.get("rope_parameters")
    if declared is not None and declared.default is not None and not config.get("rope_scaling") and config.get("rope_parameters") is None:
        # the class's own RoPE parameters when the file gives none (gpt-oss: YaRN x32); "default" marks them
        theta, scaling, kind, sources = resolve_rope({**config, "rope_parameters": dict(declared.default)}, default_theta, FIELD_DEFAULTS[entry.family])
        sources = {k: DEFAULT for k in sources}
        if "rope_theta" in config:
            sources["rope_theta"] = "/rope_theta"
    else:
        theta, scaling, kind, sources = resolve_rope(config, default_theta, FIELD_DEFAULTS[entry.family])
    if entry.rope == "transformers-5:phi3":
        scaling, partial = _phi3(config, scaling, kind)
        intent.set("partial_rotary_factor", partial[0], partial[1])
    intent.set("rope_theta", theta, sources["rope_theta"])
    intent.set("rope_scaling", scaling, sources["rope_scaling"] if scaling else DEFAULT)
    intent.rope_pointer = sources["rope_scaling"] if sources["rope_scaling"] != DEFAULT else ""


def _phi3(config: dict, scaling: dict | None, kind: str) -> tuple[dict | None, tuple[Any, str]]:
    """Phi3Config: `su` and `yarn` are longrope, and partial_rotary_factor lives in the RoPE parameters."""
    params = config.get("rope_scaling") or config.get("rope_parameters")
    where = "/rope_scaling" if config.get("rope_scaling") else "/rope_parameters"
    if isinstance(params, dict) and "partial_rotary_factor" in params:
        partial = params["partial_rotary_factor"], where + "/partial_rotary_factor"
    elif "partial_rotary_factor" in config:
        partial = config["partial_rotary_factor"], "/partial_rotary_factor"
    else:
        partial = 1.0, DEFAULT
    if scaling is not None:
        scaling = {k: v for k, v in scaling.items() if k != "partial_rotary_factor"}
        if kind in ("su", "yarn"):
            scaling["rope_type"] = "longrope"
        if scaling.get("rope_type") == "default":
            scaling = None
    return scaling, partial


def _per_layer_type(intent: Intent, entry: Any, config: dict) -> None:
    """Gemma3TextConfig.convert_rope_params_to_dict: `full_attention` and `sliding_attention` parameters; a
    legacy file's rope_scaling is merged into full attention's (default ones unless the file nests them), its
    rope_local_base_freq goes to sliding attention."""
    params = config.get("rope_parameters")
    if not isinstance(params, dict):
        params = {}
    nested = "full_attention" in params or "sliding_attention" in params
    full = copied(params.get("full_attention")) if nested else None
    sliding = copied(params.get("sliding_attention")) if nested else None
    # the class's own parameters where the file gives none: a legacy `type` does not replace their rope_type
    full = full if isinstance(full, dict) else {"rope_type": "default"}
    sliding = sliding if isinstance(sliding, dict) else {}
    full_at, sliding_at = ("/rope_parameters/full_attention", "/rope_parameters/sliding_attention") if nested else ("", "")
    from cfglint.consumers.transformers5_rope import update_argument

    legacy = update_argument(config.get("rope_scaling"))
    if legacy is not None:
        full.update(copied(legacy))
        full_at = full_at or "/rope_scaling"
    if "rope_theta" in full:
        theta_at = full_at + "/rope_theta"
    elif "rope_theta" in config:
        full["rope_theta"], theta_at = config["rope_theta"], "/rope_theta"
    else:
        full["rope_theta"], theta_at = entry.fields["rope_theta"].default, DEFAULT
    if "rope_theta" in sliding:
        local_at = sliding_at + "/rope_theta"
    elif LEGACY_LOCAL_THETA in config:
        sliding["rope_theta"], local_at = config[LEGACY_LOCAL_THETA], "/" + LEGACY_LOCAL_THETA
    else:
        sliding["rope_theta"], local_at = entry.fields[LEGACY_LOCAL_THETA].default, DEFAULT
    standard = {**full, "rope_theta": full["rope_theta"]}
    theta, scaling, _, _ = resolve_rope({"rope_parameters": standard, "max_position_embeddings": config.get("max_position_embeddings")})
    intent.set("rope_theta", theta, theta_at)
    intent.set("rope_scaling", scaling, (full_at or DEFAULT) if scaling else DEFAULT)
    intent.set(LEGACY_LOCAL_THETA, sliding["rope_theta"], local_at)
    intent.rope_pointer = full_at if scaling else ""


def rebased(reading: Any, root: str, sources: bool = True) -> Any:
    """A reading of the object at `root`, its pointers made absolute (a multimodal file's text model);
    `sources=False` for a reading whose sources are the intent's, absolute already (a wrapper's own key
    among them)."""

    def absolute(pointer: str) -> str:  # values copied from the intent are absolute already
        return root + pointer if pointer.startswith("/") and not pointer.startswith(root + "/") else pointer

    if sources:
        reading.sources = {k: absolute(v) for k, v in reading.sources.items()}
    if getattr(reading, "rope_pointer", ""):
        reading.rope_pointer = root + reading.rope_pointer
    failure = getattr(reading, "failure", None)
    if failure is not None:
        reading.failure = failure._replace(pointer=absolute(failure.pointer) if failure.pointer else root)
    return reading
