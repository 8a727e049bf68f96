"""YaRN's `truncate` as each runtime reads it, and as the comparison counts it.

transformers 5 (and 4.57) floor and ceil YaRN's correction range unless `truncate` is written falsy; mlx-lm's
YarnRoPE, ggml (llama.cpp) and every DeepSeek port always do; mistral.rs' gpt-oss YaRN honours it but defaults
it to false. gpt-oss writes `"truncate": false`. (Real mlx-lm's frequencies are checked in
tests/logits/test_families.py, on the tiny gpt-oss checkpoint.)
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from cfglint import consumers, document
from cfglint.compat import FAMILY_BASES
from cfglint.engine import context_of
from cfglint.reading import same

YARN = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 64, "beta_fast": 32.0, "beta_slow": 1.0}


@pytest.mark.parametrize(
    ("a", "b", "equal"),
    [
        ({}, {"truncate": True}, True),  # absent is transformers' default, true
        ({}, {"truncate": False}, False),
        ({"truncate": True}, {"truncate": False}, False),
        ({"truncate": None}, {"truncate": False}, True),  # `if truncate:`: a null does not truncate
        ({"truncate": 1}, {}, True),
    ],
)
def test_truncate_counts_by_its_truth_value_and_absent_is_true(a, b, equal):
    assert same("rope_scaling", {**YARN, **a}, {**YARN, **b}) is equal


@pytest.mark.parametrize(
    ("a", "b", "equal"),
    [
        ({}, {"beta_fast": 32, "beta_slow": 1}, True),  # transformers: `.get("beta_fast") or 32`, `or 1`
        ({"beta_fast": None, "beta_slow": 0}, {"beta_fast": 32.0, "beta_slow": 1.0}, True),
        ({}, {"beta_fast": 16}, False),
        ({"beta_slow": 2}, {}, False),
    ],
)
def test_yarn_betas_absent_or_falsy_count_as_32_and_1(a, b, equal):
    bare = {k: v for k, v in YARN.items() if not k.startswith("beta")}
    assert same("rope_scaling", {**bare, **a}, {**bare, **b}) is equal


def test_yarn_betas_only_default_for_yarn():
    longrope = {"rope_type": "longrope", "short_factor": [1.0], "long_factor": [2.0], "original_max_position_embeddings": 64}
    assert same("rope_scaling", longrope, {**longrope, "beta_fast": 32})


def test_truncate_only_matters_to_yarn():
    linear = {"rope_type": "linear", "factor": 2.0}
    assert same("rope_scaling", {**linear, "truncate": False}, linear)


def _readings(config: dict) -> tuple[dict, dict]:
    doc = document.parse(Path("config.json"), json.dumps(config).encode())
    ctx = context_of(doc, [consumers.get(n) for n in consumers.names()])
    return ctx.intent.values["rope_scaling"], {n: v.values.get("rope_scaling") for n, v in ctx.views.items() if not v.failure}


def _differs(config: dict) -> dict[str, bool]:
    intent, found = _readings(config)
    return {name: not same("rope_scaling", scaling, intent) for name, scaling in found.items()}


def test_gpt_oss_truncate_false_is_kept_by_transformers_and_mistralrs_only():
    config = FAMILY_BASES["gpt_oss"]  # top-level rope_theta and rope_scaling, truncate false
    assert config["rope_scaling"]["truncate"] is False
    differs = _differs(config)
    assert differs == {"transformers-5": False, "transformers-4": False, "mistralrs": False, "mlx-lm": True, "llama-cpp": True}


def test_gpt_oss_without_truncate_misleads_mistralrs_alone():
    config = copy.deepcopy(FAMILY_BASES["gpt_oss"])
    del config["rope_scaling"]["truncate"]
    _, found = _readings(config)
    assert found["mistralrs"]["truncate"] is False  # serde's default for the bool
    differs = _differs(config)
    assert differs == {"transformers-5": False, "transformers-4": False, "mistralrs": True, "mlx-lm": False, "llama-cpp": False}


@pytest.mark.parametrize("family", ["deepseek_v2", "deepseek_v3"])
def test_deepseek_ports_always_truncate(family):
    config = copy.deepcopy(FAMILY_BASES[family])
    config["rope_scaling"] = {**config["rope_scaling"], "truncate": False}
    intent, found = _readings(config)
    assert intent["truncate"] is False
    ports = {name: scaling for name, scaling in found.items() if not name.startswith("transformers")}
    assert ports and all(scaling["truncate"] is True for scaling in ports.values()), ports


def test_mistralrs_mistral_yarn_always_truncates():
    config = copy.deepcopy(FAMILY_BASES["mistral"])
    config.pop("rope_theta", None)
    config["rope_parameters"] = {**YARN, "rope_theta": 10000.0, "truncate": False}
    intent, found = _readings(config)
    assert intent["truncate"] is False and found["mistralrs"]["truncate"] is True
