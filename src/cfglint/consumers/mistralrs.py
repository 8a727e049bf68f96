"""mistral.rs 0.9 `models/llama.rs`: its serde `Config` for Llama.

Source: EricLBuehler/mistral.rs, mistralrs-core/src/models/llama.rs (`Config`) and
mistralrs-core/src/layers.rs (`Llama3RopeConfig`, `Activation`), HEAD 9e922623 (after v0.9.2); the loader
(`pipeline/loaders/normal_loaders.rs`) parses config.json with `serde_json::from_str`, without touching
`rope_parameters`. Unlike candle, every field without a serde default is required: `rope_theta`,
`num_key_value_heads` and `hidden_act` among them; `hidden_act` is honoured; head_dim is still derived as
hidden/heads and projections have no bias. Llama3 scaling factors other than `factor` are optional in the
struct but required when the rotary embedding is built. eos comes from generation_config.json, not from
this struct. `quantization_config` is read by a separate parser that differs between releases; it is
taken as given here.
"""

from __future__ import annotations

from cfglint.consumers.base import ERROR, PANIC, Consumer, Failure, View, head_dim_mismatch, llama3_scaling
from cfglint.document import Document
from cfglint.intent import Intent
from cfglint.knowledge.entry import Struct, fields
from cfglint.reading import DEFAULT, DERIVED, FIXED
from cfglint.readers.serde_reader import parse
from cfglint.serde_json import f32

# The structs field for field, in declaration order; `hidden_act` is mistral.rs' own `Activation`
# (cfglint.knowledge.mistralrs.ACTIVATIONS). The pydantic schema (`cfglint schema mistralrs`) is built from them.
LLAMA3_ROPE = Struct(
    "mistralrs", "Llama3RopeConfig",
    fields(factor="f32", low_freq_factor="option<f32>", high_freq_factor="option<f32>",
           original_max_position_embeddings="option<usize>", rope_type="Llama3RopeType"),
    {"Llama3RopeType": ("llama3", "linear", "default")},
)
LLAMA = Struct(
    "mistralrs", "LlamaConfig",
    fields(
        hidden_act="activation", hidden_size="usize", intermediate_size="usize", vocab_size="usize",
        num_hidden_layers="usize", num_attention_heads="usize", num_key_value_heads="usize", rms_norm_eps="f64",
        rope_theta="f32", max_position_embeddings="usize", rope_scaling="option<Llama3RopeConfig>",
        quantization_config="option<map>",
        tie_word_embeddings=("bool", False),  # `#[serde(default = "word_emb_default")]`: absent is false, null an error
    ),
    {"Llama3RopeConfig": LLAMA3_ROPE},
    "`Config`, field for field, in declaration order.",
)


class MistralRs(Consumer):
    name = "mistralrs"
    runtime = "mistral.rs 0.9"
    title = "mistral.rs 0.9 models/llama.rs"
    source = "EricLBuehler/mistral.rs mistralrs-core/src/models/llama.rs, layers.rs @ 9e92262"
    schema_ref = "mistralrs:LlamaConfig"
    llama_struct = LLAMA

    def read(self, doc: Document, intent: Intent) -> View:
        view = View(consumer=self.name)
        parsed = parse(LLAMA, doc)  # plain Python unless pydantic must word a refusal
        if isinstance(parsed, Failure):
            return view.fail(parsed)
        heads = parsed["num_attention_heads"]
        if heads == 0:
            return view.fail(Failure("attempt to divide by zero", "/num_attention_heads", "type", PANIC))
        scaling = parsed["rope_scaling"]
        if scaling is not None and scaling["rope_type"] == "llama3":
            for key in ("low_freq_factor", "high_freq_factor", "original_max_position_embeddings"):
                if scaling[key] is None:
                    return view.fail(Failure(f"{key} is required", f"/rope_scaling/{key}", "missing"))
        tie_given = "tie_word_embeddings" in doc.data

        view.set("rope_theta", f32(parsed["rope_theta"]), "/rope_theta")
        if scaling is None or scaling["rope_type"] == "default":
            view.set("rope_scaling", None, "/rope_scaling" if scaling else DEFAULT)
        elif scaling["rope_type"] == "linear":
            view.set("rope_scaling", {"rope_type": "linear", "factor": f32(scaling["factor"])}, "/rope_scaling")
        else:
            low, high, original = scaling["low_freq_factor"], scaling["high_freq_factor"], scaling["original_max_position_embeddings"]
            assert low is not None and high is not None and original is not None  # refused above when absent
            view.set("rope_scaling", llama3_scaling(f32(scaling["factor"]), f32(low), f32(high), original), "/rope_scaling")
        view.set("head_dim", parsed["hidden_size"] // heads, DERIVED)
        view.set("num_key_value_heads", parsed["num_key_value_heads"], "/num_key_value_heads")
        view.set("tie_word_embeddings", parsed["tie_word_embeddings"], "/tie_word_embeddings" if tie_given else DEFAULT)
        view.set("hidden_act", parsed["hidden_act"], "/hidden_act")
        view.set("attention_bias", False, FIXED)
        view.set("mlp_bias", False, FIXED)
        view.set("max_position_embeddings", parsed["max_position_embeddings"], "/max_position_embeddings")
        view.set("rms_norm_eps", parsed["rms_norm_eps"], "/rms_norm_eps")

        mismatch = head_dim_mismatch(intent, parsed["hidden_size"], heads, ERROR)
        if mismatch:
            view.fail(mismatch)
        return view
