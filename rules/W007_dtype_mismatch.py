"""The config's dtype is not the dtype the weights are stored in.

## What it does
Compares `dtype` (or `torch_dtype`; `dtype` wins, as in transformers) with the floating-point dtype
that holds most of the parameters in the safetensors checkpoint (headers only).

## Why it matters
transformers 5 loads in the config's dtype by default: a checkpoint stored in float32 under a config
saying bfloat16 loses precision on load, and one stored in bfloat16 under float32 doubles its memory.
`mlx_lm.convert` casts to `torch_dtype`. Other runtimes ignore the key and keep or choose their own,
so the same checkpoint runs at different precisions.

## Example
```json
{"torch_dtype": "float32"}
```
with every tensor stored as BF16.

## Fix safety
Unsafe: sets the key(s) to the stored dtype, which changes the precision transformers loads in.
"""

from cfglint.diagnostics import Applicability, Edit, Effect, Finding, Fix

CODE = "W007"
NAME = "dtype-mismatch"
SEVERITY = "warning"
REQUIRES = ("weights",)

# torch dtype names as configs write them -> safetensors dtype codes
DTYPES = {"bfloat16": "BF16", "float16": "F16", "half": "F16", "float32": "F32", "float": "F32", "float64": "F64", "double": "F64"}
NAMES = {"BF16": "bfloat16", "F16": "float16", "F32": "float32", "F64": "float64"}


def check(ctx):
    if ctx.weights is None:
        return
    from cfglint.weights import loading
    from cfglint.weights.effects import phrase

    if loading.plan(ctx).get(loading.REFERENCE) is None:
        return
    said = ctx.intent.dtype
    want = DTYPES.get(said.removeprefix("torch.")) if isinstance(said, str) else None
    stored = ctx.weights.float_dtypes()
    if want is None or not stored:
        return
    main, count = next(iter(stored.items()))
    if main == want or main not in NAMES:
        return
    total = sum(stored.values())
    keys = [k for k in ("dtype", "torch_dtype") if isinstance(ctx.config.get(k), str)]
    effects = tuple(
        Effect(name, "uses" if plan.loader.uses_dtype else "ignores", None, plan.loader.dtype)
        for name, plan in loading.consumers(ctx).items()
    )
    message = f'{keys[0]} is "{said}", but {count / total:.0%} of the stored parameters are {main}'
    message += f": transformers 5 loads them as {said}"
    if effects:
        message += f"; {phrase(effects, 'it')}"
    fix = Fix(f'set {" and ".join(keys)} to "{NAMES[main]}"', Applicability.UNSAFE, tuple(Edit("set", "/" + k, NAMES[main]) for k in keys))
    yield Finding(message, "/" + keys[0], effects, fix)
