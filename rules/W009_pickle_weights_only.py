"""The weights are only in pickle files, which cfglint does not open.

## What it does
Reports a model directory whose only weights are `pytorch_model*.bin` files: cfglint never unpickles
(loading a pickle can run arbitrary code), so the config was not checked against these weights.

## Why it matters
The weight checks (layer count, shapes, biases, tied head, dtype) did not run. Runtimes that read only
safetensors (candle, mlx-lm, mistral.rs) find no weights at all.

## Example
A directory with `config.json` and `pytorch_model.bin`.

## Fix safety
No fix: convert the checkpoint to safetensors to have it checked.
"""

from cfglint.diagnostics import Effect, Finding, Severity

CODE = "W009"
NAME = "pickle-weights-only"
SEVERITY = "info"
REQUIRES = ("weights",)


def check(ctx):
    weights = ctx.weights
    if weights is None or weights.safetensors or not weights.pickles:
        return
    from cfglint.weights.effects import phrase
    from cfglint.weights.loaders import loader_for

    effects = tuple(
        Effect(name, "error", None, "reads only safetensors")
        for name, _ in ctx.loaded()
        if (loader := loader_for(name)) is not None and not loader.reads_pickle
    )
    message = f"the only weights are pickle files ({', '.join(weights.pickles)}): cfglint does not open pickles, so the config was not checked against them"
    if effects:
        message += f"; {phrase(effects)}"
    yield Finding(message, "", effects, severity=Severity.WARNING if effects else None)
