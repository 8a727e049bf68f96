"""The top level of config.json is not an object.

## What it does
Reports a config.json whose top-level value is an array, a string, a number or null.

## Why it matters
Every runtime expects an object of settings and refuses anything else.

## Example
```json
[{"hidden_size": 576}]
```

## Fix safety
No automatic fix.
"""

from cfglint.diagnostics import Finding

CODE = "J005"
NAME = "not-an-object"
SEVERITY = "error"

_KIND = {list: "an array", str: "a string", int: "a number", float: "a number", bool: "a boolean", type(None): "null"}


def check(ctx):
    doc = ctx.doc
    if doc.ok and not isinstance(doc.data, dict):
        yield Finding(f"top level is {_KIND.get(type(doc.data), 'not an object')}, not an object: no runtime can read it", "")
