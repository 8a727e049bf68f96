"""A runtime applies a different sliding window, or to different layers, than transformers does.

## What it does
Compares, layer by layer, the attention window each runtime applies with the one transformers 5 applies
(`sliding_window` on the layers `layer_types`, `use_sliding_window` and `max_window_layers`, or Gemma's
alternation, make sliding). A window at least as long as `max_position_embeddings` never masks anything and
counts as none.

## Why it matters
A runtime that slides where transformers attends fully (candle's Qwen2 applies `sliding_window` to every layer
whatever `use_sliding_window` says), or attends fully where transformers slides (llama.cpp's converter writes
no window for Mistral; mlx-lm's Gemma 2 has none; mlx-lm's Llama slides on layers typed `sliding_attention`,
transformers' Llama never does), computes different attention past the window: the model is the same for short
prompts and different for long ones.

## Example
```json
{"model_type": "qwen2", "use_sliding_window": false, "sliding_window": 4096, "max_position_embeddings": 32768}
```
candle slides 4096 on all 28 layers; transformers attends fully.

## Fix safety
No fix: which window the model was trained with is not in the file.
"""

from cfglint.diagnostics import Effect, Finding
from cfglint.reading import show
from cfglint.rule import describe

CODE = "A005"
NAME = "sliding-window-differs"
SEVERITY = "error"
# Its findings depend only on the intent, the readings and these keys of the config (cfglint.memo).
CONFIG_KEYS = ("sliding_window",)


def windows(values: dict, context: object) -> list | None:
    kinds, window = values.get("layer_types"), values.get("sliding_window")
    if not isinstance(kinds, list):
        return None
    if isinstance(window, int) and isinstance(context, int) and window >= context:
        window = None
    return [window if kind == "sliding_attention" else None for kind in kinds]


def summary(per_layer: list) -> str:
    sliding = [w for w in per_layer if w is not None]
    if not sliding:
        return "no sliding window"
    where = "every layer" if len(sliding) == len(per_layer) else f"{len(sliding)} of {len(per_layer)} layers"
    return f"window {show(sliding[0])} on {where}"


def check(ctx):
    intent = ctx.intent
    if intent is None or intent.family is None:
        return
    context = intent.values.get("max_position_embeddings")
    want = windows(intent.values, context)
    if want is None:
        return
    kinds, window = intent.values.get("layer_types"), intent.values.get("sliding_window")
    effects = []
    for name, view in ctx.loaded():
        if view.values.get("layer_types") == kinds and view.values.get("sliding_window") == window:
            continue  # the same layers and window: the same windows, without building them
        theirs = windows(view.values, context)
        if theirs is not None and theirs != want:
            effects.append(Effect(name, "uses", summary(theirs), ""))
    if effects:
        pointer = ctx.at("sliding_window") if "sliding_window" in ctx.config else ctx.at("model_type")
        text = describe(effects).replace('"', "")
        yield Finding(f"transformers applies {summary(want)}; {text}", pointer, tuple(effects))
