"""mistral.rs 0.9's Llama `Config`, as a pydantic schema (see cfglint.consumers.mistralrs for its source)."""

from __future__ import annotations

from typing import Annotated, Literal, Optional

from pydantic import BaseModel, ConfigDict

from cfglint.consumers.serde import F32, F64, Bool, Rust, USize


# serde lists an enum's accepted strings alias first, in variant order.
ACTIVATIONS = (
    "gelu", "gelu_new", "newgelu", "relu", "relu2", "relu6", "silu", "sigmoid", "hardsigmoid", "swiglu", "swish",
    "hardswish", "elu", "leakyrelu", "gelu_pytorch_tanh", "gelupytorchtanh", "quickgelu",
)
# elu and leakyrelu carry a parameter: a bare string for them does not deserialize.
UNIT_ACTIVATIONS = tuple(a for a in ACTIVATIONS if a not in ("elu", "leakyrelu"))
ROPE_TYPES = ("llama3", "linear", "default")


class Llama3RopeConfig(BaseModel):
    model_config = ConfigDict(extra="ignore", defer_build=True)  # built on the first Llama file, not at start
    factor: F32
    low_freq_factor: Optional[F32] = None
    high_freq_factor: Optional[F32] = None
    original_max_position_embeddings: Optional[USize] = None
    rope_type: Annotated[Literal[ROPE_TYPES], Rust("enum Llama3RopeType", variants=ROPE_TYPES)]  # type: ignore[valid-type]  # the variants are the table above, read by pydantic at run time


class LlamaConfig(BaseModel):
    """`Config`, field for field, in declaration order."""

    model_config = ConfigDict(extra="ignore", defer_build=True)  # built on the first Llama file, not at start
    hidden_act: Annotated[Literal[UNIT_ACTIVATIONS], Rust("enum Activation", variants=ACTIVATIONS, newtype=("elu", "leakyrelu"))]  # type: ignore[valid-type]  # the variants are the table above, read by pydantic at run time
    hidden_size: USize
    intermediate_size: USize
    vocab_size: USize
    num_hidden_layers: USize
    num_attention_heads: USize
    num_key_value_heads: USize
    rms_norm_eps: F64
    rope_theta: F32
    max_position_embeddings: USize
    rope_scaling: Annotated[Optional[Llama3RopeConfig], Rust("struct Llama3RopeConfig")] = None
    quantization_config: Optional[dict] = None
    tie_word_embeddings: Bool = False  # `#[serde(default = "word_emb_default")]`: absent is false, null an error
