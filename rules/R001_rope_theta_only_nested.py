"""rope_theta is only inside rope_parameters, where older runtimes do not look.

## What it does
Reports a config whose RoPE base frequency is written only as `rope_parameters.rope_theta` (the layout
transformers 5 writes) and lists, per runtime, the theta it will use instead.

## Why it matters
candle, mlx-lm and transformers 4 read a top-level `rope_theta` and default it to 10000 without a warning;
mistral.rs requires it and refuses to load. A model trained with theta 100000 then runs with 10000: it
loads, it generates, and its logits are off (about 0.8 on SmolLM2-135M's first prompt).

## Example
```json
"rope_parameters": {"rope_theta": 100000.0, "rope_type": "default"}
```
candle-llama will use 10000.0.

## Fix safety
Safe: adds a top-level `rope_theta` with the same value. transformers 5 still takes the value inside
`rope_parameters`, which is unchanged, so what it reads does not change.
"""

from cfglint.diagnostics import Applicability, Edit, Finding, Fix
from cfglint.reading import show
from cfglint.rule import describe, fails, uses

CODE = "R001"
NAME = "rope-theta-only-nested"
SEVERITY = "error"


def check(ctx):
    intent = ctx.intent
    if intent is None or "rope_theta" in ctx.config:
        return
    where = intent.sources["rope_theta"]
    if not where.endswith("/rope_theta") or where == "/rope_theta":
        return
    theta = intent.values["rope_theta"]
    effects = [uses(n, v, "rope_theta") for n, v in ctx.diverging("rope_theta")]
    effects += [fails(n, v) for n, v in ctx.failures({"missing"}, under="/rope_theta")]
    if not effects:
        return
    fix = Fix(f"add top-level \"rope_theta\": {show(theta)}", Applicability.SAFE, (Edit("set", "/rope_theta", theta),))
    yield Finding(f"rope_theta {show(theta)} is only in {where.rsplit('/', 1)[0][1:]}: {describe(effects)}", where, tuple(effects), fix)
