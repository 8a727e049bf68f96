"""Property-based tests of every input cfglint reads: tests/fuzz/inputs.py generates them, properties.py says
what must hold for each (CHECKS). Derandomized and without an example database, so a run is the same on every
machine; a failure prints the folder. scripts/fuzz_campaign.py runs the same checks for longer and saves what
fails under regressions/, which test_regressions replays. CFGLINT_FUZZ_SCALE multiplies every example count."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from tests.fuzz import properties
from tests.family import family as llama_family
from tests.fuzz.inputs import from_json

REGRESSIONS = Path(__file__).parent / "regressions"
SCALE = float(os.environ.get("CFGLINT_FUZZ_SCALE", "1"))


def budget(examples: int, seed_free: bool = True) -> settings:
    return settings(max_examples=max(1, int(examples)), derandomize=seed_free, database=None, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large], print_blob=True)


@pytest.mark.parametrize("name", list(properties.CHECKS))
def test_property(name):
    strategy, check, examples = properties.CHECKS[name]
    budget(examples * SCALE)(given(strategy)(lambda args: check(*args)))()


def test_the_transformers5_sample_was_mostly_loadable():
    """The transformers 5 property proves something only on inputs transformers 5 loads: enough of them must."""
    if not properties.LOADED:
        pytest.skip("runs after test_property[safe-fix-keeps-transformers5]")
    assert sum(properties.LOADED) >= 0.3 * len(properties.LOADED), f"{sum(properties.LOADED)} of {len(properties.LOADED)} loaded"


@pytest.mark.parametrize("case", sorted(p.name for p in REGRESSIONS.glob("*.json")))
def test_regressions(case):
    """Every folder a campaign found failing, replayed through every property of a folder."""
    folder = from_json(json.loads((REGRESSIONS / case).read_text()))
    properties.commands_exit_cleanly(folder)
    properties.fix_write_is_idempotent(folder, unsafe=False)
    properties.fix_write_is_idempotent(folder, unsafe=True)
    properties.baseline_round_trip(folder)
    properties.safe_fix_keeps_transformers5_reading(folder, properties.transformers5_reading)


def _stop_folder(generation_eos: object | None) -> dict[str, bytes]:
    """A Llama 3 layout: config.json's eos 2 (</s>), the template ends turns with <|eot_id|> (3)."""
    from tests.fuzz.inputs import dump
    from tests.rule_fixtures import chat

    files = {"config.json": dict(llama_family()["tf4-default"], eos_token_id=2), **chat(eos_token="</s>")}
    if generation_eos is not None:
        files["generation_config.json"] = {"eos_token_id": generation_eos}
    return {name: (value if isinstance(value, str) else dump(value)).encode() for name, value in files.items()}


def test_t001_safe_fix_changes_config_json_but_not_how_transformers5_runs(tmp_path):
    """The one safe fix that changes AutoConfig's reading (config.json's eos_token_id): generate() stops where
    it did, and the property holds; the same edit without a generation_config.json changes generate()'s stop
    set, and the property catches it."""
    from tests.fuzz.inputs import write

    model = write(_stop_folder([2, 3]), tmp_path / "model")
    assert properties.exits_cleanly(["fix", str(model), "--write"]) in (0, 1)
    assert json.loads((model / "config.json").read_text())["eos_token_id"] == [2, 3]  # the safe fix did write
    assert properties.safe_fix_keeps_transformers5_reading(_stop_folder([2, 3]), properties.transformers5_reading)
    without = _stop_folder(None)
    assert properties.safe_fix_keeps_transformers5_reading(without, properties.transformers5_reading)  # unsafe: not applied
    with pytest.raises(AssertionError):
        properties.safe_fix_keeps_transformers5_reading(without, properties.transformers5_reading, ("--unsafe-fixes",))
