"""How transformers 4.57.6 reads each family: the config class's keyword arguments and what the model computes.

reader "kwargs": `fields` are the keyword arguments of `<Family>Config.__init__` that matter for the reading
keys, in signature order, with the defaults of `inspect.signature` (transformers 4.57.6 wheel). A key the
class does not declare is kept as an attribute by `PretrainedConfig.__init__` (null included), so
expressions may name it: `getattr(config, "head_dim", ...)` in the modeling code sees it. `rope_parameters`
(what transformers 5 writes) is such an inert attribute: no 4.57.6 code reads it.

`derive` says what `models/<family>/modeling_<family>.py` @ v4.57.6 builds from the config: the head size,
the window of each layer, the attention scale, the activation the MLP calls, the biases. Values are for the
default attention implementation, "sdpa" (`PreTrainedModel.get_correct_attn_implementation`), which ignores
a `softcap` argument. tests/knowledge/test_transformers4_entries.py checks the defaults against the installed
classes and the plain attribute reads against configs built by them.
"""

from __future__ import annotations

from cfglint.knowledge.entry import Entry, Source, fields

_CHECKED_BY = "tests/knowledge/test_transformers4_entries.py"

# rope_config_validation's required keys per type (modeling_rope_utils.py ROPE_VALIDATION_FUNCTIONS @ v4.57.6):
# every validator requires rope_type, whatever type it dispatched on; a type without a validator only warns.
ROPE_REQUIRED = {
    "default": {"rope_type"},
    "linear": {"rope_type", "factor"},
    "dynamic": {"rope_type", "factor"},
    "yarn": {"rope_type", "factor"},
    "longrope": {"rope_type", "short_factor", "long_factor"},
    "llama3": {"rope_type", "factor", "original_max_position_embeddings", "low_freq_factor", "high_freq_factor"},
}

# Building the model (modeling_rope_utils.py @ v4.57.6): every family's RotaryEmbedding runs
# ROPE_INIT_FUNCTIONS[rope_scaling.get("rope_type", rope_scaling.get("type"))] for a dict rope_scaling
# ("default" for anything else), a KeyError for a type it does not build. Each init function indexes these
# keys, in this order; dynamic, yarn and longrope first multiply getattr(config, "head_dim", hidden // heads)
# by the partial rotary factor, so a head_dim attribute of None stops them (default, linear and llama3 take
# `head_dim or hidden // heads`).
ROPE_INIT_KEYS = {
    "default": (),
    "linear": ("factor",),
    "dynamic": ("factor",),
    "yarn": ("factor",),
    "longrope": ("long_factor", "short_factor"),
    "llama3": ("factor", "low_freq_factor", "high_freq_factor", "original_max_position_embeddings"),
}
ROPE_HEAD_DIM_AS_IS = frozenset({"dynamic", "yarn", "longrope"})
# The config classes whose __init__ copies a legacy `type` over rope_type before validating
# (configuration_<family>.py @ v4.57.6: `self.rope_scaling["rope_type"] = self.rope_scaling["type"]`);
# Phi3Config renames a type "su" or "yarn" to "longrope" instead (_rope_scaling_adjustment).
TYPE_COPIED = frozenset({"llama", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "deepseek_v2", "deepseek_v3", "gpt_oss"})
TYPE_RENAMED = {"phi3": {"su": "longrope", "yarn": "longrope"}}
# DeepseekV3Config.__init__ makes floats of these rope_scaling keys before validating
# (configuration_deepseek_v3.py:237-240 @ v4.57.6): float() refuses what is no number or numeric string.
FLOATED = {"deepseek_v3": ("beta_fast", "beta_slow", "factor")}
# The head_dim attribute, where a class does not keep its argument or the file's key as given (null included;
# configuration_<family>.py @ v4.57.6): LlamaConfig and GptOssConfig replace None with hidden // heads; the
# DeepSeek classes set qk_rope_head_dim, V2 after PretrainedConfig.__init__ has applied the file's keys, V3
# before (a file's head_dim wins there).
HEAD_DIM_FALLBACK = frozenset({"llama", "gpt_oss"})
# How the first layer's attention takes head_dim as the model is built (<Family>Attention.__init__ in
# modeling_<family>.py @ v4.57.6), in the words of knowledge.transformers5.ATTENTION_HEAD_DIM: as 5.24's, but
# Qwen2-MoE's checks `head_dim * heads == hidden_size` first and scales in its forward. DeepSeek-V3's reads
# rope_scaling["factor"], and the mscale of a scaling with mscale_all_dim, whenever the file has a scaling.
# tests/conformance/test_transformers4_rope_build.py builds them with real 4.57.
_SCALED = ("scale", "q_proj")
ATTENTION_HEAD_DIM: dict[str, tuple[str, tuple[str, ...]]] = {
    "llama": ("as-is", _SCALED),
    "qwen2": ("as-is", _SCALED),
    "qwen2_moe": ("as-is", ("divides-hidden", "q_proj")),
    "qwen3": ("as-is", (*_SCALED, "q_norm")),
    "qwen3_moe": ("as-is", (*_SCALED, "q_norm")),
    "mistral": ("or-derived", _SCALED),
    "ministral": ("as-is", _SCALED),
    "mixtral": ("or-derived", _SCALED),
    "gemma": ("as-is", _SCALED),
    "gemma2": ("as-is", ("q_proj",)),
    "gemma3_text": ("as-is", ("q_proj", "q_norm")),
    "phi3": ("as-is", ("scale", "o_proj")),
    "olmo2": ("as-is", _SCALED),
    "granite": ("as-is", ("q_proj",)),
    "gpt_oss": ("as-is", _SCALED),
}
ATTENTION_READS_SCALING = frozenset({"deepseek_v3"})
# The config classes that hold a `layer_types` attribute (tests/knowledge/test_transformers4_entries.py). For
# generate(), DynamicCache (cache_utils.py @ v4.57.6) takes `config.sliding_window or None` and these layer
# types, else every layer slides where that window is not None: a window of 0 on a sliding layer of these
# classes makes a DynamicSlidingWindowLayer of window None, which compares its length with None; a negative
# window fails the mask's arange in every family.
CONFIG_LAYER_TYPES = frozenset({"qwen2", "qwen3", "ministral", "gemma2", "gemma3_text", "gpt_oss"})
# The classes whose __init__ runs layer_type_validation(self.layer_types, self.num_hidden_layers) once it has
# filled a null layer_types (configuration_utils.py @ v4.57.6): every entry among ALLOWED_LAYER_TYPES (which
# knows none of transformers 5's legacy names: "attention" is refused), as many as the layers. Gemma 2 and
# gpt-oss run it before rope_config_validation, the others after (test_transformers4_entries.py).
# The classes whose attention takes its window by `config.layer_types[layer_idx]` with no validation before
# (modeling_ministral.py @ v4.57.6): building the model indexes the file's list once per layer, in Python's
# words for a number, an object or a list shorter than the layers; the forward then looks each layer's type
# up among its masks (`causal_mask_mapping[self.config.layer_types[i]]`), a KeyError for any other name.
INDEXES_LAYER_TYPES = frozenset({"ministral"})
MASKED_LAYER_TYPES = ("full_attention", "sliding_attention")
ALLOWED_LAYER_TYPES = ("full_attention", "sliding_attention", "chunked_attention", "linear_attention")
VALIDATES_LAYER_TYPES = frozenset({"qwen2", "qwen3", "gemma2", "gemma3_text", "gpt_oss"})
LAYER_TYPES_BEFORE_ROPE = frozenset({"gemma2", "gpt_oss"})
# Qwen2-MoE's modeling keeps the legacy `_update_causal_mask`, not masking_utils' sliding mask: observed to
# generate with a window of -1 (tests/conformance/test_transformers4_generation.py).
LEGACY_MASK = frozenset({"qwen2_moe"})
HEAD_DIM_IS_ROPE_WIDTH = frozenset({"deepseek_v2"})
HEAD_DIM_DEFAULTS_TO_ROPE_WIDTH = frozenset({"deepseek_v3"})


def _source(family: str, module: str | None = None) -> Source:
    module = module or family
    return Source(
        "huggingface/transformers",
        f"src/transformers/models/{module}/configuration_{module}.py, modeling_{module}.py",
        "v4.57.6",
        _CHECKED_BY,
    )


# `getattr(config, "head_dim", None) or hidden // heads` (mistral, mixtral) and
# `getattr(config, "head_dim", hidden // heads)` for classes without a head_dim argument (qwen2, qwen2_moe,
# qwen3_moe, phi3): the same unless the file has `"head_dim": null` (then the latter crashes at build).
_HEAD_DIM = "head_dim or hidden_size // num_attention_heads"
_NO_SOFTCAP = {"attn_logit_softcapping": "None", "final_logit_softcapping": "None"}
# Mistral, Mixtral, Phi-3, Qwen3-MoE: one window (config.sliding_window) on every layer, or none.
_WINDOW_EVERYWHERE = {
    "sliding_window": "sliding_window",
    "layer_types": 'layers(num_hidden_layers, "sliding_attention" if sliding_window is not None else "full_attention")',
}
# The file's layer_types where it has them (Ministral fills a null list the same way).
_LAYERS_OR_WINDOW_EVERYWHERE = {
    "sliding_window": "sliding_window",
    "layer_types": 'layer_types or layers(num_hidden_layers, "sliding_attention" if sliding_window is not None else "full_attention")',
}
# Qwen2 / Qwen3: __init__ sets sliding_window = sliding_window if use_sliding_window else None, and when
# layer_types is not given, layers i >= max_window_layers slide iff that window is not None.
_QWEN_LAYERS = (
    'layer_types or (sliding_from(num_hidden_layers, max_window_layers) if use_sliding_window and sliding_window is not None'
    ' else layers(num_hidden_layers, "full_attention"))'
)
_QWEN_WINDOW = {
    "sliding_window": 'sliding_window if use_sliding_window and "sliding_attention" in (layer_types or sliding_from(num_hidden_layers, max_window_layers)) else None',
    "layer_types": _QWEN_LAYERS,
}
# Qwen2-MoE / Qwen3-MoE: __init__ sets sliding_window = sliding_window if use_sliding_window else None; no layer_types.
_MOE_WINDOW = {
    "sliding_window": "sliding_window if use_sliding_window else None",
    "layer_types": 'layers(num_hidden_layers, "sliding_attention" if use_sliding_window and sliding_window is not None else "full_attention")',
}
_GEMMA2_LAYERS = "layer_types or pattern(num_hidden_layers, 2)"
# Gemma3TextConfig: self._sliding_window_pattern = kwargs.get("sliding_window_pattern", 6) (not an argument).
_GEMMA3_LAYERS = "layer_types or pattern(num_hidden_layers, 6 if sliding_window_pattern is None else sliding_window_pattern)"

ENTRIES = (
    Entry(
        "transformers-4", "qwen2", "kwargs", "transformers 4.57.6 Qwen2Config + modeling_qwen2.py", _source("qwen2"),
        fields(hidden_size=("any", 4096), num_hidden_layers=("any", 32), num_attention_heads=("any", 32),
               num_key_value_heads=("any", 32), hidden_act=("any", "silu"), max_position_embeddings=("any", 32768),
               rms_norm_eps=("any", 1e-6), tie_word_embeddings=("any", False), rope_theta=("any", 10000.0),
               rope_scaling=("any", None), use_sliding_window=("any", False), sliding_window=("any", 4096),
               max_window_layers=("any", 28), layer_types=("any", None)),
        derive={"head_dim": _HEAD_DIM, "attention_bias": "'q/k/v'", "mlp_bias": "False", "eos_token_id": "eos_token_id",
                "query_pre_attn_scalar": _HEAD_DIM, **_QWEN_WINDOW, **_NO_SOFTCAP},
        rope="scaling",
        notes="q/k/v_proj bias=True, o_proj and MLP none; scale head_dim**-0.5. A given layer_types with "
              "sliding_attention while use_sliding_window is false fails at the first forward "
              "(create_sliding_window_causal_mask: ValueError \"Could not find a `sliding_window` argument in the config, or it is not set\").",
    ),
    Entry(
        "transformers-4", "qwen3", "kwargs", "transformers 4.57.6 Qwen3Config + modeling_qwen3.py", _source("qwen3"),
        fields(hidden_size=("any", 4096), num_hidden_layers=("any", 32), num_attention_heads=("any", 32),
               num_key_value_heads=("any", 32), head_dim=("any", 128), hidden_act=("any", "silu"),
               max_position_embeddings=("any", 32768), rms_norm_eps=("any", 1e-6), tie_word_embeddings=("any", False),
               rope_theta=("any", 10000.0), rope_scaling=("any", None), attention_bias=("any", False),
               use_sliding_window=("any", False), sliding_window=("any", 4096), max_window_layers=("any", 28),
               layer_types=("any", None)),
        derive={"head_dim": "head_dim", "mlp_bias": "False", "eos_token_id": "eos_token_id", "query_pre_attn_scalar": "head_dim",
                **_QWEN_WINDOW, **_NO_SOFTCAP},
        rope="scaling",
        notes="head_dim is always an attribute (default 128, never hidden//heads); attention_bias covers q, k, v and o; "
              "q_norm/k_norm are RMSNorm(head_dim).",
    ),
    Entry(
        "transformers-4", "mistral", "kwargs", "transformers 4.57.6 MistralConfig + modeling_mistral.py", _source("mistral"),
        fields(hidden_size=("any", 4096), num_hidden_layers=("any", 32), num_attention_heads=("any", 32),
               num_key_value_heads=("any", 8), head_dim=("any", None), hidden_act=("any", "silu"),
               max_position_embeddings=("any", 131072), rms_norm_eps=("any", 1e-6), eos_token_id=("any", 2),
               tie_word_embeddings=("any", False), rope_theta=("any", 10000.0), sliding_window=("any", 4096)),
        derive={"head_dim": _HEAD_DIM, "attention_bias": "False", "mlp_bias": "False", "query_pre_attn_scalar": _HEAD_DIM,
                **_WINDOW_EVERYWHERE, **_NO_SOFTCAP},
        rope="unvalidated-scaling",
        notes="rope_scaling is not an argument: a file's rope_scaling is kept unvalidated and MistralRotaryEmbedding "
              "still runs ROPE_INIT_FUNCTIONS[rope_type or type] on it; a layer_types key only logs a warning.",
    ),
    Entry(
        "transformers-4", "ministral", "kwargs", "transformers 4.57.6 MinistralConfig + modeling_ministral.py", _source("ministral"),
        fields(hidden_size=("any", 4096), num_hidden_layers=("any", 32), num_attention_heads=("any", 32),
               num_key_value_heads=("any", 8), head_dim=("any", None), hidden_act=("any", "silu"),
               max_position_embeddings=("any", 131072), rms_norm_eps=("any", 1e-6), eos_token_id=("any", 2),
               tie_word_embeddings=("any", False), rope_theta=("any", 10000.0), sliding_window=("any", 4096),
               layer_types=("any", None)),
        derive={"head_dim": _HEAD_DIM, "attention_bias": "False", "mlp_bias": "False", "query_pre_attn_scalar": _HEAD_DIM,
                **_LAYERS_OR_WINDOW_EVERYWHERE, **_NO_SOFTCAP},
        rope="unvalidated-scaling",
        notes="Mistral with a window per layer; a null layer_types is filled with sliding_attention on every layer where a "
              "window is set, and no entry is validated. The attention takes head_dim as the class keeps it, null included.",
    ),
    Entry(
        "transformers-4", "gemma2", "kwargs", "transformers 4.57.6 Gemma2Config + modeling_gemma2.py", _source("gemma2"),
        fields(hidden_size=("any", 2304), num_hidden_layers=("any", 26), num_attention_heads=("any", 8),
               num_key_value_heads=("any", 4), head_dim=("any", 256), hidden_activation=("any", "gelu_pytorch_tanh"),
               max_position_embeddings=("any", 8192), rms_norm_eps=("any", 1e-6), eos_token_id=("any", 1),
               tie_word_embeddings=("any", True), rope_theta=("any", 10000.0), attention_bias=("any", False),
               query_pre_attn_scalar=("any", 256), sliding_window=("any", 4096), layer_types=("any", None),
               final_logit_softcapping=("any", 30.0)),
        derive={"hidden_act": "hidden_activation", "head_dim": "head_dim", "mlp_bias": "False",
                "sliding_window": f'sliding_window if "sliding_attention" in ({_GEMMA2_LAYERS}) else None',
                "layer_types": _GEMMA2_LAYERS,
                # sdpa_attention_forward ignores the softcap kwarg; only attn_implementation="eager" (or flash/flex) applies it.
                "attn_logit_softcapping": "None"},
        rope="unvalidated-scaling",
        notes="MLP runs ACT2FN[hidden_activation]; hidden_act is never read. attn_logit_softcapping is applied only "
              "with attn_implementation eager/flash/flex, not by the default sdpa. Embeddings scaled by sqrt(hidden_size).",
    ),
    Entry(
        "transformers-4", "gemma", "kwargs", "transformers 4.57.6 GemmaConfig + modeling_gemma.py", _source("gemma"),
        fields(hidden_size=("any", 3072), num_hidden_layers=("any", 28), num_attention_heads=("any", 16),
               num_key_value_heads=("any", 16), head_dim=("any", 256), hidden_act=("any", "gelu_pytorch_tanh"),
               max_position_embeddings=("any", 8192), rms_norm_eps=("any", 1e-6), eos_token_id=("any", 1),
               tie_word_embeddings=("any", True), rope_theta=("any", 10000.0), attention_bias=("any", False)),
        derive={"head_dim": "head_dim", "mlp_bias": "False", "query_pre_attn_scalar": "head_dim",
                "sliding_window": "None", "layer_types": 'layers(num_hidden_layers, "full_attention")', **_NO_SOFTCAP},
        rope="unvalidated-scaling",
        notes="MLP runs ACT2FN[hidden_act] (\"gelu\" = exact erf); the hidden_activation argument is stored but never read. "
              "Embeddings scaled by sqrt(hidden_size).",
    ),
    Entry(
        "transformers-4", "gemma3_text", "kwargs", "transformers 4.57.6 Gemma3TextConfig + modeling_gemma3.py",
        _source("gemma3_text", "gemma3"),
        fields(hidden_size=("any", 2304), num_hidden_layers=("any", 26), num_attention_heads=("any", 8),
               num_key_value_heads=("any", 4), head_dim=("any", 256), hidden_activation=("any", "gelu_pytorch_tanh"),
               max_position_embeddings=("any", 131072), rms_norm_eps=("any", 1e-6), eos_token_id=("any", 1),
               tie_word_embeddings=("any", True), rope_theta=("any", 1000000.0), attention_bias=("any", False),
               query_pre_attn_scalar=("any", 256), sliding_window=("any", 4096), layer_types=("any", None),
               final_logit_softcapping=("any", None), rope_scaling=("any", None), rope_local_base_freq=("any", 10000.0),
               use_bidirectional_attention=("any", False)),
        derive={"hidden_act": "hidden_activation", "head_dim": "head_dim", "mlp_bias": "False",
                "sliding_window": f'(sliding_window // 2 + 1 if use_bidirectional_attention else sliding_window) if "sliding_attention" in ({_GEMMA3_LAYERS}) else None',
                "layer_types": _GEMMA3_LAYERS,
                # Gemma3Attention stores attn_logit_softcapping but never passes it to the attention function.
                "attn_logit_softcapping": "None"},
        rope="gemma3-local",
        notes="full layers: rope_theta + rope_scaling; sliding layers: rope_local_base_freq, no scaling. "
              "sliding_window_pattern (default 6) is read from kwargs only when layer_types is absent.",
    ),
    Entry(
        "transformers-4", "phi3", "kwargs", "transformers 4.57.6 Phi3Config + modeling_phi3.py", _source("phi3"),
        fields(hidden_size=("any", 3072), num_hidden_layers=("any", 32), num_attention_heads=("any", 32),
               num_key_value_heads=("any", None), hidden_act=("any", "silu"), max_position_embeddings=("any", 4096),
               original_max_position_embeddings=("any", 4096), rms_norm_eps=("any", 1e-5), tie_word_embeddings=("any", False),
               rope_theta=("any", 10000.0), rope_scaling=("any", None), partial_rotary_factor=("any", 1.0),
               eos_token_id=("any", 32000), sliding_window=("any", None)),
        derive={"head_dim": _HEAD_DIM, "attention_bias": "False", "mlp_bias": "False", "query_pre_attn_scalar": _HEAD_DIM,
                **_WINDOW_EVERYWHERE, **_NO_SOFTCAP},
        rope="phi3-longrope",
        notes="fused qkv_proj and gate_up_proj, no biases; RoPE covers int(head_dim * partial_rotary_factor) dims.",
    ),
    Entry(
        "transformers-4", "mixtral", "kwargs", "transformers 4.57.6 MixtralConfig + modeling_mixtral.py", _source("mixtral"),
        fields(hidden_size=("any", 4096), num_hidden_layers=("any", 32), num_attention_heads=("any", 32),
               num_key_value_heads=("any", 8), head_dim=("any", None), hidden_act=("any", "silu"),
               max_position_embeddings=("any", 131072), rms_norm_eps=("any", 1e-5), eos_token_id=("any", 2),
               tie_word_embeddings=("any", False), rope_theta=("any", 1000000.0), sliding_window=("any", None)),
        derive={"head_dim": _HEAD_DIM, "attention_bias": "False", "mlp_bias": "False", "query_pre_attn_scalar": _HEAD_DIM,
                **_WINDOW_EVERYWHERE, **_NO_SOFTCAP},
        rope="unvalidated-scaling",
        notes="rope_scaling is not an argument: a file's rope_scaling is kept unvalidated and still run by "
              "MixtralRotaryEmbedding; the theta default is 1e6.",
    ),
    Entry(
        "transformers-4", "qwen2_moe", "kwargs", "transformers 4.57.6 Qwen2MoeConfig + modeling_qwen2_moe.py", _source("qwen2_moe"),
        fields(hidden_size=("any", 2048), num_hidden_layers=("any", 24), num_attention_heads=("any", 16),
               num_key_value_heads=("any", 16), hidden_act=("any", "silu"), max_position_embeddings=("any", 32768),
               rms_norm_eps=("any", 1e-6), tie_word_embeddings=("any", False), rope_theta=("any", 10000.0),
               rope_scaling=("any", None), use_sliding_window=("any", False), sliding_window=("any", 4096),
               qkv_bias=("any", True)),
        derive={"head_dim": _HEAD_DIM, "attention_bias": "'q/k/v' if qkv_bias else False", "mlp_bias": "False",
                "eos_token_id": "eos_token_id", "query_pre_attn_scalar": _HEAD_DIM, **_MOE_WINDOW, **_NO_SOFTCAP},
        rope="scaling",
        notes="sdpa/eager: the 4D mask applies the window on every layer; only flash_attention_2 limits it to layers "
              ">= max_window_layers. Building the model raises ValueError \"hidden_size must be divisible by num_heads "
              "(got `hidden_size`: H and `num_heads`: N).\" when head_dim * heads != hidden_size.",
    ),
    Entry(
        "transformers-4", "qwen3_moe", "kwargs", "transformers 4.57.6 Qwen3MoeConfig + modeling_qwen3_moe.py", _source("qwen3_moe"),
        fields(hidden_size=("any", 2048), num_hidden_layers=("any", 24), num_attention_heads=("any", 32),
               num_key_value_heads=("any", 4), hidden_act=("any", "silu"), max_position_embeddings=("any", 32768),
               rms_norm_eps=("any", 1e-6), tie_word_embeddings=("any", False), rope_theta=("any", 10000.0),
               rope_scaling=("any", None), attention_bias=("any", False), use_sliding_window=("any", False),
               sliding_window=("any", 4096)),
        derive={"head_dim": _HEAD_DIM, "mlp_bias": "False", "eos_token_id": "eos_token_id", "query_pre_attn_scalar": _HEAD_DIM,
                **_MOE_WINDOW, **_NO_SOFTCAP},
        rope="scaling",
        notes="head_dim is not an argument: a file's head_dim attribute is used, else hidden//heads "
              "(Qwen3-30B-A3B: 128 written vs 64 derived). attention_bias covers q, k, v and o.",
    ),
    Entry(
        "transformers-4", "olmo2", "kwargs", "transformers 4.57.6 Olmo2Config + modeling_olmo2.py", _source("olmo2"),
        fields(hidden_size=("any", 4096), num_hidden_layers=("any", 32), num_attention_heads=("any", 32),
               num_key_value_heads=("any", None), hidden_act=("any", "silu"), max_position_embeddings=("any", 2048),
               eos_token_id=("any", 50279), tie_word_embeddings=("any", False), rope_theta=("any", 10000.0),
               rope_scaling=("any", None), attention_bias=("any", False), rms_norm_eps=("any", 1e-5)),
        derive={"head_dim": _HEAD_DIM, "mlp_bias": "False", "query_pre_attn_scalar": _HEAD_DIM,
                "sliding_window": "None", "layer_types": 'layers(num_hidden_layers, "full_attention")', **_NO_SOFTCAP},
        rope="olmo2-two-field",
        notes="attention_bias covers q, k, v and o; q_norm/k_norm are RMSNorm over the whole q/k projections.",
    ),
    Entry(
        "transformers-4", "granite", "kwargs", "transformers 4.57.6 GraniteConfig + modeling_granite.py", _source("granite"),
        fields(hidden_size=("any", 4096), num_hidden_layers=("any", 32), num_attention_heads=("any", 32),
               num_key_value_heads=("any", None), hidden_act=("any", "silu"), max_position_embeddings=("any", 2048),
               rms_norm_eps=("any", 1e-6), eos_token_id=("any", 2), tie_word_embeddings=("any", False),
               rope_theta=("any", 10000.0), rope_scaling=("any", None), attention_bias=("any", False),
               mlp_bias=("any", False), attention_multiplier=("any", 1.0)),
        # GraniteAttention: self.scaling = config.attention_multiplier, i.e. S = attention_multiplier ** -2.
        derive={"head_dim": _HEAD_DIM, "query_pre_attn_scalar": "1 / (attention_multiplier * attention_multiplier)",
                "sliding_window": "None", "layer_types": 'layers(num_hidden_layers, "full_attention")', **_NO_SOFTCAP},
        rope="scaling-no-type-copy",
        notes="embeddings x embedding_multiplier, residual branches x residual_multiplier, logits / logits_scaling; "
              "attention_bias covers q, k, v and o.",
    ),
    Entry(
        "transformers-4", "deepseek_v2", "kwargs", "transformers 4.57.6 DeepseekV2Config + modeling_deepseek_v2.py",
        _source("deepseek_v2"),
        fields(hidden_size=("any", 4096), num_hidden_layers=("any", 32), num_attention_heads=("any", 32),
               num_key_value_heads=("any", None), hidden_act=("any", "silu"), max_position_embeddings=("any", 2048),
               rms_norm_eps=("any", 1e-6), eos_token_id=("any", 2), tie_word_embeddings=("any", False),
               rope_theta=("any", 10000.0), rope_scaling=("any", None), attention_bias=("any", False),
               mlp_bias=("any", False), first_k_dense_replace=("any", 0), kv_lora_rank=("any", 512),
               q_lora_rank=("any", 1536), n_group=("any", None), n_routed_experts=("any", 64), n_shared_experts=("any", 2),
               qk_nope_head_dim=("any", 128), qk_rope_head_dim=("any", 64), routed_scaling_factor=("any", 1.0),
               topk_group=("any", None), topk_method=("any", "greedy"), v_head_dim=("any", 128),
               num_experts_per_tok=("any", None)),
        # __init__ sets config.head_dim = qk_rope_head_dim (the RoPE width); the attention builds q/k heads of
        # qk_nope + qk_rope and scales by qk_head_dim**-0.5 alone: YaRN's mscale is not applied to the scores.
        derive={"qk_head_dim": "qk_nope_head_dim + qk_rope_head_dim", "num_key_value_heads": "num_attention_heads",
                "query_pre_attn_scalar": "qk_nope_head_dim + qk_rope_head_dim",
                "mlp_layers": "moe_layers(num_hidden_layers, n_routed_experts, first_k_dense_replace, None)",
                "sliding_window": "None", "layer_types": 'layers(num_hidden_layers, "full_attention")', **_NO_SOFTCAP},
        rope="scaling",
        notes="MLA: q/k heads are qk_nope+qk_rope wide, v heads v_head_dim, RoPE over qk_rope_head_dim. attention_bias "
              "is on q_a_proj, kv_a_proj_with_mqa and o_proj only. YaRN mscale enters only through the cos/sin "
              "attention_factor, never the softmax scale.",
    ),
    Entry(
        "transformers-4", "deepseek_v3", "kwargs", "transformers 4.57.6 DeepseekV3Config + modeling_deepseek_v3.py",
        _source("deepseek_v3"),
        fields(hidden_size=("any", 7168), num_hidden_layers=("any", 61), num_attention_heads=("any", 128),
               num_key_value_heads=("any", 128), n_shared_experts=("any", 1), n_routed_experts=("any", 256),
               routed_scaling_factor=("any", 2.5), kv_lora_rank=("any", 512), q_lora_rank=("any", 1536),
               qk_rope_head_dim=("any", 64), v_head_dim=("any", 128), qk_nope_head_dim=("any", 128), n_group=("any", 8),
               topk_group=("any", 4), num_experts_per_tok=("any", 8), first_k_dense_replace=("any", 3),
               hidden_act=("any", "silu"), max_position_embeddings=("any", 4096), rms_norm_eps=("any", 1e-6),
               eos_token_id=("any", 1), tie_word_embeddings=("any", False), rope_theta=("any", 10000.0),
               rope_scaling=("any", None), attention_bias=("any", False)),
        # DeepseekV3Attention: qk_head_dim**-0.5, times yarn_get_mscale(factor, mscale_all_dim)**2 whenever
        # rope_scaling is set (unlike 4.57's DeepSeek-V2); the router is sigmoid + e_score_correction_bias.
        derive={"qk_head_dim": "qk_nope_head_dim + qk_rope_head_dim", "num_key_value_heads": "num_attention_heads",
                "query_pre_attn_scalar": "mla_scalar(qk_nope_head_dim + qk_rope_head_dim, get(rope_scaling, 'factor'),"
                                         " get(rope_scaling, 'mscale_all_dim'))",
                "topk_method": "'noaux_tc'", "mlp_bias": "False",
                "mlp_layers": "moe_layers(num_hidden_layers, n_routed_experts, first_k_dense_replace, None)",
                "sliding_window": "None", "layer_types": 'layers(num_hidden_layers, "full_attention")', **_NO_SOFTCAP},
        rope="scaling",
        notes="MLA as DeepSeek-V2's; config.head_dim is qk_rope_head_dim. attention_bias is on q_a_proj, "
              "kv_a_proj_with_mqa and o_proj only.",
    ),
    Entry(
        "transformers-4", "gpt_oss", "kwargs", "transformers 4.57.6 GptOssConfig + modeling_gpt_oss.py", _source("gpt_oss"),
        fields(num_hidden_layers=("any", 36), num_local_experts=("any", 128), hidden_size=("any", 2880), head_dim=("any", 64), num_attention_heads=("any", 64),
               num_key_value_heads=("any", 8), sliding_window=("any", 128), rope_theta=("any", 150000.0),
               tie_word_embeddings=("any", False), max_position_embeddings=("any", 131072), rms_norm_eps=("any", 1e-5),
               rope_scaling=("any", {"rope_type": "yarn", "factor": 32.0, "beta_fast": 32.0, "beta_slow": 1.0,
                                     "truncate": False, "original_max_position_embeddings": 4096}),
               num_experts_per_tok=("any", 4), layer_types=("any", None)),
        derive={"head_dim": _HEAD_DIM, "attention_bias": "True", "mlp_bias": "True", "eos_token_id": "eos_token_id",
                # experts: gate.clamp(max=7) * sigmoid(1.702 * gate) * (up.clamp(-7, 7) + 1); hidden_act is never read.
                "hidden_act": "'swiglu_oai'", "n_routed_experts": "num_local_experts", "mlp_layers": 'layers(num_hidden_layers, "moe")', "query_pre_attn_scalar": _HEAD_DIM,
                "sliding_window": f'sliding_window if "sliding_attention" in ({_GEMMA2_LAYERS}) else None',
                "layer_types": _GEMMA2_LAYERS, **_NO_SOFTCAP},
        rope="scaling",
        notes="__init__ forces attention_bias = True; attention sinks per head; _supports_sdpa = False (eager). The MLP "
              "is a clamped x*sigmoid(1.702x) GLU with (up + 1), not ACT2FN[hidden_act].",
    ),
)

MISSING: tuple[str, ...] = ()
# Gemma3Config builds its Gemma3TextConfig from text_config (configuration_gemma3.py @ v4.57.6).
TEXT_CONFIG = {"gemma3": "/text_config"}
