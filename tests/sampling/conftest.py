"""Fixtures for the sampling tests: transformers 5 itself is the reference for every transformers-side claim."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .helpers import PROMPT, load_build_script

TINY = {
    "vocab_size": 64,
    "hidden_size": 16,
    "intermediate_size": 32,
    "num_hidden_layers": 1,
    "num_attention_heads": 2,
    "num_key_value_heads": 1,
    "eos_token_id": [2, 3],
}


@pytest.fixture(scope="session")
def tiny_weights(tmp_path_factory) -> Path:
    """A tiny random Llama saved by transformers 5 (its own generation_config.json removed)."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    directory = tmp_path_factory.mktemp("tiny-llama")
    LlamaForCausalLM(LlamaConfig(**TINY)).save_pretrained(directory)
    (directory / "generation_config.json").unlink()
    return directory


@pytest.fixture
def model_dir(tiny_weights, tmp_path):
    """model_dir(config_updates, generation) -> a directory sharing the tiny weights, with these files."""
    counter = iter(range(1000))

    def make(config_updates: dict | None = None, generation: dict | str | None = None) -> Path:
        directory = tmp_path / f"m{next(counter)}"
        directory.mkdir()
        (directory / "model.safetensors").symlink_to(tiny_weights / "model.safetensors")
        config = json.loads((tiny_weights / "config.json").read_text())
        config.update(config_updates or {})
        (directory / "config.json").write_text(json.dumps(config, indent=2))
        if generation is not None:
            text = generation if isinstance(generation, str) else json.dumps(generation, indent=2)
            (directory / "generation_config.json").write_text(text)
        return directory

    return make


@pytest.fixture(scope="session")
def smollm2_logits():
    """transformers 5's next-token logits of the real SmolLM2-135M-Instruct for PROMPT (built once, cached)."""
    import torch

    from cfglint.sampling.logits_input import from_model

    torch.set_num_threads(1)  # predictable on a 2-core machine shared with other jobs
    return from_model(load_build_script().build(), PROMPT)
