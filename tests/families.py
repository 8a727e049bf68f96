"""Generated configs for every non-Llama family cfglint models: both layouts and the cases runtimes split on.

Each family has a tiny base (the dimensions of a test checkpoint, every family key kept) and variants in the
transformers 4 layout; `resaved()` turns a variant into what real transformers 5 writes for it. Shared by the
intent, fix and conformance tests so that each claim is checked on the same inputs.
"""

from __future__ import annotations

import copy
import json
import tempfile
from pathlib import Path

_DIMS = {"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2,
         "vocab_size": 128, "max_position_embeddings": 256, "rms_norm_eps": 1e-06, "bos_token_id": 1, "eos_token_id": 2, "tie_word_embeddings": False}
_MOE = {"num_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 32, "norm_topk_prob": False, "decoder_sparse_step": 1}

BASES: dict[str, dict] = {
    "qwen2": {"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", **_DIMS, "hidden_act": "silu", "rope_theta": 1000000.0,
              "use_sliding_window": False, "sliding_window": 128, "max_window_layers": 2},
    "qwen2_moe": {"architectures": ["Qwen2MoeForCausalLM"], "model_type": "qwen2_moe", **_DIMS, **_MOE, "shared_expert_intermediate_size": 64,
                  "hidden_act": "silu", "rope_theta": 1000000.0, "use_sliding_window": False, "sliding_window": 128, "max_window_layers": 2},
    "qwen3": {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", **_DIMS, "head_dim": 32, "hidden_act": "silu", "attention_bias": False,
              "rope_theta": 1000000.0, "use_sliding_window": False, "sliding_window": None, "max_window_layers": 4},
    "qwen3_moe": {"architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe", **_DIMS, **_MOE, "head_dim": 32, "hidden_act": "silu",
                  "attention_bias": False, "rope_theta": 1000000.0, "use_sliding_window": False, "sliding_window": None, "max_window_layers": 4,
                  "mlp_only_layers": []},
    "mistral": {"architectures": ["MistralForCausalLM"], "model_type": "mistral", **_DIMS, "head_dim": 16, "hidden_act": "silu",
                "rope_theta": 1000000.0, "sliding_window": None},
    "mixtral": {"architectures": ["MixtralForCausalLM"], "model_type": "mixtral", **_DIMS, "hidden_act": "silu", "rope_theta": 500000.0,
                "sliding_window": None, "num_local_experts": 4, "num_experts_per_tok": 2},
    "gemma": {"architectures": ["GemmaForCausalLM"], "model_type": "gemma", **_DIMS, "head_dim": 16, "hidden_act": "gelu_pytorch_tanh",
              "hidden_activation": None, "attention_bias": False, "rope_theta": 10000.0, "tie_word_embeddings": True},
    "gemma2": {"architectures": ["Gemma2ForCausalLM"], "model_type": "gemma2", **_DIMS, "head_dim": 16, "hidden_act": "gelu_pytorch_tanh",
               "hidden_activation": "gelu_pytorch_tanh", "attention_bias": False, "rope_theta": 10000.0, "query_pre_attn_scalar": 32,
               "sliding_window": 64, "attn_logit_softcapping": 50.0, "final_logit_softcapping": 30.0, "tie_word_embeddings": True},
    "gemma3_text": {"architectures": ["Gemma3ForCausalLM"], "model_type": "gemma3_text", **dict(_DIMS, num_hidden_layers=7), "head_dim": 16,
                    "hidden_activation": "gelu_pytorch_tanh", "attention_bias": False, "rope_theta": 500000.0, "rope_local_base_freq": 20000.0,
                    "query_pre_attn_scalar": 16, "sliding_window": 64, "sliding_window_pattern": 6, "attn_logit_softcapping": None,
                    "final_logit_softcapping": None, "rope_scaling": None, "tie_word_embeddings": True},
    "phi3": {"architectures": ["Phi3ForCausalLM"], "model_type": "phi3", **_DIMS, "pad_token_id": 0, "hidden_act": "silu", "rope_theta": 10000.0,
             "sliding_window": None, "original_max_position_embeddings": 64, "partial_rotary_factor": 1.0},
}
# phi3's longrope factors: one per rotary frequency (head_dim 16 / 2).
_LONGROPE = {"type": "longrope", "short_factor": [1.0] * 8, "long_factor": [2.0] * 8}
SCALINGS = {
    "linear": {"rope_type": "linear", "factor": 2.0},
    "yarn": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 64},
    "dynamic": {"rope_type": "dynamic", "factor": 2.0},
}


def variants(family: str) -> dict[str, dict]:
    """The family's variants in the transformers 4 layout (top-level rope_theta / rope_scaling)."""
    base = BASES[family]
    out = {"base": copy.deepcopy(base)}
    no_theta = copy.deepcopy(base)
    no_theta.pop("rope_theta")
    out["theta-absent"] = no_theta
    if family == "phi3":
        out["longrope"] = dict(copy.deepcopy(base), rope_scaling=copy.deepcopy(_LONGROPE), max_position_embeddings=512)
    elif family == "gemma3_text":
        out["linear"] = dict(copy.deepcopy(base), rope_scaling=copy.deepcopy(SCALINGS["linear"]))
    else:
        out.update({kind: dict(copy.deepcopy(base), rope_scaling=copy.deepcopy(s)) for kind, s in SCALINGS.items()})
    if family in ("qwen2", "qwen3", "qwen2_moe"):
        out["sliding-on"] = dict(copy.deepcopy(base), use_sliding_window=True, sliding_window=32)
    if family in ("mistral", "mixtral", "phi3"):
        out["sliding-window"] = dict(copy.deepcopy(base), sliding_window=32)
    if family == "gemma":
        out["gelu"] = dict(copy.deepcopy(base), hidden_act="gelu")
    if family == "mistral":
        out["head-dim-null"] = dict(copy.deepcopy(base), head_dim=None)
    tie_absent = copy.deepcopy(base)
    tie_absent.pop("tie_word_embeddings")
    out["tie-absent"] = tie_absent
    return out


def resaved(config: dict) -> dict:
    """What transformers 5 writes for `config`: AutoConfig.from_pretrained, then save_pretrained."""
    from transformers import AutoConfig

    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "config.json").write_text(json.dumps(config))
        AutoConfig.from_pretrained(folder).save_pretrained(folder)
        return json.loads((Path(folder) / "config.json").read_text())


def conflicting(resaved_config: dict) -> dict:
    """A transformers 5 file with a stale top-level rope_theta beside the nested one."""
    out = copy.deepcopy(resaved_config)
    out["rope_theta"] = 12345.0
    return out


def all_cases(with_resaved: bool = True) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for family in BASES:
        for name, config in variants(family).items():
            out[f"{family}/tf4-{name}"] = config
            if with_resaved:
                saved = resaved(config)
                out[f"{family}/tf5-{name}"] = saved
                if name == "base":
                    out[f"{family}/tf5-conflicting-theta"] = conflicting(saved)
    return out
