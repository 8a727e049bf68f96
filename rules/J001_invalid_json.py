"""The file is not a JSON document every runtime can parse.

## What it does
Reports why config.json cannot be parsed: a syntax error, bytes that are not UTF-8, nesting deeper than
512 levels, or a file far too large to be a config. The position is where parsing stopped.

## Why it matters
Every runtime refuses to load the model; nothing else about the file can be checked until it parses.

## Example
```json
{"hidden_size": 576,}
```
`1:20: J001 trailing comma before '}'`

## Fix safety
No automatic fix: the intended content cannot be guessed.
"""

from cfglint.diagnostics import Finding

CODE = "J001"
NAME = "invalid-json"
SEVERITY = "error"


def check(ctx):
    problem = ctx.doc.syntax
    if problem is not None:
        yield Finding(f"not valid JSON: {problem.message}", offset=problem.offset)
