"""dtype is written without torch_dtype, which older readers look for.

## What it does
Reports a config that names its weights' dtype only under `dtype` (what transformers >= 4.56 and 5.x
write) and not under `torch_dtype`.

## Why it matters
transformers before 4.56 and mlx-lm's converter (`mlx_lm.convert`, which reads only a top-level
`torch_dtype`) do not see it: the converter keeps whatever dtype the tensors happen to have, and older
transformers load in float32 unless told otherwise.

## Example
```json
{"dtype": "bfloat16"}
```

## Fix safety
Safe: adds `torch_dtype` with the same value. transformers 4.56+ and 5.x read both keys and let `dtype`
win, so what they read does not change.
"""

from cfglint.diagnostics import Applicability, Edit, Effect, Finding, Fix

CODE = "D001"
NAME = "dtype-without-torch-dtype"
SEVERITY = "warning"
# Its findings depend only on the intent, the readings and these keys of the config (cfglint.memo).
CONFIG_KEYS = ("dtype", "torch_dtype")


def check(ctx):
    config = ctx.doc.data if isinstance(ctx.doc.data, dict) else {}  # the whole file: dtype is written at its top
    dtype = config.get("dtype")
    if ctx.intent is None or not isinstance(dtype, str) or "torch_dtype" in config:
        return
    effects = (
        Effect("mlx-lm", "ignores", None, "mlx_lm.convert reads only torch_dtype"),
        Effect("transformers<4.56", "ignores", None, "reads only torch_dtype"),
    )
    fix = Fix(f'add "torch_dtype": "{dtype}"', Applicability.SAFE, (Edit("set", "/torch_dtype", dtype),))
    yield Finding(f'dtype "{dtype}" has no torch_dtype twin: mlx_lm.convert and transformers < 4.56 will not see it', "/dtype", effects, fix)
