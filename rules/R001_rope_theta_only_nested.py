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
candle will use 10000.0.

Gemma 3 writes a second base, for its sliding layers, as `rope_parameters.sliding_attention.rope_theta`;
readers of the older layout take it from a top-level `rope_local_base_freq`, which this rule checks too.

## Fix safety
Safe: adds a top-level `rope_theta` (or `rope_local_base_freq`) with the same value. transformers 5 still takes the value inside
`rope_parameters`, which is unchanged, so what it reads does not change. Unsafe where a flat `rope_parameters`
also holds a key named after one of the config's layer types (`full_attention: {}` in a Qwen2 file) without a
theta of its own: transformers 5 fills that one from the top-level key.
"""

from cfglint.diagnostics import Applicability, Edit, Finding, Fix
from cfglint.reading import show
from cfglint.rule import describe, fails, uses

CODE = "R001"
NAME = "rope-theta-only-nested"
SEVERITY = "error"


# The bases older readers take from the top level: the global one, and Gemma 3's for its sliding layers.
KEYS = ("rope_theta", "rope_local_base_freq")


# Its findings depend only on the intent, the readings and these keys of the config (cfglint.memo).
CONFIG_KEYS = (*KEYS, "rope_parameters")


def fills_layer_types(intent, rope_parameters) -> bool:
    """Whether a top-level rope_theta would become the theta of a layer type's parameters that give none."""
    return any(isinstance(rope_parameters[key], dict) and "rope_theta" not in rope_parameters[key]
               for key in intent.layer_type_keys(rope_parameters))

def check(ctx):
    intent = ctx.intent
    if intent is None:
        return
    for key in KEYS:
        if key in ctx.config or key not in intent.values:
            continue
        where = intent.sources[key]
        if not where.endswith("/rope_theta") or where == ctx.at("rope_theta"):
            continue
        theta = intent.values[key]
        effects = [uses(n, v, key) for n, v in ctx.diverging(key) if not ctx.from_layer_type(v, key)]  # R007
        effects += [fails(n, v) for n, v in ctx.failures({"missing"}, under=ctx.at(key))]
        if not effects:
            continue
        flat = where == ctx.at("rope_parameters") + "/rope_theta"
        unsafe = key == "rope_theta" and flat and fills_layer_types(intent, ctx.config.get("rope_parameters"))
        safety = Applicability.UNSAFE if unsafe else Applicability.SAFE
        fix = Fix(f"add top-level \"{key}\": {show(theta)}", safety, (Edit("set", ctx.at(key), theta),))
        yield Finding(f"{key} {show(theta)} is only in {where.rsplit('/', 1)[0][len(ctx.root) + 1:]}: {describe(effects)}", where, tuple(effects), fix)
