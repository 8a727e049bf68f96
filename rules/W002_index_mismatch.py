"""The shard index and the shard files disagree.

## What it does
Compares `model.safetensors.index.json` with the shards beside it: a tensor the index places in a shard
that does not hold it, a tensor a shard holds that the index does not list, the same tensor in two
shards, and `model*.safetensors` files the index does not name (or shards with no index at all).

## Why it matters
Loaders resolve shards differently. transformers, candle and llama.cpp's converter read only the
shards the index names; mlx-lm globs every `model*.safetensors`, so a stale shard left over from an
earlier save is loaded too and can replace tensors (whichever file is read last wins) or trip its strict
load. llama.cpp's converter refuses an index whose tensor names differ from its shards'.

## Example
`model-00003-of-00003.safetensors is not named by model.safetensors.index.json: transformers and candle
never read it, mlx-lm loads it too`.

## Fix safety
No fix: delete the stale file or rewrite the index.
"""

from cfglint.diagnostics import Effect, Finding

CODE = "W002"
NAME = "index-mismatch"
SEVERITY = "error"
REQUIRES = ("weights",)


def check(ctx):
    weights = ctx.weights
    if weights is None:
        return
    from cfglint.weights.effects import phrase
    from cfglint.weights.loaders import loader_for

    loaders = [(name, loader) for name, _ in ctx.loaded() if (loader := loader_for(name)) is not None]
    strict = tuple(Effect(name, "error", None, "Mismatch between weight map and model parts") for name, loader in loaders if loader.index_must_match)
    globbing = [name for name, loader in loaders if (loader.globs_beside_index if weights.indexed else loader.globs_without_index)]
    for problem in weights.problems:
        if problem.kind == "index":
            tail = f"; {phrase(strict)}" if strict else ""
            yield Finding(problem.message + tail, "", strict)
        elif problem.kind == "stray":
            # Runtimes that glob model*.safetensors load the file the index leaves out.
            effects = tuple(Effect(name, "uses", None, "it globs model*.safetensors; of a tensor held twice, the file read last wins") for name in globbing)
            tail = f"; {phrase(effects, 'it')}" if effects else ""
            yield Finding(problem.message + tail, "", effects)
