"""What transformers 5 means, per family: the intent's entries.

Each entry holds the config class's defaults for the keys cfglint reads (transformers 5.24.0
`models/<family>/configuration_<family>.py`, strict dataclasses) and, as expressions, what the family's
modeling code computes from them (`modeling_<family>.py`): the head size it builds, the window of each
layer, the attention scale, the activation the MLP calls. A key in the file that the class does not declare
is kept as an attribute (`getattr(config, "head_dim", ...)` sees it), so expressions may name any key.
tests/knowledge/test_transformers5_entries.py checks the defaults against the installed package and every
derived value against the model transformers 5 builds.

A field's type is the class's annotation, which the strict dataclass checks (consumers/transformers5.py:
"int?" is `int | None`, "ids" `int | list[int] | None`, "number" `float | int`, "list?" `list[str] | None`);
"any" is a key the class takes as a keyword argument and does not check (rope_theta where the class has no
such field). tests/knowledge/test_transformers5_strict.py holds them to the installed classes, value by value.
"""

from __future__ import annotations

from cfglint.knowledge.deepseek import MLA_SCALAR
from cfglint.knowledge.entry import Entry, Source, fields


def _source(family: str, module: str | None = None) -> Source:
    module = module or family
    return Source(
        "huggingface/transformers",
        f"src/transformers/models/{module}/configuration_{module}.py, modeling_{module}.py",
        "v5.24.0",
        "tests/knowledge/test_transformers5_entries.py",
    )


# What every family shares: sizes, norms, ids; defaults differ per family and are given in each entry.
_COMMON = ("vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads", "hidden_act", "max_position_embeddings", "rms_norm_eps", "tie_word_embeddings", "eos_token_id")

# The window as the modeling code applies it: on every layer when the family has no layer_types.
_WINDOW_EVERYWHERE = {
    "sliding_window": "sliding_window",
    "layer_types": 'layers(num_hidden_layers, "sliding_attention" if sliding_window is not None else "full_attention")',
}
# The file's layer_types where it has them (Ministral, whose __post_init__ fills a null list the same way).
_LAYERS_OR_WINDOW_EVERYWHERE = {
    "sliding_window": "sliding_window",
    "layer_types": 'layer_types or layers(num_hidden_layers, "sliding_attention" if sliding_window is not None else "full_attention")',
}
# Qwen2 / Qwen3: the config drops the window unless use_sliding_window, and layers from max_window_layers slide.
_QWEN_WINDOW = {
    "sliding_window": "sliding_window if use_sliding_window else None",
    "layer_types": 'layer_types or (sliding_from(num_hidden_layers, max_window_layers) if use_sliding_window and sliding_window is not None else layers(num_hidden_layers, "full_attention"))',
}
_HEAD_DIM_KEY_OR_DERIVED = "head_dim or hidden_size // num_attention_heads"
_SCALE_BY_HEAD_DIM = {"query_pre_attn_scalar": _HEAD_DIM_KEY_OR_DERIVED}

ENTRIES: tuple[Entry, ...] = (
    Entry(
        "transformers-5", "qwen2", "transformers-5", "transformers 5 Qwen2Config", _source("qwen2"),
        fields(vocab_size=("int", 151936), hidden_size=("int", 4096), intermediate_size=("int", 22016), num_hidden_layers=("int", 32),
               num_attention_heads=("int", 32), num_key_value_heads=("int?", 32), hidden_act=("str", "silu"), max_position_embeddings=("int", 32768),
               rms_norm_eps=("float", 1e-6), tie_word_embeddings=("bool", False), eos_token_id=("ids", None),
               use_sliding_window=("bool", False), sliding_window=("int?", 4096), max_window_layers=("int", 28), layer_types=("list?", None)),
        derive={"head_dim": _HEAD_DIM_KEY_OR_DERIVED, "attention_bias": "'q/k/v'", **_QWEN_WINDOW, **_SCALE_BY_HEAD_DIM},
        rope="transformers-5",
        notes="q, k and v projections always carry a bias, o_proj none.",
    ),
    Entry(
        "transformers-5", "qwen2_moe", "transformers-5", "transformers 5 Qwen2MoeConfig", _source("qwen2_moe"),
        fields(vocab_size=("int", 151936), hidden_size=("int", 2048), intermediate_size=("int", 5632), num_hidden_layers=("int", 24),
               num_attention_heads=("int", 16), num_key_value_heads=("int?", 16), hidden_act=("str", "silu"), max_position_embeddings=("int", 32768),
               rms_norm_eps=("float", 1e-6), tie_word_embeddings=("bool", False), eos_token_id=("ids", None),
               use_sliding_window=("bool", False), sliding_window=("int?", 4096), max_window_layers=("int", 28), layer_types=("list?", None),
               qkv_bias=("bool", True), num_experts_per_tok=("int", 4)),
        derive={
            "head_dim": _HEAD_DIM_KEY_OR_DERIVED,
            "attention_bias": "'q/k/v' if qkv_bias else False",
            "sliding_window": "sliding_window if use_sliding_window else None",
            # __post_init__: odd-numbered layers below max_window_layers slide, when sliding is on.
            "layer_types": 'layer_types or (qwen2_moe_layers(num_hidden_layers, max_window_layers) if use_sliding_window else layers(num_hidden_layers, "full_attention"))',
            **_SCALE_BY_HEAD_DIM,
        },
        rope="transformers-5",
    ),
    Entry(
        "transformers-5", "qwen3", "transformers-5", "transformers 5 Qwen3Config", _source("qwen3"),
        fields(vocab_size=("int", 151936), hidden_size=("int", 4096), intermediate_size=("int", 22016), num_hidden_layers=("int", 32),
               num_attention_heads=("int", 32), num_key_value_heads=("int?", 32), head_dim=("int", 128), hidden_act=("str", "silu"),
               max_position_embeddings=("int", 32768), rms_norm_eps=("float", 1e-6), tie_word_embeddings=("bool", False), eos_token_id=("ids", None),
               attention_bias=("bool", False), use_sliding_window=("bool", False), sliding_window=("int?", 4096), max_window_layers=("int", 28),
               layer_types=("list?", None)),
        derive={"head_dim": "head_dim", **_QWEN_WINDOW, **{"query_pre_attn_scalar": "head_dim"}},
        rope="transformers-5",
        notes="q_norm and k_norm normalise each head; attention_bias covers q, k, v and o.",
    ),
    Entry(
        "transformers-5", "qwen3_moe", "transformers-5", "transformers 5 Qwen3MoeConfig", _source("qwen3_moe"),
        fields(vocab_size=("int", 151936), hidden_size=("int", 2048), intermediate_size=("int", 6144), num_hidden_layers=("int", 24),
               num_attention_heads=("int", 32), num_key_value_heads=("int", 4), hidden_act=("str", "silu"), max_position_embeddings=("int", 32768),
               rms_norm_eps=("float", 1e-6), tie_word_embeddings=("bool", False), eos_token_id=("ids", None), attention_bias=("bool", False),
               use_sliding_window=("bool", False), sliding_window=("int?", 4096), num_experts_per_tok=("int", 8)),
        derive={
            "head_dim": _HEAD_DIM_KEY_OR_DERIVED,
            "sliding_window": "sliding_window if use_sliding_window else None",
            "layer_types": 'layers(num_hidden_layers, "sliding_attention" if use_sliding_window and sliding_window is not None else "full_attention")',
            **_SCALE_BY_HEAD_DIM,
        },
        rope="transformers-5",
    ),
    Entry(
        "transformers-5", "mistral", "transformers-5", "transformers 5 MistralConfig", _source("mistral"),
        fields(vocab_size=("int", 32000), hidden_size=("int", 4096), intermediate_size=("int", 14336), num_hidden_layers=("int", 32),
               num_attention_heads=("int", 32), num_key_value_heads=("int", 8), head_dim=("int?", None), hidden_act=("str", "silu"),
               max_position_embeddings=("int", 131072), rms_norm_eps=("float", 1e-6), tie_word_embeddings=("bool", False), eos_token_id=("ids", 2),
               sliding_window=("int?", 4096)),
        derive={"head_dim": _HEAD_DIM_KEY_OR_DERIVED, "attention_bias": "False", **_WINDOW_EVERYWHERE, **_SCALE_BY_HEAD_DIM},
        rope="transformers-5",
    ),
    Entry(
        "transformers-5", "ministral", "transformers-5", "transformers 5 MinistralConfig", _source("ministral"),
        fields(vocab_size=("int", 32000), hidden_size=("int", 4096), intermediate_size=("int", 14336), num_hidden_layers=("int", 32),
               num_attention_heads=("int", 32), num_key_value_heads=("int", 8), head_dim=("int?", None), hidden_act=("str", "silu"),
               max_position_embeddings=("int", 131072), rms_norm_eps=("float", 1e-6), tie_word_embeddings=("bool", False), eos_token_id=("ids", 2),
               sliding_window=("int?", 4096), layer_types=("list?", None)),
        derive={"head_dim": _HEAD_DIM_KEY_OR_DERIVED, "attention_bias": "False", **_LAYERS_OR_WINDOW_EVERYWHERE, **_SCALE_BY_HEAD_DIM},
        rope="transformers-5",
        notes="Mistral with a window per layer: __post_init__ fills a null layer_types with sliding_attention on every "
              "layer where a window is set. The attention takes head_dim as the class keeps it, null included.",
    ),
    Entry(
        "transformers-5", "mixtral", "transformers-5", "transformers 5 MixtralConfig", _source("mixtral"),
        fields(vocab_size=("int", 32000), hidden_size=("int", 4096), intermediate_size=("int", 14336), num_hidden_layers=("int", 32),
               num_attention_heads=("int", 32), num_key_value_heads=("int", 8), head_dim=("int?", None), hidden_act=("str", "silu"),
               max_position_embeddings=("int", 131072), rms_norm_eps=("float", 1e-5), tie_word_embeddings=("bool", False), eos_token_id=("ids", 2),
               sliding_window=("int?", None), rope_theta=("any", 1e6), num_experts_per_tok=("int", 2)),
        derive={"head_dim": _HEAD_DIM_KEY_OR_DERIVED, "attention_bias": "False", **_WINDOW_EVERYWHERE, **_SCALE_BY_HEAD_DIM},
        rope="transformers-5",
    ),
    Entry(
        "transformers-5", "gemma", "transformers-5", "transformers 5 GemmaConfig", _source("gemma"),
        fields(vocab_size=("int", 256000), hidden_size=("int", 3072), intermediate_size=("int", 24576), num_hidden_layers=("int", 28),
               num_attention_heads=("int", 16), num_key_value_heads=("int", 16), head_dim=("int", 256), hidden_act=("str", "gelu_pytorch_tanh"),
               max_position_embeddings=("int", 8192), rms_norm_eps=("float", 1e-6), tie_word_embeddings=("bool", True), eos_token_id=("ids", 1),
               attention_bias=("bool", False)),
        # __post_init__ rewrites the legacy "gelu" of the official releases to the tanh approximation.
        derive={"hidden_act": "'gelu_pytorch_tanh' if hidden_act == 'gelu' else hidden_act", "head_dim": "head_dim",
                "sliding_window": "None", "layer_types": 'layers(num_hidden_layers, "full_attention")', "query_pre_attn_scalar": "head_dim"},
        rope="transformers-5",
        notes="embeddings are scaled by sqrt(hidden_size); RMSNorm multiplies by (1 + weight).",
    ),
    Entry(
        "transformers-5", "gemma2", "transformers-5", "transformers 5 Gemma2Config", _source("gemma2"),
        fields(vocab_size=("int", 256000), hidden_size=("int", 2304), intermediate_size=("int", 9216), num_hidden_layers=("int", 26),
               num_attention_heads=("int", 8), num_key_value_heads=("int", 4), head_dim=("int", 256), hidden_activation=("str", "gelu_pytorch_tanh"),
               max_position_embeddings=("int", 8192), rms_norm_eps=("float", 1e-6), tie_word_embeddings=("bool", True), eos_token_id=("ids", 1),
               attention_bias=("bool", False), query_pre_attn_scalar=("int", 256), sliding_window=("int?", 4096), layer_types=("list?", None),
               final_logit_softcapping=("float?", 30.0), attn_logit_softcapping=("float?", 50.0)),
        derive={"hidden_act": "hidden_activation", "head_dim": "head_dim",
                "layer_types": "layer_types or pattern(num_hidden_layers, 2)"},
        rope="transformers-5",
        notes="the MLP calls hidden_activation; hidden_act is kept but unused.",
    ),
    Entry(
        "transformers-5", "gemma3_text", "transformers-5", "transformers 5 Gemma3TextConfig", _source("gemma3_text", "gemma3"),
        fields(vocab_size=("int", 262208), hidden_size=("int", 2304), intermediate_size=("int", 9216), num_hidden_layers=("int", 26),
               num_attention_heads=("int", 8), num_key_value_heads=("int", 4), head_dim=("int", 256), hidden_activation=("str", "gelu_pytorch_tanh"),
               max_position_embeddings=("int", 131072), rms_norm_eps=("float", 1e-6), tie_word_embeddings=("bool", True), eos_token_id=("ids", 1),
               attention_bias=("bool", False), query_pre_attn_scalar=("int", 256), sliding_window=("int?", 4096), layer_types=("list?", None),
               sliding_window_pattern=("any", 6), final_logit_softcapping=("float?", None), attn_logit_softcapping=("float?", None),
               rope_theta=("any", 1e6), rope_local_base_freq=("any", 1e4)),
        derive={"hidden_act": "hidden_activation", "head_dim": "head_dim",
                "layer_types": "layer_types or pattern(num_hidden_layers, sliding_window_pattern)"},
        rope="transformers-5:per-layer-type",
        notes="sliding layers use rope_parameters.sliding_attention, full layers full_attention.",
    ),
    Entry(
        "transformers-5", "phi3", "transformers-5", "transformers 5 Phi3Config", _source("phi3"),
        fields(vocab_size=("int", 32064), hidden_size=("int", 3072), intermediate_size=("int", 8192), num_hidden_layers=("int", 32),
               num_attention_heads=("int", 32), num_key_value_heads=("int?", None), hidden_act=("str", "silu"), max_position_embeddings=("int", 4096),
               rms_norm_eps=("float", 1e-5), tie_word_embeddings=("bool", False), eos_token_id=("ids", 32000), sliding_window=("int?", None)),
        derive={"head_dim": _HEAD_DIM_KEY_OR_DERIVED, "attention_bias": "False", **_WINDOW_EVERYWHERE, **_SCALE_BY_HEAD_DIM},
        rope="transformers-5:phi3",
        notes="q, k and v are one fused qkv_proj, gate and up one gate_up_proj.",
    ),
)

ENTRIES += (
    Entry(
        "transformers-5", "olmo2", "transformers-5", "transformers 5 Olmo2Config", _source("olmo2"),
        fields(vocab_size=("int", 50304), hidden_size=("int", 4096), intermediate_size=("int", 11008), num_hidden_layers=("int", 32),
               num_attention_heads=("int", 32), num_key_value_heads=("int?", None), hidden_act=("str", "silu"), max_position_embeddings=("int", 2048),
               rms_norm_eps=("float", 1e-5), tie_word_embeddings=("bool", False), eos_token_id=("ids", 50279), attention_bias=("bool", False)),
        derive={"head_dim": _HEAD_DIM_KEY_OR_DERIVED, "sliding_window": "None", "layer_types": 'layers(num_hidden_layers, "full_attention")', **_SCALE_BY_HEAD_DIM},
        rope="transformers-5",
        notes="q_norm and k_norm over the whole projection; the norms follow attention and MLP (post-norm).",
    ),
    Entry(
        "transformers-5", "granite", "transformers-5", "transformers 5 GraniteConfig", _source("granite"),
        fields(vocab_size=("int", 32000), hidden_size=("int", 4096), intermediate_size=("int", 11008), num_hidden_layers=("int", 32),
               num_attention_heads=("int", 32), num_key_value_heads=("int?", None), hidden_act=("str", "silu"), max_position_embeddings=("int", 2048),
               rms_norm_eps=("float", 1e-6), tie_word_embeddings=("bool", False), eos_token_id=("ids", 2), attention_bias=("bool", False),
               mlp_bias=("bool", False), embedding_multiplier=("number", 1.0), logits_scaling=("number", 1.0), residual_multiplier=("number", 1.0),
               attention_multiplier=("number", 1.0)),
        # The attention scale is attention_multiplier itself (modeling_granite.py: self.scaling).
        derive={"head_dim": _HEAD_DIM_KEY_OR_DERIVED, "sliding_window": "None", "layer_types": 'layers(num_hidden_layers, "full_attention")',
                "query_pre_attn_scalar": "1 / (attention_multiplier * attention_multiplier)"},
        rope="transformers-5",
        notes="embeddings are multiplied by embedding_multiplier, each residual branch by residual_multiplier, logits divided by logits_scaling.",
    ),
)

# DeepSeek's multi-head latent attention (MLA) and experts. head_dim is not reported: DeepseekV2Config sets it to
# qk_rope_head_dim (the RoPE width) while the heads are qk_nope_head_dim + qk_rope_head_dim wide, so the MLA
# keys (cfglint.reading.MLA_KEYS) say what each runtime builds. Every head has its own keys and values.
_MLA = {
    "qk_head_dim": "qk_nope_head_dim + qk_rope_head_dim",
    "num_key_value_heads": "num_attention_heads",
    "sliding_window": "None",
    "layer_types": 'layers(num_hidden_layers, "full_attention")',
    "query_pre_attn_scalar": MLA_SCALAR,
    # DeepseekV2DecoderLayer: experts in every layer from first_k_dense_replace on (moe_layer_freq is not read)
    "mlp_layers": "moe_layers(num_hidden_layers, n_routed_experts, first_k_dense_replace, None)",
}
_DEEPSEEK_FIELDS = dict(
    vocab_size=("int", 102400), hidden_size=("int", 4096), intermediate_size=("int", 11008), num_hidden_layers=("int", 32),
    num_attention_heads=("int", 32), num_key_value_heads=("int?", None), hidden_act=("str", "silu"), max_position_embeddings=("int", 2048),
    rms_norm_eps=("float", 1e-6), tie_word_embeddings=("bool", False), eos_token_id=("ids", 2), attention_bias=("bool", False),
    mlp_bias=("bool", False), first_k_dense_replace=("int", 0), kv_lora_rank=("int", 512), q_lora_rank=("int?", 1536),
    n_group=("int?", None), n_routed_experts=("int", 64), n_shared_experts=("int", 2), qk_nope_head_dim=("int", 128),
    qk_rope_head_dim=("int", 64), routed_scaling_factor=("float", 1.0), topk_group=("int?", None), topk_method=("str?", "greedy"),
    v_head_dim=("int", 128), num_experts_per_tok=("int?", None), moe_intermediate_size=("int", 1407),
)
ENTRIES += (
    Entry(
        "transformers-5", "deepseek_v2", "transformers-5", "transformers 5 DeepseekV2Config", _source("deepseek_v2"),
        fields(**_DEEPSEEK_FIELDS),
        derive=_MLA,
        rope="transformers-5",
        notes="RoPE (interleaved pairs, as complex numbers) turns the last qk_rope_head_dim of each query and key; "
              "attention_bias is on q_a_proj, kv_a_proj_with_mqa and o_proj; routed experts are softmax-scored.",
    ),
    Entry(
        "transformers-5", "deepseek_v3", "transformers-5", "transformers 5 DeepseekV3Config", _source("deepseek_v3"),
        fields(vocab_size=("int", 129280), hidden_size=("int", 7168), intermediate_size=("int", 18432),
               moe_intermediate_size=("int", 2048), num_hidden_layers=("int", 61), num_attention_heads=("int", 128),
               num_key_value_heads=("int?", 128), n_shared_experts=("int", 1), n_routed_experts=("int", 256),
               routed_scaling_factor=("float", 2.5), kv_lora_rank=("int", 512), q_lora_rank=("int?", 1536),
               qk_rope_head_dim=("int", 64), v_head_dim=("int?", 128), qk_nope_head_dim=("int", 128), n_group=("int?", 8),
               topk_group=("int?", 4), num_experts_per_tok=("int?", 8), first_k_dense_replace=("int?", 3),
               norm_topk_prob=("bool?", True), hidden_act=("str", "silu"), max_position_embeddings=("int", 4096),
               rms_norm_eps=("float", 1e-6), eos_token_id=("ids", 1), tie_word_embeddings=("bool", False),
               rope_interleave=("bool?", True), attention_bias=("bool", False)),
        # DeepseekV3TopkRouter: sigmoid scores plus e_score_correction_bias, group-limited (DeepSeek's
        # "noaux_tc"), whatever topk_method and scoring_func say; the MLPs have no bias.
        derive={**_MLA, "topk_method": "'noaux_tc'", "mlp_bias": "False"},
        rope="transformers-5",
        notes="rope_interleave (default true): the checkpoint's RoPE dimensions are interleaved and de-interleaved "
              "before rotation; the router holds e_score_correction_bias.",
    ),
)

# gpt-oss: sliding and full layers alternating, attention sinks, every layer experts with biases, and YaRN x32
# when the file gives no RoPE parameters (GptOssConfig.__post_init__).
GPT_OSS_YARN = {"rope_type": "yarn", "factor": 32.0, "beta_fast": 32.0, "beta_slow": 1.0, "truncate": False,
                "original_max_position_embeddings": 4096}
ENTRIES += (
    Entry(
        "transformers-5", "gpt_oss", "transformers-5", "transformers 5 GptOssConfig", _source("gpt_oss"),
        fields(num_hidden_layers=("int", 36), num_local_experts=("int", 128), vocab_size=("int", 201088), hidden_size=("int", 2880),
               intermediate_size=("int", 2880), head_dim=("int", 64), num_attention_heads=("int", 64), num_key_value_heads=("int", 8),
               sliding_window=("int?", 128), tie_word_embeddings=("bool", False), hidden_act=("str", "silu"),
               max_position_embeddings=("int", 131072), rms_norm_eps=("float", 1e-5), rope_parameters=("dict?", GPT_OSS_YARN),
               num_experts_per_tok=("int", 4), swiglu_alpha=("float", 1.702), swiglu_limit=("float", 7.0),
               layer_types=("list?", None), eos_token_id=("ids", None), attention_bias=("bool", True), rope_theta=("any", 150000.0)),
        derive={
            "head_dim": _HEAD_DIM_KEY_OR_DERIVED,
            # GptOssExperts: gate.clamp(max=limit) * sigmoid(alpha * gate) * (up.clamp(-limit, limit) + 1); hidden_act is not read
            "hidden_act": "'swiglu_oai'",
            "attention_bias": "True if attention_bias else False",  # q, k, v and o
            "mlp_bias": "True",  # the experts' gate_up and down projections and the router always carry one
            "layer_types": "layer_types or pattern(num_hidden_layers, 2)",
            "query_pre_attn_scalar": _HEAD_DIM_KEY_OR_DERIVED,
            # attribute_map: a num_experts key sets num_local_experts
            "n_routed_experts": "num_experts if num_experts is not None else num_local_experts",
            "mlp_layers": 'layers(num_hidden_layers, "moe")',
        },
        rope="transformers-5",
        notes="each head has a learned attention sink (self_attn.sinks); the experts are fused (gate_up_proj), with "
              "alpha 1.702 and limit 7.0 unless swiglu_alpha / swiglu_limit say otherwise.",
    ),
)

FAMILIES = {entry.family: entry for entry in ENTRIES}

# The family AutoConfig builds where the file's model_type names another (models/auto/configuration_auto.py
# @ v5.24.0, and 4.57.6 alike): model_type -> (the family it builds, the key whose presence, null or not,
# decides it). A "mistral" file with layer_types is built as Ministral and saved back as "ministral"; a runtime
# that reads model_type itself still sees "mistral". tests/knowledge/test_transformers5_entries.py loads both.
RETYPED = {"mistral": ("ministral", "layer_types")}
# The model class AutoModelForCausalLM builds for those families, which save_pretrained writes in
# `architectures` (models/auto/modeling_auto.py MODEL_FOR_CAUSAL_LM_MAPPING_NAMES @ v5.24.0).
CAUSAL_LM = {"mistral": "MistralForCausalLM", "ministral": "MinistralForCausalLM"}

# Multimodal files whose text model is one of the families: model_type -> (its family, where its config is).
# Gemma3Config builds a Gemma3TextConfig from text_config (configuration_gemma3.py @ v5.24.0).
MULTIMODAL = {"gemma3": ("gemma3_text", "/text_config")}
# Where this runtime reads a multimodal file's text model (Gemma3Config -> text_config).
TEXT_CONFIG = {"gemma3": "/text_config"}
# What a multimodal model ties its lm_head by: the wrapper's own `tie_word_embeddings` (this default where the
# file has none), not text_config's. Gemma3ForConditionalGeneration's tied weights come from its own config
# (PreTrainedModel.get_expanded_tied_weights_keys, modeling_utils.py @ v5.24.0); transformers 4.57 tied by
# text_config's (get_text_config(decoder=True)). tests/conformance/test_multimodal_tie.py builds both.
WRAPPER_TIE = {"gemma3": True}

# The RoPE types a model's RotaryEmbedding builds: "default" itself, and the rest by looking rope_type up in
# ROPE_INIT_FUNCTIONS (modeling_rope_utils.py @ v5.24.0), a KeyError for any other. The config class only
# warns of a type it has no validator for. tests/knowledge/test_transformers5_rope_types.py checks the set.
ROPE_BUILT = frozenset({"default", "linear", "dynamic", "yarn", "longrope", "llama3", "proportional"})

# How each family's attention takes its head size as the model is built (<Family>Attention.__init__ in
# modeling_<family>.py @ v5.24.0): the config's attribute as it is (`getattr(config, "head_dim", hidden //
# heads)`) or, when falsy, hidden // heads (`getattr(config, "head_dim", None) or ...`); then, in order, what it
# computes from it: the attention scale (`head_dim**-0.5`), its first projection (q_proj, or Phi-3's o_proj)
# and a norm over one head (`RMSNorm(head_dim)`). DeepSeek's latent attention sizes its heads from other keys.
# tests/knowledge/test_transformers5_attention.py reads the table off the installed modeling code and builds
# each family with spoilt head sizes.
_SCALED = ("scale", "q_proj")
ATTENTION_HEAD_DIM: dict[str, tuple[str, tuple[str, ...]]] = {
    "llama": ("as-is", _SCALED),
    "qwen2": ("as-is", _SCALED),
    "qwen2_moe": ("as-is", _SCALED),
    "qwen3": ("as-is", (*_SCALED, "q_norm")),
    "qwen3_moe": ("as-is", (*_SCALED, "q_norm")),
    "mistral": ("or-derived", _SCALED),
    "ministral": ("as-is", _SCALED),  # its class declares head_dim, null by default, and fills no null one
    "mixtral": ("or-derived", _SCALED),
    "gemma": ("as-is", _SCALED),
    "gemma2": ("as-is", ("q_proj",)),  # scaled by query_pre_attn_scalar
    "gemma3_text": ("as-is", ("q_proj", "q_norm")),
    "phi3": ("as-is", ("scale", "o_proj")),
    "olmo2": ("as-is", _SCALED),  # its q_norm spans every head
    "granite": ("as-is", ("q_proj",)),  # scaled by attention_multiplier
    "gpt_oss": ("as-is", _SCALED),
}
