"""transformers' generate() refuses the sampling settings that other runtimes accept.

## What it does
Reports sampler settings that make transformers' logits warpers raise ValueError: a `temperature` written
as an integer (`2` rather than `2.0`), a `top_k` that is negative or not an integer, a `top_p` below 0 or
not a number, a `min_p` outside [0, 1]. (A temperature at or below zero is S005.)

## Why it matters
transformers checks types strictly here: `TemperatureLogitsWarper` wants a float, `TopKLogitsWarper` an
int. The file loads, and generate() then fails, while candle and mlx-lm, given the same numbers, sample.

## Example
```json
{"do_sample": true, "temperature": 2}
```

## Fix safety
No automatic fix: write the value with the type transformers expects (`2.0`).
"""

from cfglint.diagnostics import Finding
from cfglint.sampling.findings import effect, sampling_context

CODE = "S010"
NAME = "generation-settings-rejected"
SEVERITY = "error"
REQUIRES = ("generation",)


def check(ctx):
    s = sampling_context(ctx)
    if s is None or not s.sampler.error:
        return
    t = s.generation.values["temperature"]
    if isinstance(t, (int, float)) and not isinstance(t, bool) and t <= 0:
        return  # S005
    key = next(k for k in ("temperature", "top_k", "top_p", "min_p") if f"`{k}`" in s.sampler.error)
    effects = tuple(effect(n, "samples with the same number") for n in s.consumers)
    pointer, where = s.at(key)
    yield Finding(
        f"{where}transformers' generate() raises ValueError: {s.sampler.error}; "
        f"{' and '.join(e.consumer for e in effects)} sample with it",
        pointer, effects,
    )
