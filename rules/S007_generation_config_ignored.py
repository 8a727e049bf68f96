"""generation_config.json sets sampling, but candle never reads it and mlx-lm reads only its eos.

## What it does
Reports a generation_config.json that writes sampler settings (`do_sample`, `temperature`, `top_k`,
`top_p`, `min_p`, `repetition_penalty`), and the setting each runtime has to be given by hand.

## Why it matters
transformers' generate() samples the way the model's publisher wrote it. candle's llama example never
opens generation_config.json (temperature 0.8 and its own repeat penalty unless told otherwise); mlx-lm
takes only `eos_token_id` from it and decodes greedily unless given `--temp`. The model card's sampling
is lost unless each runtime is set by hand.

## Example
```json
{"do_sample": true, "temperature": 0.6, "top_p": 0.9}
```

## Fix safety
No automatic fix: `cfglint sampling PATH` prints each runtime's setting.
"""

from cfglint.diagnostics import Finding
from cfglint.generation import FROM_GENERATION_FILE, SAMPLER_KEYS
from cfglint.sampling.findings import effect, sampling_context

CODE = "S007"
NAME = "generation-config-ignored"
SEVERITY = "warning"
REQUIRES = ("generation",)

IGNORES = {
    "candle": "never reads generation_config.json",
    "mlx-lm": "reads only eos_token_id from generation_config.json",
}


def check(ctx):
    s = sampling_context(ctx)
    if s is None or s.generation.origin != FROM_GENERATION_FILE:
        return
    written = [k for k in SAMPLER_KEYS if s.generation.written(k)]
    if not written:
        return
    effects = []
    for name in s.consumers:
        t = s.translation(name)
        setting = f"; pass {t.literal.flags}" if t.literal is not None else ""
        effects.append(effect(name, f"{IGNORES[name]}{setting}"))
    pointer, where = s.at(written[0])
    yield Finding(
        f"{where}generation_config.json sets {', '.join(written)}: "
        + "; ".join(f"{e.consumer} {e.detail}" for e in effects),
        pointer, tuple(effects),
    )
