#!/usr/bin/env python3
"""Two states of cfglint over one corpus, their runs alternated: the time a file of one against the other's.

This machine's speed drifts by up to 1.5x for minutes at a time, more than most changes being measured, so
two runs one after the other can mislead. Here one worker process per source tree (each importing its own
`src` and running its own `scripts/bench_families.check_run`, what `cfglint check --format json` does) checks
the same corpus of scripts/bench_families.py, one run of each in turn, and the ratio is taken run by run.

Usage, from a checkout (another state as a worktree: `git worktree add /tmp/before <commit>`):

    python scripts/bench_compare.py /tmp/before .                  # 3000 directories, 8 rounds
    python scripts/bench_compare.py /tmp/before . --count 300 --rounds 2
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent


def worker(tree: str, paths: list[str]) -> None:
    """Check the corpus once to warm up, then once for each line read, printing the CPU seconds it took."""
    sys.path.insert(0, str(Path(tree) / "scripts"))
    import bench_families  # the tree's own: its check_run, over its own src (PYTHONPATH)

    bench_families.check_run(paths)
    for _ in sys.stdin:
        start = time.process_time()
        bench_families.check_run(paths)
        print(time.process_time() - start, flush=True)


def compare(before: str, after: str, count: int, rounds: int) -> tuple[list[float], list[float]]:
    """Seconds of each round for each tree, their runs alternated."""
    sys.path.insert(0, str(SCRIPTS))
    import bench_families

    with tempfile.TemporaryDirectory(prefix="cfglint-compare-") as tmp:
        paths, _ = bench_families.build_corpus(Path(tmp), count, 0)
        workers = []
        for tree in (before, after):
            env = {**os.environ, "PYTHONPATH": str(Path(tree).resolve() / "src")}
            argv = [sys.executable, __file__, "--worker", str(Path(tree).resolve()), *paths]
            workers.append(subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env))
        times: tuple[list[float], list[float]] = ([], [])
        try:
            for _ in range(rounds):
                for process, out in zip(workers, times):
                    assert process.stdin is not None and process.stdout is not None
                    process.stdin.write("run\n")
                    process.stdin.flush()
                    line = process.stdout.readline()
                    if not line:
                        raise SystemExit(f"a worker stopped (exit {process.wait()})")
                    out.append(float(line))
        finally:
            for process in workers:
                assert process.stdin is not None
                process.stdin.close()
                process.wait()
    return times


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--worker"]:
        worker(argv[1], argv[2:])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", help="a checkout of one state (its src/ and scripts/)")
    parser.add_argument("after", help="a checkout of the other")
    parser.add_argument("--count", type=int, default=3000, help="model directories in the corpus (default 3000)")
    parser.add_argument("--rounds", type=int, default=8, help="runs of each, alternated (default 8)")
    args = parser.parse_args(argv)
    before, after = compare(args.before, args.after, args.count, args.rounds)
    ratios = [b / a for a, b in zip(before, after)]
    print(f"corpus: {args.count} model directories (scripts/bench_families.py, seed 0), {args.rounds} rounds, CPU time")
    print(f"  before {args.before}: best {1000 * min(before) / args.count:.3f} ms a file")
    print(f"  after  {args.after}: best {1000 * min(after) / args.count:.3f} ms a file")
    print(f"  after / before: median of the rounds' ratios {statistics.median(ratios):.3f}, of the best times {min(after) / min(before):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
