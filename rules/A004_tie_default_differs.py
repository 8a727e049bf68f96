"""tie_word_embeddings is absent, and runtimes disagree on its default.

## What it does
Reports a config without `tie_word_embeddings` for runtimes whose default differs from transformers'
(false for Llama, true for Gemma).

## Why it matters
mlx-lm defaults it to true and then throws the checkpoint's `lm_head.weight` away, computing logits with
the embedding matrix instead: an untied model loads and runs as a different model. transformers 4.x and 5.x
always write the key, so this bites hand-written and third-party configs.

## Example
A config with no `tie_word_embeddings` and an untied checkpoint: mlx-lm will use true.

## Fix safety
No automatic fix yet: whether the checkpoint is tied is a fact of the weights.
"""

from cfglint.diagnostics import Finding
from cfglint.reading import show
from cfglint.rule import describe, uses

CODE = "A004"
NAME = "tie-default-differs"
SEVERITY = "error"
# Its findings depend only on the intent, the readings and these keys of the config (cfglint.memo).
CONFIG_KEYS = ("tie_word_embeddings",)


def check(ctx):
    if ctx.intent is None or "tie_word_embeddings" in ctx.config:
        return
    effects = tuple(uses(n, v, "tie_word_embeddings") for n, v in ctx.diverging("tie_word_embeddings"))
    if effects:
        meant = show(ctx.intent.values["tie_word_embeddings"])
        yield Finding(f"tie_word_embeddings is absent (transformers: {meant}): {describe(effects)}", "", effects)
