"""Sampling is on and top_k is not written, so transformers samples from the top 50 tokens only.

## What it does
Reports a generation config that turns sampling on (`do_sample: true`) without writing `top_k`, and shows
the setting each runtime needs to match.

## Why it matters
transformers fills an unset (or null) `top_k` with 50 and keeps only the 50 most likely tokens. candle and
mlx-lm have no such default: a port of the written values (candle `Sampling::All`, mlx-lm
`make_sampler(temp=...)`) samples the whole vocabulary, so some draws land on tokens transformers never
picks. `cfglint sampling PATH --logits FILE` measures how many.

## Example
```json
{"do_sample": true, "temperature": 0.7}
```
transformers samples top-50 at 0.7; candle needs `Sampling::TopK { k: 50, temperature: 0.7 }`.

## Fix safety
No automatic fix: write `"top_k": 50` in generation_config.json to make the default visible.
"""

from cfglint.diagnostics import Finding
from cfglint.sampling.findings import effect, sampling_context

CODE = "S002"
NAME = "implicit-top-k"
SEVERITY = "warning"
REQUIRES = ("generation",)


def check(ctx):
    s = sampling_context(ctx)
    if s is None or not s.sampler.do_sample or s.generation.written("top_k") or s.sampler.error:
        return
    effects, parts = [], []
    for name in s.consumers:
        t = s.translation(name)
        if t.as_written is None or t.literal is None:
            continue
        effects.append(effect(name, f"{t.as_written.code} samples the whole vocabulary; {t.literal.code} matches"))
        parts.append(f"{name} needs {t.literal.code}, not {t.as_written.code}")
    if not effects:
        return
    pointer, where = s.at("do_sample")
    message = (
        f"{where}do_sample is on and top_k is not written: transformers samples from the 50 most likely tokens "
        f"only (its default); {'; '.join(parts)}"
    )
    yield Finding(message, pointer, tuple(effects))
