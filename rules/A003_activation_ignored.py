"""The MLP activation a runtime runs differs from the one transformers runs.

## What it does
Reports a config whose activation (`hidden_act`, or Gemma 2 and 3's `hidden_activation`) a runtime reads
differently or replaces with its own: candle's and mlx-lm's Llama always run SiLU, mlx-lm's Gemma runs exact
GELU, and candle and transformers 4 read Gemma's legacy `"gelu"` as exact GELU where transformers 5 runs the
tanh approximation.

## Why it matters
The MLP computes a different function with the same weights; the model loads and produces wrong output.

## Example
```json
{"model_type": "gemma", "hidden_act": "gelu"}
```
transformers 5 runs "gelu_pytorch_tanh"; candle will use "gelu".

## Fix safety
No fix.
"""

from cfglint.diagnostics import Finding
from cfglint.reading import DEFAULT, DERIVED, FIXED, show
from cfglint.rule import describe, uses

CODE = "A003"
NAME = "activation-ignored"
SEVERITY = "error"
# Its findings depend only on the intent, the readings and these keys of the config (cfglint.memo).
CONFIG_KEYS = ("hidden_act", "hidden_activation")


def check(ctx):
    if ctx.intent is None:
        return
    effects = tuple(uses(n, v, "hidden_act") for n, v in ctx.diverging("hidden_act"))
    if effects:
        act = ctx.intent.values["hidden_act"]
        source = ctx.intent.sources.get("hidden_act", "")
        key = "hidden_activation" if source == "/hidden_activation" else "hidden_act"
        pointer = source if source not in (DEFAULT, DERIVED, FIXED, "") else (ctx.at(key) if key in ctx.config else "")
        yield Finding(f"{key}: transformers runs {show(act)}, but {describe(effects)}", pointer, effects)
