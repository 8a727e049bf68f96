"""Generation settings written into config.json.

## What it does
Reports sampling and generation keys (`temperature`, `top_k`, `do_sample`, ...) in config.json.

## Why it matters
transformers 5 drops them when it loads the config: they belong in generation_config.json. transformers 4
kept them, and mistral.rs uses them when generation_config.json is absent, so the same file generates
differently across runtimes.

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
    yield Finding(f"generation settings in config.json ({listed}) are dropped by transformers 5 on load; put them in generation_config.json", "/" + keys[0], (), fix)
