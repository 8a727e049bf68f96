"""Shared fixtures for the logits check: tiny random Llama checkpoints written by transformers 5 itself."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

_NEEDS = ("torch", "transformers", "safetensors")
if any(importlib.util.find_spec(name) is None for name in _NEEDS):
    # The logits check is an optional extra; without it there is nothing here to test.
    collect_ignore_glob = ["test_*.py"]
else:
    import torch

    # On a 2-core machine shared with other jobs, OpenMP's spinning workers made 2-thread forwards
    # 10-20x slower than 1 thread; one thread keeps the suite's run time predictable.
    torch.set_num_threads(1)

TINY_BASE = {
    "vocab_size": 96,
    "hidden_size": 64,
    "intermediate_size": 96,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "max_position_embeddings": 64,
    "rms_norm_eps": 1e-5,
    "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0},
    "tie_word_embeddings": False,
    "bos_token_id": 1,
    "eos_token_id": 2,
}


def write_tiny_llama(directory: Path, seed: int = 0, **overrides) -> Path:
    """Save a seeded random LlamaForCausalLM with TINY_BASE + overrides to directory (float32 safetensors)."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(seed)
    model = LlamaForCausalLM(LlamaConfig(**{**TINY_BASE, **overrides}))
    _randomise(model)
    model.save_pretrained(directory)
    return directory


def write_tiny_family(directory: Path, config: dict, seed: int = 0) -> Path:
    """Save a seeded random model of config's family, as transformers 5 builds and writes it (float32), with
    the Llama-2-style byte-fallback tokenizer the runtimes' own tests use (mistral.rs needs byte fallback)."""
    import json

    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    from tests.conformance.tiny_checkpoint import write_tokenizer

    directory.mkdir(parents=True, exist_ok=True)
    (directory / "config.json").write_text(json.dumps(config))
    torch.manual_seed(seed)
    model = AutoModelForCausalLM.from_config(AutoConfig.from_pretrained(directory))
    _randomise(model)
    model.save_pretrained(directory)
    write_tokenizer(directory, int(config["vocab_size"]))
    return directory


def _randomise(model) -> None:
    import torch

    with torch.no_grad():
        # transformers initialises biases to zero and norms to one, which would make a test of
        # biases or norm handling pass vacuously; every parameter gets its own random values instead.
        for name, parameter in model.named_parameters():
            if name.endswith("norm.weight"):
                parameter.copy_(1.0 + 0.1 * torch.randn_like(parameter))
            else:
                parameter.normal_(0.0, 0.15)


@pytest.fixture(scope="session")
def tiny_llama(tmp_path_factory):
    """Factory: tiny_llama(name, **overrides) -> model directory, each variant written once per session."""
    made: dict[str, Path] = {}

    def make(name: str, **overrides) -> Path:
        if name not in made:
            made[name] = write_tiny_llama(tmp_path_factory.mktemp(f"tiny-{name}"), **overrides)
        return made[name]

    return make


@pytest.fixture(scope="session")
def prompt_ids():
    """A fixed pseudo-random prompt of 32 tokens inside the tiny vocabulary."""
    import torch

    generator = torch.Generator().manual_seed(1234)
    return torch.randint(3, TINY_BASE["vocab_size"], (32,), generator=generator).tolist()


TOKENIZER_WORDS = ("[UNK]", "<s>", "</s>", "The", "capital", "of", "France", "is")


def write_tiny_tokenizer(directory: Path) -> Path:
    """A word-level tokenizer for the tiny vocabulary: the default prompt's words, then w0, w1, ..."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    words = list(TOKENIZER_WORDS) + [f"w{i}" for i in range(TINY_BASE["vocab_size"] - len(TOKENIZER_WORDS))]
    tokenizer = Tokenizer(models.WordLevel({word: i for i, word in enumerate(words)}, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    fast = PreTrainedTokenizerFast(tokenizer_object=tokenizer, unk_token="[UNK]", bos_token="<s>", eos_token="</s>")
    fast.save_pretrained(directory)
    return directory


@pytest.fixture
def tiny_model_dir(tiny_llama, tmp_path):
    """tiny_model_dir(name, edit, **overrides): a directory sharing tiny_llama(name, **overrides)'s weights,
    with a tokenizer and its config.json changed by edit(config) (a function editing the dict in place)."""
    import json

    counter = iter(range(1000))

    def make(name: str, edit=None, **overrides) -> Path:
        source = tiny_llama(name, **overrides)
        directory = tmp_path / f"{name}-{next(counter)}"
        directory.mkdir()
        (directory / "model.safetensors").symlink_to(source / "model.safetensors")
        config = json.loads((source / "config.json").read_text())
        if edit is not None:
            edit(config)
        (directory / "config.json").write_text(json.dumps(config, indent=2))
        write_tiny_tokenizer(directory)
        return directory

    return make


def smollm2_build_script():
    from .build_script import load_build_script

    return load_build_script()


@pytest.fixture(scope="session")
def smollm2_dir() -> Path:
    """The real SmolLM2-135M-Instruct in the transformers-5 layout, built once into the cache (read only here)."""
    return smollm2_build_script().build()


@pytest.fixture(scope="session")
def smollm2_reference(smollm2_dir):
    """transformers 5 on the SmolLM2 directory, loaded once for every test that needs it."""
    from cfglint.logits import TransformersReference

    return TransformersReference(smollm2_dir)


@pytest.fixture(scope="session")
def fixed_smollm2_dir(smollm2_dir, tmp_path_factory) -> Path:
    """A copy of the SmolLM2 directory repaired by `cfglint fix --write`; the weights are a symlink to the
    cache's file, so the cache is never written and its 538 MB are not copied."""
    import shutil

    from cfglint.cli import main

    directory = tmp_path_factory.mktemp("smollm2-fixed")
    for item in smollm2_dir.iterdir():
        if item.suffix == ".safetensors":
            (directory / item.name).symlink_to(item)
        else:
            shutil.copy2(item, directory / item.name)
    assert main(["fix", "--write", str(directory)]) == 0
    return directory
