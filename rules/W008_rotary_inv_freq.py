"""Leftover rotary_emb.inv_freq tensors in the weights.

## What it does
Reports `rotary_emb.inv_freq` buffers stored in the safetensors checkpoint (headers only): transformers
before 4.31 saved them; every runtime now computes RoPE frequencies from the config.

## Why it matters
Their values are never used, so a checkpoint that relies on them (for example a RoPE base edited only
in these tensors) runs with the config's RoPE everywhere. Most loaders skip them by name, but a strict
loader refuses the ones it does not expect (mlx-lm drops only the per-layer `self_attn.rotary_emb`
copies). Their length also records the head_dim they were made for.

## Example
`model.layers.0.self_attn.rotary_emb.inv_freq` stored as [4] in a checkpoint whose head_dim is 8.

## Fix safety
No fix: remove the tensors from the checkpoint if a loader refuses them.
"""

from cfglint.diagnostics import Finding, Severity

CODE = "W008"
NAME = "rotary-inv-freq"
SEVERITY = "info"
REQUIRES = ("weights",)


def check(ctx):
    if ctx.weights is None:
        return
    from cfglint.weights import loading
    from cfglint.weights.effects import phrase, reaction, some
    from cfglint.weights.layout import is_inv_freq

    reference = loading.plan(ctx).get(loading.REFERENCE)
    if reference is None:
        return
    names = [n for n in ctx.weights.tensors if is_inv_freq(n)]
    if not names:
        return
    reactions = [reaction(plan, [], [n for n in names if n in plan.unused]) for plan in loading.consumers(ctx).values()]
    effects = [e for e in reactions if e is not None]
    message = f"the weights hold {len(names)} leftover rotary_emb.inv_freq tensor(s) ({some(names, 1)}); RoPE is computed from the config and their values are never used"
    head_dim = ctx.intent.values.get("head_dim")  # None for latent attention (MLA keys instead)
    sizes = {ctx.weights.tensors[n].shape for n in names}
    if isinstance(head_dim, int) and sizes != {(head_dim // 2,)}:
        message += f"; they are sized {' or '.join(str(list(s)) for s in sorted(sizes))}, not [{head_dim // 2}] for head_dim {head_dim}"
    if effects:
        message += f": {phrase(effects)}"
    refused = any(e.outcome in ("error", "panic") for e in effects)
    yield Finding(message, "", tuple(effects), severity=Severity.ERROR if refused else None)
