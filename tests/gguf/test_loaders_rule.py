"""G014: candle's and mistral.rs's GGUF loaders read a header their own way (cfglint.knowledge.gguf_loaders)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cfglint.cli import main
from tests.gguf.files import write_gguf

HEADS = {"attention.head_count": 4, "attention.head_count_kv": 2, "block_count": 2, "context_length": 2048,
         "embedding_length": 64, "feed_forward_length": 128, "attention.layer_norm_rms_epsilon": 1e-5,
         "rope.dimension_count": 16}  # fmt: skip
EMBEDDING = {"token_embd.weight": np.zeros((128, 64), np.float32), "output.weight": np.zeros((128, 64), np.float32)}


def _write(path, arch: str, *, drop: tuple[str, ...] = (), name: str | None = None, **kv):
    values = {f"{arch}.{k}": v for k, v in {**HEADS, "rope.freq_base": 10000.0, **kv}.items() if k not in drop}
    if name is not None:
        values["general.name"] = name
    return write_gguf(path, arch, kv=values, tensors=EMBEDDING)


def _g014(path, capsys) -> list[dict]:
    main(["check", str(path), "--isolated", "--format", "json", "--select", "G014"])
    return json.loads(capsys.readouterr().out or "[]")


@pytest.mark.parametrize(("arch", "kv", "drop", "name", "words", "severity"), [
    # quantized_phi3.rs never reads phi3.rope.freq_base: RoPE base 10000 whatever the file says.
    ("phi3", {"rope.freq_base": 1000000.0}, (), None, "candle (quantized_phi3.rs at 0.11.0) runs rope theta 10000.0 where llama.cpp runs 1000000", "warning"),
    # mistral.rs build_qwen2 passes no default RoPE base; llama.cpp runs 10000.
    ("qwen2", {}, ("rope.freq_base",), None, "mistral.rs (normal_config.rs at 9e922623f24b) refuses the file: it requires qwen2.rope.freq_base", "error"),
    # normal_registry.rs: a llama file named Mistral... is refused without the original model.
    ("llama", {}, (), "Mistral-7B-Instruct-v0.3", "mistral.rs (normal_config.rs at 9e922623f24b) refuses the file: it appears to be a Mistral model", "error"),
])  # fmt: skip
def test_a_loader_that_reads_the_header_otherwise_is_reported(tmp_path, capsys, arch, kv, drop, name, words, severity):
    found = _g014(_write(tmp_path / "model.gguf", arch, drop=drop, name=name, **kv), capsys)
    assert [f["code"] for f in found] == ["G014"], found
    assert words in found[0]["message"] and found[0]["severity"] == severity, found[0]


def test_a_header_every_loader_reads_as_llama_cpp_does_gives_nothing(tmp_path, capsys):
    for arch in ("llama", "qwen2", "phi3"):
        assert _g014(_write(tmp_path / f"{arch}.gguf", arch, name="tiny"), capsys) == [], arch
