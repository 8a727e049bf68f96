"""A rope_type no runtime builds (`"foo"`, `5`, `null`, `"su"` outside Phi-3), in both layouts, against the real
runtimes: transformers 4's config loads it; transformers 5's config class warns and its model refuses it
(tests/knowledge/test_transformers5_rope_types.py); mlx-lm refuses the types it has no RoPE for; mistral.rs
reads the layouts its structs have; llama.cpp's converter calls str.lower() on a type of another JSON type.
cfglint predicts each outcome, and quotes the refusal as the runtime words it.

The checkpoint is built by transformers 5 without RoPE scaling, then config.json is written with the case.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest

from cfglint.compat import BASE as LLAMA_BASE
from tests.conformance.test_families import checkpoint_for, predicted, probe_reports
from tests.families import BASES

# LlamaModel's converter (llama, mistral), TextModel's (qwen2), per layer type (gemma3_text), Phi-3's own
FAMILIES = ("llama", "mistral", "qwen2", "gemma3_text", "phi3")
TYPES = {"foo": "foo", "number": 5, "null": None, "su": "su"}
_LONG = {"short_factor": [1.0] * 8, "long_factor": [2.0] * 8}  # Phi-3's: one per frequency of its 16-wide heads
RUNTIMES = ("transformers-4", "mlx-lm", "mistralrs", "llama-cpp")


def _cases() -> dict[str, tuple[str, dict]]:
    out = {}
    for family in FAMILIES:
        base = copy.deepcopy(LLAMA_BASE if family == "llama" else BASES[family])
        for key in ("rope_scaling", "rope_parameters"):
            base.pop(key, None)
        theta = base.pop("rope_theta", 10000.0)
        for name, kind in TYPES.items():
            params = {"rope_type": kind, "factor": 2.0, **(_LONG if family == "phi3" else {})}
            out[f"{family}-{name}-transformers-4"] = (family, dict(base, rope_theta=theta, rope_scaling=_legacy(params)))
            out[f"{family}-{name}-transformers-5"] = (family, dict(base, rope_parameters={**params, "rope_theta": theta}))
    return out


def _legacy(params: dict) -> dict:
    """The transformers 4 layout's key for the type."""
    return {("type" if k == "rope_type" else k): v for k, v in params.items()}


CASES = _cases()


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("rope-types")
    out = {}
    for case, (_, config) in CASES.items():
        out[case] = checkpoint_for(config, root / case, built_without=("rope_scaling", "rope_parameters"))
    return out


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize("case", sorted(CASES))
def test_each_runtime_does_what_cfglint_predicts(case, runtime, checkpoints, observed):
    actual = observed(runtime)[case]
    view = predicted(checkpoints[case], runtime)
    message = re.sub(r" at line \d+ column \d+$", "", actual["message"] or "")  # serde's position: cfglint gives a pointer
    agrees = view.outcome in ("loads", "not-applicable") or message in view.message
    assert (view.outcome, agrees) == (actual["outcome"], True), (view.message, actual["message"])


def test_the_cases_are_worth_their_runs(checkpoints, observed):
    """The converter's str.lower() and mlx-lm's refusal each stop some case, and some case loads."""
    outcomes = {runtime: {observed(runtime)[case]["outcome"] for case in CASES} for runtime in RUNTIMES}
    assert outcomes["llama-cpp"] == {"loads", "error"}
    assert outcomes["mlx-lm"] == {"loads", "error"}
    assert any("'lower'" in (observed("llama-cpp")[case]["message"] or "") for case in CASES)


def test_phi3s_legacy_su_written_as_longrope_loads_everywhere_with_the_same_reading(checkpoints, tmp_path):
    """Phi-3's legacy rope_scaling `{"type": "su", "short_factor": ..., "long_factor": ...}` (the shape of
    Phi-3-mini-128k-instruct's first revision): transformers 5 refuses it, and with it mlx-lm; candle knows no
    such variant. R004's unsafe fix writes "longrope": every runtime loads it, and those that read "su" read
    the same values."""
    import shutil

    from cfglint.cli import main

    legacy, fixed = tmp_path / "su", tmp_path / "longrope"
    shutil.copytree(checkpoints["phi3-su-transformers-4"], legacy)
    config = json.loads((legacy / "config.json").read_text(encoding="utf-8"))
    config["rope_scaling"] = {"type": "su", **_LONG}
    (legacy / "config.json").write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    shutil.copytree(legacy, fixed)
    assert main(["fix", str(fixed), "--write", "--unsafe-fixes"]) in (0, 1)
    assert json.loads((fixed / "config.json").read_text(encoding="utf-8"))["rope_scaling"] == {"type": "longrope", **_LONG}
    observed = probe_reports({"su": legacy, "longrope": fixed})
    for runtime in RUNTIMES:
        before, after = observed(runtime)["su"], observed(runtime)["longrope"]
        assert (after["outcome"], predicted(fixed, runtime).outcome) == ("loads", "loads"), (runtime, after["message"])
        if before["outcome"] == "loads":  # the converter read the raw JSON where transformers 5 refused it
            assert _without(after["values"], "hparams_source") == _without(before["values"], "hparams_source"), runtime
    assert observed("mlx-lm")["su"]["outcome"] == "error"  # the fix is worth making
    assert _observed_transformers5(legacy) is not None and _observed_transformers5(fixed) is None


def _without(values: dict, key: str) -> dict:
    return {k: v for k, v in values.items() if k != key}


def _observed_transformers5(directory: Path) -> str | None:
    from tests.knowledge.test_transformers5_rope_types import _observed

    return _observed(json.loads((directory / "config.json").read_text(encoding="utf-8")))
