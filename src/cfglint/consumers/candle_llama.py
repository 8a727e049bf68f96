"""candle-transformers 0.11 `models/llama.rs`: the 13 keys its `LlamaConfig` deserializes.

Source: huggingface/candle, candle-transformers/src/models/llama.rs at tag 0.11.0
(31f35b147389700ed2a178ee66a91c3cc25cc80d); the loader is candle-examples/examples/llama/main.rs, which
reads config.json with `serde_json::from_slice` and calls `LlamaConfig::into_config`.
What the code does with the result: head_dim = hidden_size / num_attention_heads (the `head_dim` key is
never read), the MLP always applies SiLU, every projection is `linear_no_bias`, RoPE is the half-split
`candle_nn::rotary_emb::rope`, and a rope_scaling of type "default" means no scaling.
"""

from __future__ import annotations

from typing import Annotated, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict

from cfglint.consumers.base import PANIC, Consumer, Failure, View, head_dim_mismatch, llama3_scaling
from cfglint.consumers.serde import F32, F64, U32, Bool, Rust, USize, deserialize, f32
from cfglint.document import Document
from cfglint.intent import Intent
from cfglint.reading import DEFAULT, DERIVED, FIXED



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


class CandleLlama(Consumer):
    name = "candle"
    runtime = "candle 0.11"
    title = "candle-transformers 0.11 models/llama.rs"
    source = "huggingface/candle candle-transformers/src/models/llama.rs @ 0.11.0 (31f35b1)"
    schema = LlamaConfig

    def read(self, doc: Document, intent: Intent) -> View:
        view = View(consumer=self.name)
        parsed = deserialize(LlamaConfig, doc)
        if isinstance(parsed, Failure):
            return view.fail(parsed)
        assert isinstance(parsed, LlamaConfig)
        if parsed.num_attention_heads == 0:
            # into_config divides hidden_size by the head count: Rust panics on a zero divisor.
            return view.fail(Failure("attempt to divide by zero", "/num_attention_heads", "type", PANIC))
        given = parsed.model_fields_set
        data = doc.data

        def source(key: str) -> str:
            return "/" + key if key in given and data.get(key) is not None else DEFAULT

        view.set("rope_theta", f32(parsed.rope_theta), source("rope_theta"))
        scaling = parsed.rope_scaling
        if scaling is not None and scaling.rope_type == "llama3":
            view.set("rope_scaling", llama3_scaling(
                f32(scaling.factor), f32(scaling.low_freq_factor), f32(scaling.high_freq_factor),
                scaling.original_max_position_embeddings,
            ), "/rope_scaling")
        else:
            view.set("rope_scaling", None, source("rope_scaling"))
        heads = parsed.num_attention_heads
        view.set("head_dim", parsed.hidden_size // heads if heads else None, DERIVED)
        kv = parsed.num_key_value_heads
        view.set("num_key_value_heads", kv if kv is not None else heads, source("num_key_value_heads") if kv is not None else DERIVED)
        tie = parsed.tie_word_embeddings
        view.set("tie_word_embeddings", bool(tie), source("tie_word_embeddings"))
        view.set("hidden_act", "silu", FIXED)
        view.set("attention_bias", False, FIXED)
        view.set("mlp_bias", False, FIXED)
        view.set("max_position_embeddings", parsed.max_position_embeddings, "/max_position_embeddings")
        view.set("rms_norm_eps", parsed.rms_norm_eps, "/rms_norm_eps")
        view.set("eos_token_id", parsed.eos_token_id, source("eos_token_id"))
        view.ignored = [k for k in data if k not in LlamaConfig.model_fields]

        # Block::load(...).unwrap() turns the shape error into a panic.
        mismatch = head_dim_mismatch(intent, parsed.hidden_size, heads, PANIC)
        if mismatch:
            view.fail(mismatch)
        return view
