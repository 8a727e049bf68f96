"""The candle and mistral.rs GGUF loader data: what each runs a header with, and where that is not llama.cpp's."""

from __future__ import annotations

import pytest

from cfglint.knowledge import gguf_loaders
from cfglint.knowledge.gguf_loaders import LOADERS, Missing, disagreements, run_values

# A Qwen3-shaped header: head_dim 128 is not hidden 2048 / 32 heads = 64 (huggingface/candle#3917).
QWEN = {
    "embedding_length": 2048, "attention.head_count": 32, "attention.head_count_kv": 8, "attention.key_length": 128,
    "context_length": 40960, "attention.layer_norm_rms_epsilon": 1e-6, "rope.freq_base": 1_000_000.0,
}  # fmt: skip


def header(architecture: str, values: dict, drop: tuple[str, ...] = ()) -> dict:
    return {f"{architecture}.{k}": v for k, v in values.items() if k not in drop}


def test_candle_qwen2_runs_a_head_dim_the_header_does_not_say():
    found = disagreements(header("qwen2", QWEN), {"token_embd.weight", "output.weight"}, "qwen2")
    assert found == {"candle": {"head_dim": (64, 128), "rope_dimensions": (64, 128)}}


def test_candle_qwen3_reads_the_key_length_and_agrees():
    assert disagreements(header("qwen3", QWEN), {"output.weight"}, "qwen3") == {}


def test_a_missing_freq_base_is_a_default_for_some_and_a_refusal_for_others():
    found = disagreements(header("qwen3", QWEN, drop=("rope.freq_base",)), {"output.weight"}, "qwen3")
    assert found == {
        "candle": {"rope_theta": (Missing("qwen3.rope.freq_base"), 10000.0)},
        "mistralrs": {"rope_theta": (Missing("qwen3.rope.freq_base"), 10000.0)},
    }
    assert disagreements(header("llama", dict(QWEN, **{"attention.key_length": 64, "rope.dimension_count": 64}), drop=("rope.freq_base",)),
                         {"output.weight"}, "llama") == {
        "candle": {"context_length": (4096, 40960)}
    }


def test_candle_phi3_runs_freq_base_10000_whatever_the_header_says():
    phi = dict(QWEN, **{"attention.key_length": 64, "rope.dimension_count": 64, "rope.freq_base": 250000.0})
    found = disagreements(header("phi3", phi), {"output.weight"}, "phi3")
    assert found == {"candle": {"rope_theta": (10000.0, 250000.0)}}


def test_tied_output_is_read_from_the_tensors():
    values = run_values(gguf_loaders.LLAMA_CPP_READS, header("qwen2", QWEN), {"token_embd.weight"}, "qwen2")
    assert values["tied_output"] is True and values["head_dim"] == 128 and values["rope_dimensions"] == 128
    assert disagreements(header("phi3", dict(QWEN, **{"attention.key_length": 64, "rope.dimension_count": 64, "rope.freq_base": 10000.0})),
                         set(), "phi3") == {"candle": {"tied_output": (False, True)}}  # fmt: skip


@pytest.mark.parametrize("key", sorted(LOADERS))
def test_every_loader_names_its_source_and_only_known_quantities(key):
    loader = LOADERS[key]
    assert loader.source.repo in ("huggingface/candle", "EricLBuehler/mistral.rs") and loader.source.ref
    assert set(loader.reads) <= set(gguf_loaders.LLAMA_CPP_READS)
    assert {"rope_theta", "head_dim", "num_key_value_heads"} <= set(loader.reads)


def test_mistral_rs_refuses_a_llama_file_named_mistral():
    loader = LOADERS["mistralrs", "llama"]
    assert gguf_loaders.refusal(loader, {"general.name": "Mistral 7B Instruct v0.3"})
    assert gguf_loaders.refusal(loader, {"general.basename": "mistral-nemo", "general.name": "Llama"})
    assert gguf_loaders.refusal(loader, {"general.name": "Ministral 8B"}) is None
    assert gguf_loaders.refusal(LOADERS["candle", "llama"], {"general.name": "Mistral 7B"}) is None


def test_a_loader_fails_only_on_a_quantity_it_derives_and_llama_cpp_reads_from_a_key():
    failing = {key: loader.fails for key, loader in LOADERS.items() if loader.fails}
    assert set(failing) == {("candle", "llama"), ("candle", "qwen2"), ("candle", "phi3")}
    for key, fails in failing.items():
        for quantity in fails:
            assert isinstance(LOADERS[key].reads[quantity], gguf_loaders.Quotient), key
            assert isinstance(gguf_loaders.LLAMA_CPP_READS[quantity], gguf_loaders.FirstOf), key
