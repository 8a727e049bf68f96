"""A runtime refuses the config: a required key is missing or a value has the wrong type.

## What it does
Reports the first error each runtime's config parser hits outside `rope_scaling`, in that runtime's own
words (serde's for candle and mistral.rs): a missing required key, a float where an integer is required,
a string where a number or boolean is required, a negative count.

## Why it matters
transformers 4 accepts almost anything and fills missing keys with Llama-2-7B defaults; the Rust runtimes
stop. A config that "works in transformers" can still fail everywhere else.

## Example
```json
{"hidden_size": 576.0}
```
candle refuses to load (invalid type: floating point `576.0`, expected usize).

## Fix safety
No automatic fix.
"""

from cfglint.diagnostics import Effect, Finding
from cfglint.rule import describe, fails

CODE = "L001"
NAME = "load-error"
SEVERITY = "error"
# Its findings depend only on the intent, the readings and these keys of the config (cfglint.memo).
CONFIG_KEYS = ()


def check(ctx):
    groups: dict[str, list[Effect]] = {}
    theta_nested = ctx.intent is not None and ctx.intent.sources["rope_theta"] not in (ctx.at("rope_theta"), "default")
    for name, view in ctx.failures({"missing", "type", "variant", "validation"}):
        if view.failure.pointer.startswith(ctx.at("rope_scaling")):
            continue  # R004 says why
        if view.failure.pointer == ctx.at("rope_theta") and view.failure.kind == "missing" and theta_nested:
            continue  # R001: the value is there, only nested where this runtime does not look
        groups.setdefault(view.failure.pointer, []).append(fails(name, view))
    for pointer, effects in groups.items():
        key = pointer.rsplit("/", 1)[-1] or "config"
        yield Finding(f"{key}: {describe(effects)}", pointer, tuple(effects))
