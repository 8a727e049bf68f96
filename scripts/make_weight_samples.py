"""Write the tiny weight samples: real safetensors checkpoints whose configs disagree with them.

Each ``samples/weights-<name>/`` holds a ``config.json`` in the layout transformers 4.57 saves and a
checkpoint with transformers' tensor names, written with the safetensors library from seeded random
numpy arrays (hidden 16, 4 heads of 4, 2 layers, vocab 64: each file is about 10 KB). One
mismatch per sample, plus a consistent single-file and a consistent sharded checkpoint as controls.

Usage (numpy and safetensors, from the test extras):

    python scripts/make_weight_samples.py            # rewrite samples/weights-*
    python scripts/make_weight_samples.py --check    # exit 1 if a committed file differs
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import numpy as np
from safetensors.numpy import save_file

SAMPLES_DIR = Path(__file__).resolve().parent.parent / "samples"

BASE = {
    "architectures": ["LlamaForCausalLM"],
    "attention_bias": False,
    "attention_dropout": 0.0,
    "bos_token_id": 1,
    "eos_token_id": 2,
    "head_dim": 4,
    "hidden_act": "silu",
    "hidden_size": 16,
    "initializer_range": 0.02,
    "intermediate_size": 32,
    "max_position_embeddings": 128,
    "mlp_bias": False,
    "model_type": "llama",
    "num_attention_heads": 4,
    "num_hidden_layers": 2,
    "num_key_value_heads": 2,
    "pretraining_tp": 1,
    "rms_norm_eps": 1e-05,
    "rope_scaling": None,
    "rope_theta": 10000.0,
    "tie_word_embeddings": False,
    "torch_dtype": "float16",
    "transformers_version": "4.57.6",
    "use_cache": True,
    "vocab_size": 64,
}


def tensors(config: dict, *, layers=None, vocab=None, kv_heads=None, attention_bias=(), mlp_bias=False,
            head=None, inv_freq=False, dtype=np.float16, seed=0) -> dict[str, np.ndarray]:
    """A Llama state dict as transformers saves it; keyword arguments make it differ from the config."""
    rng = np.random.default_rng(seed)
    hidden, inter = config["hidden_size"], config["intermediate_size"]
    heads, head_dim = config["num_attention_heads"], config["head_dim"]
    kv = kv_heads if kv_heads is not None else config["num_key_value_heads"]
    vocab = vocab if vocab is not None else config["vocab_size"]
    layers = layers if layers is not None else config["num_hidden_layers"]
    head = head if head is not None else not config["tie_word_embeddings"]

    def t(*shape):
        return (rng.standard_normal(shape) * 0.02).astype(dtype)

    out = {"model.embed_tokens.weight": t(vocab, hidden), "model.norm.weight": np.ones(hidden, dtype)}
    if head:
        out["lm_head.weight"] = t(vocab, hidden)
    rows = {"q_proj": heads * head_dim, "k_proj": kv * head_dim, "v_proj": kv * head_dim, "o_proj": hidden}
    for i in range(layers):
        p = f"model.layers.{i}."
        for proj, n in rows.items():
            out[f"{p}self_attn.{proj}.weight"] = t(n, heads * head_dim if proj == "o_proj" else hidden)
            if proj in attention_bias:
                out[f"{p}self_attn.{proj}.bias"] = t(n)
        for proj in ("gate_proj", "up_proj", "down_proj"):
            out[f"{p}mlp.{proj}.weight"] = t(hidden, inter) if proj == "down_proj" else t(inter, hidden)
            if mlp_bias:
                out[f"{p}mlp.{proj}.bias"] = t(hidden if proj == "down_proj" else inter)
        out[f"{p}input_layernorm.weight"] = np.ones(hidden, dtype)
        out[f"{p}post_attention_layernorm.weight"] = np.ones(hidden, dtype)
        if inv_freq:
            # What transformers < 4.31 saved: 1 / theta^(2i/d), head_dim/2 entries, always float32.
            out[f"{p}self_attn.rotary_emb.inv_freq"] = (1.0 / config["rope_theta"] ** (np.arange(0, head_dim, 2) / head_dim)).astype(np.float32)
    return out


def edited(**changes) -> dict:
    config = dict(BASE)
    for key, value in changes.items():
        if value is _DROP:
            config.pop(key)
        else:
            config[key] = value
    return config


_DROP = object()


def samples() -> dict[str, tuple[dict, dict[str, dict[str, np.ndarray]], list[str]]]:
    """name -> (config, {file name: state dict}, the files model.safetensors.index.json names)."""
    base = tensors(BASE)
    qwen_like = edited(attention_bias=False)
    unsharded = {
        "weights-consistent": (BASE, {"model.safetensors": base}),
        "weights-layers-missing": (edited(num_hidden_layers=3), {"model.safetensors": base}),
        "weights-layers-extra": (edited(num_hidden_layers=1), {"model.safetensors": base}),
        "weights-kv-heads": (edited(num_key_value_heads=_DROP), {"model.safetensors": base}),
        "weights-vocab-size": (BASE, {"model.safetensors": tensors(BASE, vocab=72)}),
        "weights-bias-unflagged": (qwen_like, {"model.safetensors": tensors(BASE, attention_bias=("q_proj", "k_proj", "v_proj"))}),
        "weights-bias-missing": (edited(mlp_bias=True), {"model.safetensors": base}),
        "weights-tied-head-stored": (edited(tie_word_embeddings=True), {"model.safetensors": base}),
        "weights-untied-no-head": (BASE, {"model.safetensors": tensors(BASE, head=False)}),
        "weights-tie-absent": (edited(tie_word_embeddings=_DROP), {"model.safetensors": base}),
        "weights-dtype": (edited(torch_dtype="bfloat16"), {"model.safetensors": tensors(BASE, dtype=np.float32)}),
        "weights-inv-freq": (BASE, {"model.safetensors": tensors(BASE, inv_freq=True)}),
    }
    out: dict[str, tuple[dict, dict[str, dict[str, np.ndarray]], list[str]]] = {
        name: (config, files, []) for name, (config, files) in unsharded.items()
    }
    two = shard(base, 2)
    out["weights-sharded"] = (BASE, two, list(two))
    # An earlier save in three shards, then a save in two into the same folder: the third shard stays.
    stale = shard(tensors(BASE, seed=1), 3)
    out["weights-sharded-stray"] = (BASE, {**two, "model-00003-of-00003.safetensors": stale["model-00003-of-00003.safetensors"]}, list(two))
    return out


def shard(state: dict[str, np.ndarray], n: int) -> dict[str, dict[str, np.ndarray]]:
    """Split a state dict into n shards in name order, as save_pretrained names them."""
    names = sorted(state)
    size = -(-len(names) // n)
    return {
        f"model-{i + 1:05d}-of-{n:05d}.safetensors": {k: state[k] for k in names[i * size:(i + 1) * size]}
        for i in range(n)
    }


def index_for(files: dict[str, dict[str, np.ndarray]]) -> dict:
    total = sum(a.nbytes for state in files.values() for a in state.values())
    return {"metadata": {"total_size": total}, "weight_map": {k: f for f, state in sorted(files.items()) for k in sorted(state)}}


def write(directory: Path, config: dict, files: dict[str, dict[str, np.ndarray]], indexed: list[str]) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "config.json").write_text(json.dumps(config, indent=2, sort_keys=True) + "\n")
    for name, state in files.items():
        save_file(state, str(directory / name), metadata={"format": "pt"})
    if indexed:
        index = index_for({n: files[n] for n in indexed})
        (directory / "model.safetensors.index.json").write_text(json.dumps(index, indent=2, sort_keys=True) + "\n")


def truncated(directory: Path) -> None:
    """A download cut off mid-file: the consistent checkpoint, less its last 1000 bytes."""
    write(directory, BASE, {"model.safetensors": tensors(BASE)}, [])
    path = directory / "model.safetensors"
    data = path.read_bytes()
    path.write_bytes(data[:-1000])


def build(root: Path) -> None:
    for name, (config, files, indexed) in samples().items():
        write(root / name, config, files, indexed)
    truncated(root / "weights-truncated")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed files, write nothing")
    args = parser.parse_args(argv)
    if not args.check:
        build(SAMPLES_DIR)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        build(Path(tmp))
        differing = []
        for made in sorted(Path(tmp).rglob("*")):
            if made.is_file():
                committed = SAMPLES_DIR / made.relative_to(tmp)
                same = committed.is_file() and committed.read_bytes() == made.read_bytes()
                print(f"{'same' if same else 'DIFFERS'}  {committed.relative_to(SAMPLES_DIR.parent)}")
                if not same:
                    differing.append(committed)
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
