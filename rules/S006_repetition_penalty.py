"""The repetition penalty's value and window differ between transformers and the other runtimes.

## What it does
Reports a `repetition_penalty` other than 1.0, and, when sampler settings are written at all, candle's
llama example default of 1.1.

## Why it matters
transformers divides (or, for negative logits, multiplies) the logit of every token already in the
sequence, prompt included, by the penalty; its default is 1.0, no penalty. candle's llama example
applies `--repeat-penalty 1.1` over only the last `--repeat-last-n 128` tokens unless told otherwise, and
mlx-lm's `make_logits_processors` looks back only `repetition_context_size` 20 tokens (its command line
has no option for it). The formula is the same; the window and the default are not.

## Example
```json
{"do_sample": true, "temperature": 0.7, "repetition_penalty": 1.2}
```

## Fix safety
No automatic fix: pass the penalty and a window covering the whole sequence to each runtime.
"""

from cfglint.diagnostics import Effect, Finding, Severity
from cfglint.generation import SAMPLER_KEYS
from cfglint.reading import show
from cfglint.sampling.findings import effect, sampling_context

CODE = "S006"
NAME = "repetition-penalty"
SEVERITY = "warning"
REQUIRES = ("generation",)


def check(ctx):
    s = sampling_context(ctx)
    if s is None or not any(s.generation.written(k) for k in SAMPLER_KEYS):
        return
    penalty = s.generation.values["repetition_penalty"]
    pointer, where = s.at("repetition_penalty")
    if penalty == 1.0:
        if "candle" not in s.consumers:
            return
        effects: tuple[Effect, ...] = (effect("candle", "its llama example applies --repeat-penalty 1.1 over the last 128 tokens"),)
        yield Finding(
            f"{where}no repetition penalty in transformers (1.0), but candle's llama example applies 1.1 over the last "
            "128 tokens unless run with --repeat-penalty 1",
            pointer, effects, severity=Severity.INFO,
        )
        return
    windows = {
        "candle": "only over the last --repeat-last-n tokens (128 by default) in its llama example",
        "mlx-lm": "only over the last repetition_context_size tokens (20 by default), and not from its command line",
    }
    effects = tuple(effect(n, windows[n]) for n in s.consumers)
    yield Finding(
        f"{where}repetition_penalty {show(penalty)}: transformers penalises every token so far, prompt included; "
        + "; ".join(f"{e.consumer} {e.detail}" for e in effects),
        pointer, effects,
    )
