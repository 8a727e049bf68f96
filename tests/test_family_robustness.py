"""Every family's reading survives any JSON value anywhere: mutated configs of every family (values of every
JSON type in the keys the readers and RoPE readings use, dropped keys, odd nesting) go through check, view and
fix, which return 0, 1 or 2 and never raise. Seeded, so a failure reproduces."""

from __future__ import annotations

import contextlib
import copy
import io
import json
import random

import pytest

from cfglint.cli import main
from tests.families import BASES, all_cases

CASES = list(all_cases(with_resaved=False).values())
VALUES = [None, True, False, 0, -1, 1.5, 10**30, 2**1100 + 1, 1e308, "x", "", "gelu", [], [1, "a"], {}, {"rope_type": {}},
          {"type": []}, {"full_attention": []}, {"rope_theta": "1e6", "rope_type": "yarn"}]
KEYS = ["rope_parameters", "rope_scaling", "layer_types", "head_dim", "sliding_window", "text_config", "rope_local_base_freq",
        "partial_rotary_factor", "num_hidden_layers", "num_attention_heads", "attention_multiplier", "hidden_act",
        "hidden_activation", "use_sliding_window", "max_window_layers", "query_pre_attn_scalar", "tie_word_embeddings"]
NESTED = ["rope_theta", "rope_type", "type", "factor", "full_attention", "sliding_attention", "partial_rotary_factor",
          "short_factor", "long_factor", "original_max_position_embeddings"]


def mutated(rng: random.Random) -> dict:
    config = copy.deepcopy(rng.choice(CASES))
    for _ in range(rng.randint(1, 4)):
        target = config["text_config"] if isinstance(config.get("text_config"), dict) and rng.random() < 0.5 else config
        key = rng.choice(list(target) + KEYS)
        roll = rng.random()
        if roll < 0.2:
            target.pop(key, None)
        elif roll < 0.45 and isinstance(target.get("rope_parameters"), dict):
            target["rope_parameters"][rng.choice(NESTED)] = copy.deepcopy(rng.choice(VALUES))
        else:
            target[key] = copy.deepcopy(rng.choice(VALUES))
    return config


# Inputs that once raised: an object as rope_type reached a dict lookup (transformers 4's and mlx-lm's scaling
# readers), Phi-3's longrope arithmetic met a null context, and mlx-lm's attention scale an int beyond a float.
ONCE_RAISED = [
    dict(BASES["qwen3"], head_dim=2**1100 + 1),
    dict(BASES["gemma2"], head_dim=2**1100),
    # ... and widths, contexts and scales beyond a float: YaRN's, longrope's and DeepSeek's arithmetic
    dict(BASES["gpt_oss"], partial_rotary_factor=1e308),
    dict(BASES["qwen2"], rope_scaling={"rope_type": "yarn", "factor": 2.0, "original_max_position_embeddings": 3},
         max_position_embeddings=2**1100 + 1),
    dict(BASES["phi3"], partial_rotary_factor=10**30),
    dict(BASES["phi3"], partial_rotary_factor=1e308,
         rope_scaling={"rope_type": "longrope", "short_factor": [1.0] * 8, "long_factor": [2.0] * 8}),
    dict(BASES["deepseek_v3"], rope_scaling={"rope_type": "yarn", "factor": 40.0, "mscale_all_dim": 2**1100 + 1,
                                             "original_max_position_embeddings": 64}),
    dict(BASES["qwen3"], rope_scaling={"rope_type": "yarn", "factor": 2.0, "original_max_position_embeddings": 64},
         partial_rotary_factor=1e308),
    {"model_type": "llama", "rope_theta": 10000.0, "rope_scaling": {"rope_type": {}, "factor": 2.0}},
    {"model_type": "llama", "rope_parameters": {"rope_type": [1], "rope_theta": 10000.0}},
    {"model_type": "qwen2", "hidden_size": 64, "num_attention_heads": 4, "rope_scaling": {"rope_type": {}, "factor": 2.0}},
    {"model_type": "mistral", "hidden_size": 64, "num_attention_heads": 4, "rope_scaling": {"type": []}},
    {"model_type": "phi3", "hidden_size": 64, "num_attention_heads": 4, "max_position_embeddings": None,
     "original_max_position_embeddings": 64, "rope_scaling": {"type": "longrope", "short_factor": [1.0] * 8, "long_factor": [1.0] * 8}},
]


@pytest.mark.parametrize("config", ONCE_RAISED)
def test_inputs_that_once_raised(config, tmp_path):
    (tmp_path / "config.json").write_text(json.dumps(config))
    for command in ("check", "view", "fix"):
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            assert main([command, str(tmp_path)]) in (0, 1, 2)


@pytest.mark.parametrize("seed", range(6))
def test_mutated_family_configs_never_raise(seed, tmp_path):
    rng = random.Random(seed)
    model = tmp_path / "model"
    model.mkdir()
    for _ in range(60):
        config = mutated(rng)
        (model / "config.json").write_text(json.dumps(config))
        for args in (["check", str(model), "--format", "json"], ["view", str(model), "--format", "json"],
                     ["fix", str(model)], ["fix", str(model), "--unsafe-fixes"]):
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                code = main(args)
            assert code in (0, 1, 2), (args[0], json.dumps(config)[:400])
