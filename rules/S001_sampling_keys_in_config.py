"""Generation settings written into config.json.

## What it does
Reports sampling and generation keys (`temperature`, `top_k`, `do_sample`, ...) in config.json.

## Why it matters
They belong in generation_config.json. transformers 5 drops them from the model config and uses them for
`generate()` only while generation_config.json is absent (a generation_config.json, once added, silently
wins); transformers 4 kept them as config attributes, mistral.rs uses them when generation_config.json is
absent, and candle and mlx-lm never read them. The same file generates differently across runtimes.

## Example
```json
{"temperature": 0.7, "top_k": 20}
```

## Fix safety
Display-only: move them to generation_config.json by hand.
"""

from cfglint.diagnostics import Applicability, Edit, Finding, Fix
from cfglint.intent import SAMPLING_KEYS

CODE = "S001"
NAME = "sampling-keys-in-config"
SEVERITY = "warning"


def check(ctx):
    if ctx.intent is None:
        return
    keys = [k for k in ctx.config if k in SAMPLING_KEYS]
    if not keys:
        return
    listed = ", ".join(keys)
    fix = Fix("move them to generation_config.json", Applicability.DISPLAY, tuple(Edit("remove", "/" + k) for k in keys))
    if (ctx.doc.path.parent / "generation_config.json").exists():
        why = "generation_config.json exists, so transformers 5 ignores them"
    else:
        why = "transformers 5 uses them only until a generation_config.json exists; candle and mlx-lm never read them"
    yield Finding(f"generation settings in config.json ({listed}): {why}", "/" + keys[0], (), fix)
