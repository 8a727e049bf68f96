#!/usr/bin/env python3
"""Two states of cfglint over one corpus, their runs alternated: the time a file of one against the other's.

This machine's speed drifts by up to 1.5x for minutes at a time, more than most changes being measured, so
two runs one after the other can mislead. Here one worker process per source tree (each importing its own
`src` and running its own `scripts/bench_families.check_run`, what `cfglint check --format json` does) checks
the same corpus of scripts/bench_families.py, one run of each in turn, and the ratio is taken run by run.

When the drift is larger than the change, `--instructions` counts instead what valgrind's callgrind counts
(instructions, the same for the same run whatever else the machine does): for each tree, a process checking
the corpus once and one checking it three times, PYTHONHASHSEED=0; half their difference is one run.

Usage, from a checkout (another state as a worktree: `git worktree add /tmp/before <commit>`):

    python scripts/bench_compare.py /tmp/before .                  # 3000 directories, 8 rounds
    python scripts/bench_compare.py /tmp/before . --count 300 --rounds 2
    python scripts/bench_compare.py /tmp/before . --instructions --count 1000   # a minute a tree
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent


def instructions(tree: str, paths_file: str, runs: int) -> int:
    """What callgrind counts for a process of this tree checking the corpus `runs` times."""
    with tempfile.TemporaryDirectory(prefix="cfglint-callgrind-") as out:
        env = {**os.environ, "PYTHONPATH": str(Path(tree).resolve() / "src"), "PYTHONHASHSEED": "0"}
        argv = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}/callgrind.out",
                sys.executable, __file__, "--count-runs", str(Path(tree).resolve()), paths_file, str(runs)]
        done = subprocess.run(argv, capture_output=True, text=True, env=env)
        if done.returncode != 0:
            raise SystemExit(f"valgrind failed (exit {done.returncode}): {done.stderr.strip().splitlines()[-1:]}")
        counted = [line for line in done.stderr.splitlines() if "Collected :" in line]
        return int(counted[-1].split()[-1])


def run_times(tree: str, paths_file: str, runs: int) -> None:
    """Check the corpus `runs` times (the process callgrind counts)."""
    sys.path.insert(0, str(Path(tree) / "scripts"))
    import bench_families  # the tree's own, as in worker

    paths = Path(paths_file).read_text(encoding="utf-8").split("\n")
    for _ in range(runs):
        bench_families.check_run(paths)


def count_instructions(before: str, after: str, count: int) -> tuple[int, int]:
    sys.path.insert(0, str(SCRIPTS))
    import bench_families

    if shutil.which("valgrind") is None:
        raise SystemExit("--instructions needs valgrind (apt-get install valgrind)")
    with tempfile.TemporaryDirectory(prefix="cfglint-compare-") as tmp:
        paths, _ = bench_families.build_corpus(Path(tmp), count, 0)
        paths_file = Path(tmp) / "paths.txt"
        paths_file.write_text("\n".join(paths), encoding="utf-8")
        per_run = []
        for tree in (before, after):
            one, three = (instructions(tree, str(paths_file), runs) for runs in (1, 3))
            per_run.append((three - one) // 2)
    return per_run[0], per_run[1]


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
    if argv[:1] == ["--count-runs"]:
        run_times(argv[1], argv[2], int(argv[3]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", help="a checkout of one state (its src/ and scripts/)")
    parser.add_argument("after", help="a checkout of the other")
    parser.add_argument("--count", type=int, default=3000, help="model directories in the corpus (default 3000)")
    parser.add_argument("--rounds", type=int, default=8, help="runs of each, alternated (default 8)")
    parser.add_argument("--instructions", action="store_true", help="count instructions under valgrind instead of timing")
    args = parser.parse_args(argv)
    if args.instructions:
        before_count, after_count = count_instructions(args.before, args.after, args.count)
        print(f"corpus: {args.count} model directories (scripts/bench_families.py, seed 0), instructions of one run (callgrind)")
        print(f"  before {args.before}: {before_count / 1e6:,.1f} million ({before_count / args.count / 1e3:,.0f} thousand a file)")
        print(f"  after  {args.after}: {after_count / 1e6:,.1f} million ({after_count / args.count / 1e3:,.0f} thousand a file)")
        print(f"  after / before: {after_count / before_count:.3f}")
        return 0
    before, after = compare(args.before, args.after, args.count, args.rounds)
    ratios = [b / a for a, b in zip(before, after)]
    print(f"corpus: {args.count} model directories (scripts/bench_families.py, seed 0), {args.rounds} rounds, CPU time")
    print(f"  before {args.before}: best {1000 * min(before) / args.count:.3f} ms a file")
    print(f"  after  {args.after}: best {1000 * min(after) / args.count:.3f} ms a file")
    print(f"  after / before: median of the rounds' ratios {statistics.median(ratios):.3f}, of the best times {min(after) / min(before):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
