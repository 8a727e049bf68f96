"""tie_word_embeddings disagrees with the lm_head.weight stored in the weights.

## What it does
Compares `tie_word_embeddings` (and whether it is written at all) with the presence of `lm_head.weight`
in the safetensors checkpoint (headers only).

## Why it matters
- Tied, but a separate head is stored: transformers 5 unties when the two differ and uses the stored
  head (with a warning); candle ignores it and uses the embeddings; mlx-lm drops it. Different models.
- Untied (or absent, which transformers and candle read as false) with no head stored: candle cannot
  find `lm_head.weight` and refuses to load; transformers initialises a random head after a warning.
- Absent while a head is stored: transformers and candle read false and use it; mlx-lm defaults to true
  and silently throws it away.

## Example
```json
{"tie_word_embeddings": false}
```
with no `lm_head.weight` stored: candle refuses to load (cannot find tensor lm_head.weight).

## Fix safety
Safe when the key is absent and a head is stored: writing `false` keeps what transformers reads and
tells mlx-lm the truth. Unsafe otherwise (true for a checkpoint without a head, false for one that
stores a head despite true): the value transformers reads changes, to match the weights.
"""

from cfglint.diagnostics import Applicability, Edit, Finding, Fix, Severity
from cfglint.reading import DEFAULT

CODE = "W006"
NAME = "tie-mismatch"
SEVERITY = "error"
REQUIRES = ("weights",)
POINTER = "/tie_word_embeddings"


def check(ctx):
    if ctx.weights is None:
        return
    from cfglint.weights import loading
    from cfglint.weights.effects import phrase, reaction, uses
    from cfglint.weights.layout import EMBED, HEAD

    plans = loading.plan(ctx)
    reference = plans.get(loading.REFERENCE)
    if reference is None or not ctx.weights.complete or EMBED not in ctx.weights.tensors:
        return
    stored = HEAD in ctx.weights.tensors
    tie = reference.tie
    absent = ctx.intent.sources.get("tie_word_embeddings") == DEFAULT
    effects = []
    for plan in loading.consumers(ctx).values():
        if stored:
            effect = reaction(plan, [], [HEAD]) if HEAD in plan.unused else uses(plan.consumer, "as the output head")
        else:
            effect = reaction(plan, [HEAD], []) if HEAD in plan.missing else uses(plan.consumer, "the embeddings as the output head")
        if effect is not None:  # a reaction to a tensor named is never None
            effects.append(effect)
    if stored and tie:
        message = "tie_word_embeddings is true, but the weights store a separate lm_head.weight: transformers 5 uses it when it differs from the embeddings (untying with a warning)"
        fix = Fix("set tie_word_embeddings to false", Applicability.UNSAFE, (Edit("set", POINTER, False),))
        severity = Severity.WARNING
    elif stored and absent:
        effects = [e for e in effects if e.outcome != "uses"]  # only the runtimes that lose the head matter
        message = "tie_word_embeddings is not written and the weights store lm_head.weight: transformers and candle read false and use it, runtimes that default to true (mlx-lm) drop it"
        fix = Fix('add "tie_word_embeddings": false', Applicability.SAFE, (Edit("set", POINTER, False),))
        severity = Severity.WARNING
    elif not stored and not tie:
        written = "is not written (read as false)" if absent else "is false"
        message = f"tie_word_embeddings {written}, but the weights store no lm_head.weight: transformers 5 initialises a random output head (with a warning)"
        fix = Fix("set tie_word_embeddings to true", Applicability.UNSAFE, (Edit("set", POINTER, True),))
        severity = None
    else:
        return
    if effects:
        message += f"; {phrase(effects, 'it')}"
    yield Finding(message, POINTER, tuple(effects), fix, severity=severity)
