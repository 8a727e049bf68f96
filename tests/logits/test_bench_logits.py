"""scripts/bench_logits.py prints, in one run, the check's peak memory and both forwards' times with their targets."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.conftest import ROOT

from ..families import resaved
from .conftest import write_tiny_family


@pytest.fixture(params=["llama", "qwen2"])
def bench_dir(request, tiny_model_dir, tmp_path):
    if request.param == "llama":
        return tiny_model_dir("bench", rope_parameters={"rope_type": "default", "rope_theta": 100000.0})
    from cfglint.compat import FAMILY_BASES

    return write_tiny_family(tmp_path / "qwen2", resaved(FAMILY_BASES["qwen2"]))


def test_bench_prints_memory_and_time_against_their_targets(bench_dir):
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "bench_logits.py"), str(bench_dir), "--runs", "2", "--tokens", "2"],
        capture_output=True, text=True, cwd=ROOT, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert out.startswith("machine: ") and f"model: {bench_dir}\n" in out
    assert re.search(r"memory: `cfglint check --logits --tokens 2` \(\d+ s, every consumer; 4 named by findings\)", out)
    ratios = re.findall(r"(\d+\.\d\d)x (?:in all|the weights) \[target <= 1\.5x: (met|NOT met)\]", out)
    assert len(ratios) == 2
    for ratio, verdict in ratios:
        assert verdict == ("met" if float(ratio) <= 1.5 else "NOT met")
    [(over, verdict)] = re.findall(r"the check peaks -?[\d,]+ MiB above it: (\d+\.\d\d\d)x \[target <= 1\.05x: (met|NOT met)\]", out)
    assert verdict == ("met" if float(over) <= 1.05 else "NOT met")
    timings = re.findall(r"reading [\d,]+ ms, transformers [\d,]+ ms: (\d+\.\d\d)x \[target <= 1\.1x: (met|NOT met)\]; max \|logit diff\| (\S+)", out)
    assert len(timings) == 2
    for ratio, verdict, gap in timings:
        assert verdict == ("met" if float(ratio) <= 1.1 else "NOT met")
        assert float(gap) == 0  # the timed reading computes exactly what transformers computes
