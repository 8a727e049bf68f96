"""How mlx-lm 0.32.2 (with mlx 0.32.4) reads config.json, per family (reader "dataclass").

Every entry was read from the installed wheel mlx-lm==0.32.2: mlx_lm/models/<module>.py (`ModelArgs`, the
`Model` that builds from it, `sanitize`), models/rope_utils.py (`initialize_rope`), models/base.py
(`BaseModelArgs.from_dict`) and utils.py (`load_config`, `_get_classes`, `load_model`). The wheel carries no
commit; the ml-explore/mlx-lm history available here stops at d78bf58e (0.31.3-43), whose model files all
differ from the wheel's, so nothing below was taken from it.

Common rules (utils.py, base.py):
- `_get_classes` imports `mlx_lm.models.<model_type>`, after MODEL_REMAPPING (`mistral` -> `llama`).
- `from_dict` passes only the keys that are `ModelArgs` parameters: unknown keys are dropped, nothing is
  type-checked, null is passed through as None. A missing required field is
  `TypeError: ModelArgs.__init__() missing N required positional argument(s): ...`.
- `rope_parameters` (transformers 5's layout) is read only by qwen3 among these families.
- eos ids are not a `ModelArgs` field: `load_config` replaces the config's `eos_token_id` by a truthy
  `eos_token_id` of generation_config.json, and the tokenizer wrapper adds the tokenizer's own eos token.
- Weights load strictly (`load_weights(strict=True)`): a module that ties without dropping `lm_head.weight`
  in `sanitize` fails when the checkpoint has that tensor, and an untied one fails when it lacks it.
- `Model.__init__` decides tie with `if not args.tie_word_embeddings`, so any truthy value (the string
  "false" too) ties; the readings below normalise it to a bool the same way.
"""

from __future__ import annotations

from cfglint.knowledge.entry import REQUIRED, Check, Entry, Field, Source

_REPO = "ml-explore/mlx-lm"
_REF = "0.32.2 (wheel)"
_STRUCT = "ModelArgs"

# Families that mlx-lm 0.32.2 has no module for (`_get_classes`: "Model type ministral not supported"; its
# ministral3 is another model): transformers 5 saves a Mistral file with layer_types back as "ministral".
MISSING = ("ministral",)
# models/gemma3.py builds gemma3_text.ModelArgs from text_config (its vocab_size from the top, 262208 by default;
# num_attention_heads 8 and num_key_value_heads 4 when text_config has none).
TEXT_CONFIG = {"gemma3": "/text_config"}
# The defaults a wrapper's ModelArgs.__post_init__ writes into text_config where it has no such key, over the
# text module's own (gemma3_text's are 4 and 1): the text reading takes them as its defaults. (The vocab_size it
# always sets from the top level is no value a reading reports.)
WRAPPER_DEFAULTS = {"gemma3": {"num_attention_heads": 8, "num_key_value_heads": 4}}
# The families whose module builds its norms with mlx's nn.RMSNorm(dims, eps=args.rms_norm_eps), which refuses
# an eps of 0 or less as the model is built (mlx/nn/layers/normalization.py:157); the Gemma modules define an
# RMSNorm of their own that checks nothing. Llama's module is one of them (tests/knowledge/test_mlx_lm_entries.py).
CHECKS_NORM_EPS = frozenset({
    "llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "phi3", "olmo2", "granite",
    "deepseek_v2", "deepseek_v3", "gpt_oss",
})

# How each family module's attention takes head_dim as the model is built (models/<family>.py): the args' own
# (`args.head_dim`, a dataclass field that checks no type), or hidden // heads where it is falsy; then, in
# order, what it computes from it: the scale (`head_dim**-0.5`), q_proj (nn.Linear(dim, heads * head_dim):
# mx.random refuses a negative size) and o_proj (nn.Linear(heads * head_dim, dim): its init divides by the
# input size). The modules left out size their heads as hidden // heads, whatever the file says.
# tests/knowledge/test_mlx_lm_entries.py reads the table off the installed modules.
_PROJECTIONS = ("q_proj", "o_proj")
ATTENTION_HEAD_DIM: dict[str, tuple[str, tuple[str, ...]]] = {
    "llama": ("or-derived", ("scale", *_PROJECTIONS)),
    "mistral": ("or-derived", ("scale", *_PROJECTIONS)),  # models/llama.py
    "olmo2": ("or-derived", ("scale", *_PROJECTIONS)),
    "qwen3": ("as-is", ("scale", *_PROJECTIONS)),
    "qwen3_moe": ("as-is", ("scale", *_PROJECTIONS)),
    "gemma": ("as-is", ("scale", *_PROJECTIONS)),
    "gemma2": ("as-is", _PROJECTIONS),  # scaled by query_pre_attn_scalar
    "gemma3_text": ("as-is", _PROJECTIONS),
    "gpt_oss": ("as-is", _PROJECTIONS),
}

_ALL_FULL = 'layers(num_hidden_layers, "full_attention")'
_DERIVED_HEAD = "hidden_size // num_attention_heads"
_TIE = "True if tie_word_embeddings else False"
# `assert args.num_key_value_heads is not None` in Attention.__init__ (no __post_init__ fills it).
_KV_ASSERT = Check("num_key_value_heads is None", "AssertionError", "/num_key_value_heads")
# `self.repeats = n_heads // n_kv_heads` in Attention.__init__ (gemma2, gemma3_text).
_KV_DIV0 = Check(
    "num_key_value_heads == 0 and num_hidden_layers > 0",
    "ZeroDivisionError: integer division or modulo by zero",
    "/num_key_value_heads",
)


# DeepSeek-V2's ModelArgs (models/deepseek_v2.py), in declaration order.
_DEEPSEEK_V2_FIELDS = {
    "model_type": Field("any", "deepseek_v2"),
    "vocab_size": Field("any", 102400),
    "hidden_size": Field("any", 4096),
    "intermediate_size": Field("any", 11008),
    "moe_intermediate_size": Field("any", 1407),
    "num_hidden_layers": Field("any", 30),
    "num_attention_heads": Field("any", 32),
    "num_key_value_heads": Field("any", 32),
    "n_shared_experts": Field("any", None),
    "n_routed_experts": Field("any", None),
    "routed_scaling_factor": Field("any", 1.0),
    "kv_lora_rank": Field("any", 512),
    "q_lora_rank": Field("any", 1536),
    "qk_rope_head_dim": Field("any", 64),
    "v_head_dim": Field("any", 128),
    "qk_nope_head_dim": Field("any", 128),
    "topk_method": Field("any", "gready"),
    "n_group": Field("any", None),
    "topk_group": Field("any", None),
    "num_experts_per_tok": Field("any", None),
    "moe_layer_freq": Field("any", 1),
    "first_k_dense_replace": Field("any", 0),
    "max_position_embeddings": Field("any", 2048),
    "rms_norm_eps": Field("any", 1e-6),
    "rope_theta": Field("any", 10000.0),
    "rope_scaling": Field("any", None),
    "attention_bias": Field("any", False),
}
# DeepSeek-V3's (models/deepseek_v3.py): the same fields with scoring_func and norm_topk_prob after
# topk_method, and other defaults for the routing.
_V3_DEFAULTS = {"model_type": "deepseek_v3", "topk_method": "noaux_tc", "n_group": 1, "topk_group": 1, "num_experts_per_tok": 1}
_DEEPSEEK_V3_FIELDS: dict[str, Field] = {}
for _name, _field in _DEEPSEEK_V2_FIELDS.items():
    _DEEPSEEK_V3_FIELDS[_name] = Field("any", _V3_DEFAULTS[_name]) if _name in _V3_DEFAULTS else _field
    if _name == "topk_method":
        _DEEPSEEK_V3_FIELDS.update(scoring_func=Field("any", "sigmoid"), norm_topk_prob=Field("any", True))

# DeepSeek-V2 and V3 (models/deepseek_v2.py, deepseek_v3.py): what both derive from the keys they read.
_DEEPSEEK_DERIVE = {
    # queries/keys are qk_nope_head_dim + qk_rope_head_dim wide, RoPE turns qk_rope_head_dim, values v_head_dim
    "qk_head_dim": "qk_nope_head_dim + qk_rope_head_dim",
    "num_key_value_heads": "num_attention_heads",  # MLA: kv_b_proj makes num_heads heads; the field is unused
    "tie_word_embeddings": "False",  # lm_head always built
    "hidden_act": "'silu'",
    # bias=attention_bias on q_a_proj, kv_a_proj_with_mqa and o_proj; never on q_proj/q_b_proj/kv_b_proj
    "attention_bias": "True if attention_bias else False",
    "mlp_bias": "False",
    "sliding_window": "None",
    "layer_types": _ALL_FULL,
    # scale = (qk_nope + qk_rope)**-0.5, times yarn_get_mscale(factor, mscale_all_dim)**2 when mscale_all_dim is set
    "query_pre_attn_scalar": (
        "mla_scalar(qk_nope_head_dim + qk_rope_head_dim, get(rope_scaling, 'factor'), get(rope_scaling, 'mscale_all_dim'))"
    ),
    # DeepseekV2DecoderLayer: experts when n_routed_experts is set, from first_k_dense_replace on, every moe_layer_freq-th
    "mlp_layers": "moe_layers(num_hidden_layers, n_routed_experts is not None, first_k_dense_replace, moe_layer_freq)",
}

ENTRIES = (
    # ------------------------------------------------------------------ qwen2
    Entry(
        runtime="mlx-lm",
        family="qwen2",
        reader="dataclass",
        title="mlx-lm 0.32.2 models/qwen2.py",
        source=Source(_REPO, "mlx_lm/models/qwen2.py", _REF),
        struct=_STRUCT,
        fields={
            "model_type": Field("any", REQUIRED),
            "hidden_size": Field("any", REQUIRED),
            "num_hidden_layers": Field("any", REQUIRED),
            "intermediate_size": Field("any", REQUIRED),
            "num_attention_heads": Field("any", REQUIRED),
            "rms_norm_eps": Field("any", REQUIRED),
            "vocab_size": Field("any", REQUIRED),
            "num_key_value_heads": Field("any", REQUIRED),
            "max_position_embeddings": Field("any", 32768),
            "rope_theta": Field("any", 1000000),
            "rope_traditional": Field("any", False),
            "rope_scaling": Field("any", None),
            "tie_word_embeddings": Field("any", True),
        },
        derive={
            "head_dim": _DERIVED_HEAD,  # Attention: head_dim = args.hidden_size // n_heads; no head_dim field
            "tie_word_embeddings": _TIE,
            "hidden_act": "'silu'",  # MLP: swiglu(gate, up) = silu(gate) * up; hidden_act is not a field
            "attention_bias": "'q/k/v'",  # q/k/v_proj bias=True, o_proj bias=False, hard-coded
            "mlp_bias": "False",
            "sliding_window": "None",  # no sliding_window / use_sliding_window field: every layer is full
            "layer_types": _ALL_FULL,
            "query_pre_attn_scalar": _DERIVED_HEAD,  # scale = head_dim**-0.5
        },
        rope="scaling",  # initialize_rope(head_dim, rope_theta, rope_traditional, rope_scaling, max_position_embeddings)
        checks=(_KV_ASSERT,),
        notes=(
            "rope_theta defaults to 1e6 and rope_parameters is never read, so a transformers-5 file gets 1e6 "
            "whatever it says; sanitize drops lm_head.weight when tied; sliding window and max_window_layers are ignored."
        ),
    ),
    # ------------------------------------------------------------------ qwen3
    Entry(
        runtime="mlx-lm",
        family="qwen3",
        reader="dataclass",
        title="mlx-lm 0.32.2 models/qwen3.py",
        source=Source(_REPO, "mlx_lm/models/qwen3.py", _REF),
        struct=_STRUCT,
        fields={
            "model_type": Field("any", REQUIRED),
            "hidden_size": Field("any", REQUIRED),
            "num_hidden_layers": Field("any", REQUIRED),
            "intermediate_size": Field("any", REQUIRED),
            "num_attention_heads": Field("any", REQUIRED),
            "rms_norm_eps": Field("any", REQUIRED),
            "vocab_size": Field("any", REQUIRED),
            "num_key_value_heads": Field("any", REQUIRED),
            "max_position_embeddings": Field("any", REQUIRED),
            "head_dim": Field("any", REQUIRED),
            "tie_word_embeddings": Field("any", REQUIRED),
            "rope_theta": Field("any", None),
            "rope_scaling": Field("any", None),
            "rope_parameters": Field("any", None),
        },
        derive={
            "tie_word_embeddings": _TIE,
            "hidden_act": "'silu'",
            "attention_bias": "False",
            "mlp_bias": "False",
            "sliding_window": "None",
            "layer_types": _ALL_FULL,
            "query_pre_attn_scalar": "head_dim",  # scale = args.head_dim**-0.5
        },
        # __post_init__ (qwen3.py:32-40): when rope_parameters is truthy, a None rope_theta becomes
        # rope_parameters.get("rope_theta") and a None rope_scaling becomes the whole rope_parameters dict;
        # the top-level keys win when set. Then initialize_rope as for "scaling".
        rope="top-level-then-rope_parameters",
        checks=(
            Check(
                "rope_theta is None and (not rope_parameters or get(rope_parameters, 'rope_theta') is None)",
                "ValueError: rope_theta is missing from the model config.",
                "/rope_theta",
            ),
            _KV_ASSERT,
        ),
        notes=(
            "Top-level rope_theta / rope_scaling win over rope_parameters; a rope_parameters dict used as the "
            "scaling goes through initialize_rope (rope_type 'default' -> no scaling); sanitize drops lm_head.weight when tied."
        ),
    ),
    # ------------------------------------------------------------------ mistral -> llama
    Entry(
        runtime="mlx-lm",
        family="mistral",
        reader="dataclass",
        title="mlx-lm 0.32.2 models/llama.py (MODEL_REMAPPING mistral -> llama)",
        source=Source(_REPO, "mlx_lm/models/llama.py", _REF),
        struct=_STRUCT,
        fields={
            "model_type": Field("any", REQUIRED),
            "hidden_size": Field("any", REQUIRED),
            "num_hidden_layers": Field("any", REQUIRED),
            "intermediate_size": Field("any", REQUIRED),
            "num_attention_heads": Field("any", REQUIRED),
            "rms_norm_eps": Field("any", REQUIRED),
            "vocab_size": Field("any", REQUIRED),
            "head_dim": Field("any", None),
            "max_position_embeddings": Field("any", None),
            "num_key_value_heads": Field("any", None),
            "attention_bias": Field("any", False),
            "mlp_bias": Field("any", False),
            "rope_theta": Field("any", 10000),
            "rope_traditional": Field("any", False),
            "rope_scaling": Field("any", None),
            "tie_word_embeddings": Field("any", True),
            "layer_types": Field("any", None),
            "sliding_window": Field("any", None),
        },
        derive={
            "head_dim": "head_dim or hidden_size // num_attention_heads",
            "tie_word_embeddings": _TIE,
            "hidden_act": "'silu'",
            "attention_bias": "True if attention_bias else False",  # q/k/v/o all bias=attention_bias
            "mlp_bias": "True if mlp_bias else False",  # gate/up/down bias=mlp_bias
            # The window is applied only to layers whose layer_types entry is "sliding_attention"; without
            # layer_types (what transformers writes for Mistral) every layer is full and sliding_window unused.
            "sliding_window": "sliding_window if layer_types and 'sliding_attention' in layer_types else None",
            "layer_types": f"layer_types if layer_types and sliding_window else {_ALL_FULL}",
            "query_pre_attn_scalar": "head_dim or hidden_size // num_attention_heads",
        },
        rope="scaling",  # initialize_rope(head_dim, rope_theta, rope_traditional, rope_scaling, max_position_embeddings)
        checks=(
            # LlamaModel.__init__: self.fa_idx = self.layer_types.index("full_attention")
            Check(
                "layer_types and 'full_attention' not in layer_types",
                "ValueError: 'full_attention' is not in list",
                "/layer_types",
            ),
        ),
        notes=(
            "Mistral's sliding_window is ignored unless layer_types marks sliding layers (transformers does not write "
            "layer_types for mistral); rope_parameters is not read (theta 10000 default); sanitize drops lm_head.weight when tied."
        ),
    ),
    # ------------------------------------------------------------------ gemma2
    Entry(
        runtime="mlx-lm",
        family="gemma2",
        reader="dataclass",
        title="mlx-lm 0.32.2 models/gemma2.py",
        source=Source(_REPO, "mlx_lm/models/gemma2.py", _REF),
        struct=_STRUCT,
        fields={
            "model_type": Field("any", REQUIRED),
            "hidden_size": Field("any", REQUIRED),
            "num_hidden_layers": Field("any", REQUIRED),
            "intermediate_size": Field("any", REQUIRED),
            "num_attention_heads": Field("any", REQUIRED),
            "head_dim": Field("any", REQUIRED),
            "rms_norm_eps": Field("any", REQUIRED),
            "vocab_size": Field("any", REQUIRED),
            "num_key_value_heads": Field("any", REQUIRED),
            "rope_theta": Field("any", 10000),
            "rope_traditional": Field("any", False),
            "attn_logit_softcapping": Field("any", 50.0),
            "final_logit_softcapping": Field("any", 30.0),
            "query_pre_attn_scalar": Field("any", 144.0),
        },
        derive={
            "tie_word_embeddings": "True",  # Model.__call__: embed_tokens.as_linear, no lm_head at all
            "hidden_act": "'gelu_pytorch_tanh'",  # MLP: nn.gelu_approx (tanh approximation), hard-coded
            "attention_bias": "False",
            "mlp_bias": "False",
            "sliding_window": "None",  # no sliding_window field: every layer attends fully
            "layer_types": _ALL_FULL,
            # query_pre_attn_scalar: scale = 1.0 / (query_pre_attn_scalar**0.5), as parsed
            # attn_logit_softcapping / final_logit_softcapping: applied unconditionally, as parsed
        },
        rope="plain",  # nn.RoPE(head_dim, traditional=rope_traditional, base=rope_theta); no rope_scaling field
        checks=(_KV_DIV0,),
        notes=(
            "Always tied and no sanitize: a checkpoint holding lm_head.weight fails the strict load; no sliding window "
            "on any layer; both soft-caps are always applied (a null one fails at the first forward)."
        ),
    ),
    # ------------------------------------------------------------------ gemma
    Entry(
        runtime="mlx-lm",
        family="gemma",
        reader="dataclass",
        title="mlx-lm 0.32.2 models/gemma.py",
        source=Source(_REPO, "mlx_lm/models/gemma.py", _REF),
        struct=_STRUCT,
        fields={
            "model_type": Field("any", REQUIRED),
            "hidden_size": Field("any", REQUIRED),
            "num_hidden_layers": Field("any", REQUIRED),
            "intermediate_size": Field("any", REQUIRED),
            "num_attention_heads": Field("any", REQUIRED),
            "head_dim": Field("any", REQUIRED),
            "rms_norm_eps": Field("any", REQUIRED),
            "vocab_size": Field("any", REQUIRED),
            "num_key_value_heads": Field("any", REQUIRED),
            "rope_theta": Field("any", 10000),
            "rope_traditional": Field("any", False),
        },
        derive={
            "tie_word_embeddings": "True",  # embed_tokens.as_linear, no lm_head
            "hidden_act": "'gelu'",  # MLP: nn.gelu = x * (1 + erf(x / sqrt(2))) / 2, exact, hard-coded
            "attention_bias": "False",
            "mlp_bias": "False",
            "sliding_window": "None",
            "layer_types": _ALL_FULL,
            "query_pre_attn_scalar": "head_dim",  # scale = head_dim**-0.5
        },
        rope="plain",  # nn.RoPE(head_dim, traditional=rope_traditional, base=rope_theta)
        notes=(
            "hidden_act / hidden_activation are not read: the MLP always runs exact GELU, where transformers 5 runs "
            "tanh GELU; always tied and no sanitize, so a checkpoint holding lm_head.weight fails the strict load."
        ),
    ),
    # ------------------------------------------------------------------ gemma3_text
    Entry(
        runtime="mlx-lm",
        family="gemma3_text",
        reader="dataclass",
        title="mlx-lm 0.32.2 models/gemma3_text.py",
        source=Source(_REPO, "mlx_lm/models/gemma3_text.py", _REF),
        struct=_STRUCT,
        fields={
            "model_type": Field("any", REQUIRED),
            "hidden_size": Field("any", 1152),
            "num_hidden_layers": Field("any", 26),
            "intermediate_size": Field("any", 6912),
            "num_attention_heads": Field("any", 4),
            "head_dim": Field("any", 256),
            "rms_norm_eps": Field("any", 1.0e-6),
            "vocab_size": Field("any", 262144),
            "num_key_value_heads": Field("any", 1),
            "rope_theta": Field("any", 1_000_000.0),
            "rope_local_base_freq": Field("any", 10_000.0),
            "query_pre_attn_scalar": Field("any", 256),
            "sliding_window": Field("any", 512),
            "sliding_window_pattern": Field("any", 6),
            "max_position_embeddings": Field("any", 32768),
            "rope_scaling": Field("any", None),
        },
        derive={
            # tie_word_embeddings: not from the config. Model.__init__ always builds lm_head; sanitize ties
            # (and drops lm_head) iff "lm_head.weight" is absent from the checkpoint.
            "hidden_act": "'gelu_pytorch_tanh'",  # MLP: nn.gelu_approx, hard-coded
            "attention_bias": "False",
            "mlp_bias": "False",
            # Attention: is_sliding = (layer_idx + 1) % sliding_window_pattern != 0; layer_types and
            # _sliding_window_pattern are not fields. A null window masks nothing on the sliding layers.
            "sliding_window": "sliding_window if sliding_window and sliding_window_pattern != 1 else None",
            "layer_types": f"pattern(num_hidden_layers, sliding_window_pattern) if sliding_window else {_ALL_FULL}",
            # query_pre_attn_scalar: scale = query_pre_attn_scalar**-0.5, as parsed
            "attn_logit_softcapping": "None",
            "final_logit_softcapping": "None",
        },
        # Sliding layers: initialize_rope(head_dim, base=rope_local_base_freq), no scaling. Full layers:
        # initialize_rope(head_dim, base=rope_theta, scaling_config=rope_scaling, max_position_embeddings).
        rope="gemma3-local-global",
        checks=(
            Check(
                "sliding_window_pattern == 0 and num_hidden_layers > 0",
                "ZeroDivisionError: integer modulo by zero",
                "/sliding_window_pattern",
            ),
            _KV_DIV0,
        ),
        notes=(
            "Tied iff the checkpoint has no lm_head.weight (tie_word_embeddings is not read); rope_parameters and "
            "layer_types are not read, so a transformers-5 file gets theta 1e6 / local 1e4 and no scaling."
        ),
    ),
    # ------------------------------------------------------------------ phi3
    Entry(
        runtime="mlx-lm",
        family="phi3",
        reader="dataclass",
        title="mlx-lm 0.32.2 models/phi3.py",
        source=Source(_REPO, "mlx_lm/models/phi3.py", _REF),
        struct=_STRUCT,
        fields={
            "model_type": Field("any", REQUIRED),
            "hidden_size": Field("any", REQUIRED),
            "num_hidden_layers": Field("any", REQUIRED),
            "intermediate_size": Field("any", REQUIRED),
            "num_attention_heads": Field("any", REQUIRED),
            "rms_norm_eps": Field("any", REQUIRED),
            "vocab_size": Field("any", REQUIRED),
            "num_key_value_heads": Field("any", None),
            "rope_theta": Field("any", 10000),
            "rope_traditional": Field("any", False),
            "rope_scaling": Field("any", None),
            "partial_rotary_factor": Field("any", 1.0),
            "max_position_embeddings": Field("any", 131072),
            "original_max_position_embeddings": Field("any", 4096),
            "tie_word_embeddings": Field("any", False),
        },
        derive={
            "head_dim": _DERIVED_HEAD,
            "tie_word_embeddings": _TIE,
            "hidden_act": "'silu'",  # gate_up_proj split, swiglu(gate, x)
            "attention_bias": "False",  # fused qkv_proj and o_proj, bias=False
            "mlp_bias": "False",
            "sliding_window": "None",  # sliding_window is not a field
            "layer_types": _ALL_FULL,
            "query_pre_attn_scalar": _DERIVED_HEAD,
            # partial_rotary_factor: rope_dim = int(head_dim * partial_rotary_factor), top-level field only
        },
        # Own RoPE choice in Attention.__init__ (phi3.py:65-85), after __post_init__ (phi3.py:36-45):
        # type longrope/su -> SuScaledRoPE(rope_dim, rope_theta, max_position_embeddings,
        # original_max_position_embeddings (top-level field), short_factor, long_factor); linear -> nn.RoPE
        # scale 1/factor (assert factor is a float); any other type -> warning and no scaling.
        rope="phi3-su-scaled",
        checks=(
            Check(
                "rope_scaling and not iterable(rope_scaling)",
                "TypeError: argument of type '{rope_scaling.__class__.__name__}' is not iterable",
                "/rope_scaling",
                kind="type",
            ),
            Check(
                "rope_scaling and not ('long_factor' in rope_scaling and 'type' in rope_scaling)",
                "ValueError: rope_scaling must contain keys {'long_factor', 'type'}",
                "/rope_scaling",
            ),
        ),
        notes=(
            "Only a legacy rope_scaling with `type` is read (rope_parameters is not): a transformers-5 file loses "
            "longrope; no sanitize, so a tied config with lm_head.weight in the checkpoint fails the strict load."
        ),
    ),
    # ------------------------------------------------------------------ mixtral
    Entry(
        runtime="mlx-lm",
        family="mixtral",
        reader="dataclass",
        title="mlx-lm 0.32.2 models/mixtral.py",
        source=Source(_REPO, "mlx_lm/models/mixtral.py", _REF),
        struct=_STRUCT,
        fields={
            "model_type": Field("any", REQUIRED),
            "vocab_size": Field("any", 32000),
            "hidden_size": Field("any", 4096),
            "intermediate_size": Field("any", 14336),
            "num_hidden_layers": Field("any", 32),
            "num_attention_heads": Field("any", 32),
            "num_experts_per_tok": Field("any", 2),
            "num_key_value_heads": Field("any", 8),
            "num_local_experts": Field("any", 8),
            "rms_norm_eps": Field("any", 1e-5),
            "rope_theta": Field("any", 1e6),
            "rope_traditional": Field("any", False),
            "rope_scaling": Field("any", None),
            "tie_word_embeddings": Field("any", False),
        },
        derive={
            "head_dim": _DERIVED_HEAD,  # head_dim is not a field
            "tie_word_embeddings": _TIE,
            "hidden_act": "'silu'",  # SwitchGLU default activation SwiGLU
            "attention_bias": "False",
            "mlp_bias": "False",
            "sliding_window": "None",
            "layer_types": _ALL_FULL,
            "query_pre_attn_scalar": _DERIVED_HEAD,
        },
        rope="plain",  # rope_scaling is a field but never used: nn.RoPE(head_dim, base=rope_theta)
        notes=(
            "rope_scaling is parsed and ignored; sliding_window and head_dim are not read; sanitize drops "
            "lm_head.weight when tied; top-k router scores are softmaxed over the chosen k."
        ),
    ),
    # ------------------------------------------------------------------ qwen2_moe
    Entry(
        runtime="mlx-lm",
        family="qwen2_moe",
        reader="dataclass",
        title="mlx-lm 0.32.2 models/qwen2_moe.py",
        source=Source(_REPO, "mlx_lm/models/qwen2_moe.py", _REF),
        struct=_STRUCT,
        fields={
            "model_type": Field("any", REQUIRED),
            "hidden_size": Field("any", REQUIRED),
            "num_hidden_layers": Field("any", REQUIRED),
            "intermediate_size": Field("any", REQUIRED),
            "num_attention_heads": Field("any", REQUIRED),
            "num_experts_per_tok": Field("any", REQUIRED),
            "num_experts": Field("any", REQUIRED),
            "moe_intermediate_size": Field("any", REQUIRED),
            "shared_expert_intermediate_size": Field("any", REQUIRED),
            "rms_norm_eps": Field("any", REQUIRED),
            "vocab_size": Field("any", REQUIRED),
            "num_key_value_heads": Field("any", None),
            "rope_theta": Field("any", 1000000),
            "rope_traditional": Field("any", False),
            "rope_scaling": Field("any", None),
            "tie_word_embeddings": Field("any", False),
        },
        derive={
            "head_dim": _DERIVED_HEAD,
            "tie_word_embeddings": "False",  # Model.__init__ always builds lm_head; the field is never used
            "hidden_act": "'silu'",
            "attention_bias": "'q/k/v'",
            "mlp_bias": "False",
            "sliding_window": "None",
            "layer_types": _ALL_FULL,
            "query_pre_attn_scalar": _DERIVED_HEAD,
        },
        # __post_init__ only validates rope_scaling (keys {factor, type}, type == "linear"); Attention builds
        # nn.RoPE(head_dim, base=rope_theta) without any scale, so an accepted linear factor is ignored.
        rope="plain",
        checks=(
            Check(
                "rope_scaling and not ('factor' in rope_scaling and 'type' in rope_scaling)",
                "ValueError: rope_scaling must contain keys {'factor', 'type'}",
                "/rope_scaling",
            ),
            Check(
                "rope_scaling and rope_scaling['type'] != 'linear'",
                "ValueError: rope_scaling 'type' currently only supports 'linear'",
                "/rope_scaling/type",
            ),
        ),
        notes=(
            "Always untied (lm_head always built, tie_word_embeddings unused); a linear rope_scaling passes the "
            "checks and is then not applied; norm_topk_prob, decoder_sparse_step, mlp_only_layers are not read."
        ),
    ),
    # ------------------------------------------------------------------ qwen3_moe
    Entry(
        runtime="mlx-lm",
        family="qwen3_moe",
        reader="dataclass",
        title="mlx-lm 0.32.2 models/qwen3_moe.py",
        source=Source(_REPO, "mlx_lm/models/qwen3_moe.py", _REF),
        struct=_STRUCT,
        fields={
            "model_type": Field("any", REQUIRED),
            "hidden_size": Field("any", REQUIRED),
            "num_hidden_layers": Field("any", REQUIRED),
            "intermediate_size": Field("any", REQUIRED),
            "num_attention_heads": Field("any", REQUIRED),
            "num_experts": Field("any", REQUIRED),
            "num_experts_per_tok": Field("any", REQUIRED),
            "decoder_sparse_step": Field("any", REQUIRED),
            "mlp_only_layers": Field("any", REQUIRED),
            "moe_intermediate_size": Field("any", REQUIRED),
            "rms_norm_eps": Field("any", REQUIRED),
            "vocab_size": Field("any", REQUIRED),
            "num_key_value_heads": Field("any", REQUIRED),
            "head_dim": Field("any", REQUIRED),
            "rope_theta": Field("any", REQUIRED),
            "tie_word_embeddings": Field("any", REQUIRED),
            "max_position_embeddings": Field("any", REQUIRED),
            "norm_topk_prob": Field("any", REQUIRED),
            "rope_scaling": Field("any", None),
        },
        derive={
            "tie_word_embeddings": _TIE,
            "hidden_act": "'silu'",
            "attention_bias": "False",
            "mlp_bias": "False",
            "sliding_window": "None",
            "layer_types": _ALL_FULL,
            "query_pre_attn_scalar": "head_dim",
        },
        rope="plain",  # rope_scaling is a field but never used: nn.RoPE(head_dim, base=rope_theta)
        checks=(
            _KV_ASSERT,
            # Qwen3MoeDecoderLayer: (layer_idx + 1) % args.decoder_sparse_step, reached for a layer not in
            # mlp_only_layers when num_experts > 0.
            Check(
                "decoder_sparse_step == 0 and num_experts > 0 and num_hidden_layers > 0",
                "ZeroDivisionError: integer modulo by zero",
                "/decoder_sparse_step",
            ),
        ),
        notes=(
            "rope_theta is required and rope_parameters is not read, so a transformers-5 file fails with TypeError; "
            "rope_scaling is parsed and ignored; sanitize drops lm_head.weight when tied."
        ),
    ),
    # ------------------------------------------------------------------ olmo2
    Entry(
        runtime="mlx-lm",
        family="olmo2",
        reader="dataclass",
        title="mlx-lm 0.32.2 models/olmo2.py",
        source=Source(_REPO, "mlx_lm/models/olmo2.py", _REF),
        struct=_STRUCT,
        fields={
            "model_type": Field("any", REQUIRED),
            "hidden_size": Field("any", REQUIRED),
            "num_hidden_layers": Field("any", REQUIRED),
            "intermediate_size": Field("any", REQUIRED),
            "num_attention_heads": Field("any", REQUIRED),
            "rms_norm_eps": Field("any", REQUIRED),
            "vocab_size": Field("any", REQUIRED),
            "head_dim": Field("any", None),
            "max_position_embeddings": Field("any", None),
            "num_key_value_heads": Field("any", None),
            "attention_bias": Field("any", False),
            "mlp_bias": Field("any", False),
            "rope_theta": Field("any", 10000),
            "rope_traditional": Field("any", False),
            "rope_scaling": Field("any", None),
            "tie_word_embeddings": Field("any", True),
        },
        derive={
            "head_dim": "head_dim or hidden_size // num_attention_heads",
            "tie_word_embeddings": _TIE,
            "hidden_act": "'silu'",
            "attention_bias": "True if attention_bias else False",  # q/k/v/o
            "mlp_bias": "True if mlp_bias else False",
            "sliding_window": "None",
            "layer_types": _ALL_FULL,
            "query_pre_attn_scalar": "head_dim or hidden_size // num_attention_heads",
        },
        rope="scaling",  # initialize_rope(head_dim, rope_theta, rope_traditional, rope_scaling, max_position_embeddings)
        notes=(
            "tie_word_embeddings defaults to True (transformers: False), and sanitize does not drop lm_head.weight, "
            "so a config without the key whose checkpoint has lm_head.weight fails the strict load."
        ),
    ),
    # ------------------------------------------------------------------ granite
    Entry(
        runtime="mlx-lm",
        family="granite",
        reader="dataclass",
        title="mlx-lm 0.32.2 models/granite.py",
        source=Source(_REPO, "mlx_lm/models/granite.py", _REF),
        struct=_STRUCT,
        fields={
            "model_type": Field("any", REQUIRED),
            "hidden_size": Field("any", REQUIRED),
            "num_hidden_layers": Field("any", REQUIRED),
            "intermediate_size": Field("any", REQUIRED),
            "num_attention_heads": Field("any", REQUIRED),
            "rms_norm_eps": Field("any", REQUIRED),
            "vocab_size": Field("any", REQUIRED),
            "logits_scaling": Field("any", REQUIRED),
            "attention_multiplier": Field("any", REQUIRED),
            "embedding_multiplier": Field("any", REQUIRED),
            "residual_multiplier": Field("any", REQUIRED),
            "max_position_embeddings": Field("any", REQUIRED),
            "num_key_value_heads": Field("any", REQUIRED),
            "attention_bias": Field("any", REQUIRED),
            "mlp_bias": Field("any", REQUIRED),
            "rope_theta": Field("any", REQUIRED),
            "rope_scaling": Field("any", None),
            "tie_word_embeddings": Field("any", True),
        },
        derive={
            "head_dim": _DERIVED_HEAD,
            "tie_word_embeddings": _TIE,
            "hidden_act": "'silu'",
            "attention_bias": "True if attention_bias else False",  # q/k/v/o
            "mlp_bias": "True if mlp_bias else False",
            "sliding_window": "None",
            "layer_types": _ALL_FULL,
            # Attention: self.scale = args.attention_multiplier, i.e. S**-0.5 with S = attention_multiplier**-2
            "query_pre_attn_scalar": "1 / (attention_multiplier * attention_multiplier)",
        },
        rope="scaling",  # initialize_rope(head_dim, rope_theta, False, rope_scaling, max_position_embeddings)
        notes=(
            "rope_theta and nine other keys are required (a transformers-5 file fails with TypeError); logits are "
            "divided by logits_scaling, embeddings and residuals scaled; sanitize drops lm_head.weight when tied."
        ),
    ),
    # ------------------------------------------------------------------ deepseek_v2
    Entry(
        runtime="mlx-lm",
        family="deepseek_v2",
        reader="dataclass",
        title="mlx-lm 0.32.2 models/deepseek_v2.py",
        source=Source(_REPO, "mlx_lm/models/deepseek_v2.py", _REF),
        struct=_STRUCT,
        fields=_DEEPSEEK_V2_FIELDS,
        # MoEGate.__call__ groups only for "group_limited_greedy"; anything else, its own default "gready"
        # included, is plain top-k
        derive={**_DEEPSEEK_DERIVE, "topk_method": "'group_limited_greedy' if topk_method == 'group_limited_greedy' else 'greedy'"},
        # Always DeepseekV2YarnRotaryEmbedding(qk_rope_head_dim, base=rope_theta, scaling_factor=
        # rope_scaling["factor"], original_max_position_embeddings/beta_fast/beta_slow/mscale/mscale_all_dim from
        # rope_scaling when present (defaults 4096/32/1/1/0)); rope_scaling's type is never looked at.
        rope="deepseek-always-yarn",
        checks=(
            Check(
                "rope_scaling is None and num_hidden_layers > 0",
                "AttributeError: 'NoneType' object has no attribute 'get'",
                "/rope_scaling",
                kind="missing",
            ),
            Check(
                "rope_scaling is not None and 'factor' not in rope_scaling and num_hidden_layers > 0",
                "KeyError: 'factor'",
                "/rope_scaling/factor",
                kind="missing",
            ),
        ),
        notes=(
            "rope_scaling is effectively required and always taken as YaRN (traditional, interleaved rotation); "
            "rope_parameters is not read, so a transformers-5 file fails; always untied."
        ),
    ),
    # ------------------------------------------------------------------ deepseek_v3
    Entry(
        runtime="mlx-lm",
        family="deepseek_v3",
        reader="dataclass",
        title="mlx-lm 0.32.2 models/deepseek_v3.py",
        source=Source(_REPO, "mlx_lm/models/deepseek_v3.py", _REF),
        struct=_STRUCT,
        fields=_DEEPSEEK_V3_FIELDS,
        derive=_DEEPSEEK_DERIVE,  # as deepseek_v2.py: the same attention, scale and MoE layer choice
        rope="scaling",  # initialize_rope(qk_rope_head_dim, rope_theta, traditional=True, max_position_embeddings, rope_scaling)
        checks=(
            # MoEGate.__init__, for the first layer with experts
            Check(
                "topk_method != 'noaux_tc' and n_routed_experts is not None and 'moe' in moe_layers("
                "num_hidden_layers, n_routed_experts is not None, first_k_dense_replace, moe_layer_freq)",
                "AssertionError: Unsupported topk method.",
                "/topk_method",
            ),
        ),
        notes="sigmoid-scored experts with e_score_correction_bias, group-limited; rope_parameters is not read "
              "(theta 10000, unscaled, from a transformers-5 file); always untied.",
    ),
    # ------------------------------------------------------------------ gpt_oss
    Entry(
        runtime="mlx-lm",
        family="gpt_oss",
        reader="dataclass",
        title="mlx-lm 0.32.2 models/gpt_oss.py",
        source=Source(_REPO, "mlx_lm/models/gpt_oss.py", _REF),
        struct=_STRUCT,
        fields={
            "model_type": Field("any", "gpt_oss"),
            "num_hidden_layers": Field("any", 36),
            "num_local_experts": Field("any", 128),
            "num_experts_per_tok": Field("any", 4),
            "vocab_size": Field("any", 201088),
            "rms_norm_eps": Field("any", 1e-05),
            "hidden_size": Field("any", 2880),
            "intermediate_size": Field("any", 2880),
            "head_dim": Field("any", 64),
            "num_attention_heads": Field("any", 64),
            "num_key_value_heads": Field("any", 8),
            "sliding_window": Field("any", 128),
            "rope_theta": Field("any", 150000),
            "rope_scaling": Field("any", None),
            "layer_types": Field("any", None),
        },
        derive={
            "tie_word_embeddings": "False",  # lm_head always built
            # SwitchGLU(activation=SwigluOAI()): clamp-limited SwiGLU, alpha 1.702 and limit 7.0 hard-coded
            # (swiglu_limit is not read), as transformers' experts compute it.
            "hidden_act": "'swiglu_oai'",
            "n_routed_experts": "num_local_experts",
            "mlp_layers": 'layers(num_hidden_layers, "moe")',
            "attention_bias": "True",  # q/k/v/o bias=True, hard-coded
            "mlp_bias": "True",  # experts and router bias=True
            # layer_types or ["sliding_attention", "full_attention"] * (num_hidden_layers // 2); the layers are
            # zipped with that list, so with an odd count and no layer_types the last layer never runs.
            "layer_types": "layer_types or pattern(num_hidden_layers, 2)",
            "query_pre_attn_scalar": "head_dim",  # sm_scale = 1 / sqrt(head_dim)
        },
        rope="scaling",  # initialize_rope(head_dim, rope_theta, False, scaling_config=rope_scaling): no max_position_embeddings
        checks=(
            # GptOssMoeModel.__init__: swa_idx = layer_types.index("sliding_attention"), then the full one
            Check(
                "(layer_types and 'sliding_attention' not in layer_types) or (not layer_types and num_hidden_layers < 2)",
                "ValueError: 'sliding_attention' is not in list",
                "/layer_types",
            ),
            Check(
                "layer_types and 'full_attention' not in layer_types",
                "ValueError: 'full_attention' is not in list",
                "/layer_types",
            ),
        ),
        notes=(
            "Attention sinks; yarn from rope_scaling through initialize_rope, whose YarnRoPE always truncates "
            "(truncate is not read); max_position_embeddings is not a field; rope_parameters is not read "
            "(theta default 150000)."
        ),
    ),
)
