"""candle-transformers 0.11 `models/llama.rs`: the 13 keys its `LlamaConfig` deserializes.

Source: huggingface/candle, candle-transformers/src/models/llama.rs at tag 0.11.0
(31f35b147389700ed2a178ee66a91c3cc25cc80d); the loader is candle-examples/examples/llama/main.rs, which
reads config.json with `serde_json::from_slice` and calls `LlamaConfig::into_config`.
What the code does with the result: head_dim = hidden_size / num_attention_heads (the `head_dim` key is
never read), the MLP always applies SiLU, every projection is `linear_no_bias`, RoPE is the half-split
`candle_nn::rotary_emb::rope`, and a rope_scaling of type "default" means no scaling.
"""

from __future__ import annotations

from cfglint.consumers.base import PANIC, Consumer, Failure, View, head_dim_mismatch, llama3_scaling
from cfglint.document import Document
from cfglint.intent import Intent
from cfglint.knowledge.entry import Struct, fields
from cfglint.reading import DEFAULT, DERIVED, FIXED
from cfglint.readers.serde_reader import parse
from cfglint.serde_json import f32

# The structs field for field, in declaration order (serde reports missing fields in this order); the
# pydantic schema (`cfglint schema candle`) is built from them.
LLAMA3_ROPE = Struct(
    "candle", "Llama3RopeConfig",
    fields(factor="f32", low_freq_factor="f32", high_freq_factor="f32", original_max_position_embeddings="usize",
           rope_type="Llama3RopeType"),
    {"Llama3RopeType": ("llama3", "default")},
    "`Llama3RopeConfig`: every field required (no `#[serde(default)]`).",
)
LLAMA = Struct(
    "candle", "LlamaConfig",
    fields(
        hidden_size="usize", intermediate_size="usize", vocab_size="usize", num_hidden_layers="usize",
        num_attention_heads="usize", num_key_value_heads="option<usize>", rms_norm_eps="f64",
        rope_theta=("f32", 10000.0),  # `#[serde(default = "default_rope")]`
        bos_token_id="option<u32>", eos_token_id="option<LlamaEosToks>", rope_scaling="option<Llama3RopeConfig>",
        max_position_embeddings="usize", tie_word_embeddings="option<bool>",
    ),
    {"LlamaEosToks": "eos", "Llama3RopeConfig": LLAMA3_ROPE},
    "`LlamaConfig`, field for field, in declaration order (serde reports missing fields in this order).",
)


class CandleLlama(Consumer):
    name = "candle"
    runtime = "candle 0.11"
    title = "candle-transformers 0.11 models/llama.rs"
    source = "huggingface/candle candle-transformers/src/models/llama.rs @ 0.11.0 (31f35b1)"
    schema_ref = "candle_llama:LlamaConfig"
    llama_struct = LLAMA

    def read(self, doc: Document, intent: Intent) -> View:
        view = View(consumer=self.name)
        parsed = parse(LLAMA, doc)  # plain Python unless pydantic must word a refusal
        if isinstance(parsed, Failure):
            return view.fail(parsed)
        if parsed["num_attention_heads"] == 0:
            # into_config divides hidden_size by the head count: Rust panics on a zero divisor.
            return view.fail(Failure("attempt to divide by zero", "/num_attention_heads", "type", PANIC))
        data = doc.data

        def source(key: str) -> str:
            return "/" + key if data.get(key) is not None else DEFAULT

        view.set("rope_theta", f32(parsed["rope_theta"]), source("rope_theta"))
        scaling = parsed["rope_scaling"]
        if scaling is not None and scaling["rope_type"] == "llama3":
            view.set("rope_scaling", llama3_scaling(
                f32(scaling["factor"]), f32(scaling["low_freq_factor"]), f32(scaling["high_freq_factor"]),
                scaling["original_max_position_embeddings"],
            ), "/rope_scaling")
        else:
            view.set("rope_scaling", None, source("rope_scaling"))
        heads = parsed["num_attention_heads"]
        view.set("head_dim", parsed["hidden_size"] // heads if heads else None, DERIVED)
        kv = parsed["num_key_value_heads"]
        view.set("num_key_value_heads", kv if kv is not None else heads, source("num_key_value_heads") if kv is not None else DERIVED)
        tie = parsed["tie_word_embeddings"]
        view.set("tie_word_embeddings", bool(tie), source("tie_word_embeddings"))
        view.set("hidden_act", "silu", FIXED)
        view.set("attention_bias", False, FIXED)
        view.set("mlp_bias", False, FIXED)
        view.set("max_position_embeddings", parsed["max_position_embeddings"], "/max_position_embeddings")
        view.set("rms_norm_eps", parsed["rms_norm_eps"], "/rms_norm_eps")
        view.set("eos_token_id", parsed["eos_token_id"], source("eos_token_id"))

        # Block::load(...).unwrap() turns the shape error into a panic.
        mismatch = head_dim_mismatch(intent, parsed["hidden_size"], heads, PANIC)
        if mismatch:
            view.fail(mismatch)
        return view
