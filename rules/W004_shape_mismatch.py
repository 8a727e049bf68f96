"""A stored tensor's shape does not match the config.

## What it does
Checks the shapes in the safetensors headers beside config.json against the shapes the config implies:
embeddings and `lm_head` (vocab_size × hidden_size), q/k/v/o projections (num_attention_heads and
num_key_value_heads × head_dim, as each runtime derives head_dim), MLP projections (intermediate_size),
norms. Reports once per config key to blame, with every runtime's reaction.

## Why it matters
A shape that does not fit stops the load: candle panics inside a layer, transformers raises a size
mismatch, mlx-lm and llama.cpp refuse the tensor. When the weights fit transformers' reading but a
runtime derives a dimension differently (candle computes head_dim as hidden/heads), only that runtime
fails.

## Example
```json
{"hidden_size": 16, "intermediate_size": 64}
```
with `model.layers.0.mlp.gate_proj.weight` stored as [48, 16].

## Fix safety
No fix: which side is wrong, the config or the checkpoint, is not knowable from the headers.
"""

from cfglint.diagnostics import Applicability, Edit, Effect, Finding, Fix

CODE = "W004"
NAME = "shape-mismatch"
SEVERITY = "error"
REQUIRES = ("weights",)


def check(ctx):
    if ctx.weights is None:
        return
    from cfglint.weights import loading
    from cfglint.weights.effects import phrase

    plans = loading.plan(ctx)
    reference = plans.get(loading.REFERENCE)
    if reference is None:
        return
    # Group by the config key transformers' reading blames; a tensor only some runtime gets wrong is
    # grouped under the key that runtime's derivation blames.
    blamed = _blames(reference)
    groups: dict[tuple[bool, str], dict[str, list]] = {}
    for name, plan in plans.items():
        view = ctx.views.get(name)
        if view is not None and view.failure is not None and view.failure.kind == "shape":
            continue  # predicted from the config alone and reported by A001
        own = _blames(plan)
        for m in plan.mismatched:
            group = (True, blamed[m.name]) if m.name in blamed else (False, own[m.name])
            groups.setdefault(group, {}).setdefault(name, []).append(m)
    for (for_reference, key), found in groups.items():
        effects = []
        for name, ms in found.items():
            if name != loading.REFERENCE:
                outcome, detail = plans[name].on_shape(ms[0])
                effects.append(Effect(name, outcome, None, detail))
        mismatches = found.get(loading.REFERENCE) or next(iter(found.values()))
        first = mismatches[0]
        where = f" ({first.axis.why})" if first.axis is not None else ""
        if for_reference:
            message = f"{first.name} is stored as {list(first.stored)}, but the config makes it {list(first.spec.shape)}{where}"
        else:
            message = f"the weights fit the config as transformers reads it, but {first.name} is {list(first.stored)} where a runtime builds {list(first.spec.shape)}{where}"
        if len(mismatches) > 1:
            message += f"; {len(mismatches) - 1} more tensor(s) disagree the same way"
        if effects:
            message += f": {phrase(effects)}"
        yield Finding(message, "/" + key if key else "", tuple(effects), _fix(ctx, first) if for_reference else None)


def _blames(plan) -> dict[str, str]:
    """Tensor -> the config key to blame for its shape."""
    blamed = {m.name: m.axis.key if m.axis is not None else "" for m in plan.mismatched}
    for m in plan.mismatched:
        # k/v rows off together with q rows in the same layer: head_dim is wrong, not the kv head count.
        q = m.name.replace(".k_proj.", ".q_proj.").replace(".v_proj.", ".q_proj.")
        if q != m.name and q in blamed:
            blamed[m.name] = blamed[q]
    return blamed


def _fix(ctx, m):
    """A missing num_key_value_heads is the one shape key the weights pin down: k_proj rows / head_dim."""
    head_dim = ctx.intent.values.get("head_dim")  # None for latent attention (MLA keys instead)
    if not (m.name.endswith("self_attn.k_proj.weight") and "num_key_value_heads" not in ctx.config and m.axis is m.spec.axes[0]):
        return None
    rows = m.stored[0]
    if not isinstance(head_dim, int) or head_dim <= 0 or rows % head_dim:
        return None
    kv = rows // head_dim
    return Fix(f"add \"num_key_value_heads\": {kv}", Applicability.UNSAFE, (Edit("set", "/num_key_value_heads", kv),))
