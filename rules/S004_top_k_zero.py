"""top_k 0 turns the filter off in transformers; candle's TopK with k 0 fails.

## What it does
Reports `"top_k": 0` under sampling.

## Why it matters
transformers (and mlx-lm) read 0 as "no top-k filter". candle's `Sampling::TopK { k: 0, .. }` keeps no
token at all and `WeightedIndex::new` returns an error at the first sampled token; candle's llama example
builds exactly that from `--top-k 0`. The candle setting has to leave top-k out instead
(`Sampling::All` or `Sampling::TopP`).

## Example
```json
{"do_sample": true, "top_k": 0, "top_p": 0.95}
```

## Fix safety
No automatic fix; nothing is wrong for transformers.
"""

from cfglint.diagnostics import Finding
from cfglint.sampling.findings import effect, sampling_context

CODE = "S004"
NAME = "top-k-zero"
SEVERITY = "warning"
REQUIRES = ("generation",)


def check(ctx):
    s = sampling_context(ctx)
    top_k = s.generation.values["top_k"] if s else None
    if s is None or not s.sampler.do_sample or not s.generation.written("top_k") or top_k != 0 or isinstance(top_k, bool):
        return
    if "candle" not in s.consumers:
        return
    t = s.translation("candle")
    assert t.literal is not None
    effects = (effect("candle", f"Sampling::TopK {{ k: 0, .. }} fails (no token to sample); use {t.literal.code}"),)
    pointer, where = s.at("top_k")
    message = (
        f"{where}top_k 0 turns top-k off in transformers, but candle's Sampling::TopK with k 0 (--top-k 0 in its "
        f"example) fails at the first token; candle needs {t.literal.code}"
    )
    yield Finding(message, pointer, effects)
