"""How candle-transformers 0.11.0 reads config.json, per family (reader "serde").

Every entry was read from huggingface/candle at tag 0.11.0 (commit 31f35b147389700ed2a178ee66a91c3cc25cc80d):
the family's `Config` struct in candle-transformers/src/models/<module>.rs, the model code that builds from it,
and candle-examples/examples/<family>/main.rs, which reads config.json straight into that struct with
serde_json (`from_slice` / `from_reader`). Fields are listed in struct declaration order. candle reads no
`rope_parameters`, `layer_types` or `text_config`; unknown keys are ignored (no struct denies them).
"""

from __future__ import annotations

from cfglint.knowledge.deepseek import DEEPSEEK_V2_CHECKS, DEEPSEEK_V2_DERIVE, DEEPSEEK_V2_FIELDS
from cfglint.knowledge.entry import Check, Entry, Source, fields

_REF = "0.11.0 (31f35b1)"


_REPO = "huggingface/candle"
_MODELS = "candle-transformers/src/models/"


# candle_nn::Activation (candle-nn/src/activation.rs:5-27): `rename_all = "lowercase"`, and serde accepts, per
# variant, its alias first, then its own name. Elu(f64) and LeakyRelu(f64) are newtype variants: the bare
# string gives `invalid type: unit variant, expected newtype variant`; only `{"elu": 1.0}` parses.
ACTIVATIONS = (
    "gelu",  # Gelu: alias "gelu" equals the lowercase name
    "gelu_new", "newgelu",
    "relu", "relu2", "relu6", "silu", "sigmoid", "hardsigmoid", "swiglu", "swish", "mish", "hardswish",
    "elu", "leakyrelu",
    "gelu_pytorch_tanh", "gelupytorchtanh",
)
NEWTYPE_ACTIVATIONS = ("elu", "leakyrelu")

# What each accepted string runs (activation.rs:29-50, candle-core op.rs:602-620), as transformers names that
# function. `Gelu => xs.gelu_erf()` (exact); `NewGelu` and `GeluPytorchTanh => xs.gelu()`, the tanh
# approximation. Names transformers has no ACT2FN entry for keep candle's own name.
ACTIVATION_MEANING = {
    "gelu": "gelu",
    "newgelu": "gelu_pytorch_tanh",
    "gelu_new": "gelu_pytorch_tanh",
    "gelu_pytorch_tanh": "gelu_pytorch_tanh",
    "gelupytorchtanh": "gelu_pytorch_tanh",
    "relu": "relu",
    "relu2": "relu2",  # relu(x)^2
    "relu6": "relu6",  # clamp(x, 0, 6)
    "silu": "silu",
    "swish": "silu",  # x * sigmoid(x)
    "sigmoid": "sigmoid",
    "hardsigmoid": "hardsigmoid",  # clamp((x + 3) / 6, 0, 1); not in transformers' ACT2FN
    "swiglu": "swiglu",  # silu(first half) * second half: halves the last dim; not in ACT2FN
    "mish": "mish",
    "hardswish": "hardswish",  # x * hardsigmoid(x)
    "elu": "elu",  # {"elu": alpha} only
    "leakyrelu": "leaky_relu",  # {"leakyrelu": slope} only
}

# Families candle-transformers 0.11.0 has no model for.
MISSING = ("gpt_oss", "deepseek_v3", "ministral")  # 0.11.0 has models/deepseek2.rs only, and no Ministral
# The gemma example deserializes gemma3::Config from the top of config.json (it lists only Gemma 3 1B, a
# text model): a multimodal file's text_config is never looked at (candle-examples/examples/gemma/main.rs).
TEXT_CONFIG = {"gemma3": ""}

_DIV0 = "attempt to divide by zero"


# `hidden_size / num_attention_heads`, computed before any layer is built (the RoPE tables).
_HEADS_PANIC = Check("num_attention_heads == 0", _DIV0, "/num_attention_heads", outcome="panic")


# `num_heads / num_kv_heads` in Attention::new, run once per layer.
_KV_PANIC = Check("num_key_value_heads == 0 and num_hidden_layers > 0", _DIV0, "/num_key_value_heads", outcome="panic")

_DERIVED_HEAD = "hidden_size // num_attention_heads"
_ALL_FULL = 'layers(num_hidden_layers, "full_attention")'
_ALL_SLIDING = 'layers(num_hidden_layers, "sliding_attention")'
_SLIDING_IF_SOME = 'layers(num_hidden_layers, "sliding_attention" if sliding_window is not None else "full_attention")'

_QWEN2_FIELDS = dict(
    vocab_size="usize", hidden_size="usize", intermediate_size="usize", num_hidden_layers="usize",
    num_attention_heads="usize", num_key_value_heads="usize", max_position_embeddings="usize",
    sliding_window="usize", max_window_layers="usize", tie_word_embeddings="bool", rope_theta="f64",
    rms_norm_eps="f64", use_sliding_window="bool", hidden_act="activation",
)
_QWEN2_DERIVE = {
    "head_dim": _DERIVED_HEAD,
    "attention_bias": "'q/k/v'",
    # The prefill mask (`i < j || j + sliding_window < i`) is built from the window on every call, for all
    # layers; use_sliding_window and max_window_layers are parsed and never used.
    "sliding_window": "sliding_window",
    "layer_types": _ALL_SLIDING,
    "query_pre_attn_scalar": _DERIVED_HEAD,
}
_QWEN2_WINDOW_NOTE = (
    " The window masks only inside one forward call (prefill); cached positions are never masked, and a query"
    " sees sliding_window + 1 keys (HF: sliding_window)."
)

_QWEN3_FIELDS = dict(
    vocab_size="usize", hidden_size="usize", intermediate_size="usize", num_hidden_layers="usize",
    num_attention_heads="usize", head_dim="usize", attention_bias="bool", num_key_value_heads="usize",
    max_position_embeddings="usize", sliding_window="option<usize>", max_window_layers="usize",
    tie_word_embeddings="bool", rope_theta="f64", rms_norm_eps="f64", use_sliding_window="bool",
    hidden_act="activation",
)
_QWEN3_DERIVE = {
    # attention_bias (read as is) puts a bias on q, k, v and o alike (qwen3.rs:135-158).
    "sliding_window": "None",
    "layer_types": _ALL_FULL,
    "query_pre_attn_scalar": "head_dim",
}
_QWEN3_CHECKS = (
    # Qwen3Attention::new (qwen3.rs:126-128), run for each layer before anything else in it.
    Check("use_sliding_window and num_hidden_layers > 0", "sliding window is not supported", "/use_sliding_window"),
    _KV_PANIC,
)

_GEMMA3_FIELDS = dict(
    attention_bias="bool", head_dim="usize", hidden_activation="activation", hidden_size="usize",
    intermediate_size="usize", num_attention_heads="usize", num_hidden_layers="usize",
    num_key_value_heads="usize", rms_norm_eps="f64", rope_theta="f64", rope_local_base_freq="f64",
    vocab_size="usize", final_logit_softcapping="option<f64>", attn_logit_softcapping="option<f64>",
    query_pre_attn_scalar="usize", sliding_window="usize", sliding_window_pattern="usize",
    max_position_embeddings="usize",
)

ENTRIES = (
    Entry(
        "candle", "qwen2", "serde", "candle-transformers 0.11 models/qwen2.rs", Source(_REPO, _MODELS + "qwen2.rs", _REF),
        fields(**_QWEN2_FIELDS),
        derive=dict(_QWEN2_DERIVE),
        rope="plain",
        checks=(_HEADS_PANIC, _KV_PANIC),
        notes=(
            "tie_word_embeddings is required but unused: lm_head is the embedding iff lm_head.weight is absent"
            " from the checkpoint (qwen2.rs:380-384), so the value shown is the field's. The head_dim key and"
            " rope_scaling are not read; q/k/v carry a bias, o_proj none." + _QWEN2_WINDOW_NOTE
        ),
    ),
    Entry(
        "candle", "qwen3", "serde", "candle-transformers 0.11 models/qwen3.rs", Source(_REPO, _MODELS + "qwen3.rs", _REF),
        fields(**_QWEN3_FIELDS),
        derive=dict(_QWEN3_DERIVE),
        rope="plain",
        checks=_QWEN3_CHECKS,
        notes=(
            "sliding_window and max_window_layers are parsed, never used: attention is always full causal."
            " q_norm/k_norm are RmsNorm(head_dim). Model::new also refuses an F64 model dtype ('Qwen3 does not"
            " support f64; ...'), a runtime choice, not a config value."
        ),
    ),
    Entry(
        "candle", "mistral", "serde", "candle-transformers 0.11 models/mistral.rs", Source(_REPO, _MODELS + "mistral.rs", _REF),
        fields(
            vocab_size="usize", hidden_size="usize", intermediate_size="usize", num_hidden_layers="usize",
            num_attention_heads=("usize", 32), head_dim="option<usize>", num_key_value_heads="usize",
            hidden_act=("activation", "silu"), max_position_embeddings="usize", rms_norm_eps="f64",
            rope_theta="f64", sliding_window="option<usize>", use_flash_attn=("bool", False),
        ),
        derive={
            # Config::head_dim: `self.head_dim.unwrap_or(self.hidden_size / self.num_attention_heads)`.
            "head_dim": f"head_dim if head_dim is not None else {_DERIVED_HEAD}",
            "attention_bias": "False",
            "tie_word_embeddings": "False",
            "sliding_window": "sliding_window",
            "layer_types": _SLIDING_IF_SOME,
            "query_pre_attn_scalar": f"head_dim if head_dim is not None else {_DERIVED_HEAD}",
        },
        rope="plain",
        # unwrap_or evaluates its argument eagerly: hidden / heads runs even when head_dim is given.
        checks=(_HEADS_PANIC, _KV_PANIC),
        notes=(
            "lm_head.weight is always loaded (mistral.rs:385): a tied checkpoint fails with a missing tensor."
            " rope_theta is cast to f32. use_flash_attn true without the flash-attn feature panics at the first"
            " forward ('not implemented: compile with '--features flash-attn''). The window masks only within"
            " one forward call."
        ),
    ),
    Entry(
        "candle", "gemma2", "serde", "candle-transformers 0.11 models/gemma2.rs", Source(_REPO, _MODELS + "gemma2.rs", _REF),
        fields(
            attention_bias="bool", head_dim="usize", hidden_activation="activation", hidden_size="usize",
            intermediate_size="usize", num_attention_heads="usize", num_hidden_layers="usize",
            num_key_value_heads="usize", rms_norm_eps="f64", rope_theta="f64", vocab_size="usize",
            final_logit_softcapping="option<f64>", attn_logit_softcapping="option<f64>",
            query_pre_attn_scalar="usize", sliding_window="option<usize>",
            max_position_embeddings=("usize", 4096),
        ),
        derive={
            "hidden_act": "hidden_activation",
            "tie_word_embeddings": "True",
            # A Some window is applied to every layer (gemma2.rs:398-410), no alternation.
            "sliding_window": "sliding_window",
            "layer_types": _SLIDING_IF_SOME,
            # query_pre_attn_scalar is parsed but scores are scaled by 1/sqrt(head_dim) (gemma2.rs:237-241).
            "query_pre_attn_scalar": "head_dim",
        },
        rope="plain",
        checks=(_KV_PANIC,),
        notes=(
            "lm_head is always the embedding (a stored lm_head.weight is ignored); hidden_act is not read."
            " Embeddings are scaled by sqrt(hidden_size); RmsNorm is x*(1+w). With flash-attn the attention"
            " softcap is skipped."
        ),
    ),
    Entry(
        "candle", "gemma", "serde", "candle-transformers 0.11 models/gemma.rs", Source(_REPO, _MODELS + "gemma.rs", _REF),
        fields(
            attention_bias="bool", head_dim="usize", hidden_act="option<activation>",
            hidden_activation="option<activation>", hidden_size="usize", intermediate_size="usize",
            num_attention_heads="usize", num_hidden_layers="usize", num_key_value_heads="usize",
            rms_norm_eps="f64", rope_theta="f64", vocab_size="usize", max_position_embeddings=("usize", 4096),
        ),
        derive={
            "hidden_act": "hidden_act if hidden_act is not None else hidden_activation",
            "tie_word_embeddings": "True",
            "sliding_window": "None",
            "layer_types": _ALL_FULL,
            "query_pre_attn_scalar": "head_dim",
        },
        rope="plain",
        # DecoderLayer::new builds Attention (num_heads / num_kv_heads) before MLP::new calls
        # Config::hidden_act (gemma.rs:37-43, 137), once per layer.
        checks=(
            _KV_PANIC,
            Check("num_hidden_layers > 0 and hidden_act is not None and hidden_activation is not None",
                  "both hidden_act and hidden_activation are set", "/hidden_activation"),
            Check("num_hidden_layers > 0 and hidden_act is None and hidden_activation is None",
                  "none of hidden_act and hidden_activation are set", "/hidden_act"),
        ),
        notes=(
            "lm_head is always the embedding. 'gelu' runs exact erf GELU (transformers rewrites gemma's 'gelu'"
            " to the tanh form). Embeddings are scaled by sqrt(hidden_size); RmsNorm is x*(1+w)."
        ),
    ),
    Entry(
        "candle", "gemma3_text", "serde", "candle-transformers 0.11 models/gemma3.rs", Source(_REPO, _MODELS + "gemma3.rs", _REF),
        fields(**_GEMMA3_FIELDS),
        derive={
            "hidden_act": "hidden_activation",
            "tie_word_embeddings": "True",
            # Layer i slides iff (i + 1) % sliding_window_pattern > 0 (gemma3.rs:448); sliding layers use
            # rope_local_base_freq, the others rope_theta (gemma3.rs:79-83).
            "sliding_window": "sliding_window if sliding_window_pattern != 1 else None",
            "layer_types": "pattern(num_hidden_layers, sliding_window_pattern)",
            "rope_local_base_freq": "rope_local_base_freq",
            "query_pre_attn_scalar": "head_dim",
        },
        rope="plain",
        checks=(
            Check("sliding_window_pattern == 0 and num_hidden_layers > 0",
                  "attempt to calculate the remainder with a divisor of zero", "/sliding_window_pattern",
                  outcome="panic"),
            _KV_PANIC,
        ),
        notes=(
            "lm_head is always the embedding. query_pre_attn_scalar is parsed but scores are scaled by"
            " 1/sqrt(head_dim); rope_scaling is not read (global layers unscaled). Sliding layers use a"
            " rotating KV cache of sliding_window entries."
        ),
    ),
    Entry(
        "candle", "phi3", "serde", "candle-transformers 0.11 models/phi3.rs", Source(_REPO, _MODELS + "phi3.rs", _REF),
        fields(
            vocab_size="usize", hidden_act="activation", hidden_size="usize", intermediate_size="usize",
            num_hidden_layers="usize", num_attention_heads="usize", num_key_value_heads="usize",
            rms_norm_eps="f64", rope_theta="f64", bos_token_id="option<u32>", eos_token_id="option<u32>",
            # Option<RopeScaling{short_factor: Vec<f32>, long_factor: Vec<f32>, #[serde(rename="type")]
            # type_: enum {"longrope"}}>; its errors are the checks below.
            rope_scaling="option<json>",
            max_position_embeddings="usize", original_max_position_embeddings="option<usize>",
            partial_rotary_factor="option<f64>", tie_word_embeddings=("bool", False),
        ),
        derive={
            "head_dim": _DERIVED_HEAD,
            "attention_bias": "False",
            "sliding_window": "None",
            "layer_types": _ALL_FULL,
            "query_pre_attn_scalar": _DERIVED_HEAD,
        },
        rope="phi3-longrope-by-position",
        checks=(
            # serde's own errors inside rope_scaling (struct RopeScaling, phi3.rs:27-39).
            Check("rope_scaling is not None and get(rope_scaling, 'type') is not None"
                  " and get(rope_scaling, 'type') != 'longrope'",
                  "unknown variant `{rope_scaling[type]}`, expected `longrope`", "/rope_scaling/type",
                  kind="variant"),
            Check("rope_scaling is not None and get(rope_scaling, 'short_factor') is None",
                  "missing field `short_factor`", "/rope_scaling", kind="missing"),
            Check("rope_scaling is not None and get(rope_scaling, 'long_factor') is None",
                  "missing field `long_factor`", "/rope_scaling", kind="missing"),
            Check("rope_scaling is not None and get(rope_scaling, 'type') is None",
                  "missing field `type`", "/rope_scaling", kind="missing"),
            _HEADS_PANIC,
            _KV_PANIC,
        ),
        notes=(
            "sliding_window is not read (full causal). qkv_proj and gate_up_proj are fused, without bias."
            " Rotary dim = (partial_rotary_factor * head_dim) as usize. eos_token_id is u32: a list fails."
        ),
    ),
    Entry(
        "candle", "mixtral", "serde", "candle-transformers 0.11 models/mixtral.rs", Source(_REPO, _MODELS + "mixtral.rs", _REF),
        fields(
            vocab_size="usize", hidden_size="usize", intermediate_size="usize", num_hidden_layers="usize",
            num_attention_heads="usize", num_key_value_heads="usize", hidden_act="activation",
            max_position_embeddings="usize", rms_norm_eps="f64", rope_theta="f64", sliding_window="usize",
            num_experts_per_tok="usize", num_local_experts="usize", use_flash_attn="bool",
        ),
        derive={
            "head_dim": _DERIVED_HEAD,
            "attention_bias": "False",
            "tie_word_embeddings": "False",
            "sliding_window": "sliding_window",
            "layer_types": _ALL_SLIDING,
            "query_pre_attn_scalar": _DERIVED_HEAD,
        },
        rope="plain",
        checks=(_HEADS_PANIC, _KV_PANIC),
        notes=(
            "Every field is required, including use_flash_attn, which no HF file has. The mixtral example never"
            " reads config.json: it uses Config::v0_1_8x7b (theta 1e6, window 4096). lm_head always loaded."
        ),
    ),
    Entry(
        "candle", "qwen2_moe", "serde", "candle-transformers 0.11 models/qwen2_moe.rs", Source(_REPO, _MODELS + "qwen2_moe.rs", _REF),
        fields(
            **_QWEN2_FIELDS, decoder_sparse_step="usize", moe_intermediate_size="usize",
            shared_expert_intermediate_size="usize", num_experts_per_tok="usize", num_experts="usize",
            norm_topk_prob="bool",
        ),
        derive={**_QWEN2_DERIVE, "tie_word_embeddings": "False"},
        rope="plain",
        checks=(_HEADS_PANIC, _KV_PANIC),
        notes=(
            "lm_head.weight is always loaded (qwen2_moe.rs:421); tie_word_embeddings is parsed, unused. Layer i"
            " is MoE iff num_experts > 0 and (i+1) is a multiple of decoder_sparse_step (0: all dense);"
            " mlp_only_layers is ignored; the shared expert is always built." + _QWEN2_WINDOW_NOTE
        ),
    ),
    Entry(
        "candle", "qwen3_moe", "serde", "candle-transformers 0.11 models/qwen3_moe.rs", Source(_REPO, _MODELS + "qwen3_moe.rs", _REF),
        fields(
            **_QWEN3_FIELDS, decoder_sparse_step="usize", moe_intermediate_size="usize",
            num_experts_per_tok="usize", num_experts="usize", norm_topk_prob="bool",
        ),
        derive=dict(_QWEN3_DERIVE),
        rope="plain",
        checks=_QWEN3_CHECKS,
        notes=(
            "head_dim and max_window_layers are required though Qwen3MoeConfig defines neither. Layer i is MoE"
            " iff num_experts > 0 and (i+1) is a multiple of decoder_sparse_step; no shared expert;"
            " mlp_only_layers ignored. Attention is qwen3's (no F64 refusal here)."
        ),
    ),
    Entry(
        "candle", "olmo2", "serde", "candle-transformers 0.11 models/olmo2.rs", Source(_REPO, _MODELS + "olmo2.rs", _REF),
        fields(
            vocab_size="usize", hidden_size="usize", intermediate_size="usize", attention_bias="bool",
            num_hidden_layers="usize", num_attention_heads="usize", num_key_value_heads="usize",
            rms_norm_eps="f64", hidden_act="activation", max_position_embeddings="usize", rope_theta="f64",
            tie_word_embeddings="bool", clip_qkv="option<f64>",
        ),
        derive={
            "head_dim": _DERIVED_HEAD,
            "sliding_window": "None",
            "layer_types": _ALL_FULL,
            "query_pre_attn_scalar": _DERIVED_HEAD,
        },
        rope="plain",
        checks=(_HEADS_PANIC, _KV_PANIC),
        notes=(
            "attention_bias covers q, k, v and o. q_norm is RmsNorm(hidden_size), k_norm RmsNorm(kv_heads *"
            " head_dim), over the whole projection. clip_qkv is parsed, never applied. Tie honoured."
        ),
    ),
    Entry(
        "candle", "granite", "serde", "candle-transformers 0.11 models/granite.rs", Source(_REPO, _MODELS + "granite.rs", _REF),
        fields(
            hidden_size="usize", intermediate_size="usize", vocab_size="usize", num_hidden_layers="usize",
            num_attention_heads="usize", num_key_value_heads="option<usize>", rms_norm_eps="f64",
            rope_theta=("f32", 10000.0), bos_token_id="option<u32>", eos_token_id="option<eos>",
            # Option<GraniteRopeConfig{factor: f32, low_freq_factor: f32, high_freq_factor: f32,
            # original_max_position_embeddings: usize, rope_type: enum {"granite", "default"}}>.
            rope_scaling="option<json>",
            max_position_embeddings="usize",
        ),
        derive={
            # The forward pass is plain Llama: none of Granite's scales is applied.
            "embedding_multiplier": "1.0", "residual_multiplier": "1.0", "logits_scaling": "1.0",
            "head_dim": _DERIVED_HEAD,
            "hidden_act": "'silu'",
            "attention_bias": "False",
            "mlp_bias": "False",
            "tie_word_embeddings": "False",
            "sliding_window": "None",
            "layer_types": _ALL_FULL,
            "query_pre_attn_scalar": _DERIVED_HEAD,
        },
        rope="granite-llama3",
        checks=(
            # serde's errors inside rope_scaling: unknown variant first, then the first missing field in
            # declaration order.
            Check("rope_scaling is not None and get(rope_scaling, 'rope_type') is not None"
                  " and get(rope_scaling, 'rope_type') not in ['granite', 'default']",
                  "unknown variant `{rope_scaling[rope_type]}`, expected `granite` or `default`",
                  "/rope_scaling/rope_type", kind="variant"),
            Check("rope_scaling is not None and get(rope_scaling, 'factor') is None",
                  "missing field `factor`", "/rope_scaling", kind="missing"),
            Check("rope_scaling is not None and get(rope_scaling, 'low_freq_factor') is None",
                  "missing field `low_freq_factor`", "/rope_scaling", kind="missing"),
            Check("rope_scaling is not None and get(rope_scaling, 'high_freq_factor') is None",
                  "missing field `high_freq_factor`", "/rope_scaling", kind="missing"),
            Check("rope_scaling is not None and get(rope_scaling, 'original_max_position_embeddings') is None",
                  "missing field `original_max_position_embeddings`", "/rope_scaling", kind="missing"),
            Check("rope_scaling is not None and get(rope_scaling, 'rope_type') is None",
                  "missing field `rope_type`", "/rope_scaling", kind="missing"),
            # Cache::new -> calculate_default_inv_freq (granite.rs:112), built by the example before loading.
            _HEADS_PANIC,
        ),
        struct="GraniteConfig",
        notes=(
            "The only silent theta default: an absent rope_theta is 10000. Not read: hidden_act (SiLU),"
            " biases, tie_word_embeddings (lm_head always loaded), embedding_multiplier, residual_multiplier,"
            " attention_multiplier, logits_scaling: the forward pass is plain Llama. Each layer is loaded"
            " with .unwrap(), so a missing layer tensor panics. eos_token_id is untagged u32 | [u32]."
        ),
    ),
    Entry(
        "candle", "deepseek_v2", "serde", "candle-transformers 0.11 models/deepseek2.rs", Source(_REPO, _MODELS + "deepseek2.rs", _REF),
        DEEPSEEK_V2_FIELDS,
        derive=DEEPSEEK_V2_DERIVE,
        rope="deepseek-yarn",
        checks=DEEPSEEK_V2_CHECKS,
        struct="DeepSeekV2Config",
        notes=(
            "RoPE is interleaved (rope_i) over qk_rope_head_dim; the head_dim and num_key_value_heads keys are"
            " not read. attention_bias puts a bias on q_a_proj (with q_lora_rank), kv_a_proj_with_mqa and"
            " o_proj. With YaRN the softmax scale is q_head_dim**-0.5 * mscale(factor, mscale_all_dim)**2."
            " eos_token_id is not read (the example takes it from the tokenizer)."
        ),
    ),
)
