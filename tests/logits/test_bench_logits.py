"""scripts/bench_logits.py prints, in one run, the check's peak memory and both forwards' times with their targets."""

from __future__ import annotations

import re
import subprocess
import sys

from tests.conftest import ROOT


def test_bench_prints_memory_and_time_against_their_targets(tiny_model_dir):
    model_dir = tiny_model_dir("bench", rope_parameters={"rope_type": "default", "rope_theta": 100000.0})
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "bench_logits.py"), str(model_dir), "--runs", "2", "--tokens", "2"],
        capture_output=True, text=True, cwd=ROOT, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert out.startswith("machine: ") and f"model: {model_dir}\n" in out
    assert re.search(r"memory: `cfglint check --logits --tokens 2` \(\d+ s, every consumer; 4 named by findings\)", out)
    ratios = re.findall(r"(\d+\.\d\d)x (?:in all|the weights) \[target <= 1\.5x: (met|NOT met)\]", out)
    assert len(ratios) == 2
    for ratio, verdict in ratios:
        assert verdict == ("met" if float(ratio) <= 1.5 else "NOT met")
    timings = re.findall(r"reading [\d,]+ ms, transformers [\d,]+ ms: (\d+\.\d\d)x .*max \|logit diff\| (\S+)", out)
    assert len(timings) == 2
    for _, gap in timings:
        assert float(gap) <= 1e-4  # the timed reading computes what transformers computes
