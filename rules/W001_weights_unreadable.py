"""A weights file or index that loaders cannot read.

## What it does
Reads the safetensors headers beside config.json (never the tensor data) and reports a file no loader
accepts: shorter than its header claims (a truncated download), a header length over 100 MiB, a header
that is not JSON, a tensor whose byte count does not match its dtype and shape, tensor data outside the
file, overlapping or not contiguous, an index that is not JSON or names a shard that is not there.

## Why it matters
Every runtime reads these files through the same format rules (the safetensors library in transformers
and candle): the model does not load anywhere, and the other weight checks cannot see the missing
tensors.

## Example
A `model.safetensors` cut off mid-download:
`model.safetensors: tensor 'model.norm.weight' ends at data byte 9,216, past the end of the file (its
data area is 4,096 bytes): truncated`.

## Fix safety
No fix: the files must be fetched or written again.
"""

from cfglint.diagnostics import Finding

CODE = "W001"
NAME = "weights-unreadable"
SEVERITY = "error"
REQUIRES = ("weights",)


def check(ctx):
    if ctx.weights is None:
        return
    for problem in ctx.weights.problems:
        if problem.kind == "unreadable":
            yield Finding(f"{problem.file}: {problem.message}")
