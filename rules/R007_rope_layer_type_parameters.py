"""A runtime runs one layer type's RoPE parameters for every layer.

## What it does
Reports a config of a family that runs one RoPE for all its layers whose `rope_parameters` also holds
parameters for a layer type (`full_attention`, `sliding_attention`), and the runtimes that take those instead
of the ones transformers 5 runs.

## Why it matters
transformers 5's Qwen2, Llama, Mistral and the other single-RoPE models run the top of `rope_parameters`
for every layer (the class keeps a layer type's parameters, and ignores them when building the model).
llama.cpp's converter writes full attention's type, scaling and base frequency into the GGUF whenever the
key is there (conversion/base.py `rope_parameters.get("full_attention", rope_parameters)`), and nothing from
the top: the two are different models.

## Example
```json
"rope_parameters": {"rope_type": "default", "rope_theta": 1000000.0,
                    "full_attention": {"rope_type": "default", "rope_theta": 500000.0}}
```
llama-cpp will use 500000.0.

## Fix safety
No automatic fix: which parameters the model was trained with is not in the file. Remove the layer-type
keys, or make them agree with the top of `rope_parameters`.
"""

from cfglint.diagnostics import Finding
from cfglint.reading import show
from cfglint.rule import describe, uses

CODE = "R007"
NAME = "rope-layer-type-parameters"
SEVERITY = "error"
# Its findings depend only on the intent and the readings (cfglint.memo).
CONFIG_KEYS = ()

KEYS = {"rope_theta": "rope_theta", "rope_scaling": "RoPE scaling"}


def check(ctx):
    intent = ctx.intent
    if intent is None:
        return
    for key, label in KEYS.items():
        readers = [(n, v) for n, v in ctx.diverging(key) if ctx.from_layer_type(v, key)]
        if not readers:
            continue
        where = readers[0][1].sources[key]
        layer = where.removesuffix("/rope_theta")[len(ctx.root) + 1:].replace("/", ".")
        meant = intent.values[key]
        message = (f"{layer} gives {label} {show(readers[0][1].values[key])}, but transformers 5 runs one RoPE for "
                   f"every layer, with {show(meant) if meant is not None else 'none'}: {describe(uses(n, v, key) for n, v in readers)}")
        yield Finding(message, where, tuple(uses(n, v, key) for n, v in readers))
