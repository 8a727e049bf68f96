"""A runtime soft-caps attention scores or final logits differently from transformers.

## What it does
Reports `attn_logit_softcapping` and `final_logit_softcapping` (Gemma 2's 50 and 30) that a runtime does not
apply, or applies where transformers does not.

## Why it matters
Soft-capping bounds every score with `cap * tanh(x / cap)`; without it, the largest logits of a Gemma 2
model grow past what the model was trained with, and sampling changes.

## Example
```json
{"model_type": "gemma2", "final_logit_softcapping": 30.0}
```
a runtime that ignores it will use null.

## Fix safety
No fix.
"""

from cfglint.diagnostics import Finding
from cfglint.reading import show
from cfglint.rule import describe, uses

CODE = "A007"
NAME = "softcapping-ignored"
SEVERITY = "error"
# Its findings depend only on the intent, the readings and these keys of the config (cfglint.memo).
CONFIG_KEYS = ("attn_logit_softcapping", "final_logit_softcapping")


def check(ctx):
    if ctx.intent is None or ctx.intent.family in (None, "llama"):
        return
    for key in ("attn_logit_softcapping", "final_logit_softcapping"):
        effects = tuple(uses(n, v, key) for n, v in ctx.diverging(key))
        if effects:
            yield Finding(f"{key} is {show(ctx.intent.values[key])} in transformers, but {describe(effects)}", ctx.at(key) if key in ctx.config else ctx.at("model_type"), effects)
