"""Sampling settings are written but do_sample is off, so transformers decodes greedily.

## What it does
Reports `temperature`, `top_k`, `top_p` or `min_p` set to something other than transformers' defaults while
`do_sample` is false or unset.

## Why it matters
transformers applies none of them unless `do_sample` is true: generate() is greedy and only warns. A port
that copies the temperature samples instead: candle's llama example samples whenever `--temperature` is
above 0 (its default is 0.8), and mlx-lm whenever `--temp` is. The runtimes then write different text
from the same prompt.

## Example
```json
{"temperature": 0.6, "top_p": 0.9}
```

## Fix safety
No automatic fix: set `"do_sample": true` if sampling is meant, or drop the settings.
"""

from cfglint.diagnostics import Finding
from cfglint.generation import DEFAULTS
from cfglint.reading import show
from cfglint.sampling.findings import effect, sampling_context

CODE = "S009"
NAME = "sampling-without-do-sample"
SEVERITY = "warning"
REQUIRES = ("generation",)

WARPERS = ("temperature", "top_k", "top_p", "min_p")


def check(ctx):
    s = sampling_context(ctx)
    if s is None or s.sampler.do_sample:
        return
    values = s.generation.values
    written = [k for k in WARPERS if s.generation.written(k) and values[k] != DEFAULTS[k]]
    if not written:
        return
    greedy = {"candle": "--temperature 0 (Sampling::ArgMax)", "mlx-lm": "--temp 0"}
    effects = tuple(effect(n, f"matches only with {greedy[n]}") for n in s.consumers)
    listed = ", ".join(f"{k} {show(values[k])}" for k in written)
    pointer, where = s.at(written[0])
    yield Finding(
        f"{where}{listed} without do_sample: transformers decodes greedily and ignores them; a port that passes "
        f"them samples instead ({'; '.join(f'{e.consumer} {e.detail}' for e in effects)})",
        pointer, effects,
    )
