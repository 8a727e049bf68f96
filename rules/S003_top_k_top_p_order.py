"""top_k and top_p together: each runtime measures top_p against a different distribution.

## What it does
Reports sampling with both a top-k filter (written, or transformers' default 50) and `top_p` below 1.

## Why it matters
transformers applies temperature, keeps the top k, renormalises them, and then cuts at top_p. candle's
`Sampling::TopKThenTopP` measures p against the top k's un-renormalised share of the whole vocabulary,
so it keeps as many tokens as transformers or more (all k whenever their mass is below p). mlx-lm applies
top_p first, to the whole untempered distribution, and top_k after. The same two numbers give three
different token sets; no candle variant or mlx-lm `make_sampler` setting reproduces transformers.

## Example
```json
{"do_sample": true, "temperature": 0.6, "top_p": 0.9}
```
(top_k is transformers' default 50.)

## Fix safety
No automatic fix. `cfglint sampling PATH --logits FILE` gives the exact recipe and the distance of the nearest
setting.
"""

from cfglint.diagnostics import Finding
from cfglint.sampling.findings import effect, sampling_context

CODE = "S003"
NAME = "top-k-top-p-order"
SEVERITY = "warning"
REQUIRES = ("generation",)

HOW = {
    "candle": "measures p against the top-k's un-renormalised mass, keeping as many tokens or more",
    "mlx-lm": "applies top_p first, to the whole untempered distribution, then top_k",
}


def check(ctx):
    s = sampling_context(ctx)
    if s is None or s.sampler.error:
        return
    k, p = s.sampler.k, s.sampler.p
    if k is None or p is None:
        return
    effects = []
    for name in s.consumers:
        t = s.translation(name)
        if t.exact or t.literal is None:
            continue
        effects.append(effect(name, f"{t.literal.code} {HOW[name]}"))
    if not effects:
        return
    default = "" if s.generation.written("top_k") else " (transformers' default)"
    pointer, where = s.at("top_p")
    message = (
        f"{where}top_k {k}{default} with top_p {p}: transformers cuts at top_p after renormalising the top {k}; "
        + "; ".join(f"{e.consumer}: {e.detail}" for e in effects)
    )
    yield Finding(message, pointer, tuple(effects))
