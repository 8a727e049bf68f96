"""A runtime routes tokens to other experts than transformers does.

## What it does
Compares how each runtime routes a mixture of experts with what transformers 5 builds from the config: how
many experts a layer holds (`n_routed_experts`, `num_local_experts`) and shares (`n_shared_experts`), how many
each token goes to (`num_experts_per_tok`), how they are chosen (`topk_method`, and the expert groups
`n_group` and `topk_group`), the scale of the routed weights (`routed_scaling_factor`) and which layers hold
experts at all (`first_k_dense_replace`, `moe_layer_freq`). One finding per key a runtime reads otherwise.

## Why it matters
Each token's MLP output is the weighted sum of the experts it is routed to: with other experts, another
number of them or other weights, every layer with experts computes something else from the same checkpoint.
llama.cpp reads no `topk_method`: it limits DeepSeek's experts to the best groups whenever `n_group` is above
1 and scores a group by its two best experts, as DeepSeek-V3's `noaux_tc` does, while DeepSeek-V2's
`group_limited_greedy` scores it by its best one.

## Example
```json
{"model_type": "deepseek_v2", "topk_method": "group_limited_greedy", "n_group": 8, "topk_group": 3}
```
llama-cpp will use "noaux_tc" (derived).

## Fix safety
No fix: no key of the file makes such a runtime route as transformers does without changing what
transformers 5 reads.
"""

from cfglint.diagnostics import Finding
from cfglint.reading import MOE_KEYS, show
from cfglint.rule import describe

CODE = "A010"
NAME = "expert-routing-differs"
SEVERITY = "error"

# The keys of the file each routing value comes from, where the intent derives it; the first one written is
# where a finding points (else at model_type).
WRITTEN_AS = {
    "n_routed_experts": ("n_routed_experts", "num_local_experts", "num_experts"),
    "topk_method": ("topk_method", "scoring_func"),
    "mlp_layers": ("first_k_dense_replace", "mlp_only_layers", "decoder_sparse_step"),
}


# Its findings depend only on the intent, the readings and these keys of the config (cfglint.memo).
CONFIG_KEYS = (*MOE_KEYS, *(k for keys in WRITTEN_AS.values() for k in keys), "moe_layer_freq")

def check(ctx):
    for key, effects in ctx.differing(MOE_KEYS):
        message = f"expert routing: {key} is {show(ctx.intent.values[key])} in transformers, but {describe(effects)}"
        yield Finding(message, _pointer(ctx, key), effects)


def _pointer(ctx, key: str) -> str:
    source = ctx.intent.sources.get(key, "")
    if source.startswith("/"):
        return source
    if key == "mlp_layers" and ctx.config.get("moe_layer_freq", 1) != 1:
        return ctx.at("moe_layer_freq")  # transformers reads no moe_layer_freq; the runtimes that do skip layers
    written = [k for k in WRITTEN_AS.get(key, (key,)) if k in ctx.config]
    return ctx.at(written[0] if written else "model_type")
