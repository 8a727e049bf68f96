"""What every conformance module that builds its own `checkpoints` (case id -> model directory) shares."""

from __future__ import annotations

import pytest

from tests.conformance.test_families import probe_reports


@pytest.fixture(scope="module")
def observed(checkpoints):
    """runtime -> case id -> the real runtime's report, one probe process per runtime for the module."""
    return probe_reports(checkpoints)
