"""A runtime cannot parse the rope_scaling entry and refuses to load.

## What it does
Reports a top-level `rope_scaling` that a runtime's config struct or class rejects: a type it does not
know (candle accepts only a complete llama3 entry), the legacy `type` key where `rope_type` is required,
missing parameters, or a value its validation refuses (transformers 5's Phi3Config reads `su` as longrope
and then requires its original context).

## Why it matters
The model does not load in that runtime. serde's message names a field, not the cause; this rule says
which runtime fails and why.

## Example
```json
"rope_scaling": {"type": "linear", "factor": 2.0}
```
candle refuses to load (missing field `low_freq_factor`).

## Fix safety
Unsafe where the type is a legacy name transformers reads as another (Phi-3's `su` and `yarn` are longrope):
the fix writes that name, which the runtimes that read the legacy one read alike, and which a runtime that
refused it may load: transformers 5 itself refuses `su`, whose original context it does not fill in. No
automatic fix otherwise: the runtime has no way to express the scaling.
"""

from cfglint.diagnostics import Applicability, Edit, Finding, Fix
from cfglint.rule import describe, fails

CODE = "R004"
NAME = "rope-scaling-unsupported"
SEVERITY = "error"
# Its findings depend only on the intent, the readings and these keys of the config (cfglint.memo).
CONFIG_KEYS = ("rope_scaling",)


def check(ctx):
    failing = ctx.failures({"missing", "type", "variant", "validation"}, under="/rope_scaling")
    if not failing:
        return
    kind = ctx.intent.values["rope_scaling"]["rope_type"] if ctx.intent and ctx.intent.values["rope_scaling"] else "default"
    effects = tuple(fails(n, v) for n, v in failing)
    pointer = failing[0][1].failure.pointer
    yield Finding(f"rope_scaling ({kind}) cannot be read: {describe(effects)}", pointer if ctx.doc.has(pointer) else "/rope_scaling", effects,
                  _renamed(ctx, kind))


def _renamed(ctx, kind: str) -> Fix | None:
    """Write the type name transformers reads a legacy one as."""
    written = ctx.config.get("rope_scaling")
    if not isinstance(written, dict):
        return None
    key = "rope_type" if "rope_type" in written else "type"
    legacy = written.get(key)
    if not isinstance(legacy, str) or kind in (legacy, "default") or not ctx.doc.has(f"/rope_scaling/{key}"):
        return None
    return Fix(f'write "{key}": "{kind}", the name transformers reads "{legacy}" as', Applicability.UNSAFE,
               (Edit("set", f"/rope_scaling/{key}", kind),))
