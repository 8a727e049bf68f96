"""The checkpoint beside the config is of a family whose tensor layout cfglint does not match yet.

## What it does
Says that the shapes, biases and tensor sets of a safetensors checkpoint were not held against the config
because its family's layout (fused `qkv_proj` in Phi-3, `q_norm`/`k_norm` in Qwen3, experts in the
mixtures of experts) is not modelled; the checks that do not depend on the layout (readable files, the
index, `lm_head.weight` against `tie_word_embeddings`, dtypes, leftover `inv_freq`) still ran.

## Why it matters
A run that says nothing about a checkpoint it did not compare must not read as a clean bill for it.

## Example
A qwen2 directory with `model.safetensors`.

## Fix safety
Nothing to fix.
"""

from cfglint.diagnostics import Finding

CODE = "W011"
NAME = "weights-not-modelled"
SEVERITY = "info"


def check(ctx):
    weights, intent = ctx.weights, ctx.intent
    if weights is None or not weights.safetensors or intent is None or intent.family in (None, "llama"):
        return
    yield Finding(f"{intent.family} tensors are not matched against the config (shapes, biases, tensor sets): only the Llama layout is modelled", "/model_type")
