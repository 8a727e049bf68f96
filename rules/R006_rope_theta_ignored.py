"""A runtime uses another RoPE base than the top-level rope_theta every reader can see.

## What it does
Reports a runtime whose RoPE base differs from transformers' although the file writes `rope_theta` at the
top level (where every runtime's reader looks) and nowhere else differently: the runtime hard-codes the base
or never reads the key for this family (llama.cpp's converter writes no RoPE base for Gemma and Gemma 2, so
llama.cpp runs them with 10000).

## Why it matters
Positions are rotated at another frequency from the first token on: the model loads and its logits differ,
more with every position. No edit of config.json reaches a base the runtime never reads.

## Example
```json
{"model_type": "gemma", "rope_theta": 100000.0}
```
llama.cpp will use 10000.

## Fix safety
No fix: the runtime does not read the key. Convert or load the model with a runtime version that does.
"""

from cfglint.diagnostics import Finding
from cfglint.reading import same, show
from cfglint.rule import describe, uses

CODE = "R006"
NAME = "rope-theta-ignored"
SEVERITY = "error"
# Its findings depend only on the intent, the readings and these keys of the config (cfglint.memo).
CONFIG_KEYS = ("rope_theta",)


def check(ctx):
    written = ctx.config.get("rope_theta") if ctx.intent is not None else None
    theta = ctx.intent.values.get("rope_theta") if written is not None else None
    if written is None or not same("rope_theta", written, theta):
        return  # not at the top level (R001 speaks for the readers that miss it), or two bases in the file (R003)
    effects = tuple(uses(n, v, "rope_theta") for n, v in ctx.diverging("rope_theta") if not ctx.from_layer_type(v, "rope_theta"))  # R007
    if effects:
        yield Finding(f"rope_theta is {show(theta)}, written where every reader looks, but {describe(effects)}", ctx.at("rope_theta"), effects)
