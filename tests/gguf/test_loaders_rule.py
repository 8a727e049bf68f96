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


def _codes(path, capsys) -> list[tuple[str, str]]:
    main(["check", str(path), "--isolated", "--format", "json", "--select", "G013", "--select", "G014"])
    return [(f["code"], f["message"]) for f in json.loads(capsys.readouterr().out or "[]")]


@pytest.mark.parametrize("arch", ["llama", "qwen2", "phi3"])
def test_candle_loaders_that_derive_the_head_size_fail_on_a_file_that_states_another(tmp_path, capsys, arch):
    # hidden 64 / 4 heads = 16, but the file's key length is 32 (huggingface/candle#3917)
    found = _codes(_write(tmp_path / "model.gguf", arch, **{"attention.key_length": 32, "rope.dimension_count": 32}), capsys)
    g013 = [message for code, message in found if code == "G013"]
    module = {"llama": "quantized_llama", "qwen2": "quantized_qwen2", "phi3": "quantized_phi3"}[arch]
    assert len(g013) == 1 and g013[0].startswith(
        f"candle's {module} ignores {arch}.attention.key_length 32 and derives the head size as "
        f"{arch}.embedding_length / {arch}.attention.head_count = 64 / 4 = 16: "), found
    assert g013[0].endswith("; llama.cpp runs 32")


def test_the_llama_head_size_message_is_unchanged(tmp_path, capsys):
    found = _codes(_write(tmp_path / "model.gguf", "llama", **{"attention.key_length": 32}), capsys)
    assert ("G013", "candle's quantized_llama ignores llama.attention.key_length 32 and derives the head size as "
            "llama.embedding_length / llama.attention.head_count = 64 / 4 = 16: its attention reshape fails on the first "
            "token (huggingface/candle#3917); llama.cpp runs 32") in found


def test_a_loader_that_reads_the_key_length_gives_no_g013_and_requires_it_when_absent(tmp_path, capsys):
    assert _codes(_write(tmp_path / "stated.gguf", "qwen3", **{"attention.key_length": 32, "rope.dimension_count": 32}), capsys) == []
    found = _codes(_write(tmp_path / "absent.gguf", "qwen3"), capsys)
    # candle's quantized_qwen3 reads qwen3.attention.key_length with md_get (required); llama.cpp derives it
    assert [code for code, _ in found] == ["G014"] and "candle (quantized_qwen3.rs at 0.11.0) refuses the file: it requires qwen3.attention.key_length" in found[0][1], found


@pytest.mark.parametrize(("runtimes", "expected"), [
    ([], {("G013", "candle"), ("G014", "mistral.rs")}),
    (["-r", "llama-cpp"], set()),
    (["-r", "candle"], {("G013", "candle")}),
    (["--runtime", "mistralrs", "-r", "llama-cpp"], {("G014", "mistral.rs")}),
])  # fmt: skip
def test_loader_findings_follow_the_runtime_selection(tmp_path, capsys, runtimes, expected):
    # candle derives head size 16 where the file states 32; mistral.rs refuses a llama file named Mistral...
    path = _write(tmp_path / "model.gguf", "llama", name="Mistral-7B-Instruct-v0.3", **{"attention.key_length": 32, "rope.dimension_count": 32})
    main(["check", str(path), "--isolated", "--format", "json", *runtimes])
    found = json.loads(capsys.readouterr().out or "[]")
    assert {(f["code"], f["message"].split("'")[0].split(" ")[0]) for f in found if f["code"] in ("G013", "G014")} == expected, found
