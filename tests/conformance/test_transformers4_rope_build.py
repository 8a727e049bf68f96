"""transformers 4.57's config class takes a file, and building its model's attention or RoPE still stops: cfglint
predicts both.

For every family and a set of `rope_scaling` values in the transformers 4 layout, the real transformers 4.57 (with
torch) loads the config and builds the family's RotaryEmbedding (tests/conformance/probes/
transformers4_family_probe.py), and cfglint's transformers-4 reading must say the same: loads, or the error with
the runtime's own words. What the cases reach: __init__'s copy of a legacy `type` and rope_config_validation (a
dict without rope_type, a value that is not a dict), ROPE_INIT_FUNCTIONS (a type it does not build, a legacy type
a class does not copy), the init functions' own keys (the classes that validate nothing) and their
`head_dim * partial_rotary_factor` (a head_dim attribute of None: Mistral and Mixtral leave theirs None).
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest

from cfglint.compat import BASE as LLAMA_BASE
from cfglint.compat import FAMILY_BASES
from tests.conformance.test_families import predicted
from tests.conformance.venvs import TRANSFORMERS4_WITH_TORCH, run_probe, runtime_python

_LONG = {"short_factor": [1.0] * 8, "long_factor": [2.0] * 8}
SCALINGS = {
    "empty": {},
    "factor-only": {"factor": 2.0},
    "legacy-foo": {"type": "foo", "factor": 2.0},
    "foo": {"rope_type": "foo", "factor": 2.0},
    "proportional": {"rope_type": "proportional"},  # transformers 5 builds it
    "su": {"type": "su", **_LONG},
    "number": {"rope_type": 5, "factor": 2.0},
    "null": {"type": None, "factor": 2.0},
    "default": {"rope_type": "default"},
    "legacy-over-rope_type": {"type": "linear", "rope_type": "foo", "factor": 2.0},
    "linear-without-factor": {"rope_type": "linear"},
    "yarn-without-factor": {"rope_type": "yarn"},
    "longrope-without-factors": {"rope_type": "longrope"},
    "llama3-without-frequencies": {"rope_type": "llama3", "factor": 2.0},
    "legacy-dynamic": {"type": "dynamic", "factor": 2.0},
    "string": "linear",
    "false": False,
    "list": [],
    "zero": 0,
}
# head_dim as a file may give it, beside a scaling whose init function multiplies it
HEAD_DIMS = {
    "head-dim-null-dynamic": (None, {"rope_type": "dynamic", "factor": 2.0}),
    "head-dim-null-linear": (None, {"rope_type": "linear", "factor": 2.0}),
    "head-dim-absent-yarn": ("absent", {"rope_type": "yarn", "factor": 2.0}),
    # the first layer's attention, built before the RoPE: its scale divides by head_dim, its projections
    # are sized by it (Llama's and gpt-oss's classes derive a null one; Mistral's attention a falsy one)
    "head-dim-null": (None, None),
    "head-dim-zero": (0, None),
    "head-dim-zero-yarn": (0, {"rope_type": "yarn", "factor": 2.0}),
    "head-dim-string": ("16", None),
    # a negative rotary width: every init function's torch.arange(0, dim, 2) refuses it
    "head-dim-negative": (-4, None),
    "head-dim-negative-float-yarn": (-4.0, {"rope_type": "yarn", "factor": 2.0}),
    "head-dim-negative-linear": (-4, {"rope_type": "linear", "factor": 2.0}),
    "head-dim-negative-without-factor": (-4, {"rope_type": "linear"}),  # the init function's KeyError first
}

THETAS = {"null": None, "string": "x", "list": [1]}
# YaRN's arithmetic on its numbers: the validator compares the betas and divides the context by the original
# one; the init function takes logarithms of the theta and of the context over each beta (the correction range)
YARN_NUMBERS = {
    "yarn-theta-one": (1, {}), "yarn-theta-true": (True, {}), "yarn-theta-zero": (0, {}), "yarn-theta-negative": (-1.0, {}),
    "yarn-untruncated-theta-one": (1, {"truncate": False}), "yarn-context-zero": (10000.0, {"original_max_position_embeddings": 0}),
    "yarn-beta-string": (10000.0, {"beta_fast": "x"}), "yarn-betas-lists": (10000.0, {"beta_fast": [1], "beta_slow": [2]}),
    "yarn-beta-negative": (10000.0, {"beta_fast": -1.0}),
}


# DeepSeek-V3's attention reads the scaling's factor and, with mscale_all_dim, its mscale
MSCALES = {
    "mscale-string": {"rope_type": "yarn", "factor": 2.0, "mscale_all_dim": "x"},
    "mscale-factor-string": {"rope_type": "linear", "factor": "x", "mscale_all_dim": 1.0},
    "mscale-without-factor": {"rope_type": "dynamic", "mscale_all_dim": 1.0},
}


def _cases() -> dict[str, dict]:
    out = {}
    for family, base in {"llama": LLAMA_BASE, **FAMILY_BASES}.items():
        base = {k: v for k, v in copy.deepcopy(base).items() if k != "rope_parameters"}
        for name, scaling in SCALINGS.items():
            out[f"{family}-{name}"] = dict(copy.deepcopy(base), rope_scaling=copy.deepcopy(scaling))
        for name, (head_dim, scaling) in HEAD_DIMS.items():
            config = dict(copy.deepcopy(base), rope_scaling=copy.deepcopy(scaling))
            if scaling is None:
                config.pop("rope_scaling")
            if head_dim == "absent":
                config.pop("head_dim", None)
            else:
                config["head_dim"] = head_dim
            out[f"{family}-{name}"] = config
        # a base of another JSON type than a number: every init function raises it to a tensor
        for name, theta in THETAS.items():
            out[f"{family}-theta-{name}"] = dict(copy.deepcopy(base), rope_theta=theta)
        for name, scaling in MSCALES.items():
            out[f"{family}-{name}"] = dict(copy.deepcopy(base), rope_scaling=copy.deepcopy(scaling))
        for name, (theta, extra) in YARN_NUMBERS.items():
            out[f"{family}-{name}"] = dict(copy.deepcopy(base), rope_theta=theta, rope_scaling={"rope_type": "yarn", "factor": 2.0, **extra})
    return out


CASES = _cases()


@pytest.fixture(scope="module")
def observed(tmp_path_factory) -> dict[str, tuple[Path, dict]]:
    return transformers4_reports(tmp_path_factory.mktemp("transformers4-rope-build"), CASES)


def transformers4_reports(root: Path, cases: dict[str, dict], *flags: str) -> dict[str, tuple[Path, dict]]:
    """case -> (its directory under root, what the real 4.57 with torch reported of it), one probe process for
    all (transformers4_family_probe.py with `flags`)."""
    directories = {}
    for case, config in cases.items():
        directory = root / case
        directory.mkdir()
        (directory / "config.json").write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
        directories[str(directory)] = case
    python = runtime_python(*TRANSFORMERS4_WITH_TORCH)
    report = run_probe(python, "transformers4_family_probe.py", *flags, *directories, timeout=900)
    return {directories[d]: (Path(d), result) for d, result in report["results"].items()}


def _set_in_order(message: str) -> str:
    """A Python set in a message with its members sorted: the runtime's order changes with string hashing."""
    return re.sub(r"\{('[^{}]*')\}", lambda m: "{" + ", ".join(sorted(m.group(1).split(", "))) + "}", message)


@pytest.mark.parametrize("case", sorted(CASES))
def test_transformers4_builds_or_refuses_as_predicted(case, observed):
    directory, actual = observed[case]
    view = predicted(directory, "transformers-4")
    message = _set_in_order(actual["message"] or "")
    agrees = view.outcome == "loads" or bool(view.message) and _set_in_order(view.message) in message
    assert (view.outcome, agrees) == (actual["outcome"], True), (view.message, actual["message"])


def test_the_cases_reach_the_config_class_the_rope_and_a_build(observed):
    """Some case is refused by the config class, some only by building the RoPE (its init function's own
    KeyError and TypeError among them), and some builds: each path the prediction models is exercised."""
    messages = [result["message"] or "" for _, result in observed.values()]
    assert any("Missing required keys in `rope_scaling` for 'rope_type'='None'" in m for m in messages)
    assert any(m == "KeyError: 'proportional'" for m in messages)
    assert any(m == "KeyError: 'factor'" for m in messages)  # a class that validates nothing
    assert any(m.startswith("TypeError: unsupported operand type(s) for *: 'NoneType'") for m in messages)
    assert any(m.startswith("AttributeError: ") for m in messages)
    assert sum(result["outcome"] == "loads" for _, result in observed.values()) >= len(FAMILY_BASES)
