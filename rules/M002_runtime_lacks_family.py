"""A runtime has no loader for the config's model family.

## What it does
Names each runtime that cannot load this family at all (mistral.rs has no gemma3_text architecture,
candle's mixtral example builds its config in code), so its reading is not part of the check.

## Why it matters
Moving a model to a runtime that has no loader for its family fails before any config key matters; the
finding says so per runtime instead of leaving the runtime silently out of the report.

## Example
```json
{"model_type": "gemma3_text"}
```
mistralrs: mistral.rs 0.9 has no gemma3_text loader.

## Fix safety
Nothing to fix.
"""

from cfglint.diagnostics import Effect, Finding

CODE = "M002"
NAME = "runtime-lacks-family"
SEVERITY = "info"
# Its findings depend only on the intent, the readings and these keys of the config (cfglint.memo).
CONFIG_KEYS = ()


def check(ctx):
    if ctx.intent is None or ctx.intent.family is None:
        return
    lacking = [(n, v) for n, v in ctx.views.items() if v.outcome == "not-applicable"]
    if not lacking:
        return
    effects = tuple(Effect(n, "ignores", None, v.message or "") for n, v in lacking)
    details = "; ".join(v.message or n for n, v in lacking)
    yield Finding(f"not checked for {', '.join(n for n, _ in lacking)}: {details}", "/model_type", effects)
