#!/usr/bin/env python3
"""The README's demonstration on the real SmolLM2-135M-Instruct: check -> divergence -> fix -> agreement.

Builds the model directory with scripts/build_smollm2.py (or reuses the cached one), copies it into a
scratch folder as `smollm2/` (config and tokenizer copied, the weights a symlink: the cache is never
written), then runs

    cfglint check smollm2 --logits --format concise
    cfglint fix --write smollm2
    cfglint check smollm2 --logits --format concise

and prints a console transcript of the three, after a line saying on what machine and with which
versions it ran. Needs the logits extra plus gguf and accelerate for the first build.

Usage: python scripts/demo_smollm2.py [--prompt TEXT] [--tokens N]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent


def load_script(name: str):
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    if spec is None or spec.loader is None:
        raise ImportError(name)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def copy_model(source: Path, target: Path) -> None:
    target.mkdir()
    for item in source.iterdir():
        if item.suffix == ".safetensors":
            (target / item.name).symlink_to(item.resolve())
        else:
            shutil.copy2(item, target / item.name)


def run(args: list[str], cwd: Path) -> str:
    env = {**os.environ, "NO_COLOR": "1"}
    proc = subprocess.run([sys.executable, "-m", "cfglint", *args], cwd=cwd, capture_output=True, text=True, env=env)
    return f"$ cfglint {' '.join(args)}\n{proc.stdout}{proc.stderr}(exit {proc.returncode})\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompt", help="passed to --prompt (default: the check's own default)")
    parser.add_argument("--tokens", type=int, help="passed to --tokens (default: the check's own default)")
    options = parser.parse_args(argv)
    extra = (["--prompt", options.prompt] if options.prompt else []) + (["--tokens", str(options.tokens)] if options.tokens else [])

    source = load_script("build_smollm2").build()
    import torch

    print(f"# {load_script('bench_logits').machine(torch.get_num_threads())}")
    with tempfile.TemporaryDirectory(prefix="cfglint-demo-") as scratch:
        root = Path(scratch)
        copy_model(source, root / "smollm2")
        check = ["check", "smollm2", "--logits", *extra, "--format", "concise"]
        for args in (check, ["fix", "--write", "smollm2"], check):
            print(run(args, root), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
