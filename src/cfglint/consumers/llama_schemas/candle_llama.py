"""candle 0.11's `LlamaConfig`, as a pydantic schema (see cfglint.consumers.candle_llama for its source)."""

from __future__ import annotations

from typing import Annotated, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict

from cfglint.consumers.serde import F32, F64, U32, Bool, Rust, USize


class Llama3RopeConfig(BaseModel):
    """`Llama3RopeConfig`: every field required (no `#[serde(default)]`)."""

    model_config = ConfigDict(extra="ignore", defer_build=True)  # built on the first Llama file, not at start
    factor: F32
    low_freq_factor: F32
    high_freq_factor: F32
    original_max_position_embeddings: USize
    rope_type: Annotated[Literal["llama3", "default"], Rust("enum Llama3RopeType", variants=("llama3", "default"))]


class LlamaConfig(BaseModel):
    """`LlamaConfig`, field for field, in declaration order (serde reports missing fields in this order)."""

    model_config = ConfigDict(extra="ignore", defer_build=True)  # built on the first Llama file, not at start
    hidden_size: USize
    intermediate_size: USize
    vocab_size: USize
    num_hidden_layers: USize
    num_attention_heads: USize
    num_key_value_heads: Optional[USize] = None
    rms_norm_eps: F64
    rope_theta: F32 = 10000.0  # `#[serde(default = "default_rope")]`
    bos_token_id: Optional[U32] = None
    eos_token_id: Annotated[Optional[Union[U32, list[U32]]], Rust("untagged enum LlamaEosToks", untagged=True)] = None
    rope_scaling: Annotated[Optional[Llama3RopeConfig], Rust("struct Llama3RopeConfig")] = None
    max_position_embeddings: USize
    tie_word_embeddings: Optional[Bool] = None
