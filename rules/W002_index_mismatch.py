"""The shard index and the shard files disagree.

## What it does
Compares `model.safetensors.index.json` with the shards beside it: a tensor the index places in a shard
that does not hold it, a tensor a shard holds that the index does not list, the same tensor in two
shards, and `model*.safetensors` files the index does not name (or shards with no index at all).

## Why it matters
Loaders resolve shards differently. transformers and candle read only the shards the index names;
mlx-lm globs every `model*.safetensors`, so a stale shard left over from an earlier save is loaded too
and can replace tensors or trip its strict load; llama.cpp's converter refuses a directory whose index
and files disagree.

## Example
`model-00003-of-00003.safetensors is not named by model.safetensors.index.json: transformers and candle
never read it, mlx-lm loads it too (it globs model*.safetensors)`.

## Fix safety
No fix: delete the stale file or rewrite the index.
"""

from cfglint.diagnostics import Effect, Finding
from cfglint.weights.effects import phrase
from cfglint.weights.loaders import loader_for

CODE = "W002"
NAME = "index-mismatch"
SEVERITY = "error"


def check(ctx):
    if ctx.weights is None:
        return
    globbing = [name for name, _ in ctx.loaded() if getattr(loader_for(name), "globs_shards", False)]
    for problem in ctx.weights.problems:
        if problem.kind == "index":
            yield Finding(problem.message)
        elif problem.kind == "stray":
            # Runtimes that glob model*.safetensors load the file the index leaves out.
            effects = tuple(Effect(name, "uses", None, "it globs model*.safetensors") for name in globbing)
            tail = f"; {phrase(effects, 'it')}" if effects else ""
            yield Finding(problem.message + tail, "", effects)
