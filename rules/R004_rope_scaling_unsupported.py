"""A runtime cannot parse the rope_scaling entry and refuses to load.

## What it does
Reports a top-level `rope_scaling` that a runtime's config struct rejects: a type it does not know
(candle accepts only a complete llama3 entry), the legacy `type` key where `rope_type` is required, or
missing parameters.

## Why it matters
The model does not load in that runtime. serde's message names a field, not the cause; this rule says
which runtime fails and why.

## Example
```json
"rope_scaling": {"type": "linear", "factor": 2.0}
```
candle refuses to load (missing field `low_freq_factor`).

## Fix safety
No automatic fix: the runtime has no way to express the scaling.
"""

from cfglint.diagnostics import Finding
from cfglint.rule import describe, fails

CODE = "R004"
NAME = "rope-scaling-unsupported"
SEVERITY = "error"
# Its findings depend only on the intent, the readings and these keys of the config (cfglint.memo).
CONFIG_KEYS = ("rope_scaling",)


def check(ctx):
    failing = ctx.failures({"missing", "type", "variant"}, under="/rope_scaling")
    if not failing:
        return
    kind = ctx.intent.values["rope_scaling"]["rope_type"] if ctx.intent and ctx.intent.values["rope_scaling"] else "default"
    effects = tuple(fails(n, v) for n, v in failing)
    pointer = failing[0][1].failure.pointer
    yield Finding(f"rope_scaling ({kind}) cannot be read: {describe(effects)}", pointer if ctx.doc.has(pointer) else "/rope_scaling", effects)
