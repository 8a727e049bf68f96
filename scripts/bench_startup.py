"""Cold-start cost of `cfglint check` against its peers, measured in one run.

Prints the median wall time of N fresh processes for each command, and the ratios the project tracks:
cfglint / check-jsonschema (target <= 0.5) and cfglint / `import typer, pydantic` (target <= 2.5).

    pip install check-jsonschema
    python scripts/bench_startup.py [--runs 21] [--sample samples/smollm2-135m-instruct-tf5]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def median_seconds(argv: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--sample", default="samples/smollm2-135m-instruct-tf5")
    args = parser.parse_args()
    config = str(ROOT / args.sample / "config.json")
    bindir = Path(sys.executable).parent
    cfglint = shutil.which("cfglint", path=str(bindir)) or shutil.which("cfglint")
    checker = shutil.which("check-jsonschema", path=str(bindir)) or shutil.which("check-jsonschema")
    if cfglint is None or checker is None:
        sys.exit("needs cfglint and check-jsonschema on PATH (pip install . check-jsonschema)")
    with tempfile.TemporaryDirectory() as tmp:
        schema = Path(tmp) / "schema.json"
        schema.write_text(json.dumps({"type": "object", "required": ["hidden_size"]}))
        commands = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "import typer, pydantic": [sys.executable, "-c", "import typer, pydantic"],
            "check-jsonschema": [checker, "--schemafile", str(schema), config],
            "cfglint check": [cfglint, "check", config],
        }
        for argv in commands.values():  # warm the OS caches and bytecode once
            subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
        medians = {name: median_seconds(argv, args.runs) for name, argv in commands.items()}
    print(f"median of {args.runs} cold starts on {args.sample} (python {sys.version.split()[0]}):")
    for name, seconds in medians.items():
        print(f"  {name:<24} {seconds * 1000:7.1f} ms")
    ours = medians["cfglint check"]
    print(f"  cfglint / check-jsonschema       {ours / medians['check-jsonschema']:.2f}  (target <= 0.50)")
    print(f"  cfglint / import typer, pydantic {ours / medians['import typer, pydantic']:.2f}  (target <= 2.50)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
