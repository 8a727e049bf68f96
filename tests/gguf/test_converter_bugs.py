"""GGUFs written with the gguf package's GGUFWriter as converters wrote them when they lost a setting: each is
reported, with the value llama.cpp will run."""

from __future__ import annotations

import json

import numpy as np

from cfglint.cli import main
from tests.gguf.files import TINY_CONFIG, TOKENS, tiny_gguf


def findings(capsys, folder, config=None) -> list[tuple[str, str, str]]:
    if config is not None:
        (folder / "config.json").write_text(json.dumps(config))
    main(["check", str(folder), "--isolated", "--format", "json", "--select", "G"])
    return [(f["code"], f["gguf_key"], f["message"]) for f in json.loads(capsys.readouterr().out or "[]")]


def test_rope_base_lost_by_a_transformers5_converter(tmp_path, capsys):
    """Before ggml-org/llama.cpp#18013 the converter read no rope_parameters: the file has no freq_base."""
    tiny_gguf(tmp_path / "m.gguf", drop=("{arch}.rope.freq_base",))
    [(code, key, message)] = findings(capsys, tmp_path, TINY_CONFIG)
    assert (code, key) == ("G002", "llama.rope.freq_base")
    assert "llama.cpp runs RoPE base 10000.0 (its default: the key is absent), but the config means 100000.0" in message


def test_rope_base_zero_from_ollamas_qwen2_converter(tmp_path, capsys):
    tiny_gguf(tmp_path / "m.gguf", "qwen2", rope__freq_base=0.0)
    assert findings(capsys, tmp_path) == [("G002", "qwen2.rope.freq_base", "qwen2.rope.freq_base is 0.0: llama.cpp computes RoPE with that base, which is no rotation the model was trained with")]
    config = {**TINY_CONFIG, "model_type": "qwen2", "architectures": ["Qwen2ForCausalLM"]}
    assert [(c, m.split(": ", 1)[1]) for c, _, m in findings(capsys, tmp_path, config) if c == "G002"] == [
        ("G002", "llama.cpp runs RoPE base 0.0, but the config means 100000.0")]


def test_llama3_factors_dropped(tmp_path, capsys):
    """Llama 3.1 GGUFs before ggml-org/llama.cpp#8676 had no rope_freqs tensor: llama.cpp ran unscaled RoPE."""
    scaling = {"rope_theta": 500000.0, "rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}
    config = {**TINY_CONFIG, "rope_parameters": scaling}
    tiny_gguf(tmp_path / "m.gguf", rope__freq_base=500000.0)
    assert findings(capsys, tmp_path, config) == [("G003", "rope_freqs.weight", "the config's llama3 RoPE scaling (factor 8.0) is not in the file: without the rope_freqs.weight tensor llama.cpp runs unscaled RoPE")]
    tiny_gguf(tmp_path / "m.gguf", rope__freq_base=500000.0, tensors={"rope_freqs.weight": np.ones(8, np.float32)})
    assert findings(capsys, tmp_path) == []


def test_yarn_dropped(tmp_path, capsys):
    scaling = {"rope_theta": 100000.0, "rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 512}
    tiny_gguf(tmp_path / "m.gguf")
    [(code, key, message)] = findings(capsys, tmp_path, {**TINY_CONFIG, "rope_parameters": scaling})
    assert (code, key) == ("G003", "llama.rope.scaling.factor")
    assert message == "llama.rope.scaling.type: llama.cpp runs no RoPE scaling, but the config means yarn with factor 4.0"
    tiny_gguf(tmp_path / "m.gguf", rope__scaling__type="yarn", rope__scaling__factor=4.0, rope__scaling__original_context_length=512)
    assert findings(capsys, tmp_path) == []
    # gpt-oss's truncate false: no GGUF key says it, and llama.cpp always rounds the correction range
    [(code, key, message)] = findings(capsys, tmp_path, {**TINY_CONFIG, "rope_parameters": {**scaling, "truncate": False}})
    assert (code, key) == ("G003", "llama.rope.scaling.type") and "truncate false" in message
    assert findings(capsys, tmp_path, {**TINY_CONFIG, "rope_parameters": {**scaling, "truncate": True}}) == []


def test_gemma2_soft_capping_dropped(tmp_path, capsys):
    """Gemma 2 GGUFs before ggml-org/llama.cpp#8197 had no soft-capping keys."""
    tiny_gguf(tmp_path / "m.gguf", "gemma2", attention__sliding_window=4096)
    found = findings(capsys, tmp_path)
    assert [(c, k) for c, k, _ in found] == [("G010", "gemma2.attn_logit_softcapping"), ("G010", "gemma2.final_logit_softcapping")]
    assert "current llama.cpp caps at 50.0 (its default for gemma2)" in found[0][2]
    config = {**TINY_CONFIG, "model_type": "gemma2", "architectures": ["Gemma2ForCausalLM"], "final_logit_softcapping": None,
              "attn_logit_softcapping": 50.0, "sliding_window": 4096, "query_pre_attn_scalar": 16}
    messages = [m for c, k, m in findings(capsys, tmp_path, config) if k == "gemma2.final_logit_softcapping"]
    assert messages == ["gemma2.final_logit_softcapping: llama.cpp caps final logits at 30.0 (its default: the key is absent), but the config's final_logit_softcapping is null"]


def test_context_length_lost(tmp_path, capsys):
    """CodeLlama's 16384 context was missing from early GGUFs (ggml-org/llama.cpp#2768)."""
    tiny_gguf(tmp_path / "m.gguf", context_length=4096)
    assert findings(capsys, tmp_path, {**TINY_CONFIG, "max_position_embeddings": 16384}) == [(
        "G004", "llama.context_length", "llama.context_length is 4096, but the config's max_position_embeddings is 16384: llama.cpp sizes its default context and YaRN's range from the file")]


def test_file_inconsistent_with_its_own_tensors(tmp_path, capsys):
    tiny_gguf(tmp_path / "m.gguf", attention__head_count_kv=4, tokenizer__ggml__eos_token_id=40)
    found = findings(capsys, tmp_path)
    assert ("G006", "llama.attention.head_count_kv", "llama.attention.head_count_kv 4 x llama.attention.key_length 16 = 64, but blk.0.attn_k.weight has 32 outputs: llama.cpp refuses to load the file") in found
    assert ("G011", "tokenizer.ggml.eos_token_id", "tokenizer.ggml.eos_token_id 40 is outside the 32-token vocabulary: llama.cpp ignores it and keeps its default") in found


def test_head_dim_derived_when_the_key_is_lost(tmp_path, capsys):
    tiny_gguf(tmp_path / "m.gguf", drop=("{arch}.attention.key_length", "{arch}.attention.value_length"))
    config = {**TINY_CONFIG, "head_dim": 32}
    assert ("G006", "llama.attention.key_length", "llama.attention.key_length: llama.cpp runs key length 16 (derived: the key is absent), but the config's head_dim is 32") in findings(capsys, tmp_path, config)


def test_candle_derives_another_head_size(tmp_path, capsys):
    """candle's quantized_llama ignores the key length (huggingface/candle#3917); llama.cpp reads it."""
    tensors = {"blk.0.attn_q.weight": np.zeros((128, 64), np.float32), "blk.0.attn_k.weight": np.zeros((64, 64), np.float32)}
    tiny_gguf(tmp_path / "m.gguf", attention__key_length=32, attention__value_length=32, tensors=tensors)
    assert [(c, k) for c, k, _ in findings(capsys, tmp_path, {**TINY_CONFIG, "head_dim": 32})] == [("G013", "llama.attention.key_length")]
    tiny_gguf(tmp_path / "m.gguf", "qwen2")
    assert findings(capsys, tmp_path, {**TINY_CONFIG, "model_type": "qwen2", "architectures": ["Qwen2ForCausalLM"]}) == []


def test_a_token_text_held_twice_is_reported_as_the_abort_it_causes(tmp_path, capsys):
    """llama.cpp's vocabulary maps each text to one id and asserts the two tables are the same size."""
    tokens = list(TOKENS)
    tokens[7], tokens[9] = "t4", "t4"  # "t4" is also id 7's text
    tiny_gguf(tmp_path / "m.gguf", tokenizer__ggml__tokens=tokens)
    (found,) = findings(capsys, tmp_path, TINY_CONFIG)
    assert found[:2] == ("G006", "tokenizer.ggml.tokens")
    assert '"t4" at ids 7 and 9' in found[2] and "llama.cpp aborts at load" in found[2]
    tokens[9] = "t6"
    tokens[3], tokens[4] = "", ""  # empty texts are renamed "[EMPTY_<id>]": not the same text
    tiny_gguf(tmp_path / "m.gguf", tokenizer__ggml__tokens=tokens)
    assert findings(capsys, tmp_path, TINY_CONFIG) == []
