"""A generated family of Llama configs: both layouts, every RoPE type, and the edge cases runtimes split on.

Shared by the intent, fix and conformance tests so that each claim is checked on the same inputs.
"""

from __future__ import annotations

import copy

BASE = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "hidden_size": 64,
    "intermediate_size": 128,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "vocab_size": 128,
    "max_position_embeddings": 256,
    "rms_norm_eps": 1e-05,
    "hidden_act": "silu",
    "bos_token_id": 1,
    "eos_token_id": 2,
    "tie_word_embeddings": False,
}

SCALINGS = {
    "default": None,
    "llama3": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 64},
    "linear": {"rope_type": "linear", "factor": 2.0},
    "dynamic": {"rope_type": "dynamic", "factor": 2.0},
    "yarn": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 64},
}


def _tf4(theta: float, scaling: dict | None) -> dict:
    config = dict(copy.deepcopy(BASE), rope_theta=theta, torch_dtype="float32")
    if scaling is not None:
        config["rope_scaling"] = copy.deepcopy(scaling)
    return config


def _tf5(theta: float, scaling: dict | None) -> dict:
    params = {"rope_theta": theta, "rope_type": "default"}
    if scaling is not None:
        params = dict(copy.deepcopy(scaling), rope_theta=theta)
    return dict(copy.deepcopy(BASE), rope_parameters=params, dtype="float32")


def family() -> dict[str, dict]:
    out: dict[str, dict] = {}
    for kind, scaling in SCALINGS.items():
        out[f"tf4-{kind}"] = _tf4(100000.0, scaling)
        out[f"tf5-{kind}"] = _tf5(100000.0, scaling)
    conflict = _tf5(500000.0, None)
    conflict["rope_theta"] = 100000.0
    out["conflicting-theta"] = conflict
    no_kv = _tf4(100000.0, None)
    del no_kv["num_key_value_heads"]
    out["missing-kv-heads"] = no_kv
    no_tie = _tf5(100000.0, None)
    del no_tie["tie_word_embeddings"]
    out["tie-absent"] = no_tie
    out["biases"] = dict(_tf4(100000.0, None), attention_bias=True, mlp_bias=True)
    legacy = _tf4(100000.0, None)
    legacy["rope_scaling"] = {"type": "linear", "factor": 2.0}
    out["legacy-type-key"] = legacy
    out["gelu"] = dict(_tf4(10000.0, None), hidden_act="gelu")
    out["head-dim-explicit"] = dict(_tf5(100000.0, None), head_dim=32)
    no_theta = _tf4(10000.0, None)
    del no_theta["rope_theta"]
    out["theta-absent"] = no_theta
    out["both-dtypes"] = dict(_tf5(100000.0, None), torch_dtype="float16", dtype="bfloat16")
    return out
