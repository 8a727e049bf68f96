"""What a reading is built from: the model's fixed dimensions plus the values a runtime ends up with.

The values follow the project's "values" contract (transformers key names). Dimensions that every runtime
reads the same way (hidden size, layer count, ...) are kept apart so that a reading differs from the
reference only through the values under test. Pure Python: no torch here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# Every reading must say what it uses for these; guessing a default would hide a consumer's choice.
REQUIRED_VALUE_KEYS = (
    "rope_theta",
    "head_dim",
    "num_key_value_heads",
    "tie_word_embeddings",
    "hidden_act",
    "rms_norm_eps",
)
# Latent attention (DeepSeek) has no single head size: these instead of head_dim (q_lora_rank may be null).
LATENT_VALUE_KEYS = ("qk_head_dim", "qk_rope_head_dim", "v_head_dim", "kv_lora_rank")


def required_keys(values: Mapping[str, Any]) -> tuple[str, ...]:
    """The keys a reading must give a value for: head_dim's place taken by the latent sizes in an MLA reading."""
    if values.get("qk_head_dim") is None:
        return REQUIRED_VALUE_KEYS
    return tuple(k for k in REQUIRED_VALUE_KEYS if k != "head_dim") + LATENT_VALUE_KEYS


# Absent means the runtime has no such feature: no scaling, no biases, no length limit, no EOS.
OPTIONAL_VALUE_DEFAULTS: dict[str, Any] = {
    "rope_scaling": None,
    "attention_bias": False,
    "mlp_bias": False,
    "max_position_embeddings": None,
    "eos_token_id": None,
}


class ReadingError(ValueError):
    """The values cannot drive a forward pass over these weights (a runtime would fail to load them)."""


class NotReproducible(ReadingError):
    """The modeling code cfglint runs cannot compute what this reading computes (said, never run otherwise)."""


_SLIDING = "sliding_attention"


def attention_windows(values: Mapping[str, Any]) -> tuple[int | None, ...] | None:
    """Each layer's attention window, from a reading's layer_types and sliding_window: a layer typed
    sliding_attention sees the last sliding_window positions, any other (or one without a window) all of
    them. None when no layer has a window, which is also what a reading without layer_types computes."""
    kinds, window = values.get("layer_types"), values.get("sliding_window")
    if not isinstance(kinds, (list, tuple)) or window is None or _SLIDING not in kinds:
        return None
    if not isinstance(window, int) or isinstance(window, bool) or window <= 0:
        raise NotReproducible(f"the Llama forward has no attention window of {window!r} positions")
    return tuple(window if kind == _SLIDING else None for kind in kinds)


@dataclass(frozen=True)
class LlamaDims:
    hidden_size: int
    intermediate_size: int
    num_hidden_layers: int
    num_attention_heads: int
    vocab_size: int

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> LlamaDims:
        """Take the dimensions from a config.json dict (or any mapping with the same keys)."""
        try:
            return cls(**{name: int(config[name]) for name in cls.__dataclass_fields__})
        except KeyError as missing:
            raise ReadingError(f"config has no {missing.args[0]!r}") from None

    @classmethod
    def coerce(cls, dims: LlamaDims | Mapping[str, Any]) -> LlamaDims:
        return dims if isinstance(dims, LlamaDims) else cls.from_config(dims)


@dataclass(frozen=True)
class RopeSpec:
    """RoPE as a runtime applies it: the base, the scaling type and that type's parameters."""

    theta: float
    rope_type: str
    params: Mapping[str, Any]

    @classmethod
    def from_values(cls, values: Mapping[str, Any]) -> RopeSpec:
        scaling = values.get("rope_scaling")
        if not scaling:
            return cls(float(values["rope_theta"]), "default", {})
        if not isinstance(scaling, Mapping):
            raise ReadingError(f"rope_scaling must be an object or null, got {scaling!r}")
        # Old configs spell the type "type"; transformers accepts both.
        rope_type = scaling.get("rope_type", scaling.get("type", "default"))
        params = {k: v for k, v in scaling.items() if k not in ("rope_type", "type", "rope_theta")}
        return cls(float(values["rope_theta"]), str(rope_type), params)


@dataclass(frozen=True)
class ReadingValues:
    """The contract's values, checked and with absent optional keys filled in."""

    rope: RopeSpec
    head_dim: int
    num_key_value_heads: int
    tie_word_embeddings: bool
    hidden_act: str
    rms_norm_eps: float
    attention_bias: bool
    mlp_bias: bool
    max_position_embeddings: int | None
    eos_token_ids: tuple[int, ...]
    windows: tuple[int | None, ...] | None = None  # per layer: how far back it attends (None: fully); None: all fully

    @classmethod
    def from_values(cls, values: Mapping[str, Any]) -> ReadingValues:
        missing = [key for key in REQUIRED_VALUE_KEYS if values.get(key) is None]
        if missing:
            raise ReadingError(f"values lack {', '.join(missing)}")
        full = {**OPTIONAL_VALUE_DEFAULTS, **{k: v for k, v in values.items() if v is not None}}
        eos = full["eos_token_id"]
        eos_ids = () if eos is None else tuple(int(e) for e in (eos if isinstance(eos, (list, tuple)) else [eos]))
        max_positions = full["max_position_embeddings"]
        return cls(
            rope=RopeSpec.from_values(full),
            head_dim=int(full["head_dim"]),
            num_key_value_heads=int(full["num_key_value_heads"]),
            tie_word_embeddings=bool(full["tie_word_embeddings"]),
            hidden_act=str(full["hidden_act"]),
            rms_norm_eps=float(full["rms_norm_eps"]),
            attention_bias=bool(full["attention_bias"]),
            mlp_bias=bool(full["mlp_bias"]),
            max_position_embeddings=None if max_positions is None else int(max_positions),
            eos_token_ids=eos_ids,
            windows=attention_windows(values),
        )
