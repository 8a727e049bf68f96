"""RoPE scaling is only inside rope_parameters, where older runtimes do not look.

## What it does
Reports a non-default RoPE (llama3, linear, dynamic, yarn, ...) written only in `rope_parameters`, the
transformers 5 layout, and the scaling each runtime will run with instead.

## Why it matters
candle, mlx-lm and transformers 4 read only a top-level `rope_scaling`: they run plain, unscaled RoPE
without a warning. A Llama-3.x model then loses its long-context frequency smoothing.

## Example
```json
"rope_parameters": {"factor": 32.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                    "original_max_position_embeddings": 8192, "rope_theta": 500000.0, "rope_type": "llama3"}
```
candle will use null (no scaling).

## Fix safety
Safe: adds a top-level `rope_scaling` with the same type and parameters, and a top-level `rope_theta`
when there is none. transformers 5 lets a non-null `rope_scaling` replace `rope_parameters` and then takes
theta from the top-level key, so it ends up with exactly the same RoPE parameters as before.
"""

from cfglint.diagnostics import Applicability, Edit, Finding, Fix
from cfglint.reading import show
from cfglint.rule import uses

CODE = "R002"
NAME = "rope-scaling-only-nested"
SEVERITY = "error"


def check(ctx):
    intent = ctx.intent
    if intent is None or intent.values["rope_scaling"] is None or intent.sources["rope_scaling"] != "/rope_parameters":
        return
    if ctx.config.get("rope_scaling") is not None:
        return
    scaling = intent.values["rope_scaling"]
    effects = [uses(n, v, "rope_scaling") for n, v in ctx.diverging("rope_scaling") if v.values["rope_scaling"] is None]
    if not effects:
        return
    edits = [Edit("set", "/rope_scaling", scaling)]
    if "rope_theta" not in ctx.config:
        edits.insert(0, Edit("set", "/rope_theta", intent.values["rope_theta"]))
    fix = Fix(f"add top-level \"rope_scaling\" ({scaling['rope_type']})", Applicability.SAFE, tuple(edits))
    kind = scaling["rope_type"]
    readers = [e.consumer for e in effects]
    who = readers[0] if len(readers) == 1 else ", ".join(readers[:-1]) + " and " + readers[-1]
    yield Finding(f"{kind} RoPE scaling {show(scaling)} is only in rope_parameters: {who} will run plain, unscaled RoPE", "/rope_parameters/rope_type", tuple(effects), fix)
