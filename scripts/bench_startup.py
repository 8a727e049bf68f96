"""Cold-start cost of `cfglint check` against its peers, measured in one run.

Prints the median wall time of N fresh processes for each command (run round-robin), and the ratios the
project tracks: cfglint / check-jsonschema (target <= 0.5) and cfglint / `import typer, pydantic` (target
<= 2.5). The "floor" line is the least a typer command that validates one pydantic model costs, the stack
cfglint is built on, so its ratio shows how much of cfglint's time is that stack's.

    pip install check-jsonschema
    python scripts/bench_startup.py [--runs 21] [--sample samples/smollm2-135m-instruct-tf5]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


# The least any typer command that validates with a pydantic model can cost: cfglint's own stack, bare.
STACK_FLOOR = """
import os
os.environ["PYDANTIC_DISABLE_PLUGINS"] = "__all__"  # as cfglint does
import typer, pydantic
class Config(pydantic.BaseModel):
    hidden_size: int
app = typer.Typer()
@app.command()
def check(path: str) -> None:
    Config.model_validate({"hidden_size": 1})
app(["x"], standalone_mode=False)
"""


# Bytecode may be written: an installed package has it (pip compiles at install), so a checkout measured
# with PYTHONDONTWRITEBYTECODE set would pay for compiling its own sources at every start.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def run(argv: list[str]) -> None:
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT, env=ENV)


def medians(commands: dict[str, list[str]], runs: int) -> dict[str, float]:
    """Round-robin: each round starts every command once, so a busy spell slows all of them alike."""
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, argv in commands.items():
            start = time.perf_counter()
            run(argv)
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(t) for name, t in times.items()}


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
            "typer + pydantic floor": [sys.executable, "-c", STACK_FLOOR],
            "check-jsonschema": [checker, "--schemafile", str(schema), config],
            "cfglint check": [cfglint, "check", config],
        }
        for argv in commands.values():  # warm the OS caches and write bytecode once
            run(argv)
        median = medians(commands, args.runs)
    print(f"median of {args.runs} cold starts on {args.sample} (python {sys.version.split()[0]}):")
    for name, seconds in median.items():
        print(f"  {name:<24} {seconds * 1000:7.1f} ms")
    ours, peer = median["cfglint check"], median["check-jsonschema"]
    print(f"  cfglint / check-jsonschema       {ours / peer:.2f}  (target <= 0.50)")
    print(f"  cfglint / import typer, pydantic {ours / median['import typer, pydantic']:.2f}  (target <= 2.50)")
    print(f"  floor / check-jsonschema         {median['typer + pydantic floor'] / peer:.2f}  (a typer command validating one pydantic model)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
