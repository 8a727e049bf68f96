"""transformers 5 on the RoPE parameters of every family, as the installed classes and models take them: a
type the config class has no validator for only warns, and building the model looks it up in
ROPE_INIT_FUNCTIONS (a KeyError); Phi-3's class names `su` and `yarn` longrope and refuses every other type;
Gemma 3 keeps its default type over a legacy `type`; a type's required keys are checked per family; keys
named after layer types make the parameters per layer type where the class declares layer types. cfglint's
transformers 5 reading refuses exactly where the config class or the model build does, with its message.

Runs in-process with the transformers 5 cfglint is installed with: a tiny model per case, in seconds.
"""

from __future__ import annotations

import copy
import json
import re
import warnings
from pathlib import Path

import pytest

from cfglint import consumers, document
from cfglint.engine import context_of
from cfglint.knowledge.transformers5 import FAMILIES

_LONG = {"short_factor": [1.0] * 8, "long_factor": [2.0] * 8}  # one per frequency of these 16-wide heads
PARAMETERS = {
    "foo": {"rope_type": "foo", "factor": 2.0},
    "number": {"rope_type": 5, "factor": 2.0},
    "null": {"rope_type": None, "factor": 2.0},
    "su": {"rope_type": "su", **_LONG},
    "su-with-context": {"rope_type": "su", "original_max_position_embeddings": 64, **_LONG},
    "legacy-type-linear": {"type": "linear", "factor": 2.0},
    "linear-without-factor": {"rope_type": "linear"},
    "yarn": {"rope_type": "yarn", "factor": 2.0},
    "dynamic": {"rope_type": "dynamic", "factor": 2.0},
    "longrope": {"rope_type": "longrope", **_LONG},  # a factor per frequency for Phi-3 only: the others' heads differ
    "longrope-one-factor": {"rope_type": "longrope", "short_factor": [1.0], "long_factor": [2.0]},  # broadcast
    "list": {"rope_type": ["linear"], "factor": 2.0},
    "llama3": {"rope_type": "llama3", "factor": 2.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0},
    "proportional": {"rope_type": "proportional"},
}
# YaRN's correction range is Python arithmetic on the theta, the original context and the betas, when the
# model is built: (name, theta, the parameters' other numbers)
YARN_NUMBERS = {
    "yarn-theta-one": (1, {}), "yarn-theta-one-float": (1.0, {}), "yarn-theta-true": (True, {}), "yarn-theta-zero": (0, {}),
    "yarn-theta-negative": (-1.0, {}), "yarn-theta-half": (0.5, {}), "yarn-context-zero": (10000.0, {"original_max_position_embeddings": 0}),
    "yarn-beta-negative": (10000.0, {"beta_fast": -1.0}), "yarn-untruncated-theta-one": (1, {"truncate": False}),
    "yarn-context-float-zero": (10000.0, {"original_max_position_embeddings": 0.0}), "yarn-context-string": (10000.0, {"original_max_position_embeddings": "x"}),
    "yarn-beta-string": (10000.0, {"beta_fast": "x"}), "yarn-betas-lists": (10000.0, {"beta_fast": [1], "beta_slow": [2]}),
}
# rope_parameters with keys named after layer types, which a class declaring layer_types reads per layer type
# (the theta is the top-level rope_theta, given beside them).
LAYER_TYPE_KEYS = {
    "only-layer-types": {"full_attention": {"rope_type": "default"}, "sliding_attention": {"rope_type": "default"}},
    "layer-type-beside-shared": {"rope_type": "default", "full_attention": {}},
    "null-layer-type-beside-shared": {"rope_type": "linear", "factor": 2.0, "sliding_attention": None},
    "yarn-beside-layer-type": {"rope_type": "yarn", "factor": 4.0, "rope_theta": 1e6, "full_attention": {}},
    "llama3-beside-layer-type": {"rope_type": "llama3", "factor": 4.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                                 "rope_theta": 1e6, "full_attention": {}},
    "linear-beside-layer-type": {"rope_type": "linear", "full_attention": {}},
    "unknown-type-beside-layer-type": {"rope_type": "foo", "full_attention": {}},
    "layer-type-without-factor": {"rope_type": "default", "rope_theta": 1e6, "full_attention": {"rope_type": "linear"}},
}


def _cases() -> list[tuple[str, str, dict]]:
    from tests.families import without_rope

    out = []
    for family in ["llama", *FAMILIES]:
        base, theta = without_rope(family)
        for name, params in PARAMETERS.items():
            out.append((family, f"{name}-transformers-4", dict(base, rope_theta=theta, rope_scaling=dict(params))))
            out.append((family, f"{name}-transformers-5", dict(base, rope_parameters={**params, "rope_theta": theta})))
        for name, (number, extra) in YARN_NUMBERS.items():
            params = {"rope_type": "yarn", "factor": 2.0, **extra}
            out.append((family, f"{name}-transformers-4", dict(base, rope_theta=number, rope_scaling=dict(params))))
            out.append((family, f"{name}-transformers-5", dict(base, rope_parameters={**params, "rope_theta": number})))
        for name, params in LAYER_TYPE_KEYS.items():
            out.append((family, name, dict(base, rope_theta=theta, rope_parameters=params)))
    return [(family, case, copy.deepcopy(config)) for family, case, config in out]  # no dict shared between cases


def _observed(config: dict) -> str | None:
    """What the installed transformers 5 refuses of `config`, its config class first, then the model."""
    from transformers import CONFIG_MAPPING, AutoModelForCausalLM
    from transformers.utils import logging

    logging.set_verbosity_error()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            built = CONFIG_MAPPING[config["model_type"]].from_dict(copy.deepcopy(config))  # it standardises in place
            AutoModelForCausalLM.from_config(built)
        except Exception as err:  # noqa: BLE001  (the refusal, whatever its type, is the observation)
            return f"{type(err).__name__}: " + " ".join(line.strip() for line in str(err).splitlines())
    return None


@pytest.mark.parametrize(("family", "case", "config"), _cases(), ids=lambda v: v if isinstance(v, str) else "")
def test_transformers5_refuses_the_rope_parameters_where_cfglint_says(family: str, case: str, config: dict, tmp_path: Path) -> None:  # noqa: ARG001  (in the test id)
    (tmp_path / "config.json").write_text(json.dumps(config), encoding="utf-8")
    view = context_of(document.load(tmp_path / "config.json"), [consumers.get("transformers-5")]).views["transformers-5"]
    assert _in_order(view.message if view.outcome == "error" else None) == _in_order(_observed(config))


def _in_order(message: str | None) -> str | None:
    """A message with the sets it prints in sorted order (Python's own changes with string hashing)."""
    def ordered(found: re.Match) -> str:
        return "{" + ", ".join(sorted(found.group(1).split(", "))) + "}"

    return re.sub(r"\{('[^']*'(?:, '[^']*')*)\}", ordered, message) if message else message


def test_the_rope_types_transformers5_builds_are_its_init_functions() -> None:
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    from cfglint.knowledge.transformers5 import ROPE_BUILT

    assert ROPE_BUILT == {"default", *ROPE_INIT_FUNCTIONS}
