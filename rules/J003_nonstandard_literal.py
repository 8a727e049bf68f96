"""NaN or Infinity, which Python's json accepts and JSON does not.

## What it does
Reports `NaN`, `Infinity` and `-Infinity` literals.

## Why it matters
transformers reads them (Python's json module allows them), but serde_json, and so candle and mistral.rs,
stops with `expected value`: the model loads in one runtime and not in the other.

## Example
```json
{"rms_norm_eps": NaN}
```

## Fix safety
No automatic fix.
"""

from cfglint.diagnostics import Finding
from cfglint.rule import describe, fails

CODE = "J003"
NAME = "nonstandard-literal"
SEVERITY = "error"


def check(ctx):
    if not ctx.doc.literals:
        return
    failing = [fails(n, v) for n, v in ctx.failures({"syntax"})]
    for literal in ctx.doc.literals:
        message = f"{literal.text} is not valid JSON"
        if failing:
            message += ": " + describe(failing)
        yield Finding(message, literal.pointer, tuple(failing), offset=literal.offset)
