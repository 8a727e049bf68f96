"""The config is not a Llama-family model, so Llama profiles do not apply.

## What it does
Says which runtime profiles were not applied because `model_type` is not a Llama-family type (or, without
`model_type`, `architectures` has no LlamaForCausalLM).

## Why it matters
A Qwen3 or Gemma config read by a Llama loader would be misread in ways these profiles do not describe;
cfglint says so instead of guessing.

## Example
```json
{"model_type": "qwen3"}
```

## Fix safety
Nothing to fix.
"""

from cfglint.diagnostics import Effect, Finding

CODE = "M001"
NAME = "not-llama-family"
SEVERITY = "info"


def check(ctx):
    skipped = [n for n, v in ctx.views.items() if v.outcome == "not-applicable"]
    if ctx.intent is None or not skipped:
        return
    kind = ctx.intent.model_type
    what = f"model_type {kind!r}" if kind else "no model_type and no LlamaForCausalLM architecture"
    effects = tuple(Effect(n, "ignores", None, "profile not applicable") for n in skipped)
    pointer = "/model_type" if kind else ""
    yield Finding(f"{what} is not Llama-family: not checked for {', '.join(skipped)}", pointer, effects)
