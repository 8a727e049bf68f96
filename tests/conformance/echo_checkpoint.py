"""A tiny Llama checkpoint that repeats its last token, for watching where a runtime stops generating.

Given token ids c_0..c_k, token c_i embeds as the basis vector e_i, every layer adds nothing (o_proj and
down_proj are zero, so the residual stream is the last token's embedding) and lm_head row c_i is e_i, scaled:
after a prompt ending in c_i the greedy next token is c_i, then c_i again, until the runtime stops. A runtime
that stops on c_i ends after one new token; one that does not runs to its token limit. No sampling setting,
attention or RoPE detail changes that, so any Llama loader shows its own stop set with it.

The model's config.json is a tiny Llama that keeps the given model directory's eos/bos/pad ids and vocabulary
size; the tokenizer files and generation_config.json are the directory's own.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from safetensors.numpy import save_file

from tests.conformance.tiny_checkpoint import llama_tensor_shapes

HIDDEN = 32  # at most HIDDEN distinct tokens can be echoed
SCALE = 8.0  # logit of the echoed token against 0 for every other one
KEPT = ("bos_token_id", "eos_token_id", "pad_token_id", "vocab_size")


def echo_config(config: dict) -> dict:
    return {
        "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": HIDDEN, "intermediate_size": 32,
        "num_hidden_layers": 1, "num_attention_heads": 4, "num_key_value_heads": 2, "max_position_embeddings": 256,
        "rms_norm_eps": 1e-5, "rope_theta": 10000.0, "tie_word_embeddings": False, "hidden_act": "silu",
        "torch_dtype": "float32", **{k: config[k] for k in KEPT if k in config},
    }


def make_echo(directory: Path, echoed: list[int]) -> None:
    """Replace directory's config.json and weights by the echo model of `echoed` (ids below its vocab_size)."""
    if len(echoed) > HIDDEN:
        raise ValueError(f"at most {HIDDEN} tokens can be echoed, not {len(echoed)}")
    config = echo_config(json.loads((directory / "config.json").read_text(encoding="utf-8")))
    weights = {name: np.zeros(shape, np.float32) for name, shape in llama_tensor_shapes(config).items()}
    for name in weights:
        if name.endswith("norm.weight"):
            weights[name][:] = 1.0
    for i, token_id in enumerate(echoed):
        weights["model.embed_tokens.weight"][token_id, i] = 1.0
        weights["lm_head.weight"][token_id, i] = SCALE
    (directory / "config.json").write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    save_file(weights, str(directory / "model.safetensors"))
