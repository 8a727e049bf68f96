"""How much the weights check adds to `cfglint check`: a ~70B sharded checkpoint against its config alone.

Builds, in a temporary folder, a Llama-3-70B-shaped checkpoint (80 layers, hidden 8192, vocab 128256,
bf16) split into shards with a `model.safetensors.index.json`, as sparse files: each shard gets its real
header and is then extended to its full size without writing the data, so ~141 GB of tensors take a few
megabytes of disk. Next to it, a directory with the same config.json and no weights. Then it runs
`cfglint check` on each, alternating, and prints both medians in one run.

Usage:

    python scripts/bench_weights.py              # 15 runs each
    python scripts/bench_weights.py --runs 5 --shards 30
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CONFIG = {
    "architectures": ["LlamaForCausalLM"], "attention_bias": False, "bos_token_id": 128000, "eos_token_id": 128001,
    "hidden_act": "silu", "hidden_size": 8192, "intermediate_size": 28672, "max_position_embeddings": 8192,
    "mlp_bias": False, "model_type": "llama", "num_attention_heads": 64, "num_hidden_layers": 80,
    "num_key_value_heads": 8, "rms_norm_eps": 1e-05, "rope_scaling": None, "rope_theta": 500000.0,
    "tie_word_embeddings": False, "torch_dtype": "bfloat16", "vocab_size": 128256,
}


def llama_tensors(c: dict) -> dict[str, tuple[int, ...]]:
    h, i, v = c["hidden_size"], c["intermediate_size"], c["vocab_size"]
    hd = h // c["num_attention_heads"]
    q, kv = c["num_attention_heads"] * hd, c["num_key_value_heads"] * hd
    out: dict[str, tuple[int, ...]] = {"model.embed_tokens.weight": (v, h)}
    for n in range(c["num_hidden_layers"]):
        p = f"model.layers.{n}."
        out.update({
            p + "input_layernorm.weight": (h,), p + "post_attention_layernorm.weight": (h,),
            p + "self_attn.q_proj.weight": (q, h), p + "self_attn.k_proj.weight": (kv, h),
            p + "self_attn.v_proj.weight": (kv, h), p + "self_attn.o_proj.weight": (h, q),
            p + "mlp.gate_proj.weight": (i, h), p + "mlp.up_proj.weight": (i, h), p + "mlp.down_proj.weight": (h, i),
        })
    out["model.norm.weight"] = (h,)
    out["lm_head.weight"] = (v, h)
    return out


def write_sparse_shard(path: Path, shapes: dict[str, tuple[int, ...]]) -> int:
    """Write the header, then extend the file to its full size without writing tensor data."""
    header: dict[str, dict[str, object]] = {"__metadata__": {"format": "pt"}}
    offset = 0
    for name, shape in shapes.items():
        size = math.prod(shape) * 2  # bf16
        header[name] = {"dtype": "BF16", "shape": list(shape), "data_offsets": [offset, offset + size]}
        offset += size
    raw = json.dumps(header, separators=(",", ":")).encode()
    raw += b" " * (-len(raw) % 8)  # the format pads the header to 8 bytes with spaces
    with path.open("wb") as f:
        f.write(struct.pack("<Q", len(raw)) + raw)
        f.truncate(8 + len(raw) + offset)
    return offset


def build(root: Path, shards: int) -> tuple[Path, Path, int, int]:
    weights_dir, config_dir = root / "llama-70b-sharded", root / "llama-70b-config-only"
    for d in (weights_dir, config_dir):
        d.mkdir()
        (d / "config.json").write_text(json.dumps(CONFIG, indent=2, sort_keys=True) + "\n")
    tensors = llama_tensors(CONFIG)
    names = list(tensors)
    weight_map, total = {}, 0
    for s in range(shards):
        part = names[s * len(names) // shards:(s + 1) * len(names) // shards]  # sizes differ by one at most
        file = f"model-{s + 1:05d}-of-{shards:05d}.safetensors"
        total += write_sparse_shard(weights_dir / file, {n: tensors[n] for n in part})
        weight_map.update({n: file for n in part})
    (weights_dir / "model.safetensors.index.json").write_text(json.dumps({"metadata": {"total_size": total}, "weight_map": weight_map}, indent=2))
    parameters = sum(math.prod(s) for s in tensors.values())
    return weights_dir, config_dir, parameters, total


def time_check(directory: Path) -> tuple[float, int, str]:
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "cfglint", "check", str(directory), "--format", "concise"], capture_output=True, text=True)
    return time.perf_counter() - start, proc.returncode, proc.stdout + proc.stderr


def time_in_process(weights_dir: Path, runs: int) -> float:
    """Median seconds for the weights part alone: find the checkpoint, read its headers, plan every load."""
    from cfglint import consumers, document
    from cfglint.engine import context_of
    from cfglint.weights import loading

    profiles = [consumers.get(n) for n in consumers.names()]
    doc = document.load(weights_dir / "config.json")
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        ctx = context_of(doc, profiles)
        plans = loading.plan(ctx)
        times.append(time.perf_counter() - start)
    assert ctx.weights is not None and len(ctx.weights.tensors) == len(llama_tensors(CONFIG)) and plans
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--shards", type=int, default=30)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        weights_dir, config_dir, parameters, data = build(Path(tmp), args.shards)
        on_disk = sum(os.stat(p).st_blocks * 512 for p in weights_dir.iterdir())
        print(f"checkpoint: {args.shards} shards, {parameters / 1e9:.1f}B parameters, {data / 1e9:.0f} GB of tensor data described, {on_disk / 1e6:.1f} MB on disk")
        time_check(weights_dir), time_check(config_dir)  # warm the page cache and bytecode
        with_weights, config_only = [], []
        for _ in range(args.runs):
            seconds, code, out = time_check(weights_dir)
            if code not in (0, 1):
                print(out, file=sys.stderr)
                return 2
            with_weights.append(seconds)
            config_only.append(time_check(config_dir)[0])
        a, b = statistics.median(with_weights), statistics.median(config_only)
        print(f"cfglint check, median of {args.runs} runs:")
        print(f"  sharded ~70B checkpoint: {a * 1000:7.1f} ms")
        print(f"  config.json only:        {b * 1000:7.1f} ms")
        print(f"  weights check adds:      {(a - b) * 1000:7.1f} ms ({a / b:.2f}x)")
        print(f"findings on the checkpoint: {out.strip().splitlines()[-1] if out.strip() else 'none'}")
        inside = time_in_process(weights_dir, args.runs)
        print(f"in process, context with all profiles + reading {args.shards} headers + planning each load: {inside * 1000:.1f} ms (median)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
