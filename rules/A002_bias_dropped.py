"""Projection biases that a runtime never loads.

## What it does
Reports `attention_bias: true` or `mlp_bias: true` for runtimes that build every projection without bias.

## Why it matters
candle and mistral.rs request only `.weight` tensors: the bias tensors in the checkpoint are skipped without
an error, and every layer computes something else (LLaMA-fied InternLM and Qwen checkpoints carry q/k/v/o
biases).

## Example
```json
{"attention_bias": true}
```
candle will use false.

## Fix safety
No fix: the runtime has no bias to load them into.
"""

from cfglint.diagnostics import Finding
from cfglint.rule import describe, uses

CODE = "A002"
NAME = "bias-dropped"
SEVERITY = "error"
# Its findings depend only on the intent, the readings and these keys of the config (cfglint.memo).
CONFIG_KEYS = ("attention_bias", "mlp_bias")


def check(ctx):
    if ctx.intent is None:
        return
    for key in ("attention_bias", "mlp_bias"):
        if not ctx.intent.values.get(key):  # True, or "q/k/v" for the families that bias only those
            continue
        effects = tuple(uses(n, v, key) for n, v in ctx.diverging(key))
        if effects:
            meant = ctx.intent.values[key]
            what = f"{key} is true" if meant is True else f"the family biases {meant}"
            pointer = ctx.at(key) if key in ctx.config else ctx.at("model_type")
            yield Finding(f"{what}, but the bias tensors are silently dropped: {describe(effects)}", pointer, effects)
