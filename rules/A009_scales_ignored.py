"""A runtime does not apply the embedding, residual or logit scales transformers applies.

## What it does
Reports Granite's `embedding_multiplier`, `residual_multiplier` and `logits_scaling` that a runtime reads
as something else or not at all (candle's Granite runs a plain Llama forward).

## Why it matters
Every hidden state is scaled differently from the first layer on: the model loads and produces different
logits everywhere, not only on long prompts.

## Example
```json
{"model_type": "granite", "embedding_multiplier": 12.0, "residual_multiplier": 0.22, "logits_scaling": 8.0}
```
candle will use 1.0 for each.

## Fix safety
No fix.
"""

from cfglint.diagnostics import Finding
from cfglint.reading import show
from cfglint.rule import describe

CODE = "A009"
NAME = "scales-ignored"
SEVERITY = "error"

KEYS = ("embedding_multiplier", "residual_multiplier", "logits_scaling")


# Its findings depend only on the intent, the readings and these keys of the config (cfglint.memo).
CONFIG_KEYS = KEYS

def check(ctx):
    for key, effects in ctx.differing(KEYS):
        pointer = ctx.at(key) if key in ctx.config else ctx.at("model_type")
        yield Finding(f"{key} is {show(ctx.intent.values[key])} in transformers, but {describe(effects)}", pointer, effects)
