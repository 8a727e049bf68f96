"""hidden_act names an activation a runtime replaces with its own.

## What it does
Reports a `hidden_act` other than the one a runtime hard-codes (candle and mlx-lm always use SiLU).

## Why it matters
The MLP computes a different function with the same weights; the model loads and produces wrong output.

## Example
```json
{"hidden_act": "gelu"}
```
candle will use "silu".

## Fix safety
No fix.
"""

from cfglint.diagnostics import Finding
from cfglint.reading import show
from cfglint.rule import describe, uses

CODE = "A003"
NAME = "activation-ignored"
SEVERITY = "error"


def check(ctx):
    if ctx.intent is None:
        return
    effects = tuple(uses(n, v, "hidden_act") for n, v in ctx.diverging("hidden_act"))
    if effects:
        act = ctx.intent.values["hidden_act"]
        yield Finding(f"hidden_act is {show(act)}, but {describe(effects)}", "/hidden_act", effects)
