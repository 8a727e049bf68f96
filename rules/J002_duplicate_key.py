"""A key is written twice in the same object.

## What it does
Reports every repeated key. Python's json module (and so transformers) keeps the last value without a
word; serde-based runtimes (candle, mistral.rs) refuse the file when the key is one of their fields
(`duplicate field`), and keep neither silently otherwise.

## Why it matters
The two copies usually disagree, and which one a runtime sees depends on its JSON library.

## Example
```json
{"rope_theta": 10000.0, "rope_theta": 100000.0}
```
candle refuses to load (duplicate field `rope_theta`); transformers uses 100000.0.

## Fix safety
No automatic fix: which copy is right is the author's call.
"""

from cfglint.diagnostics import Finding, Severity
from cfglint.rule import describe, fails

CODE = "J002"
NAME = "duplicate-key"
SEVERITY = "error"


def check(ctx):
    for dup in ctx.doc.duplicates:
        effects = [fails(n, v) for n, v in ctx.failures({"duplicate"}, under=dup.pointer) if v.failure.pointer == dup.pointer]
        key = dup.pointer.rsplit("/", 1)[-1]
        copies = len(dup.earlier) + 1
        message = f"key {key!r} is written {copies} times; transformers keeps the last"
        if effects:
            message += "; " + describe(effects)
        severity = Severity.ERROR if effects else Severity.WARNING
        first = dup.earlier[0].key_start
        yield Finding(message, dup.pointer, tuple(effects), severity=severity, offset=first)
