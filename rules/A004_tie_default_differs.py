"""tie_word_embeddings is absent, and runtimes disagree on its default (or, in a multimodal file, on which one counts).

## What it does
Reports a config without `tie_word_embeddings` for runtimes whose default differs from transformers'
(false for Llama, true for Gemma). In a multimodal file (Gemma 3's `gemma3`), transformers 5 ties by the
top level's `tie_word_embeddings` (true by default) while transformers 4 reads text_config's: the rule
reports the runtimes that tie otherwise when the top level has none, or when the two disagree.

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
from cfglint.reading import DEFAULT, show
from cfglint.rule import describe, uses

CODE = "A004"
NAME = "tie-default-differs"
SEVERITY = "error"
# Its findings depend only on the intent, the readings and these keys of the config (cfglint.memo).
CONFIG_KEYS = ("tie_word_embeddings",)


def check(ctx):
    if ctx.intent is None or "tie_word_embeddings" not in ctx.intent.values:
        return
    source = ctx.intent.sources.get("tie_word_embeddings")
    top_level = ctx.intent.root and source in (DEFAULT, "/tie_word_embeddings")  # the wrapper's own, not text_config's
    if "tie_word_embeddings" in ctx.config and not top_level:
        return
    effects = tuple(uses(n, v, "tie_word_embeddings") for n, v in ctx.diverging("tie_word_embeddings"))
    if not effects:
        return
    meant = show(ctx.intent.values["tie_word_embeddings"])
    if not top_level:
        yield Finding(f"tie_word_embeddings is absent (transformers: {meant}): {describe(effects)}", "", effects)
    elif source == DEFAULT:
        yield Finding(f"tie_word_embeddings is absent from the top level, which transformers 5 ties by "
                      f"(transformers: {meant}): {describe(effects)}", "", effects)
    else:
        yield Finding(f"tie_word_embeddings {meant} at the top level, which transformers 5 ties by, differs from "
                      f"text_config's: {describe(effects)}", source, effects)
