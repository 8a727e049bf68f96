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
Safe where a runtime requires a key transformers 5 fills in from its config class (`rms_norm_eps`,
`max_position_embeddings`): the fix writes the value transformers 5 reads, so its reading stays the same
and the runtime finds the key. Not for `num_key_value_heads`, which shapes the K/V projections: the weights
say which value the checkpoint needs (W004). No automatic fix for a value of the wrong type.
"""

from cfglint.diagnostics import Applicability, Edit, Effect, Finding, Fix
from cfglint.reading import show
from cfglint.rule import describe, fails

CODE = "L001"
NAME = "load-error"
SEVERITY = "error"
# Keys the config classes default and the Rust and dataclass readers require: writing transformers 5's value
# keeps its reading. Not what shapes a tensor: a class default is not the checkpoint's (W004 says which is).
FILLABLE = ("rms_norm_eps", "max_position_embeddings")
# Its findings depend only on the intent, the readings and these keys of the config (cfglint.memo).
CONFIG_KEYS = FILLABLE


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
        yield Finding(f"{key}: {describe(effects)}", pointer, tuple(effects), _filled(ctx, key, pointer))


def _filled(ctx, key: str, pointer: str) -> Fix | None:
    """Write the value transformers 5 reads for a fillable key the file leaves out."""
    if key not in FILLABLE or pointer != ctx.at(key) or key in ctx.config or ctx.intent is None:
        return None
    value = ctx.intent.values.get(key)
    if value is None:
        return None
    return Fix(f'add "{key}": {show(value)} (what transformers 5 reads)', Applicability.SAFE, (Edit("set", pointer, value),))
