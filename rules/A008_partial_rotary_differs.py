"""A runtime rotates a different share of each head than transformers does.

## What it does
Reports a `partial_rotary_factor` (Phi-3 and others) that a runtime reads from another place or ignores:
transformers 5 reads it inside `rope_parameters`, older readers only at the top level.

## Why it matters
RoPE is applied to a different number of dimensions of every query and key: positions are encoded
differently on every layer.

## Example
```json
{"model_type": "phi3", "rope_parameters": {"rope_theta": 10000.0, "rope_type": "default", "partial_rotary_factor": 0.5}}
```
a reader of the top-level key will use 1.0.

## Fix safety
No fix yet.
"""

from cfglint.diagnostics import Finding
from cfglint.reading import show
from cfglint.rule import describe, uses

CODE = "A008"
NAME = "partial-rotary-differs"
SEVERITY = "error"
# Its findings depend only on the intent, the readings and these keys of the config (cfglint.memo).
CONFIG_KEYS = ()


def check(ctx):
    if ctx.intent is None or "partial_rotary_factor" not in ctx.intent.values:
        return
    effects = tuple(uses(n, v, "partial_rotary_factor") for n, v in ctx.diverging("partial_rotary_factor"))
    if effects:
        where = ctx.intent.sources.get("partial_rotary_factor", "")
        pointer = where if where.startswith("/") else "/model_type"
        yield Finding(f"partial_rotary_factor is {show(ctx.intent.values['partial_rotary_factor'])} in transformers, but {describe(effects)}", pointer, effects)
