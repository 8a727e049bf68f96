"""Reports do not depend on the process: the same files give the same bytes under any string hashing.

Python randomises str hashes per process, so anything printed from a set or a set-ordered dict would
change from run to run; a baseline, a golden file or a diff in CI would then flicker.
"""

from __future__ import annotations

import os
import subprocess
import sys

from tests.conformance.test_serde_profiles import write_variants


def run(args: list[str], cwd, seed: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONHASHSEED": seed}
    return subprocess.run([sys.executable, "-m", "cfglint", *args], capture_output=True, text=True, cwd=cwd, env=env)


def test_reports_are_the_same_under_any_hash_seed(tmp_path):
    paths = write_variants(tmp_path)
    for command in (["view", "--format", "json"], ["check", "--format", "json", "--isolated"], ["check", "--isolated"]):
        first, second = (run(command + paths, tmp_path, seed) for seed in ("1", "2"))
        assert first.returncode == second.returncode
        assert first.stdout == second.stdout and first.stderr == second.stderr
