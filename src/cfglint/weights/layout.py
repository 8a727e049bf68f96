"""The tensors a decoder-only causal LM is built from, named as transformers 5 saves them, per family.

Each expected tensor records, per axis, which config quantity sets it, so a shape mismatch can name the
key to blame. The same layout serves every runtime: only the values plugged in differ (candle derives
head_dim as hidden/heads, mlx-lm defaults tie_word_embeddings to true, ...). The families differ in their
per-layer norms, per-head q/k norms and fused projections (LAYOUTS); what they share is Llama's.
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
        numbers = {
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
    return bool(m) and m.group(2).endswith("_proj.bias")


def is_attention_bias(name: str) -> bool:
    m = LAYER.match(name)
    return bool(m) and m.group(2).startswith("self_attn.") and m.group(2).endswith("_proj.bias")


def is_mlp_bias(name: str) -> bool:
    m = LAYER.match(name)
    return bool(m) and m.group(2).startswith("mlp.") and m.group(2).endswith("_proj.bias")


def is_inv_freq(name: str) -> bool:
    return name.endswith(INV_FREQ_SUFFIX)


@dataclass(frozen=True)
class Layout:
    """What one family's decoder layer holds beyond Llama's attention and MLP projections."""

    norms: tuple[str, ...] = ("input_layernorm", "post_attention_layernorm")  # per layer, hidden_size each
    head_norms: str = ""  # "per-head": q_norm and k_norm of head_dim; "per-projection": of the q and k widths
    fused: bool = False  # one qkv_proj and one gate_up_proj instead of q/k/v and gate/up
    source: str = ""


_T5 = "transformers 5.24 models/{0}/modeling_{0}.py; names and shapes checked against the model it builds (tests/test_weights_families.py)"
_GEMMA2_NORMS = ("input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm", "post_feedforward_layernorm")
LAYOUTS: dict[str, Layout] = {
    "llama": Layout(source=_T5.format("llama")),
    "mistral": Layout(source=_T5.format("mistral")),
    "granite": Layout(source=_T5.format("granite")),
    "qwen2": Layout(source=_T5.format("qwen2")),  # its q/k/v biases come from the reading's attention_bias
    "gemma": Layout(source=_T5.format("gemma")),
    "qwen3": Layout(head_norms="per-head", source=_T5.format("qwen3")),
    "gemma2": Layout(_GEMMA2_NORMS, source=_T5.format("gemma2")),
    "gemma3_text": Layout(_GEMMA2_NORMS, head_norms="per-head", source=_T5.format("gemma3")),
    "olmo2": Layout(("post_attention_layernorm", "post_feedforward_layernorm"), head_norms="per-projection", source=_T5.format("olmo2")),
    "phi3": Layout(fused=True, source=_T5.format("phi3")),
}
LLAMA = LAYOUTS["llama"]


def biased(flag: object, fused: bool = False) -> tuple[str, ...]:
    """The attention projections with a bias, for a reading's attention_bias: true (all four), "q/k/v" (Qwen2's
    implicit biases) or false."""
    if flag is True:
        return ("qkv_proj", "o_proj") if fused else ATTENTION
    if flag == "q/k/v":
        return ("qkv_proj",) if fused else ATTENTION[:3]
    return ()


@lru_cache(maxsize=64)  # consumers that read the same numbers share one layout; callers must not mutate it
def expected(s: Shape, *, tie: bool, attention_bias: bool | str, mlp_bias: bool, layout: Layout = LLAMA) -> dict[str, Expected]:
    hidden = Axis(s.hidden, "hidden_size", f"hidden_size {s.hidden}")
    vocab = Axis(s.vocab, "vocab_size", f"vocab_size {s.vocab}")
    inter = Axis(s.intermediate, "intermediate_size", f"intermediate_size {s.intermediate}")
    q_key = "head_dim" if s.head_dim_key == "head_dim" else "num_attention_heads"
    q = Axis(s.heads * s.head_dim, q_key, f"num_attention_heads {s.heads} × head_dim {s.head_dim}")
    kv_key = "num_key_value_heads"  # given or defaulted to the head count, it is the key to write
    kv_heads = f"num_key_value_heads {s.kv_heads}" if s.kv_given else f"num_key_value_heads not written, so {s.kv_heads} (the head count)"
    kv = Axis(s.kv_heads * s.head_dim, kv_key, f"{kv_heads} × head_dim {s.head_dim}")

    if layout.fused:
        qkv = Axis(q.size + 2 * kv.size, q_key, f"{q.why} + 2 × {kv.why}")
        rows = {"qkv_proj": qkv, "o_proj": hidden}
        gate_up = Axis(2 * s.intermediate, "intermediate_size", f"2 × intermediate_size {s.intermediate}")
        mlp = {"gate_up_proj": (gate_up, hidden), "down_proj": (hidden, inter)}
    else:
        rows = {"q_proj": q, "k_proj": kv, "v_proj": kv, "o_proj": hidden}
        mlp = {"gate_proj": (inter, hidden), "up_proj": (inter, hidden), "down_proj": (hidden, inter)}
    with_bias = biased(attention_bias, layout.fused)
    head_norms: dict[str, Axis] = {}
    if layout.head_norms == "per-head":
        per_head = Axis(s.head_dim, s.head_dim_key, f"head_dim {s.head_dim}")
        head_norms = {"q_norm": per_head, "k_norm": per_head}
    elif layout.head_norms == "per-projection":
        head_norms = {"q_norm": q, "k_norm": kv}

    out: list[Expected] = [Expected(EMBED, (vocab, hidden), "embedding"), Expected("model.norm.weight", (hidden,), "norm")]
    if not tie:
        out.append(Expected(HEAD, (vocab, hidden), "head"))
    for i in range(s.layers):
        p = f"model.layers.{i}."
        for proj, rows_axis in rows.items():
            cols = q if proj == "o_proj" else hidden
            out.append(Expected(f"{p}self_attn.{proj}.weight", (rows_axis, cols), "layer"))
            if proj in with_bias:
                out.append(Expected(f"{p}self_attn.{proj}.bias", (rows_axis,), "bias"))
        for name, axis in head_norms.items():
            out.append(Expected(f"{p}self_attn.{name}.weight", (axis,), "layer"))
        for proj, shape in mlp.items():
            out.append(Expected(f"{p}mlp.{proj}.weight", shape, "layer"))
            if mlp_bias:
                out.append(Expected(f"{p}mlp.{proj}.bias", shape[:1], "bias"))
        for norm in layout.norms:
            out.append(Expected(f"{p}{norm}.weight", (hidden,), "layer"))
    return {e.name: e for e in out}


def layout_of(family: str | None) -> Layout | None:
    """The family's layout; None for one whose tensors are not modelled (mixtures of experts, ...)."""
    return LAYOUTS.get(family) if family is not None else None


def blame(spec: Expected, stored: tuple[int, ...]) -> Axis | None:
    """The first axis whose size differs (None when only the number of axes differs)."""
    if len(stored) != len(spec.axes):
        return None
    for axis, size in zip(spec.axes, stored):
        if axis.size != size:
            return axis
    return None
