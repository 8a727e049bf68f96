#!/usr/bin/env python3
"""Throughput of `cfglint check` over a mixed corpus in one process, and its cold start on a non-Llama sample.

In one run:

1. throughput: generates N model directories (config.json only, no weights) in a temporary folder from
   every shipped sample, one family after another (llama, qwen2, qwen3, mistral, mixtral, gemma,
   gemma2, gemma3_text, phi3, qwen2_moe, qwen3_moe), each with small deterministic perturbations: its
   rope theta changed (int or float), its layout changed (indent, key order, a final newline or not)
   and one optional key dropped. Then, in this process, times what `cfglint check --format json DIR...`
   does with them: a `Session`, `check_all` over every directory, and the JSON report written to the
   null device. Median of a few runs after a warm-up, in configs per second (target: at least 2,000 on
   this 2-core machine). The floor next to it, timed in the same rounds (alternating), is reading each
   file, `json.loads` and one pydantic `model_validate`: the least any checker on this stack does per file.
   The peer next to it: check-jsonschema over the same files in one process, each validated against that
   model's JSON Schema, per file with its start left out. Then, beside the target's corpus, as many
   fine-tunes: the samples under other names with the values their readings consult unchanged, where a run
   reads each distinct set of values once (cfglint.memo).
2. cold start: fresh processes of `cfglint check` on one non-Llama sample against the typer + pydantic
   floor that scripts/bench_startup.py measures (its functions, round-robin medians), target at most 1.1x;
   and, in the same rounds, on a Llama sample, whose hand-written readings are plain Python too.

Usage:

    python scripts/bench_families.py                         # 3000 configs, 5 runs, 21 cold starts
    python scripts/bench_families.py --count 30 --runs 1 --starts 1
    python scripts/bench_families.py --profile               # also where the time goes (cProfile)
"""

from __future__ import annotations


import argparse
import cProfile
import io
import json
import os
import pstats
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import hardware  # noqa: E402  (the scripts folder)

SCRIPTS = Path(__file__).resolve().parent
ROOT = SCRIPTS.parent
sys.path.insert(0, str(SCRIPTS))
import bench_startup  # noqa: E402  (scripts/bench_startup.py: the floor, run(), round-robin medians)

# pydantic scans every installed distribution for plugins on first use; cfglint's CLI disables that too.
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")

THROUGHPUT_TARGET = 2000.0  # configs per second, at least
STARTUP_TARGET = 1.1  # cfglint check / typer + pydantic floor, at most
DEFAULT_SAMPLE = "samples/qwen2.5-0.5b-instruct-tf5"
# Also timed, beside the target's sample: a Llama file, read by the hand-written Llama readings, which are
# plain Python like the family entries' (pydantic only words a refusal), so its check imports no pydantic.
LLAMA_SAMPLE = "samples/smollm2-135m-instruct-tf5"
THETAS = (10_000, 100_000, 500_000, 1_000_000, 5_000_000)
DROPPABLE = (
    "bos_token_id", "eos_token_id", "torch_dtype", "dtype", "tie_word_embeddings", "attention_dropout",
    "initializer_range", "use_cache", "transformers_version", "max_position_embeddings", "rms_norm_eps",
    "sliding_window", "use_sliding_window", "pad_token_id", "attention_bias",
)


def machine() -> str:
    import pydantic
    import typer

    import cfglint

    return f"{hardware()}, cfglint {cfglint.__version__}, pydantic {pydantic.VERSION}, typer {typer.__version__}"


# ---------------------------------------------------------------------------------------------- corpus


def samples_by_family() -> dict[str, list[tuple[str, dict]]]:
    """Every shipped sample's config (the weights-* ones are Llama configs made for the weights rules)."""
    families: dict[str, list[tuple[str, dict]]] = {}
    for config in sorted((ROOT / "samples").glob("*/config.json")):
        data = json.loads(config.read_text(encoding="utf-8"))
        families.setdefault(data.get("model_type", "?"), []).append((config.parent.name, data))
    return families


def _set_theta(data: dict, theta: float) -> None:
    """The rope theta where the sample keeps it: top-level `rope_theta`, or in `rope_parameters` (tf5)."""
    params = data.get("rope_parameters")
    if isinstance(params, dict):
        if isinstance(params.get("rope_theta"), (int, float)):
            params["rope_theta"] = theta
        for nested in params.values():  # gemma3's per-attention-type parameters
            if isinstance(nested, dict) and "rope_theta" in nested:
                nested["rope_theta"] = theta
    elif "rope_theta" in data:
        data["rope_theta"] = theta


def perturbed(data: dict, rng: random.Random) -> str:
    """A copy of one sample, slightly changed, as JSON text: theta, one dropped key, the layout."""
    data = json.loads(json.dumps(data))  # deep copy
    if rng.random() < 0.7:
        theta = rng.choice(THETAS)
        _set_theta(data, float(theta) if rng.random() < 0.5 else theta)
    droppable = [k for k in DROPPABLE if k in data]
    if droppable and rng.random() < 0.6:
        del data[rng.choice(droppable)]
    indent = rng.choice((2, 2, 2, 4, None))
    text = json.dumps(data, indent=indent, sort_keys=rng.random() < 0.3)
    return text + ("\n" if rng.random() < 0.8 else "")


def build_fine_tunes(root: Path, count: int) -> list[str]:
    """`count` model directories as a Hub of fine-tunes looks: each shipped sample under many names, the
    values its readings consult unchanged (`_name_or_path` and `transformers_version` differ)."""
    samples = [data for family in samples_by_family().values() for _, data in family]
    root.mkdir()
    paths = []
    for i in range(count):
        data = {**samples[i % len(samples)], "_name_or_path": f"someone/fine-tune-{i}", "transformers_version": f"4.{40 + i % 17}.0"}
        directory = root / f"{i:05d}-fine-tune"
        directory.mkdir()
        (directory / "config.json").write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        paths.append(str(directory))
    return paths


def build_corpus(root: Path, count: int, seed: int) -> tuple[list[str], dict[str, int]]:
    """`count` model directories, one family after another (each family's samples in turn)."""
    rng = random.Random(seed)
    families = samples_by_family()
    order = sorted(families)
    per_family = {name: 0 for name in order}
    paths = []
    for i in range(count):
        family = order[i % len(order)]
        samples = families[family]
        name, data = samples[(i // len(order)) % len(samples)]
        directory = root / f"{i:05d}-{name}"
        directory.mkdir()
        (directory / "config.json").write_text(perturbed(data, rng), encoding="utf-8")
        paths.append(str(directory))
        per_family[family] += 1
    return paths, per_family


# ------------------------------------------------------------------------------------------ throughput


def check_run(paths: list[str]) -> int:
    """What `cfglint check --format json PATHS...` does in its process, the report going to the null device."""
    from cfglint.batch import COMMAND_THRESHOLD, fewer_collections
    from cfglint.report import write_report
    from cfglint.session import Session

    with fewer_collections(COMMAND_THRESHOLD):  # as `cfglint` runs every command
        session = Session()
        results = session.check_all(paths)
        diagnostics = [d for r in results for d in r.diagnostics]
        write_report("json", results, diagnostics, output=os.devnull)
    if len(results) != len(paths) or session.unreadable:
        raise SystemExit(f"cfglint checked {len(results)} of {len(paths)} directories ({session.unreadable} unreadable)")
    return len(diagnostics)


def floor_model():
    import pydantic

    class Config(pydantic.BaseModel):  # the fields every family has; the rest allowed through
        model_config = pydantic.ConfigDict(extra="allow")
        model_type: str
        hidden_size: int
        num_attention_heads: int
        num_hidden_layers: int
        vocab_size: int
        num_key_value_heads: int | None = None
        intermediate_size: int | None = None
        rope_theta: float | None = None
        rope_parameters: dict | None = None
        rope_scaling: dict | None = None
        tie_word_embeddings: bool | None = None

    return Config


def floor_run(paths: list[str], model) -> int:
    """The least per file: read it, json.loads, one pydantic model_validate."""
    validated = 0
    for directory in paths:
        data = json.loads((Path(directory) / "config.json").read_bytes())
        model.model_validate(data)
        validated += 1
    return validated


def peer_per_file(paths: list[str], runs: int) -> float | None:
    """check-jsonschema (a linter of the same kind) over the same files in one process, validating each
    against the floor model's JSON Schema: seconds per file, its start left out ((all files - one file) /
    (n - 1), best of at least 3 rounds). None when it is not installed."""
    checker = shutil.which("check-jsonschema", path=str(Path(sys.executable).parent)) or shutil.which("check-jsonschema")
    if checker is None or len(paths) < 2:
        return None
    import subprocess

    files = [str(Path(p) / "config.json") for p in paths]
    with tempfile.TemporaryDirectory(prefix="cfglint-peer-") as tmp:
        schema = Path(tmp) / "schema.json"
        schema.write_text(json.dumps(floor_model().model_json_schema()), encoding="utf-8")

        def seconds(batch: list[str]) -> float:
            start = time.perf_counter()
            subprocess.run([checker, "--schemafile", str(schema), *batch], capture_output=True, check=True)
            return time.perf_counter() - start

        rounds = max(runs, 3)  # the best of a few: a start's noise is of the order of a few hundred files
        one = min(seconds(files[:1]) for _ in range(rounds))
        every = min(seconds(files) for _ in range(rounds))
    return (every - one) / (len(files) - 1)


def timed(fn, *args) -> float:
    start = time.perf_counter()
    fn(*args)
    return time.perf_counter() - start


def measure_throughput(paths: list[str], runs: int) -> tuple[float, float, int]:
    """Median seconds of the check and of the floor over `runs` alternating rounds, after one warm-up each."""
    model = floor_model()
    findings = check_run(paths)  # warm-up: imports, rule loading, OS caches
    floor_run(paths, model)
    ours, floor = [], []
    for _ in range(runs):
        ours.append(timed(check_run, paths))
        floor.append(timed(floor_run, paths, model))
    return statistics.median(ours), statistics.median(floor), findings


def profile_lines(paths: list[str], top: int = 15) -> list[str]:
    """cProfile of one warm run: cfglint's own functions by cumulative time, with their share of the run."""
    profiler = cProfile.Profile()
    profiler.enable()
    check_run(paths)
    profiler.disable()
    stats = pstats.Stats(profiler, stream=io.StringIO())
    total = max(stats.total_tt, 1e-9)  # type: ignore[attr-defined]  # pstats keeps its totals undocumented; typeshed omits them
    package = os.sep + "cfglint" + os.sep
    rows = []
    for (filename, line, func), (_cc, ncalls, tottime, cumtime, _callers) in stats.stats.items():  # type: ignore[attr-defined]  # as above
        if package not in filename:
            continue
        module = filename.split(package, 1)[1]
        rows.append((cumtime, tottime, ncalls, f"{module}:{line}({func})"))
    rows.sort(reverse=True)
    lines = [f"profile of one run ({total:.2f} s under cProfile), cfglint's functions, top {top} by cumulative time:",
             f"  {'cumulative':>10} {'share':>6} {'own':>8} {'calls':>9}  function"]
    for cumtime, tottime, ncalls, name in rows[:top]:
        lines.append(f"  {cumtime:9.3f}s {cumtime / total:6.1%} {tottime:7.3f}s {ncalls:9d}  {name}")
    own = sorted(rows, key=lambda r: r[1], reverse=True)[:top]
    lines.append(f"  top {top} by own time (cfglint's functions): "
                 + ", ".join(f"{name} {tottime / total:.1%}" for _c, tottime, _n, name in own))
    return lines


# --------------------------------------------------------------------------------------------- startup


def measure_startup(sample: str, starts: int) -> dict[str, float]:
    config = str(ROOT / sample / "config.json")
    bindir = Path(sys.executable).parent
    cfglint = shutil.which("cfglint", path=str(bindir)) or shutil.which("cfglint")
    if cfglint is None:
        raise SystemExit("needs cfglint on PATH (pip install .)")
    commands = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "typer + pydantic floor": [sys.executable, "-c", bench_startup.STACK_FLOOR],
        "cfglint check": [cfglint, "check", config],
        "cfglint check, Llama": [cfglint, "check", str(ROOT / LLAMA_SAMPLE / "config.json")],
    }
    for argv in commands.values():  # warm the OS caches and write bytecode once
        bench_startup.run(argv)
    return bench_startup.medians(commands, starts)


def verdict(met: bool, target: str) -> str:
    return f"[target {target}: {'met' if met else 'NOT met'}]"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=3000, help="model directories in the corpus (default 3000)")
    parser.add_argument("--runs", type=int, default=5, help="timed throughput runs after the warm-up (default 5)")
    parser.add_argument("--starts", type=int, default=21, help="cold starts of each command (default 21)")
    parser.add_argument("--sample", default=DEFAULT_SAMPLE, help=f"the cold-start sample (default {DEFAULT_SAMPLE})")
    parser.add_argument("--seed", type=int, default=0, help="seed of the perturbations (default 0)")
    parser.add_argument("--profile", action="store_true", help="also print where one run's time goes (cProfile)")
    options = parser.parse_args(argv)
    if json.loads((ROOT / options.sample / "config.json").read_text()).get("model_type") == "llama":
        parser.error(f"{options.sample} is a Llama config; the cold start is measured on another family")

    print(f"machine: {machine()}", flush=True)
    with tempfile.TemporaryDirectory(prefix="cfglint-families-") as tmp:
        paths, per_family = build_corpus(Path(tmp), options.count, options.seed)
        print(f"corpus: {len(paths)} model directories, config.json only, seed {options.seed}: "
              + ", ".join(f"{name} {n}" for name, n in per_family.items()), flush=True)
        ours, floor, findings = measure_throughput(paths, options.runs)
        rate, floor_rate = len(paths) / ours, len(paths) / floor
        print(f"throughput, one process, median of {options.runs} run{'s' if options.runs != 1 else ''} after a warm-up:")
        print(f"  cfglint check (Session().check_all + json report to {os.devnull}): {ours * 1000:8.1f} ms = "
              f"{rate:7.0f} configs/s {verdict(rate >= THROUGHPUT_TARGET, f'>= {THROUGHPUT_TARGET:.0f} configs/s')}; "
              f"{findings} findings")
        print(f"  floor (read + json.loads + one pydantic model_validate):  {floor * 1000:8.1f} ms = "
              f"{floor_rate:7.0f} configs/s; cfglint / floor {ours / floor:.1f}x the time")
        peer = peer_per_file(paths, options.runs)
        if peer is None:
            print("  check-jsonschema: not installed (pip install check-jsonschema), no peer figure")
        elif peer <= 0:
            print(f"  check-jsonschema: {len(paths)} files take no more than its start-up's noise; no per-file figure")
        else:
            print(f"  check-jsonschema, one schema per file, its start left out: {peer * 1000:.3f} ms a file = "
                  f"{1 / peer:7.0f} configs/s; cfglint / check-jsonschema {ours / len(paths) / peer:.1f}x the time a file")
        tunes = build_fine_tunes(Path(tmp) / "fine-tunes", options.count)
        tuned, _, _ = measure_throughput(tunes, options.runs)
        print(f"  the same count of fine-tunes (each sample under other names, same values): {tuned * 1000:8.1f} ms = "
              f"{len(tunes) / tuned:7.0f} configs/s")
        if options.profile:
            for line in profile_lines(paths):
                print(line)
    sys.stdout.flush()
    median = measure_startup(options.sample, options.starts)
    print(f"cold start, median of {options.starts} round-robin start{'s' if options.starts != 1 else ''} on {options.sample}:")
    for name, seconds in median.items():
        print(f"  {name:<24} {seconds * 1000:7.1f} ms")
    ratio = median["cfglint check"] / median["typer + pydantic floor"]
    print(f"  cfglint check / typer + pydantic floor {ratio:.2f}x {verdict(ratio <= STARTUP_TARGET, f'<= {STARTUP_TARGET}x')}")
    llama = median["cfglint check, Llama"] / median["typer + pydantic floor"]
    print(f"  cfglint check, Llama ({LLAMA_SAMPLE}) / typer + pydantic floor {llama:.2f}x {verdict(llama <= STARTUP_TARGET, f'<= {STARTUP_TARGET}x')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
