"""num_hidden_layers does not match the layers stored in the weights.

## What it does
Compares `num_hidden_layers` with the layer indices in the tensor names (`model.layers.{i}.`) of the
safetensors checkpoint beside config.json (headers only).

## Why it matters
A config with one layer too many makes candle panic while loading the missing layer (its
`Block::load(...).unwrap()`), mlx-lm and llama.cpp refuse to load, and transformers fills the layer with
random weights after a warning. One layer too few loads everywhere that ignores extra tensors, and the
model silently runs without its last layers.

## Example
```json
{"num_hidden_layers": 4}
```
with weights holding layers 0-2: candle panics at load (cannot find tensor
model.layers.3.self_attn.q_proj.weight).

## Fix safety
Unsafe: sets `num_hidden_layers` to the number of stored layers when they are numbered 0..n-1. It
changes what transformers reads, on purpose.
"""

from cfglint.diagnostics import Applicability, Edit, Finding, Fix

CODE = "W003"
NAME = "layer-count-mismatch"
SEVERITY = "error"
REQUIRES = ("weights",)


def check(ctx):
    if ctx.weights is None:
        return
    from cfglint.weights import loading
    from cfglint.weights.effects import LAYERS, category, phrase, ranges, reaction
    from cfglint.weights.layout import layer_of

    plans = loading.plan(ctx)
    reference = plans.get(loading.REFERENCE)
    if reference is None or not ctx.weights.complete:
        return
    present = {i for i in map(layer_of, ctx.weights.tensors) if i is not None}
    layers = ctx.intent.dims["num_hidden_layers"]
    if not present or present == set(range(layers)):
        return
    effects = []
    for plan in loading.consumers(ctx).values():
        missing = [n for n in plan.missing if category(n, layers, present) == LAYERS]
        unused = [n for n in plan.unused if category(n, layers, present) == LAYERS]
        effect = reaction(plan, missing[:1], unused)
        if effect is not None:
            effects.append(effect)
    absent = sorted(set(range(layers)) - present)
    extra = sorted(present - set(range(layers)))
    message = f"num_hidden_layers is {layers}, but the weights hold {len(present)} layer(s) ({ranges(present)})"
    if absent:
        message += f"; layer(s) {ranges(absent)} are missing"
    if extra:
        message += f"; layer(s) {ranges(extra)} are never loaded"
    if effects:
        message += f": {phrase(effects)}"
    fix = None
    if present == set(range(len(present))):
        fix = Fix(f"set num_hidden_layers to {len(present)}", Applicability.UNSAFE, (Edit("set", "/num_hidden_layers", len(present)),))
    yield Finding(message, "/num_hidden_layers", tuple(effects), fix)
