"""A runtime scales attention scores differently from transformers.

## What it does
Reports a config whose attention scale (`query_pre_attn_scalar ** -0.5` in Gemma 2 and 3, Granite's
`attention_multiplier`, `head_dim ** -0.5` elsewhere) a runtime computes from another number: candle's Gemma 2 and 3 and llama.cpp scale by `head_dim`
whatever `query_pre_attn_scalar` says.

## Why it matters
Every attention score is multiplied by a different constant: Gemma 2 27B's `query_pre_attn_scalar` is 144
with a head size of 128, so a runtime that ignores it runs a sharper softmax on every layer.

## Example
```json
{"model_type": "gemma2", "head_dim": 128, "query_pre_attn_scalar": 144}
```
candle will use 128.

## Fix safety
No fix.
"""

from cfglint.diagnostics import Finding
from cfglint.reading import show
from cfglint.rule import describe, uses

CODE = "A006"
NAME = "attention-scale-differs"
SEVERITY = "error"
# Its findings depend only on the intent, the readings and these keys of the config (cfglint.memo).
CONFIG_KEYS = ("query_pre_attn_scalar", "attention_multiplier", "head_dim")


def check(ctx):
    if ctx.intent is None or ctx.intent.family in (None, "llama"):
        return
    effects = tuple(uses(n, v, "query_pre_attn_scalar") for n, v in ctx.diverging("query_pre_attn_scalar"))
    if effects:
        scalar = ctx.intent.values["query_pre_attn_scalar"]
        # The key the scale comes from: Gemma's query_pre_attn_scalar, Granite's attention_multiplier, or head_dim.
        written = [k for k in ("query_pre_attn_scalar", "attention_multiplier", "head_dim") if k in ctx.config]
        pointer = ctx.at(written[0] if written else "model_type")
        yield Finding(f"transformers scales attention by {show(scalar)} ** -0.5, but {describe(effects)}", pointer, effects)
