#!/usr/bin/env python3
"""What `cfglint check --logits` costs: its peak memory against the weights, one reading's forward against transformers'.

In one run, on a model directory (default: SmolLM2-135M-Instruct, built by scripts/build_smollm2.py;
with --qwen2, the same weights saved by transformers 5 as a Qwen2ForCausalLM, see qwen2_dir()):

1. memory: runs the whole check (`cfglint check DIR --logits`, every consumer, N greedy tokens) in a child
   process and reports its peak resident memory against the size of the safetensors files (target: at
   most 1.5x). Weights are memory-mapped once and shared by the reference and every reading, so the check
   needs one copy of them plus the code of torch and transformers; a child that only imports those
   libraries is measured too, to show that part separately, and one that runs transformers alone (load
   and one forward, the check's reference by itself) shows the floor no check on this stack can go under:
   the check's peak against it has a target of at most 1.05x.
2. time: loads transformers 5 (eager, float32) once, builds the reading with transformers' own values
   (the same computation: the from-scratch forward for Llama, the family's own code otherwise) over the
   same tensors, and times both forwards on the same prompts, alternating, reporting medians (target: the
   reading at most 1.1x transformers').

Usage:

    python scripts/bench_logits.py                       # SmolLM2, 7 timing runs, 20 tokens, 1 thread
    python scripts/bench_logits.py --qwen2               # SmolLM2's weights as a Qwen2 checkpoint
    python scripts/bench_logits.py MODEL_DIR --runs 15 --threads 2
"""

from __future__ import annotations


import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import hardware  # noqa: E402  (the scripts folder)

SCRIPTS = Path(__file__).resolve().parent
MEMORY_TARGET = 1.5
OVER_TRANSFORMERS_TARGET = 1.05  # the check's peak against transformers alone on the same directory
TIME_TARGET = 1.1
DEFAULT_PROMPT = "The capital of France is"
LONG_PROMPT = (
    "The history of the printing press begins in the fifteenth century, when Johannes Gutenberg combined "
    "movable metal type, oil-based ink and a wooden press adapted from those used to make wine. Within fifty "
    "years, presses were running in more than two hundred European cities, and the price of books fell so "
    "quickly that reading, once the privilege of monks and nobles, became an everyday habit of merchants,"
)
# Children report their own peak (ru_maxrss is in KiB on Linux) on stderr's last line.
_PEAK = "import resource, sys; sys.stderr.write('\\npeak_kib %d\\n' % resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"
CHECK_CHILD = "import sys; from cfglint.cli import main; code = main(sys.argv[1:]); " + _PEAK + "; sys.exit(code)"
# transformers by itself on the same directory: load (float32, eager) and one forward over the default
# prompt. No check can peak below this, since the check's reference is exactly this model.
REFERENCE_CHILD = (
    "import sys, torch; from transformers import AutoTokenizer, AutoModelForCausalLM; "
    "model = AutoModelForCausalLM.from_pretrained(sys.argv[1], dtype=torch.float32, attn_implementation='eager', local_files_only=True); "
    "ids = AutoTokenizer.from_pretrained(sys.argv[1], local_files_only=True)(sys.argv[2], return_tensors='pt').input_ids; "
    "torch.inference_mode()(lambda: model(input_ids=ids, use_cache=False))(); " + _PEAK
)
# The libraries alone: torch, transformers with the directory's model class (argv[1]) and cfglint's check.
LIBRARIES_CHILD = (
    "import sys, torch, transformers; from transformers import AutoTokenizer; getattr(transformers, sys.argv[1]); "
    "import cfglint.logits.check, cfglint.cli; " + _PEAK
)


def mib(n_bytes: float) -> str:
    return f"{n_bytes / 2**20:,.0f} MiB"


def verdict(ratio: float, target: float) -> str:
    return f"target <= {target}x: {'met' if ratio <= target else 'NOT met'}"


def machine(threads: int) -> str:
    import torch
    import transformers

    return f"{hardware()}, torch {torch.__version__}, transformers {transformers.__version__}, {threads} thread{'s' if threads != 1 else ''}"


def default_model_dir() -> Path:
    spec = importlib.util.spec_from_file_location("build_smollm2", SCRIPTS / "build_smollm2.py")
    if spec is None or spec.loader is None:
        raise ImportError("build_smollm2")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.build()


def qwen2_dir() -> Path:
    """SmolLM2-135M-Instruct's weights saved by transformers 5 as a Qwen2ForCausalLM (built once, cached).

    Qwen2 is Llama with q/k/v biases: they are zero here, so the model still writes real text, and its
    config.json is what transformers 5 writes for Qwen2 (RoPE only in rope_parameters, theta 100000).
    Built in a child process: Linux keeps a process's peak memory across fork and exec, so building it
    here would raise every measured child's peak to this one's."""
    source = default_model_dir()
    target = source.parent / "smollm2-135m-instruct-as-qwen2"
    if not (target / "model.safetensors").is_file():
        subprocess.run([sys.executable, __file__, "--build-qwen2", str(source), str(target)], check=True)
    return target


def build_qwen2(source: Path, target: Path) -> None:
    import torch
    from transformers import AutoTokenizer, LlamaForCausalLM, Qwen2Config, Qwen2ForCausalLM

    llama = LlamaForCausalLM.from_pretrained(source, dtype=torch.float32, local_files_only=True)
    keys = ("vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
            "num_key_value_heads", "max_position_embeddings", "rms_norm_eps", "rope_parameters", "tie_word_embeddings",
            "bos_token_id", "eos_token_id", "hidden_act")  # fmt: skip
    qwen2 = Qwen2ForCausalLM(Qwen2Config(**{k: getattr(llama.config, k) for k in keys}))
    missing, unexpected = qwen2.load_state_dict(llama.state_dict(), strict=False)
    assert not unexpected and all(name.endswith(".bias") for name in missing), (missing, unexpected)
    with torch.no_grad():
        for name in missing:
            qwen2.get_parameter(name).zero_()
    partial = target.with_name(target.name + ".partial")
    qwen2.save_pretrained(partial)
    AutoTokenizer.from_pretrained(source, local_files_only=True).save_pretrained(partial)
    partial.rename(target)


def child_peak(code: str, args: list[str], threads: int) -> tuple[int, float, int, str]:
    """(exit code, seconds, peak resident bytes, stdout) of `python -c code args` in a fresh process."""
    env = {**os.environ, "OMP_NUM_THREADS": str(threads)}
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env)
    elapsed = time.perf_counter() - started
    lines = proc.stderr.strip().splitlines()
    if not lines or not lines[-1].startswith("peak_kib "):
        raise SystemExit(f"the child did not report its peak (exit {proc.returncode}):\n{proc.stderr[-2000:]}")
    return proc.returncode, elapsed, int(lines[-1].split()[1]) * 1024, proc.stdout


def measure_memory(model_dir: Path, tokens: int, threads: int) -> list[str]:
    weights = sum(p.stat().st_size for p in model_dir.glob("*.safetensors"))
    architecture = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))["architectures"][0]
    _, _, libraries, _ = child_peak(LIBRARIES_CHILD, [architecture], threads)
    _, _, alone, _ = child_peak(REFERENCE_CHILD, [str(model_dir), DEFAULT_PROMPT], threads)
    args = ["check", str(model_dir), "--logits", "--tokens", str(tokens), "--format", "json"]
    code, elapsed, peak, out = child_peak(CHECK_CHILD, args, threads)
    if code not in (0, 1):
        raise SystemExit(f"cfglint check --logits exited {code}")
    measured = {n for f in json.loads(out) for n in f.get("logits", {}).get("consumers", {})}
    # judged as printed: a verdict never contradicts the figure beside it
    total, own, over = round(peak / weights, 2), round((peak - libraries) / weights, 2), round(peak / alone, 3)
    return [
        f"memory: `cfglint check --logits --tokens {tokens}` ({elapsed:.0f} s, every consumer; "
        f"{len(measured)} named by findings): peak resident {mib(peak)}",
        f"  against the safetensors files ({mib(weights)}): {total:.2f}x in all [{verdict(total, MEMORY_TARGET)}]",
        f"  of which torch + transformers + cfglint imported, nothing loaded: {mib(libraries)}; "
        f"the check's own memory {mib(peak - libraries)} = {own:.2f}x the weights [{verdict(own, MEMORY_TARGET)}]",
        f"  transformers alone (load float32 + one forward, no cfglint): peak {mib(alone)} = {alone / weights:.2f}x "
        f"the weights; the check peaks {mib(peak - alone)} above it: {over:.3f}x [{verdict(over, OVER_TRANSFORMERS_TARGET)}]",
    ]


def timed(forward, ids) -> float:
    started = time.perf_counter()
    forward(ids)
    return time.perf_counter() - started


def measure_time(model_dir: Path, runs: int, threads: int) -> list[str]:
    import torch
    from transformers import AutoTokenizer

    from cfglint import consumers, document
    from cfglint.engine import context_of
    from cfglint.logits import TransformersReference, readings

    torch.set_num_threads(threads)
    reference = TransformersReference(model_dir)
    ctx = context_of(document.load(model_dir / "config.json"), [consumers.get("transformers-5")])
    reading = reference.reading(reference.values if reference.is_llama else dict(readings.plan(ctx)["transformers-5"].values or {}))
    tokenizer = AutoTokenizer.from_pretrained(model_dir, local_files_only=True)
    lines = [f"time: one forward over the prompt, all positions' logits, median of {runs} alternating runs"]
    for prompt in (DEFAULT_PROMPT, LONG_PROMPT):
        ids = tokenizer(prompt)["input_ids"]
        gap = (reading.logits(ids) - reference.logits(ids)).abs().max().item()  # also warms both up
        ours, theirs = [], []
        for _ in range(runs):
            theirs.append(timed(reference.logits, ids))
            ours.append(timed(reading.logits, ids))
        ratio = round(statistics.median(ours) / statistics.median(theirs), 2)  # judged as printed
        lines.append(
            f"  {len(ids):>3} tokens: reading {statistics.median(ours) * 1000:,.0f} ms, transformers "
            f"{statistics.median(theirs) * 1000:,.0f} ms: {ratio:.2f}x [{verdict(ratio, TIME_TARGET)}]; "
            f"max |logit diff| {gap:.2g}"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--build-qwen2"]:
        build_qwen2(Path(argv[1]), Path(argv[2]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model_dir", nargs="?", type=Path, help="a model directory (default: SmolLM2-135M-Instruct)")
    parser.add_argument("--qwen2", action="store_true", help="SmolLM2's weights as a Qwen2 checkpoint instead")
    parser.add_argument("--runs", type=int, default=7, help="timed forwards of each kind per prompt (default 7)")
    parser.add_argument("--tokens", type=int, default=20, help="greedy tokens the measured check compares (default 20)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads, in the check and the timing (default 1)")
    options = parser.parse_args(argv)
    model_dir = options.model_dir or (qwen2_dir() if options.qwen2 else default_model_dir())
    print(f"machine: {machine(options.threads)}")
    print(f"model: {model_dir}")
    for line in measure_memory(model_dir, options.tokens, options.threads) + measure_time(model_dir, options.runs, options.threads):
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
