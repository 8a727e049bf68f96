"""A long fuzzing campaign: the checks of tests/fuzz (properties.CHECKS) with fresh random seeds, round after round,
until the time is up. Each failure hypothesis finds is shrunk and saved as tests/fuzz/regressions/NAME-HASH.json,
which tests/fuzz/test_fuzz.py::test_regressions replays from then on.

    python scripts/fuzz_campaign.py --minutes 60 [--examples 2000] [--check any-folder]...
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "src")]

from hypothesis import HealthCheck, given, settings  # noqa: E402

from tests.fuzz import properties  # noqa: E402
from tests.fuzz.inputs import Folder, to_json  # noqa: E402

REGRESSIONS = ROOT / "tests" / "fuzz" / "regressions"


def run_round(name: str, examples: int, seed: int) -> tuple[Folder, str] | None:
    """One run of a check with this seed: None when it held, else the shrunk failing folder and the error."""
    strategy, check, _ = properties.CHECKS[name]
    failing: list[Folder] = []

    def recorded(args: tuple) -> None:
        try:
            check(*args)
        except BaseException:
            failing.append(args[0])  # hypothesis replays the shrunk example last
            raise

    test = settings(max_examples=examples, database=None, deadline=None, derandomize=False,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])(given(strategy)(recorded))
    try:
        random.seed(seed)
        test()
    except Exception:  # noqa: BLE001 - any failure is what the campaign looks for
        if not failing:
            raise  # the check itself broke, not cfglint
        return failing[-1], traceback.format_exc(limit=-3)
    return None


def save(name: str, folder: Folder) -> Path:
    text = json.dumps(to_json(folder), indent=1, ensure_ascii=False) + "\n"
    path = REGRESSIONS / f"{name}-{hashlib.sha256(text.encode()).hexdigest()[:10]}.json"
    REGRESSIONS.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--examples", type=int, default=2000, help="examples per check per round")
    parser.add_argument("--check", action="append", choices=sorted(properties.CHECKS), help="only these checks (default: all)")
    parser.add_argument("--seed", type=int, default=None, help="first round's seed (default: from the clock)")
    args = parser.parse_args(argv)
    names = args.check or list(properties.CHECKS)
    deadline = time.monotonic() + args.minutes * 60
    seed = args.seed if args.seed is not None else int(time.time())
    found = 0
    while time.monotonic() < deadline:
        for name in names:
            if time.monotonic() >= deadline:
                break
            started = time.monotonic()
            outcome = run_round(name, args.examples, seed)
            took = time.monotonic() - started
            if outcome is None:
                print(f"{name} seed {seed}: {args.examples} examples held ({took:.0f} s)", flush=True)
                continue
            found += 1
            folder, error = outcome
            print(f"{name} seed {seed}: FAILED, saved {save(name, folder).relative_to(ROOT)}\n{error}", flush=True)
        seed += 1
    print(f"{found} failing input(s) saved under {REGRESSIONS.relative_to(ROOT)}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
