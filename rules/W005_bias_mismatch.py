"""Bias tensors in the weights disagree with attention_bias / mlp_bias.

## What it does
Compares the projection bias tensors stored in the safetensors checkpoint (`*_proj.bias`, headers only)
with the biases the family builds from `attention_bias` and `mlp_bias` (Qwen2 builds q/k/v biases with no
flag at all): biases stored that the model does not build, or biases it builds missing from the weights.

## Why it matters
Runtimes disagree about stray biases, in opposite directions: transformers drops them with a warning,
candle never requests them, mlx-lm's strict load refuses them, and llama.cpp's converter keeps them and
its runtime adds them. The same checkpoint then computes different models. A flag that is true without
the tensors makes transformers initialise the missing biases (with a warning) and mlx-lm refuse to load.

## Example
```json
{"attention_bias": false}
```
with `model.layers.0.self_attn.q_proj.bias` stored (a LLaMA-fied Qwen checkpoint).

## Fix safety
Unsafe: sets the flag to what the weights hold (true when every projection of that kind has its bias,
false when none has). It changes what transformers reads, on purpose.
"""

from cfglint.diagnostics import Applicability, Edit, Finding, Fix, Severity

CODE = "W005"
NAME = "bias-mismatch"
SEVERITY = "error"
REQUIRES = ("weights",)

def check(ctx):
    if ctx.weights is None:
        return
    from cfglint.weights import loading
    from cfglint.weights.effects import phrase, some
    from cfglint.reading import show
    from cfglint.weights.layout import is_attention_bias, is_mlp_bias

    plans = loading.plan(ctx)
    reference = plans.get(loading.REFERENCE)
    if reference is None or not ctx.weights.complete:
        return
    for key, label, belongs in (("attention_bias", "attention", is_attention_bias), ("mlp_bias", "MLP", is_mlp_bias)):
        stored = [n for n in ctx.weights.tensors if belongs(n)]
        unbuilt = [n for n in reference.unused if belongs(n)]
        missing = [n for n in reference.missing if belongs(n)]
        flag = ctx.intent.values.get(key)
        written = ctx.intent.sources.get(key) == ctx.at(key)  # the file's key, not biases a family fixes
        if unbuilt:
            effects = _effects(ctx, unbuilt, unused=True)
            none = flag is None or flag is False
            said = f"{key} is false" if none else f"{key} is {show(flag)}"
            message = f"{said}, but the weights hold {len(unbuilt)} {label} bias tensor(s){'' if none else ' it does not build'} ({some(unbuilt)})"
            if effects:
                message += f": {phrase(effects)}"
            fix = None
            if none and set(stored) == set(_all_biases(ctx, belongs)):
                fix = Fix(f"set {key} to true", Applicability.UNSAFE, (Edit("set", ctx.at(key), True),))
            yield Finding(message, ctx.at(key), tuple(effects), fix)
        elif missing:
            effects = _effects(ctx, missing, unused=False)
            held = f"only {len(stored)} of {len(stored) + len(missing)}" if stored else "none of the"
            message = f"{key} is {show(flag)}, but the weights hold {held} {label} bias tensors (missing {some(missing)})"
            if effects:
                message += f": {phrase(effects)}"
            fix = None if stored or not written else Fix(f"set {key} to false", Applicability.UNSAFE, (Edit("set", ctx.at(key), False),))
            yield Finding(message, ctx.at(key), tuple(effects), fix, severity=Severity.WARNING)


def _all_biases(ctx, belongs):
    """Every bias of this kind the layout has when the flag is on (shapes do not matter here)."""
    from cfglint.weights import loading
    from cfglint.weights.layout import expected

    reference = loading.plan(ctx)[loading.REFERENCE]
    shape = loading.shape_of(ctx, ctx.intent.values, ctx.intent.sources)
    layout = loading.modelled_layout(ctx)
    return [n for n in expected(shape, tie=reference.tie, attention_bias=True, mlp_bias=True, layout=layout) if belongs(n)]


def _effects(ctx, names, unused):
    from cfglint.weights import loading
    from cfglint.weights.effects import reaction, uses

    effects = []
    for plan in loading.consumers(ctx).values():
        if unused:
            left = [n for n in names if n in plan.unused]
            effect = reaction(plan, [], left) if left else uses(plan.consumer)
        else:
            effect = reaction(plan, [n for n in names if n in plan.missing][:1], [])
        if effect is not None:
            effects.append(effect)
    return effects
