"""scripts/bench_weights.py builds its sparse ~70B checkpoint and prints both medians in one run."""

from __future__ import annotations

import re
import subprocess
import sys

from tests.conftest import ROOT


def test_bench_prints_both_medians():
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "bench_weights.py"), "--runs", "1", "--shards", "4"],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert re.search(r"^checkpoint: 4 shards, 70\.6B parameters, 141 GB of tensor data described, [\d.]+ MB on disk$", out, re.M), out
    assert re.search(r"^  sharded ~70B checkpoint: +[\d.]+ ms$", out, re.M) and re.search(r"^  config.json only: +[\d.]+ ms$", out, re.M)
    assert "findings on the checkpoint: none" in out  # the generated checkpoint matches its config
