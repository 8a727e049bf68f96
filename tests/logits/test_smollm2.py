"""The real SmolLM2-135M-Instruct, rebuilt offline by scripts/build_smollm2.py (transformers-5 layout, theta 1e5)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest
import torch

from cfglint.logits import TransformersReference

from .build_script import load_build_script

TOLERANCE = 1e-4
DEFAULT_PROMPT = "The capital of France is"
DEFAULT_PROMPT_IDS = [504, 3575, 282, 4649, 314]
LONG_PROMPT = (
    "The history of the printing press begins in the fifteenth century, when Johannes Gutenberg combined "
    "movable metal type, oil-based ink and a wooden press adapted from those used to make wine. Within fifty "
    "years, presses were running in more than two hundred European cities, and the price of books fell so "
    "quickly that reading, once the privilege of monks and nobles, became an everyday habit of merchants,"
)


@pytest.fixture(scope="module")
def reference(smollm2_reference) -> TransformersReference:
    return smollm2_reference


@pytest.fixture(scope="module")
def tokenizer(smollm2_dir):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(smollm2_dir)


def max_diff(a: torch.Tensor, b: torch.Tensor) -> float:
    return (a - b).abs().max().item()


def test_second_build_returns_the_cached_directory_at_once(smollm2_dir):
    started = time.perf_counter()
    assert load_build_script().build() == smollm2_dir
    assert time.perf_counter() - started < 1.0


def test_directory_has_the_transformers_5_layout(smollm2_dir):
    names = {path.name for path in smollm2_dir.iterdir()}
    assert {"config.json", "model.safetensors", "generation_config.json", "tokenizer.json"} <= names
    config = json.loads((smollm2_dir / "config.json").read_text())
    assert config["rope_parameters"] == {"rope_theta": 100000.0, "rope_type": "default"}
    assert "rope_theta" not in config and "quantization_config" not in config
    assert config["dtype"] == "float32" and "torch_dtype" not in config
    assert (config["num_hidden_layers"], config["hidden_size"], config["num_key_value_heads"]) == (30, 576, 3)


def test_reference_continues_the_prompt_with_paris(reference, tokenizer):
    assert tokenizer(DEFAULT_PROMPT)["input_ids"] == DEFAULT_PROMPT_IDS
    assert reference.values["rope_theta"] == 100000.0
    assert tokenizer.decode(reference.greedy(DEFAULT_PROMPT_IDS, 3)).startswith(" Paris")


def test_full_recompute_greedy_equals_transformers_generate(reference):
    """The reference decodes by full recompute like the readings; transformers' cached generate agrees."""
    with torch.inference_mode():
        generated = reference.model.generate(torch.tensor([DEFAULT_PROMPT_IDS]), max_new_tokens=20, do_sample=False)
    assert generated[0, len(DEFAULT_PROMPT_IDS) :].tolist() == reference.greedy(DEFAULT_PROMPT_IDS, 20)


def test_reading_with_the_right_theta_agrees_with_transformers(reference, tokenizer):
    reading = reference.reading(reference.values)
    long_ids = tokenizer(LONG_PROMPT)["input_ids"]
    for ids in (DEFAULT_PROMPT_IDS, long_ids):
        assert max_diff(reading.logits(ids), reference.logits(ids)) < TOLERANCE
    assert reading.greedy(DEFAULT_PROMPT_IDS, 20) == reference.greedy(DEFAULT_PROMPT_IDS, 20)


def test_reading_with_theta_10000_diverges(reference, tokenizer):
    """What transformers 4 and mlx-lm compute for this config: the top-level rope_theta default."""
    wrong = reference.reading({**reference.values, "rope_theta": 10000.0})
    last_position = max_diff(wrong.logits(DEFAULT_PROMPT_IDS)[-1], reference.logits(DEFAULT_PROMPT_IDS)[-1])
    # Measured 0.787 (transformers 5.24, torch 2.13 CPU); the band allows for other BLAS builds.
    assert 0.5 < last_position < 1.2
    long_ids = tokenizer(LONG_PROMPT)["input_ids"]
    assert max_diff(wrong.logits(long_ids), reference.logits(long_ids)) > 2.0  # measured 6.2


def test_theta_10000_changes_the_answer_to_a_chat_prompt(reference, tokenizer):
    messages = [{"role": "user", "content": "What is the capital of France?"}]
    ids = tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=True)
    ids = list(ids["input_ids"] if hasattr(ids, "keys") else ids)
    expected = reference.greedy(ids, 5)
    assert tokenizer.decode(expected).startswith("The capital of France is")
    assert reference.reading({**reference.values, "rope_theta": 10000.0}).greedy(ids, 5) != expected


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads resident memory from /proc")
def test_readings_add_no_copy_of_the_weights(reference, tokenizer, smollm2_dir):
    def resident_mb() -> float:
        status = Path("/proc/self/status").read_text()
        return int(status.split("VmRSS:")[1].split()[0]) / 1024

    long_ids = tokenizer(LONG_PROMPT)["input_ids"]
    reference.logits(long_ids)  # touches every mapped weight page once
    before = resident_mb()
    readings = [reference.reading({**reference.values, "rope_theta": theta}) for theta in (1e4, 1e5, 5e5)]
    for reading in readings:
        reading.logits(long_ids)
    weights_mb = (smollm2_dir / "model.safetensors").stat().st_size / 2**20
    # One more copy would add ~513 MB; activations of a 77-token prompt take a few tens.
    assert resident_mb() - before < weights_mb / 4
