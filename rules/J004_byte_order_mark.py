"""The file starts with a UTF-8 byte-order mark.

## What it does
Reports a leading U+FEFF.

## Why it matters
transformers reads config.json as text and hands it to `json.loads`, which rejects a BOM ("Unexpected UTF-8
BOM"); serde_json rejects it too ("expected value at line 1 column 1"). No runtime loads the model.

## Example
A config saved by an editor that writes "UTF-8 with BOM".

## Fix safety
No automatic fix yet: save the file as UTF-8 without a BOM.
"""

from cfglint.diagnostics import Effect, Finding

CODE = "J004"
NAME = "byte-order-mark"
SEVERITY = "error"


def check(ctx):
    if ctx.doc.bom:
        effects = [Effect("transformers", "error", None, "json.JSONDecodeError: Unexpected UTF-8 BOM")]
        effects += [Effect(n, "error", None, v.failure.message) for n, v in ctx.failures({"syntax"})]
        yield Finding("file starts with a UTF-8 byte-order mark: transformers and serde-based runtimes refuse it", "", tuple(effects), offset=0)
