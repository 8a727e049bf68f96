"""Top-level rope_theta and rope_parameters.rope_theta disagree.

## What it does
Reports a config that carries two different RoPE base frequencies, and which one each runtime takes.

## Why it matters
transformers 5 and the llama.cpp converter take the value inside `rope_parameters`; transformers 4, candle,
mlx-lm and mistral.rs take the top-level one. The same file is two different models.

## Example
```json
"rope_theta": 100000.0,
"rope_parameters": {"rope_theta": 500000.0, "rope_type": "default"}
```

## Fix safety
Unsafe: sets the top-level value to the one transformers 5 reads. That is right when the file was last
saved by transformers 5; if the top-level value is the trained one, the fix picks the wrong side.
"""

from cfglint.diagnostics import Applicability, Edit, Finding, Fix
from cfglint.reading import same, show
from cfglint.rule import describe, uses

CODE = "R003"
NAME = "rope-theta-conflict"
SEVERITY = "error"
# Its findings depend only on the intent, the readings and these keys of the config (cfglint.memo).
CONFIG_KEYS = ("rope_theta",)


def check(ctx):
    intent = ctx.intent
    if intent is None or "rope_theta" not in ctx.config:
        return
    where = intent.sources["rope_theta"]
    top = ctx.config["rope_theta"]
    if where == ctx.at("rope_theta") or not where.endswith("/rope_theta") or same("rope_theta", top, intent.values["rope_theta"]):
        return
    nested = intent.values["rope_theta"]
    effects = [uses(n, v, "rope_theta") for n, v in ctx.diverging("rope_theta") if not ctx.from_layer_type(v, "rope_theta")]  # R007
    readers = [n for n, v in ctx.loaded() if same("rope_theta", v.values.get("rope_theta"), nested)]
    message = f"top-level rope_theta {show(top)} disagrees with {where[len(ctx.root) + 1:].replace('/', '.')} {show(nested)}, which transformers 5 uses"
    if readers:
        message += f" (as do {', '.join(readers)})"
    if effects:
        message += f"; {describe(effects)}"
    fix = Fix(f"set top-level \"rope_theta\" to {show(nested)}", Applicability.UNSAFE, (Edit("set", ctx.at("rope_theta"), nested),))
    yield Finding(message, ctx.at("rope_theta"), tuple(effects), fix)
