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
