"""The tensors a Llama-family causal LM is built from, named as transformers saves them.

Each expected tensor records, per axis, which config quantity sets it, so a shape mismatch can name the
key to blame. The same layout serves every consumer: only the values plugged in differ (candle derives
head_dim as hidden/heads, mlx-lm defaults tie_word_embeddings to true, ...).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Any

LAYER = re.compile(r"^model\.layers\.(\d+)\.(.+)$")
ATTENTION = ("q_proj", "k_proj", "v_proj", "o_proj")
MLP = ("gate_proj", "up_proj", "down_proj")
INV_FREQ_SUFFIX = "rotary_emb.inv_freq"
EMBED = "model.embed_tokens.weight"
HEAD = "lm_head.weight"


@dataclass(frozen=True)
class Axis:
    size: int
    key: str  # the config key that sets it ("hidden_size", "head_dim", ...)
    why: str  # how it is computed, for messages: "num_attention_heads × head_dim = 4 × 8"


@dataclass(frozen=True)
class Expected:
    name: str
    axes: tuple[Axis, ...]
    kind: str  # "embedding" | "head" | "norm" | "layer" | "bias"

    @cached_property
    def shape(self) -> tuple[int, ...]:
        return tuple(a.size for a in self.axes)


@dataclass(frozen=True)
class Shape:
    """The numbers a layout needs, as one reader ends up with them."""

    hidden: int
    intermediate: int
    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    vocab: int
    head_dim_key: str  # "head_dim" when the reader takes it from the file, else "num_attention_heads"
    kv_given: bool  # False when num_key_value_heads is the head count by default

    @classmethod
    def of(cls, dims: dict[str, Any], values: dict[str, Any], head_dim_given: bool, kv_given: bool) -> Shape | None:
        """None when a number is missing or not a count (the config rules report that)."""
        numbers: dict[str, Any] = {  # JSON values: checked to be counts just below
            "hidden": dims.get("hidden_size"),
            "intermediate": dims.get("intermediate_size"),
            "layers": dims.get("num_hidden_layers"),
            "heads": dims.get("num_attention_heads"),
            "kv_heads": values.get("num_key_value_heads"),
            "head_dim": values.get("head_dim"),
            "vocab": dims.get("vocab_size"),
        }
        if not all(type(v) is int and v >= 0 for v in numbers.values()):
            return None
        return cls(**numbers, head_dim_key="head_dim" if head_dim_given else "num_attention_heads", kv_given=kv_given)


def layer_of(name: str) -> int | None:
    m = LAYER.match(name)
    return int(m.group(1)) if m else None


def is_bias(name: str) -> bool:
    m = LAYER.match(name)
    return m is not None and m.group(2).endswith("_proj.bias")


def is_attention_bias(name: str) -> bool:
    m = LAYER.match(name)
    return m is not None and m.group(2).startswith("self_attn.") and m.group(2).endswith("_proj.bias")


def is_mlp_bias(name: str) -> bool:
    m = LAYER.match(name)
    return m is not None and m.group(2).startswith("mlp.") and m.group(2).endswith("_proj.bias")


def is_inv_freq(name: str) -> bool:
    return name.endswith(INV_FREQ_SUFFIX)


@lru_cache(maxsize=64)  # consumers that read the same numbers share one layout; callers must not mutate it
def expected(s: Shape, *, tie: bool, attention_bias: bool, mlp_bias: bool) -> dict[str, Expected]:
    hidden = Axis(s.hidden, "hidden_size", f"hidden_size {s.hidden}")
    vocab = Axis(s.vocab, "vocab_size", f"vocab_size {s.vocab}")
    inter = Axis(s.intermediate, "intermediate_size", f"intermediate_size {s.intermediate}")
    q_key = "head_dim" if s.head_dim_key == "head_dim" else "num_attention_heads"
    q = Axis(s.heads * s.head_dim, q_key, f"num_attention_heads {s.heads} × head_dim {s.head_dim}")
    kv_key = "num_key_value_heads"  # given or defaulted to the head count, it is the key to write
    kv_heads = f"num_key_value_heads {s.kv_heads}" if s.kv_given else f"num_key_value_heads not written, so {s.kv_heads} (the head count)"
    kv = Axis(s.kv_heads * s.head_dim, kv_key, f"{kv_heads} × head_dim {s.head_dim}")

    out: list[Expected] = [Expected(EMBED, (vocab, hidden), "embedding"), Expected("model.norm.weight", (hidden,), "norm")]
    if not tie:
        out.append(Expected(HEAD, (vocab, hidden), "head"))
    for i in range(s.layers):
        p = f"model.layers.{i}."
        rows = {"q_proj": q, "k_proj": kv, "v_proj": kv, "o_proj": hidden}
        for proj in ATTENTION:
            cols = q if proj == "o_proj" else hidden
            out.append(Expected(f"{p}self_attn.{proj}.weight", (rows[proj], cols), "layer"))
            if attention_bias:
                out.append(Expected(f"{p}self_attn.{proj}.bias", (rows[proj],), "bias"))
        for proj in MLP:
            shape = (hidden, inter) if proj == "down_proj" else (inter, hidden)
            out.append(Expected(f"{p}mlp.{proj}.weight", shape, "layer"))
            if mlp_bias:
                out.append(Expected(f"{p}mlp.{proj}.bias", shape[:1], "bias"))
        out.append(Expected(f"{p}input_layernorm.weight", (hidden,), "layer"))
        out.append(Expected(f"{p}post_attention_layernorm.weight", (hidden,), "layer"))
    return {e.name: e for e in out}


def blame(spec: Expected, stored: tuple[int, ...]) -> Axis | None:
    """The first axis whose size differs (None when only the number of axes differs)."""
    if len(stored) != len(spec.axes):
        return None
    for axis, size in zip(spec.axes, stored):
        if axis.size != size:
            return axis
    return None
