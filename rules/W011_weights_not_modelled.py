"""The checkpoint beside the config is of a layout cfglint does not match yet.

## What it does
Says that the shapes, biases and tensor sets of a safetensors checkpoint were not held against the config,
because its layout is not modelled: a multimodal file's text model (its tensors sit under the multimodal
model's prefixes), a quantized checkpoint, or a family cfglint has no layout for. The checks that do not depend on the layout (readable files, the index,
dtypes, leftover `inv_freq`) still ran.

## Why it matters
A run that says nothing about a checkpoint it did not compare must not read as a clean bill for it.

## Example
A quantized checkpoint (`quantization_config` in config.json) with `model.safetensors`.

## Fix safety
Nothing to fix.
"""

from cfglint.diagnostics import Finding

CODE = "W011"
NAME = "weights-not-modelled"
SEVERITY = "info"
REQUIRES = ("weights",)


def check(ctx):
    weights, intent = ctx.weights, ctx.intent
    if weights is None or not weights.safetensors or intent is None or intent.family is None:
        return
    from cfglint.weights.loading import modelled_layout

    if modelled_layout(ctx) is not None:
        return
    if "quantization_config" in (ctx.doc.data or {}):
        why = "quantized checkpoints (packed weights, scales) are not modelled"
    elif ctx.root:
        why = f"the text model of a multimodal {ctx.doc.data.get('model_type')} checkpoint is not modelled"
    else:
        why = f"the {intent.family} tensor layout is not modelled"
    yield Finding(f"{intent.family} tensors are not matched against the config (shapes, biases, tensor sets): {why}", "/model_type")
