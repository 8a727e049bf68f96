"""What a runtime ends up with after reading a config: values under transformers' key names."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

# The values every reading reports, in the order reports show them.
KEYS = (
    "rope_theta",
    "rope_scaling",
    "head_dim",
    "num_key_value_heads",
    "tie_word_embeddings",
    "hidden_act",
    "attention_bias",
    "mlp_bias",
    "max_position_embeddings",
    "rms_norm_eps",
    "eos_token_id",
)
# What the non-Llama families add: local RoPE, partial rotary, windows, the attention scale and soft-capping.
FAMILY_KEYS: tuple[str, ...] = (
    "rope_local_base_freq",
    "partial_rotary_factor",
    "sliding_window",
    "layer_types",
    "query_pre_attn_scalar",
    "attn_logit_softcapping",
    "final_logit_softcapping",
    "embedding_multiplier",  # Granite's scales: embeddings, residual branches, and logits (divided by)
    "residual_multiplier",
    "logits_scaling",
)
# Multi-head latent attention (DeepSeek-V2/V3) has no single head size: queries and keys are qk_head_dim wide
# (qk_nope_head_dim + qk_rope_head_dim), RoPE turns the last qk_rope_head_dim of them, values are v_head_dim
# wide, and keys and values are made from a kv_lora_rank-wide latent (queries from a q_lora_rank one, or
# directly when that is null). A reading of such a family reports these instead of head_dim.
MLA_KEYS = ("qk_head_dim", "qk_rope_head_dim", "v_head_dim", "kv_lora_rank", "q_lora_rank")
# How a mixture of experts routes: experts per layer, shared experts beside them, experts per token, the
# group-limited selection, the weight scale, and which layers are dense MLPs ("dense") or experts ("moe").
MOE_KEYS = ("n_routed_experts", "n_shared_experts", "num_experts_per_tok", "topk_method", "n_group", "topk_group",
            "routed_scaling_factor", "mlp_layers")
FAMILY_KEYS += MLA_KEYS + MOE_KEYS
ALL_KEYS = KEYS + FAMILY_KEYS
DIMS = ("hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads", "vocab_size")

# Where a value came from, when not from a key in the file.
DEFAULT = "default"  # the key is absent (or null) and the runtime's default applies
DERIVED = "derived"  # computed from other keys
FIXED = "fixed"  # hard-coded by the runtime, whatever the file says

# Parameters that change what each RoPE type computes; anything else in a scaling dict is inert.
ROPE_PARAMETERS = {
    "default": (),
    "linear": ("factor",),
    "dynamic": ("factor",),
    "llama3": ("factor", "low_freq_factor", "high_freq_factor", "original_max_position_embeddings"),
    "yarn": ("factor", "original_max_position_embeddings", "beta_fast", "beta_slow", "attention_factor", "mscale", "mscale_all_dim",
             "truncate"),
    "longrope": ("short_factor", "long_factor", "original_max_position_embeddings", "attention_factor"),
}
# What a parameter absent from the dict computes as, where the absence is itself a choice: YaRN floors and
# ceils its correction range unless `truncate` is written falsy (transformers 5.24 and 4.57
# modeling_rope_utils.py _compute_yarn_parameters: `truncate = rope_parameters.get("truncate", True)`, then
# `if truncate:`), so an absent truncate is true and a written one counts by its truth value.
ROPE_FLAGS = {"yarn": {"truncate": True}}
# Parameters whose falsy value (absent, null, 0) computes as a default: YaRN's correction-range bounds
# (transformers 5.24 and 4.57 _compute_yarn_parameters: `beta_fast = ....get("beta_fast") or 32`, `beta_slow =
# ....get("beta_slow") or 1`), so a dict without them and one that states 32 and 1 compute the same.
ROPE_FALSY_DEFAULTS = {"yarn": {"beta_fast": 32, "beta_slow": 1}}


@dataclass
class Reading:
    values: dict[str, Any] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)  # key -> JSON pointer, or DEFAULT / DERIVED / FIXED

    def set(self, key: str, value: Any, source: str) -> None:
        self.values[key] = value
        self.sources[key] = source


def same(key: str, a: Any, b: Any) -> bool:
    """Equal as a runtime would compute with them: floats to f32 precision, scaling by what matters."""
    if key == "rope_scaling":
        return _scaling_key(a) == _scaling_key(b)
    if key == "eos_token_id":
        return _as_set(a) == _as_set(b)
    return _close(a, b)


def same_as(key: str, want: Any) -> Callable[[Any], bool]:
    """`same(key, value, want)` as a test of one value, with what `want` compares by worked out once."""
    if key == "rope_scaling":
        wanted = _scaling_key(want)
        return lambda value: _scaling_key(value) == wanted
    if key == "eos_token_id":
        ids = _as_set(want)
        return lambda value: _as_set(value) == ids
    kind = type(want)
    if kind in _SCALARS:  # most readings agree: a scalar of the same type, equal, is the same without _close
        return lambda value: (type(value) is kind and value == want) or _close(value, want)
    return lambda value: _close(value, want)


def _close(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        try:
            return math.isclose(a, b, rel_tol=1e-6, abs_tol=0.0) or a == b
        except OverflowError:  # an integer beyond a float's range: only an exact match is the same
            return a == b
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return False
        kinds = set(map(type, a))
        if kinds <= _EXACT and kinds == set(map(type, b)):  # layer_types: strings compare as Python compares them
            return a == b
        return all(_close(x, y) for x, y in zip(a, b))
    return a == b


_EXACT = {str, bool, type(None)}  # what _close compares exactly, and Python's == alike
_SCALARS = frozenset({str, bool, type(None), int, float})  # where equal values of one type are _close


def _scaling_key(scaling: Any) -> Any:
    if not isinstance(scaling, dict):
        return None
    kind = scaling.get("rope_type", "default")
    if kind == "default":
        return None
    if not isinstance(kind, str):
        return repr(kind), ()
    params = ROPE_PARAMETERS.get(kind)
    keys = params if params is not None else sorted(k for k in scaling if k not in ("rope_type", "type", "rope_theta"))
    flags, falsy = ROPE_FLAGS.get(kind, {}), ROPE_FALSY_DEFAULTS.get(kind, {})
    return kind, tuple(
        (k, bool(scaling.get(k, flags[k])) if k in flags else _rounded(scaling.get(k) or falsy[k]) if k in falsy else _rounded(scaling.get(k)))
        for k in keys
    )


def _rounded(value: Any) -> Any:
    if isinstance(value, float):
        return float(f"{value:.6g}")
    if isinstance(value, list):
        return tuple(_rounded(v) for v in value)
    return value


def _as_set(value: Any) -> Any:
    if value is None:
        return None
    values = value if isinstance(value, list) else [value]
    # Any JSON value can be written here; an object or list entry compares by its text, not as an id.
    return frozenset(v if isinstance(v, (int, float, str, bool)) else repr(v) for v in values)


def copied(value: Any) -> Any:
    """A parsed JSON value's copy (what copy.deepcopy gives for one, several times faster: parsed JSON shares
    no containers and holds no other kind)."""
    if type(value) is dict:
        return {k: copied(v) for k, v in value.items()}
    if type(value) is list:
        return [copied(v) for v in value]
    return value


def show(value: Any) -> str:
    """A value as a report prints it: JSON-like, short."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, dict):
        kind = value.get("rope_type", "?")
        # A type's own parameters are numbers and lists: a dict beside them is a layer type's parameters
        # (full_attention), which a class without layer types does not run.
        inner = ", ".join(f"{k}={show(v)}" for k, v in value.items()
                          if k != "rope_type" and not ("rope_type" in value and isinstance(v, dict)))
        return f"{kind if isinstance(kind, str) and kind else show(kind)}({inner})"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return _runs(value)
    return str(value)


def _runs(items: list[str]) -> str:
    """A per-layer list, compressed: Gemma 3 1B's 26 layers are [(sliding x5, full) x4, sliding x2]."""
    for period in range(1, len(items) // 2 + 1):
        repeats = 1
        while items[repeats * period:(repeats + 1) * period] == items[:period]:
            repeats += 1
        if repeats >= 2 and len(items) - repeats * period < period and items[repeats * period:] == items[: len(items) - repeats * period]:
            unit = _run_length(items[:period])
            tail = items[repeats * period:]
            unit = f"({unit}) x{repeats}" if period > 1 else f"{unit} x{repeats}"
            return "[" + unit + (", " + _run_length(tail) if tail else "") + "]"
    return "[" + _run_length(items) + "]"


def _run_length(items: list[str]) -> str:
    out: list[str] = []
    i = 0
    while i < len(items):
        j = i
        while j < len(items) and items[j] == items[i]:
            j += 1
        name = items[i].removesuffix("_attention")
        out.append(name if j - i == 1 else f"{name} x{j - i}")
        i = j
    return ", ".join(out)
