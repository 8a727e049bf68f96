"""The config's model family is one cfglint does not model, so no runtime's reading was checked.

## What it does
Reports a config whose `model_type` (or, without one, `architectures`) names a family for which cfglint has
no knowledge of what transformers means, so nothing about how runtimes read it was checked.

## Why it matters
An unchecked file is not a clean one: a run that says nothing about a family it cannot read would pass a
misread model. The finding keeps that visible in CI; ignore `M001` in the settings to accept it.

## Example
```json
{"model_type": "falcon"}
```

## Fix safety
Nothing to fix.
"""

from cfglint.diagnostics import Effect, Finding

CODE = "M001"
NAME = "family-not-modelled"
SEVERITY = "warning"
# Its findings depend only on the intent, the readings and these keys of the config (cfglint.memo).
CONFIG_KEYS = ()


def check(ctx):
    if ctx.intent is None or ctx.intent.family is not None:
        return
    kind = ctx.intent.model_type
    what = f"model_type {kind!r}" if kind else "no model_type and no known architecture"
    effects = tuple(Effect(n, "ignores", None, "family not modelled") for n in ctx.views)
    yield Finding(f"{what} is a family cfglint does not model: not checked for any runtime", "/model_type" if kind else "", effects)
