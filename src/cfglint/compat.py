"""The compatibility table: config features x runtimes, computed from the profiles themselves.

Each row is a small config that has one feature; each cell is what that runtime's profile says it does
with it, compared with what transformers 5 means. The README's table is this module's output (a test keeps
them equal), so it cannot drift from the code.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

from cfglint import consumers, document
from cfglint.engine import context_of
from cfglint.reading import same, show

BASE = {
    "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 64, "intermediate_size": 128,
    "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 128,
    "max_position_embeddings": 256, "rms_norm_eps": 1e-05, "hidden_act": "silu", "tie_word_embeddings": False,
    "rope_theta": 100000.0,
}
LLAMA3 = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 64}


def _with(**changes) -> dict:
    config = copy.deepcopy(BASE)
    for key, value in changes.items():
        if value is None:
            config.pop(key, None)
        else:
            config[key] = value
    return config


# (feature, the key whose reading the row is about, config)
FEATURES = [
    ("`rope_theta` only in `rope_parameters` (transformers 5 layout)", "rope_theta",
     _with(rope_theta=None, rope_parameters={"rope_theta": 100000.0, "rope_type": "default"})),
    ("llama3 scaling only in `rope_parameters`", "rope_scaling",
     _with(rope_theta=None, rope_parameters=dict(LLAMA3, rope_theta=500000.0))),
    ("top-level `rope_theta` 100000, nested 500000", "rope_theta",
     _with(rope_parameters={"rope_theta": 500000.0, "rope_type": "default"})),
    ("`rope_scaling` llama3 (top level)", "rope_scaling", _with(rope_scaling=LLAMA3)),
    ("`rope_scaling` linear", "rope_scaling", _with(rope_scaling={"rope_type": "linear", "factor": 2.0})),
    ("`rope_scaling` dynamic", "rope_scaling", _with(rope_scaling={"rope_type": "dynamic", "factor": 2.0})),
    ("`rope_scaling` yarn without `original_max_position_embeddings`", "rope_scaling",
     _with(rope_scaling={"rope_type": "yarn", "factor": 4.0})),
    ("legacy `{\"type\": \"linear\"}` scaling", "rope_scaling", _with(rope_scaling={"type": "linear", "factor": 2.0})),
    ("`rope_theta` absent", "rope_theta", _with(rope_theta=None)),
    ("`num_key_value_heads` absent", "num_key_value_heads", _with(num_key_value_heads=None)),
    ("`tie_word_embeddings` absent", "tie_word_embeddings", _with(tie_word_embeddings=None)),
    ("`head_dim` 32 with hidden/heads 16", "head_dim", _with(head_dim=32)),
    ("`attention_bias: true`", "attention_bias", _with(attention_bias=True)),
    ("`hidden_act: \"gelu\"`", "hidden_act", _with(hidden_act="gelu")),
    ("`hidden_act` absent", "hidden_act", _with(hidden_act=None)),
]


def cell(view, intent, key: str) -> str:
    if view.failure is not None and view.failure.kind != "shape":
        return "fails to load"
    if view.failure is not None:
        return f"{view.outcome}s at load" if view.outcome == "panic" else "fails at load"
    if key not in view.values:
        return "n/a"
    value = view.values[key]
    if same(key, value, intent.values[key]):
        return "ok"
    if key == "rope_scaling" and value is None:
        return "unscaled"
    return f"uses {show(value)}"


def table() -> str:
    names = consumers.names()
    profiles = [consumers.get(n) for n in names]
    lines = ["| feature | " + " | ".join(f"`{n}`" for n in names) + " |", "|---" * (len(names) + 1) + "|"]
    for feature, key, config in FEATURES:
        doc = document.parse(Path("config.json"), json.dumps(config).encode())
        ctx = context_of(doc, profiles)
        cells = [cell(ctx.views[n], ctx.intent, key) for n in names]
        lines.append(f"| {feature} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(table(), end="")
