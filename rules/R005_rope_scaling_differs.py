"""A runtime reads the rope_scaling entry but runs a different scaling.

## What it does
Reports runtimes that load the config and run RoPE scaling other than what transformers 5 means, where
the scaling is written where they look: a type they drop, or a parameter they take from elsewhere or
default differently.

## Why it matters
The model loads and generates; positions beyond the original context are embedded differently. The
llama.cpp converter drops `dynamic` scaling for Llama and takes llama3's original context from a
top-level key (default 8192); mlx-lm defaults yarn's original context to 4096 where transformers uses
`max_position_embeddings`, and picks a legacy `type` over `rope_type`. YaRN's `truncate: false` (gpt-oss)
keeps the correction range unrounded in transformers, while mlx-lm, llama.cpp and the DeepSeek ports always
floor and ceil it; mistral.rs' gpt-oss loader does the opposite when `truncate` is absent.

## Example
```json
"rope_scaling": {"rope_type": "dynamic", "factor": 2.0}
```
llama-cpp will use no scaling.

## Fix safety
No automatic fix. Writing the parameter explicitly (e.g. `original_max_position_embeddings`, also at the
top level for llama.cpp) makes the runtimes agree; a runtime that never reads it (truncate) stays different.
"""

from cfglint.diagnostics import Finding
from cfglint.reading import show
from cfglint.rule import describe, uses

CODE = "R005"
NAME = "rope-scaling-differs"
SEVERITY = "error"
# Its findings depend only on the intent, the readings and these keys of the config (cfglint.memo).
CONFIG_KEYS = ("rope_scaling",)


def check(ctx):
    intent = ctx.intent
    if intent is None:
        return
    nested_only = intent.values["rope_scaling"] is not None and ctx.config.get("rope_scaling") is None
    effects = []
    for name, view in ctx.diverging("rope_scaling"):
        if nested_only and view.values["rope_scaling"] is None and view.sources.get("rope_scaling") == "default":
            continue  # R002: the scaling is only where this runtime does not look
        if ctx.from_layer_type(view, "rope_scaling"):
            continue  # R007: one layer type's parameters
        effects.append(uses(name, view, "rope_scaling"))
    if not effects:
        return
    pointer = intent.rope_pointer or ctx.at("rope_scaling")
    yield Finding(f"RoPE scaling {show(intent.values['rope_scaling'])} runs differently: {describe(effects)}", pointer, tuple(effects))
