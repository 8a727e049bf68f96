"""A sampling temperature of zero, below zero, or too small for candle's LogitsProcessor::new.

## What it does
Reports `do_sample: true` with `temperature` at or below 0, or above 0 but below 1e-7.

## Why it matters
transformers' generate() refuses a temperature that is not a strictly positive float (ValueError: "set
do_sample=False" for greedy decoding). The other runtimes run anyway: candle's llama example decodes
greedily (`Sampling::ArgMax` for temperature <= 0), mlx-lm is greedy at exactly 0 and at a negative
temperature divides the log-probs by it, sampling the least likely tokens first. Between 0 and 1e-7,
candle's `LogitsProcessor::new` silently switches to argmax while transformers still samples.

## Example
```json
{"do_sample": true, "temperature": 0.0}
```

## Fix safety
No automatic fix: set `do_sample` to false for greedy decoding, or a positive temperature.
"""

from cfglint.diagnostics import Effect, Finding, Severity
from cfglint.sampling.findings import effect, sampling_context

CODE = "S005"
NAME = "temperature-near-zero"
SEVERITY = "error"
REQUIRES = ("generation",)

CANDLE_ARGMAX_BELOW = 1e-7  # candle-transformers generation/mod.rs LogitsProcessor::new


def check(ctx):
    s = sampling_context(ctx)
    if s is None or not s.sampler.do_sample:
        return
    t = s.generation.values["temperature"]
    if not isinstance(t, (int, float)) or isinstance(t, bool) or t >= CANDLE_ARGMAX_BELOW:
        return
    pointer, where = s.at("temperature")
    if t > 0:
        if "candle" not in s.consumers:
            return
        effects: tuple[Effect, ...] = (effect("candle", "LogitsProcessor::new(seed, Some(t), ..) decodes greedily below 1e-7"),)
        yield Finding(
            f"{where}temperature {t} is below 1e-7: candle's LogitsProcessor::new decodes greedily (argmax), while "
            "transformers samples at that temperature",
            pointer, effects, severity=Severity.INFO,
        )
        return
    consequences = {
        "candle": "decodes greedily (Sampling::ArgMax in its llama example)",
        "mlx-lm": "decodes greedily" if t == 0 else "divides the log-probs by a negative number and favours the least likely tokens",
    }
    effects = tuple(effect(n, consequences[n]) for n in s.consumers)
    runs = "; ".join(f"{e.consumer} {e.detail}" for e in effects)
    yield Finding(
        f"{where}temperature {t} with do_sample on: transformers' generate() raises ValueError (temperature must be a "
        f"strictly positive float); {runs}",
        pointer, effects,
    )
