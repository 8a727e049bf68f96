"""The compatibility table: config features x runtimes, computed from the profiles themselves.

Each row is a small config that has one feature; each cell is what that runtime's profile says it does
with it, compared with what transformers 5 means. The README's table is this module's output (a test keeps
them equal), so it cannot drift from the code.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

from cfglint import consumers, document
from cfglint.engine import context_of
from cfglint.reading import same, show

BASE = {
    "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 64, "intermediate_size": 128,
    "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 128,
    "max_position_embeddings": 256, "rms_norm_eps": 1e-05, "hidden_act": "silu", "tie_word_embeddings": False,
    "rope_theta": 100000.0,
}
LLAMA3 = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 64}


def edited(base: dict, **changes) -> dict:
    """A copy of base with keys set, or removed where the value is None."""
    config = copy.deepcopy(base)
    for key, value in changes.items():
        if value is None:
            config.pop(key, None)
        else:
            config[key] = value
    return config


def _with(**changes) -> dict:
    return edited(BASE, **changes)


# (feature, the key whose reading the row is about, config)
FEATURES = [
    ("`rope_theta` only in `rope_parameters` (transformers 5 layout)", "rope_theta",
     _with(rope_theta=None, rope_parameters={"rope_theta": 100000.0, "rope_type": "default"})),
    ("llama3 scaling only in `rope_parameters`", "rope_scaling",
     _with(rope_theta=None, rope_parameters=dict(LLAMA3, rope_theta=500000.0))),
    ("top-level `rope_theta` 100000, nested 500000", "rope_theta",
     _with(rope_parameters={"rope_theta": 500000.0, "rope_type": "default"})),
    ("`rope_scaling` llama3 (top level)", "rope_scaling", _with(rope_scaling=LLAMA3)),
    ("`rope_scaling` linear", "rope_scaling", _with(rope_scaling={"rope_type": "linear", "factor": 2.0})),
    ("`rope_scaling` dynamic", "rope_scaling", _with(rope_scaling={"rope_type": "dynamic", "factor": 2.0})),
    ("`rope_scaling` yarn without `original_max_position_embeddings`", "rope_scaling",
     _with(rope_scaling={"rope_type": "yarn", "factor": 4.0})),
    ("legacy `{\"type\": \"linear\"}` scaling", "rope_scaling", _with(rope_scaling={"type": "linear", "factor": 2.0})),
    ("`rope_theta` absent", "rope_theta", _with(rope_theta=None)),
    ("`num_key_value_heads` absent", "num_key_value_heads", _with(num_key_value_heads=None)),
    ("`tie_word_embeddings` absent", "tie_word_embeddings", _with(tie_word_embeddings=None)),
    ("`head_dim` 32 with hidden/heads 16", "head_dim", _with(head_dim=32)),
    ("`attention_bias: true`", "attention_bias", _with(attention_bias=True)),
    ("`hidden_act: \"gelu\"`", "hidden_act", _with(hidden_act="gelu")),
    ("`hidden_act` absent", "hidden_act", _with(hidden_act=None)),
]


def cell(view, intent, key: str) -> str:
    if view.failure is not None and view.failure.kind != "shape":
        return "fails to load"
    if view.failure is not None:
        return f"{view.outcome}s at load" if view.outcome == "panic" else "fails at load"
    if key not in view.values:
        return "n/a"
    value = view.values[key]
    if same(key, value, intent.values[key]):
        return "ok"
    if key == "rope_scaling" and value is None:
        return "unscaled"
    return f"uses {show(value)}"


def table() -> str:
    names = consumers.names()
    profiles = [consumers.get(n) for n in names]
    lines = ["| feature | " + " | ".join(f"`{n}`" for n in names) + " |", "|---" * (len(names) + 1) + "|"]
    for feature, key, config in FEATURES:
        doc = document.parse(Path("config.json"), json.dumps(config).encode())
        ctx = context_of(doc, profiles)
        cells = [cell(ctx.views[n], ctx.intent, key) for n in names]
        lines.append(f"| {feature} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


# Per family: a config as its publisher writes it (every key the runtimes read), with a RoPE base no runtime
# defaults to, so a cell says "ok" only when the runtime really reads the file's value.
_DIMS = {"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2,
         "vocab_size": 128, "max_position_embeddings": 256, "rms_norm_eps": 1e-06, "bos_token_id": 1, "eos_token_id": 2, "tie_word_embeddings": False}
_MOE = {"num_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 32, "norm_topk_prob": False, "decoder_sparse_step": 1}
THETA, LOCAL_THETA = 500000.0, 20000.0
# DeepSeek's YaRN block, as its files write it (a legacy "type"; mscale and mscale_all_dim both set).
DEEPSEEK_YARN = {"type": "yarn", "factor": 4.0, "original_max_position_embeddings": 64, "beta_fast": 32, "beta_slow": 1,
                 "mscale": 0.707, "mscale_all_dim": 0.707}
FAMILY_BASES: dict[str, dict] = {
    "qwen2": {"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", **_DIMS, "hidden_act": "silu", "rope_theta": THETA,
              "use_sliding_window": False, "sliding_window": 128, "max_window_layers": 2},
    "qwen2_moe": {"architectures": ["Qwen2MoeForCausalLM"], "model_type": "qwen2_moe", **_DIMS, **_MOE, "shared_expert_intermediate_size": 64,
                  "hidden_act": "silu", "rope_theta": THETA, "use_sliding_window": False, "sliding_window": 128, "max_window_layers": 2},
    "qwen3": {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", **_DIMS, "head_dim": 32, "hidden_act": "silu", "attention_bias": False,
              "rope_theta": THETA, "use_sliding_window": False, "sliding_window": None, "max_window_layers": 4},
    "qwen3_moe": {"architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe", **_DIMS, **_MOE, "head_dim": 32, "hidden_act": "silu",
                  "attention_bias": False, "rope_theta": THETA, "use_sliding_window": False, "sliding_window": None, "max_window_layers": 4,
                  "mlp_only_layers": []},
    "mistral": {"architectures": ["MistralForCausalLM"], "model_type": "mistral", **_DIMS, "head_dim": 16, "hidden_act": "silu",
                "rope_theta": THETA, "sliding_window": None},
    # What transformers 5 saves a Mistral file with layer_types as (AutoConfig builds it as Ministral).
    "ministral": {"architectures": ["MinistralForCausalLM"], "model_type": "ministral", **_DIMS, "head_dim": 16, "hidden_act": "silu",
                  "rope_theta": THETA, "sliding_window": 32, "layer_types": ["sliding_attention", "full_attention"] * 2},
    "mixtral": {"architectures": ["MixtralForCausalLM"], "model_type": "mixtral", **_DIMS, "hidden_act": "silu", "rope_theta": THETA,
                "sliding_window": None, "num_local_experts": 4, "num_experts_per_tok": 2},
    "gemma": {"architectures": ["GemmaForCausalLM"], "model_type": "gemma", **_DIMS, "head_dim": 16, "hidden_act": "gelu_pytorch_tanh",
              "hidden_activation": None, "attention_bias": False, "rope_theta": THETA, "tie_word_embeddings": True},
    "gemma2": {"architectures": ["Gemma2ForCausalLM"], "model_type": "gemma2", **_DIMS, "head_dim": 16, "hidden_act": "gelu_pytorch_tanh",
               "hidden_activation": "gelu_pytorch_tanh", "attention_bias": False, "rope_theta": THETA, "query_pre_attn_scalar": 32,
               "sliding_window": 64, "attn_logit_softcapping": 50.0, "final_logit_softcapping": 30.0, "tie_word_embeddings": True},
    "gemma3_text": {"architectures": ["Gemma3ForCausalLM"], "model_type": "gemma3_text", **dict(_DIMS, num_hidden_layers=7), "head_dim": 16,
                    "hidden_activation": "gelu_pytorch_tanh", "attention_bias": False, "rope_theta": THETA, "rope_local_base_freq": LOCAL_THETA,
                    "query_pre_attn_scalar": 16, "sliding_window": 64, "sliding_window_pattern": 6, "attn_logit_softcapping": None,
                    "final_logit_softcapping": None, "rope_scaling": None, "tie_word_embeddings": True},
    "olmo2": {"architectures": ["Olmo2ForCausalLM"], "model_type": "olmo2", **_DIMS, "pad_token_id": 0, "hidden_act": "silu",
              "attention_bias": False, "rope_theta": THETA},
    "granite": {"architectures": ["GraniteForCausalLM"], "model_type": "granite", **_DIMS, "hidden_act": "silu", "attention_bias": False,
                "mlp_bias": False, "rope_theta": THETA, "embedding_multiplier": 12.0, "residual_multiplier": 0.22, "logits_scaling": 8.0,
                "attention_multiplier": 0.015625},
    "phi3": {"architectures": ["Phi3ForCausalLM"], "model_type": "phi3", **_DIMS, "pad_token_id": 0, "hidden_act": "silu", "rope_theta": THETA,
             "sliding_window": None, "original_max_position_embeddings": 64, "partial_rotary_factor": 1.0},
    # DeepSeek-V2-Lite's shape: no q_lora_rank, one dense layer first, always YaRN with mscale = mscale_all_dim.
    "deepseek_v2": {"architectures": ["DeepseekV2ForCausalLM"], "model_type": "deepseek_v2", **dict(_DIMS, num_key_value_heads=4), "hidden_act": "silu",
                    "attention_bias": False, "qk_nope_head_dim": 16, "qk_rope_head_dim": 8, "v_head_dim": 16, "kv_lora_rank": 32, "q_lora_rank": None,
                    "n_routed_experts": 4, "n_shared_experts": 1, "num_experts_per_tok": 2, "moe_intermediate_size": 32, "first_k_dense_replace": 1,
                    "moe_layer_freq": 1, "n_group": 1, "topk_group": 1, "topk_method": "greedy", "routed_scaling_factor": 1.0,
                    "scoring_func": "softmax", "norm_topk_prob": False, "rope_theta": THETA, "rope_scaling": DEEPSEEK_YARN},
    # DeepSeek-V3's shape: a query latent, sigmoid-scored experts in groups, the routed weights scaled.
    "deepseek_v3": {"architectures": ["DeepseekV3ForCausalLM"], "model_type": "deepseek_v3", **dict(_DIMS, num_key_value_heads=4), "hidden_act": "silu",
                    "attention_bias": False, "qk_nope_head_dim": 16, "qk_rope_head_dim": 8, "v_head_dim": 16, "kv_lora_rank": 32, "q_lora_rank": 24,
                    "n_routed_experts": 4, "n_shared_experts": 1, "num_experts_per_tok": 2, "moe_intermediate_size": 32, "first_k_dense_replace": 1,
                    "moe_layer_freq": 1, "n_group": 2, "topk_group": 1, "topk_method": "noaux_tc", "routed_scaling_factor": 2.5,
                    "scoring_func": "sigmoid", "norm_topk_prob": True, "rope_theta": THETA, "rope_scaling": DEEPSEEK_YARN},
    # gpt-oss-20b's shape: sliding and full layers alternating, every layer experts, YaRN x32 written out.
    "gpt_oss": {"architectures": ["GptOssForCausalLM"], "model_type": "gpt_oss", **dict(_DIMS, intermediate_size=32), "head_dim": 16,
                "hidden_act": "silu", "attention_bias": True, "sliding_window": 32, "num_local_experts": 4, "num_experts_per_tok": 2,
                "swiglu_limit": 7.0, "layer_types": ["sliding_attention", "full_attention"] * 2, "rope_theta": THETA,
                "rope_scaling": {"beta_fast": 32.0, "beta_slow": 1.0, "factor": 4.0, "original_max_position_embeddings": 64,
                                 "rope_type": "yarn", "truncate": False}},
}


def tf5_layout(config: dict) -> dict:
    """What transformers 5.24's save_pretrained does to the keys the table is about (tests compare it with the
    real re-save): RoPE moves into rope_parameters (one set per layer type for Gemma 3), and Qwen drops an
    unused window (null, or 0 for Qwen2-MoE)."""
    out = copy.deepcopy(config)
    theta, local = out.pop("rope_theta"), out.pop("rope_local_base_freq", None)
    scaling = out.pop("rope_scaling", None) or {}
    if out["model_type"] == "gemma3_text":
        out["rope_parameters"] = {"full_attention": {"rope_theta": theta, "rope_type": "default"}, "sliding_attention": {"rope_theta": local, "rope_type": "default"}}
    else:  # a scaling moves in whole (a legacy type stays beside rope_type)
        kind = scaling.get("rope_type", scaling.get("type", "default"))
        out["rope_parameters"] = {**scaling, "rope_theta": theta, "rope_type": kind}
    if out["model_type"] == "phi3":
        out["rope_parameters"]["partial_rotary_factor"] = out.get("partial_rotary_factor", 1.0)
    if out["model_type"] in ("qwen2", "qwen3", "qwen3_moe") and not out.get("use_sliding_window"):
        out["sliding_window"] = None
    if out["model_type"] == "qwen2_moe" and not out.get("use_sliding_window"):
        out["sliding_window"] = 0
    return out


def family_cell(view, intent, key: str) -> str:
    if view.outcome == "not-applicable":
        return "no loader" if "has no" in (view.message or "") else "not modelled"
    return cell(view, intent, key)


def family_table() -> str:
    """Per family, what each runtime reads for the RoPE base in the layout transformers 4 and 5 write."""
    from cfglint.knowledge.transformers5 import FAMILIES

    names = consumers.names()
    profiles = [consumers.get(n) for n in names]
    lines = ["| family | layout | " + " | ".join(f"`{n}`" for n in names) + " |", "|---" * (len(names) + 2) + "|"]
    for family in FAMILIES:
        for layout, config in (("transformers 4", FAMILY_BASES[family]), ("transformers 5", tf5_layout(FAMILY_BASES[family]))):
            doc = document.parse(Path("config.json"), json.dumps(config).encode())
            ctx = context_of(doc, profiles)
            cells = [family_cell(ctx.views[n], ctx.intent, "rope_theta") for n in names]
            lines.append(f"| `{family}` | {layout} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(table(), end="")
    print()
    print(family_table(), end="")
