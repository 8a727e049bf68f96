"""How mistral.rs 0.9.5 (the `mistralrs` wheel, `Which.Plain(arch=...)`) reads config.json, per family.

Every plain loader in mistralrs-core/src/pipeline/loaders/normal_loaders.rs runs
`serde_json::from_str::<models::<family>::Config>(config)` and builds the model from that struct: unknown
keys are ignored, serde's rules apply (a default fires only on an absent key, null is an error unless
Option). The fields below are each struct's fields in declaration order, read from
EricLBuehler/mistral.rs at master 9e922623 (the newest commit stored; its Cargo version is 0.9.2, and no
v0.9.5 tag or commit is available). The 0.9.5 wheel was run on every family below: its required fields,
in the order it reports them missing, are exactly these structs', and the variant list of its
`Activation` errors is ACTIVATIONS (tests/knowledge/test_mistralrs_entries.py).

mistral.rs has its own `layers::Activation` (layers.rs:3128-3150), not candle_nn's: no `mish`, plus
`quickgelu`. A non-string, non-object value (a number, or null for a required field) gives serde_json's
`expected value at line L column C`, not an "invalid type" error.
"""

from __future__ import annotations

from cfglint.knowledge.deepseek import DEEPSEEK_V2_CHECKS, DEEPSEEK_V2_DERIVE, DEEPSEEK_V2_FIELDS
from cfglint.knowledge.entry import Check, Entry, Source, fields

_REPO = "EricLBuehler/mistral.rs"
_REF = "master 9e922623 (9e922623f24b32d41f3892b74f0eed18707f4e6c); no v0.9.5 tag stored, observed with the 0.9.5 wheel"
_CHECKED_BY = "tests/knowledge/test_mistralrs_entries.py"


def _source(model: str) -> Source:
    return Source(_REPO, f"mistralrs-core/src/models/{model}.rs", _REF, _CHECKED_BY)


# serde's "unknown variant" list for layers::Activation, verbatim from the 0.9.5 wheel: each alias first,
# then the lowercase variant name, in variant order (`gelu` is both alias and name, listed once).
ACTIVATIONS = (
    "gelu", "gelu_new", "newgelu", "relu", "relu2", "relu6", "silu", "sigmoid", "hardsigmoid", "swiglu",
    "swish", "hardswish", "elu", "leakyrelu", "gelu_pytorch_tanh", "gelupytorchtanh", "quickgelu",
)
# Variants carrying an f64: only `{"elu": 1.0}` parses; the bare string gives
# `invalid type: unit variant, expected newtype variant` (observed).
NEWTYPE_ACTIVATIONS = ("elu", "leakyrelu")
# What each accepted string computes (`impl Module for Activation`, layers.rs:3152-3173), as transformers
# names it; None where transformers has no activation of that name and meaning.
ACTIVATION_MEANING = {
    "gelu": "gelu",  # xs.gelu_erf(): exact erf GELU, also for Gemma's legacy "gelu"
    "gelu_new": "gelu_new",  # xs.gelu(): tanh approximation
    "newgelu": "gelu_new",
    "relu": "relu",
    "relu2": "relu2",
    "relu6": "relu6",  # clamp(0, 6)
    "silu": "silu",
    "sigmoid": "sigmoid",
    "hardsigmoid": None,
    "swiglu": None,  # candle_nn::ops::swiglu: silu(first half) * second half, not elementwise
    "swish": "silu",  # xs * sigmoid(xs)
    "hardswish": "hardswish",
    "elu": None,
    "leakyrelu": "leaky_relu",  # with the slope given in the object
    "gelu_pytorch_tanh": "gelu_pytorch_tanh",  # xs.gelu(): tanh approximation
    "gelupytorchtanh": "gelu_pytorch_tanh",
    "quickgelu": "quick_gelu",  # xs * sigmoid(1.702 xs)
}

# Families with no plain `Architecture` in the 0.9.5 wheel (dir(mistralrs.Architecture)).
MISSING = ("qwen2_moe", "gemma3_text", "olmo2", "granite", "ministral")

_DERIVED_HEAD_DIM = "hidden_size // num_attention_heads"
_OPTIONAL_HEAD_DIM = f"head_dim if head_dim is not None else {_DERIVED_HEAD_DIM}"
_NO_SOFTCAP = {"attn_logit_softcapping": "None", "final_logit_softcapping": "None"}
# Mistral / Mixtral / Phi-3: `sdpa_params.sliding_window = cfg.sliding_window` on every layer, and the
# prefill mask is built with the same window.
_WINDOW_EVERYWHERE = {
    "sliding_window": "sliding_window",
    "layer_types": 'layers(num_hidden_layers, "sliding_attention" if sliding_window is not None else "full_attention")',
}
# Qwen3 / Qwen3-MoE: the prefill mask (`CausalMaskConfig { sliding_window: cfg.sliding_window }`,
# qwen3.rs:546-551) windows EVERY layer whenever sliding_window is set, whatever use_sliding_window and
# max_window_layers say; those two only choose per layer a sliding KV cache and the decode-time window
# (`sliding_window!` macro, qwen3.rs:33-44).
_QWEN3_WINDOW = _WINDOW_EVERYWHERE
_QWEN3_NOTE = (
    "prefill windows every layer when sliding_window is set (even with use_sliding_window false); decode "
    "windows only layers >= max_window_layers and only when use_sliding_window. lm_head is the embedding "
    "iff tie_word_embeddings."
)

ENTRIES: tuple[Entry, ...] = (
    Entry(
        "mistralrs", "qwen2", "serde", "mistral.rs 0.9.5 models/qwen2.rs", _source("qwen2"),
        fields(vocab_size="usize", hidden_size="usize", intermediate_size="usize", num_hidden_layers="usize",
               num_attention_heads="usize", num_key_value_heads="usize", max_position_embeddings="usize",
               sliding_window="option<usize>", use_sliding_window=("bool", False), max_window_layers=("usize", 28),
               layer_types=("option<json>", None), rope_theta="f64", rms_norm_eps="f64", hidden_act="activation",
               quantization_config="option<json>", tie_word_embeddings=("bool", False)),
        derive={
            # Config::layer_sliding_windows (qwen2.rs:88-124): layer_types when given, else layers from
            # max_window_layers slide; the window only when use_sliding_window.
            "sliding_window": "sliding_window if use_sliding_window and sliding_window is not None and 'sliding_attention' in (layer_types or sliding_from(num_hidden_layers, max_window_layers)) else None",
            "layer_types": 'layer_types or (sliding_from(num_hidden_layers, max_window_layers) if use_sliding_window and sliding_window is not None else layers(num_hidden_layers, "full_attention"))',
            "head_dim": _DERIVED_HEAD_DIM,
            "attention_bias": "'q/k/v'",
            "query_pre_attn_scalar": _DERIVED_HEAD_DIM,
            **_NO_SOFTCAP,
        },
        rope="plain",
        checks=(
            Check("layer_types is not None and 'sliding_attention' in layer_types and not (use_sliding_window and sliding_window is not None)",
                  "Qwen2 sliding_attention layer requires use_sliding_window and sliding_window", "/layer_types"),
            Check("num_attention_heads == 0", "attempt to divide by zero", "/num_attention_heads", outcome="panic"),
        ),
        notes=("the head_dim key is ignored (hidden/heads); q/k/v carry a bias, o_proj none. layer_types entries "
               "must be full_attention/sliding_attention (serde enum) and number num_hidden_layers, else "
               "`Qwen2 layer_types has N entries for M layers`. eos comes from generation_config/tokenizer."),
    ),
    Entry(
        "mistralrs", "qwen3", "serde", "mistral.rs 0.9.5 models/qwen3.rs", _source("qwen3"),
        fields(vocab_size="usize", hidden_size="usize", intermediate_size="usize", num_hidden_layers="usize",
               num_attention_heads="usize", num_key_value_heads="usize", hidden_act="activation",
               max_position_embeddings="usize", rms_norm_eps="f64", rope_theta="f64", sliding_window="option<usize>",
               head_dim="option<usize>", quantization_config="option<json>", tie_word_embeddings=("bool", False),
               max_window_layers="usize", use_sliding_window="bool"),
        derive={
            **_QWEN3_WINDOW,
            "head_dim": _OPTIONAL_HEAD_DIM,
            "attention_bias": "False",
            "query_pre_attn_scalar": _OPTIONAL_HEAD_DIM,
            **_NO_SOFTCAP,
        },
        rope="plain",
        checks=(Check("head_dim is None and num_attention_heads == 0", "attempt to divide by zero", "/num_attention_heads", outcome="panic"),),
        notes="q_norm/k_norm over head_dim; no bias anywhere (attention_bias is not read). " + _QWEN3_NOTE,
    ),
    Entry(
        "mistralrs", "mistral", "serde", "mistral.rs 0.9.5 models/mistral.rs", _source("mistral"),
        fields(vocab_size="usize", hidden_size="usize", intermediate_size="usize", num_hidden_layers="usize",
               num_attention_heads="usize", num_key_value_heads="usize", hidden_act="activation",
               max_position_embeddings="usize", rms_norm_eps="f64", rope_theta=("f64", 10000.0),
               rope_parameters=("option<json>", None), sliding_window="option<usize>", head_dim="option<usize>",
               quantization_config="option<json>", tie_word_embeddings=("bool", False)),
        derive={
            # Config::get_rope_theta (mistral.rs:92-98): rope_parameters.rope_theta, else the flat key.
            "rope_theta": "rope_parameters['rope_theta'] if rope_parameters is not None else rope_theta",
            **_WINDOW_EVERYWHERE,
            "head_dim": _OPTIONAL_HEAD_DIM,
            "attention_bias": "False",
            "query_pre_attn_scalar": _OPTIONAL_HEAD_DIM,
            **_NO_SOFTCAP,
        },
        rope="mistral-rope-parameters",
        checks=(Check("head_dim is None and num_attention_heads == 0", "attempt to divide by zero", "/num_attention_heads", outcome="panic"),),
        notes=("rope_parameters is a MistralRopeParameters struct (rope_theta required, rope_type default|yarn); "
               "yarn and llama_4_scaling_beta are applied. lm_head is the embedding iff tie_word_embeddings."),
    ),
    Entry(
        "mistralrs", "gemma2", "serde", "mistral.rs 0.9.5 models/gemma2.rs", _source("gemma2"),
        fields(attention_bias="bool", head_dim="usize", hidden_act=("option<activation>", None),
               hidden_activation=("option<activation>", None), hidden_size="usize", intermediate_size="usize",
               num_attention_heads="usize", num_hidden_layers="usize", num_key_value_heads="usize",
               rms_norm_eps="f64", rope_theta="f64", vocab_size="usize", sliding_window="usize",
               attn_logit_softcapping="option<f64>", final_logit_softcapping="option<f64>",
               query_pre_attn_scalar="usize", max_position_embeddings="usize", quantization_config="option<json>",
               tie_word_embeddings=("bool", False)),
        derive={
            # Config::hidden_act (gemma2.rs:90-101): hidden_act wins when both are set.
            "hidden_act": "hidden_act or hidden_activation",
            "sliding_window": "sliding_window",
            # layer_uses_sliding_window (gemma2.rs:41-43): even layers slide; the layer_types key is not read.
            "layer_types": "pattern(num_hidden_layers, 2)",
            # softmax_scale = 1/sqrt(query_pre_attn_scalar) (gemma2.rs:193); both softcaps applied when Some.
        },
        rope="plain",
        checks=(Check("hidden_act is None and hidden_activation is None", "none of hidden_act and hidden_activation are set", "/hidden_activation"),),
        notes=("attention_bias covers q/k/v/o; embeddings scaled by sqrt(hidden); RmsNorm x*(1+w). "
               "tie_word_embeddings defaults to FALSE: a file without it needs lm_head.weight."),
    ),
    Entry(
        "mistralrs", "gemma", "serde", "mistral.rs 0.9.5 models/gemma.rs", _source("gemma"),
        fields(attention_bias="bool", head_dim="usize", hidden_act=("option<activation>", None),
               hidden_activation=("option<activation>", None), hidden_size="usize", intermediate_size="usize",
               num_attention_heads="usize", num_hidden_layers="usize", num_key_value_heads="usize",
               rms_norm_eps="f64", rope_theta="f64", vocab_size="usize", max_position_embeddings=("usize", 4096),
               quantization_config="option<json>", tie_word_embeddings=("bool", False)),
        derive={
            "hidden_act": "hidden_act or hidden_activation",
            # gemma.rs:442 sets the model's max_seq_len to default_max_position_embeddings() (4096), whatever
            # the file says; only the KV cache is sized from max_position_embeddings (observed with 0.9.5).
            "max_position_embeddings": "4096",
            "sliding_window": "None",
            "layer_types": 'layers(num_hidden_layers, "full_attention")',
            "query_pre_attn_scalar": "head_dim",
            **_NO_SOFTCAP,
        },
        rope="plain",
        checks=(
            # Config::hidden_act (gemma.rs:59-68), called when the MLP is built.
            Check("hidden_act is not None and hidden_activation is not None", "both hidden_act and hidden_activation are set", "/hidden_activation"),
            Check("hidden_act is None and hidden_activation is None", "none of hidden_act and hidden_activation are set", "/hidden_act"),
        ),
        notes=("`gelu` runs exact erf GELU (transformers 5 rewrites it to the tanh form). attention_bias covers "
               "q/k/v/o; embeddings scaled by sqrt(hidden). tie_word_embeddings defaults to FALSE."),
    ),
    Entry(
        "mistralrs", "phi3", "serde", "mistral.rs 0.9.5 models/phi3.rs", _source("phi3"),
        fields(vocab_size="usize", hidden_act="activation", hidden_size="usize", intermediate_size="usize",
               num_hidden_layers="usize", num_attention_heads="usize", num_key_value_heads="usize",
               rms_norm_eps="f64", rope_theta="f64", bos_token_id="option<u32>", eos_token_id="option<u32>",
               rope_scaling="option<json>", rope_scaling_attn_factor=("option<f64>", None),
               max_position_embeddings="usize", sliding_window="option<usize>",
               original_max_position_embeddings="usize", quantization_config="option<json>",
               tie_word_embeddings=("bool", False), partial_rotary_factor="option<f64>"),
        derive={
            "partial_rotary_factor": "partial_rotary_factor if partial_rotary_factor is not None else 1.0",
            **_WINDOW_EVERYWHERE,
            "head_dim": _DERIVED_HEAD_DIM,
            "attention_bias": "False",
            "query_pre_attn_scalar": _DERIVED_HEAD_DIM,
            **_NO_SOFTCAP,
        },
        rope="phi3-longrope",
        checks=(Check("num_attention_heads == 0", "attempt to divide by zero", "/num_attention_heads", outcome="panic"),),
        notes=("eos_token_id is a single u32 (a list is a type error); qkv and gate_up are fused, no bias. "
               "lm_head is the embedding iff tie_word_embeddings."),
    ),
    Entry(
        "mistralrs", "mixtral", "serde", "mistral.rs 0.9.5 models/mixtral.rs", _source("mixtral"),
        fields(vocab_size="usize", hidden_size="usize", intermediate_size="usize", num_hidden_layers="usize",
               num_attention_heads="usize", num_key_value_heads="usize", hidden_act="activation",
               max_position_embeddings="usize", rms_norm_eps="f64", rope_theta="f64", sliding_window="option<usize>",
               num_experts_per_tok="usize", num_local_experts="usize", quantization_config="option<json>",
               tie_word_embeddings=("bool", False)),
        derive={
            **_WINDOW_EVERYWHERE,
            "head_dim": _DERIVED_HEAD_DIM,
            "attention_bias": "False",
            "query_pre_attn_scalar": _DERIVED_HEAD_DIM,
            **_NO_SOFTCAP,
        },
        rope="plain",
        checks=(Check("num_attention_heads == 0", "attempt to divide by zero", "/num_attention_heads", outcome="panic"),),
        notes="the head_dim key is ignored (hidden/heads). lm_head is the embedding iff tie_word_embeddings.",
    ),
    Entry(
        "mistralrs", "qwen3_moe", "serde", "mistral.rs 0.9.5 models/qwen3_moe.rs", _source("qwen3_moe"),
        fields(vocab_size="usize", hidden_size="usize", intermediate_size="usize", num_hidden_layers="usize",
               num_attention_heads="usize", num_key_value_heads="usize", hidden_act="activation",
               max_position_embeddings="usize", rms_norm_eps="f64", rope_theta="f64", sliding_window="option<usize>",
               head_dim="option<usize>", quantization_config="option<json>", tie_word_embeddings=("bool", False),
               max_window_layers="usize", use_sliding_window="bool", moe_intermediate_size="usize",
               num_experts="usize", mlp_only_layers="json", decoder_sparse_step="usize", norm_topk_prob="bool",
               num_experts_per_tok="usize"),
        derive={
            **_QWEN3_WINDOW,
            "head_dim": _OPTIONAL_HEAD_DIM,
            "attention_bias": "False",
            "query_pre_attn_scalar": _OPTIONAL_HEAD_DIM,
            **_NO_SOFTCAP,
        },
        rope="plain",
        checks=(Check("head_dim is None and num_attention_heads == 0", "attempt to divide by zero", "/num_attention_heads", outcome="panic"),),
        notes=("mlp_only_layers is a Vec<usize> (null or a non-list is a type error); a layer is MoE iff not in "
               "it, num_experts > 0 and (i+1) % decoder_sparse_step == 0 (step 0: all dense). "
               "transformers' Qwen3MoeConfig has no max_window_layers, so its files lack that required key. " + _QWEN3_NOTE),
    ),
)

# DeepSeek-V2 and V3: candle's structs and MLA with a quantization_config (cfglint.knowledge.deepseek).
_DEEPSEEK_V2 = Entry(
    "mistralrs", "deepseek_v2", "serde", "mistral.rs 0.9.5 models/deepseek2.rs", _source("deepseek2"),
    # candle's DeepSeekV2Config with quantization_config between qk_nope_head_dim and n_group
    {**{k: v for k, v in DEEPSEEK_V2_FIELDS.items() if k not in ("n_group", "topk_group")},
     **fields(quantization_config="option<json>", n_group="usize", topk_group="usize")},
    derive=DEEPSEEK_V2_DERIVE,
    rope="deepseek-yarn",  # layers.rs DeepSeekV2RotaryEmbedding, as candle's
    checks=DEEPSEEK_V2_CHECKS + (
        # Observed with the 0.9.5 CPU wheel (tests/conformance/test_families.py): the model builds, and
        # its first forward fails whenever the value heads are narrower than the query/key heads, as in
        # every published DeepSeek-V2 (192 vs 128); with v_head_dim equal to them it runs.
        Check("qk_nope_head_dim + qk_rope_head_dim != v_head_dim",
              "at the first forward: shape mismatch in matmul (attention output of num_attention_heads x"
              " (qk_nope_head_dim + qk_rope_head_dim) into o_proj's num_attention_heads x v_head_dim)",
              "/v_head_dim"),
    ),
    struct="DeepSeekV2Config",
    notes=("n_group and topk_group are required usize (transformers' default is null); a MoE layer's "
           "num_experts_per_tok.unwrap() panics without it. lm_head is the embedding iff tie_word_embeddings."),
)
_DEEPSEEK_V3 = Entry(
    "mistralrs", "deepseek_v3", "serde", "mistral.rs 0.9.5 models/deepseek3.rs", _source("deepseek3"),
    # DeepSeekV2Config's fields without norm_topk_prob; topk_method also takes noaux_tc, scoring_func sigmoid
    {k: v for k, v in _DEEPSEEK_V2.fields.items() if k != "norm_topk_prob"},
    derive=DEEPSEEK_V2_DERIVE,
    rope="deepseek-yarn",
    # serde's variant errors come first: topk_method and scoring_func are parsed before rope_scaling
    checks=(
        Check("topk_method not in ['noaux_tc', 'greedy', 'group_limited_greedy']",
              "unknown variant `{topk_method}`, expected one of `noaux_tc`, `greedy`, `group_limited_greedy`",
              "/topk_method", kind="variant"),
        Check("scoring_func not in ['softmax', 'sigmoid']",
              "unknown variant `{scoring_func}`, expected `softmax` or `sigmoid`", "/scoring_func", kind="variant"),
    ) + tuple(c for c in _DEEPSEEK_V2.checks if c.pointer not in ("/topk_method", "/scoring_func")),
    struct="DeepSeekV3Config",
    notes="MoeGate reads e_score_correction_bias with noaux_tc. " + _DEEPSEEK_V2.notes,
)
_GPT_OSS = Entry(
    "mistralrs", "gpt_oss", "serde", "mistral.rs 0.9.5 models/gpt_oss.rs", _source("gpt_oss"),
    fields(vocab_size="usize", hidden_size="usize", intermediate_size="usize", num_hidden_layers="usize",
           num_attention_heads="usize", num_key_value_heads="usize", max_position_embeddings="usize", rms_norm_eps="f64",
           rope_theta="f64", sliding_window="option<usize>", head_dim="option<usize>", quantization_config="option<json>",
           tie_word_embeddings=("bool", False), num_local_experts="usize", num_experts_per_tok="usize",
           layer_types="json",  # Vec<LayerType>: sliding_attention | full_attention, required
           alpha=("f32", 1.702), swiglu_limit=("f32", 7.0), attention_bias=("bool", False),
           # RopeScaling{rope_type: String, factor: f64, original_max_position_embeddings: usize, beta_fast 32,
           # beta_slow 1, truncate false} (gpt_oss.rs:40-50); GptOssRotaryEmbedding honours truncate
           # (layers.rs:3067-3070), so an absent one does not truncate where transformers' does
           rope_scaling="option<json>"),
    derive={
        "head_dim": _OPTIONAL_HEAD_DIM,
        "hidden_act": "'swiglu_oai'",  # the experts' clamped GLU with alpha and swiglu_limit
        # q/k/v/o bias = attention_bias, which defaults to false (transformers: true)
        "attention_bias": "True if attention_bias else False",
        "mlp_bias": "True",  # the experts' and router's biases are loaded when stored
        "sliding_window": "sliding_window",
        "layer_types": "layer_types",  # a layer slides iff layer_types[i] is sliding_attention
        "query_pre_attn_scalar": _OPTIONAL_HEAD_DIM,
        "n_routed_experts": "num_local_experts",
        "mlp_layers": 'layers(num_hidden_layers, "moe")',
        **_NO_SOFTCAP,
    },
    rope="gpt-oss-yarn-or-plain",
    checks=(
        Check("rope_scaling is not None and get(rope_scaling, 'rope_type') is None", "missing field `rope_type`",
              "/rope_scaling", kind="missing"),
        Check("rope_scaling is not None and get(rope_scaling, 'factor') is None", "missing field `factor`",
              "/rope_scaling", kind="missing"),
        Check("rope_scaling is not None and get(rope_scaling, 'original_max_position_embeddings') is None",
              "missing field `original_max_position_embeddings`", "/rope_scaling", kind="missing"),
        Check("head_dim is None and num_attention_heads == 0", "attempt to divide by zero", "/num_attention_heads", outcome="panic"),
    ),
    notes="attention sinks per head; layer_types is required (the transformers default is computed, so a file "
          "saved without it fails); eos_token_id is not read.",
)
ENTRIES += (_DEEPSEEK_V2, _DEEPSEEK_V3, _GPT_OSS)
