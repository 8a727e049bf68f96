"""Tensors the config needs are missing from the weights, or stored tensors nothing loads.

## What it does
After the layer count, biases, the tied head and RoPE buffers (W003, W005, W006, W008), compares the
remaining tensor names in the safetensors checkpoint (headers only) with the family's layout the config
describes: a required tensor that is absent (a norm, the embeddings, one projection of a layer) or a
stored tensor no loader of the family requests (a different naming scheme, an extra module).

## Why it matters
A missing tensor stops candle (a panic inside a layer), mlx-lm and llama.cpp, and leaves transformers
with randomly initialised weights after a warning. Unknown tensors are ignored by some runtimes and
refused by strict ones (mlx-lm, llama.cpp's converter).

## Example
A checkpoint without `model.norm.weight`: candle refuses to load (cannot find tensor
model.norm.weight).

## Fix safety
No fix: the checkpoint, not the config, is incomplete.
"""

from cfglint.diagnostics import Finding

CODE = "W010"
NAME = "tensor-set-mismatch"
SEVERITY = "error"
REQUIRES = ("weights",)


def check(ctx):
    if ctx.weights is None:
        return
    from cfglint.weights import loading
    from cfglint.weights.effects import OTHER, category, phrase, reaction, some
    from cfglint.weights.layout import layer_of

    plans = loading.plan(ctx)
    reference = plans.get(loading.REFERENCE)
    if reference is None or not ctx.weights.complete:
        return
    layers = ctx.intent.dims["num_hidden_layers"]
    present = {i for i in map(layer_of, ctx.weights.tensors) if i is not None}

    def other(names):
        return [n for n in names if category(n, layers, present) == OTHER]

    missing, unused = other(reference.missing), other(reference.unused)
    for names, is_missing in ((missing, True), (unused, False)):
        if not names:
            continue
        effects = []
        for plan in loading.consumers(ctx).values():
            mine = [n for n in other(plan.missing if is_missing else plan.unused) if n in names]
            effect = reaction(plan, mine[:1], []) if is_missing else reaction(plan, [], mine)
            if effect is not None:
                effects.append(effect)
        if is_missing:
            message = f"the weights lack {len(names)} tensor(s) the config requires ({some(names)})"
        else:
            message = f"the weights hold {len(names)} tensor(s) that no part of the {ctx.intent.family} layout uses ({some(names)})"
        if effects:
            message += f": {phrase(effects)}"
        yield Finding(message, "", tuple(effects))
