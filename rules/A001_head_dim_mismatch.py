"""An explicit head_dim that a runtime derives differently.

## What it does
Reports a `head_dim` that differs from hidden_size // num_attention_heads, for runtimes that ignore the key
and derive it themselves; and a `head_dim` transformers does not take (a 0 it replaces by hidden_size //
num_attention_heads) that a runtime takes as written.

## Why it matters
candle and mistral.rs build the attention projections for hidden_size / num_attention_heads per head: the
checkpoint's q/k/v/o weights do not fit, and candle panics while loading the layer (its `Block::load` is
unwrapped).

## Example
```json
{"hidden_size": 1792, "num_attention_heads": 24, "head_dim": 128}
```
candle derives 74 and panics at load.

## Fix safety
No fix: the runtime cannot express the model.
"""

from cfglint.consumers import REFERENCE
from cfglint.diagnostics import Effect, Finding
from cfglint.reading import show
from cfglint.rule import describe

CODE = "A001"
NAME = "head-dim-mismatch"
SEVERITY = "error"
# Its findings depend only on the intent, the readings and these keys of the config (cfglint.memo).
CONFIG_KEYS = ()


def check(ctx):
    intent = ctx.intent
    if intent is None or "head_dim" not in ctx.config:
        return
    explicit = intent.sources.get("head_dim") == ctx.at("head_dim")
    reference = ctx.views.get(REFERENCE)
    if not explicit and (reference is None or reference.failure is not None):
        return  # what transformers builds instead is no reading when it refuses the value (L001)
    effects = []
    for name, view in ctx.diverging("head_dim"):
        if view.failure is not None and view.failure.kind == "shape":
            effects.append(Effect(name, view.outcome, view.values["head_dim"], view.failure.message))
        else:
            effects.append(Effect(name, "uses", view.values["head_dim"], view.sources.get("head_dim", "")))
    if not effects:
        return
    hidden, heads = intent.dims["hidden_size"], intent.dims["num_attention_heads"]
    if explicit:
        message = f"head_dim {show(intent.values['head_dim'])} is not hidden_size/num_attention_heads ({hidden}/{heads}): {describe(effects)}"
    else:
        message = (f"head_dim {show(ctx.config['head_dim'])} is not taken by transformers, which builds "
                   f"hidden_size/num_attention_heads ({hidden}/{heads}) = {show(intent.values['head_dim'])}: {describe(effects)}")
    yield Finding(message, ctx.at("head_dim"), tuple(effects))
