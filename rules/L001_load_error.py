"""A runtime refuses the config: a required key is missing or a value has the wrong type.

## What it does
Reports the first error each runtime's config parser hits outside `rope_scaling`, in that runtime's own
words (serde's for candle and mistral.rs): a missing required key, a float where an integer is required,
a string where a number or boolean is required, a negative count; and what building the model refuses (a
null head_dim the attention divides by). A runtime that loads the file and then fails on it says where:
"mistralrs fails at the first forward: ...", "transformers-5 fails at generation: ..." (a sliding window of
0, which its cache keeps one token short of).

## Why it matters
transformers 4 accepts almost anything and fills missing keys with Llama-2-7B defaults; the Rust runtimes
stop. A config that "works in transformers" can still fail everywhere else.

## Example
```json
{"hidden_size": 576.0}
```
candle refuses to load (invalid type: floating point `576.0`, expected usize).

## Fix safety
Safe where a runtime requires a key transformers 5 fills in from its config class (`rms_norm_eps`,
`max_position_embeddings`): the fix writes the value transformers 5 reads, so its reading stays the same
and the runtime finds the key. Not for `num_key_value_heads`, which shapes the K/V projections: the weights
say which value the checkpoint needs (W004). Safe, too, where a float field is written as an integer
(`"final_logit_softcapping": 30`, `"router_aux_loss_coef": 0`) that a runtime refuses because its field holds
a float (transformers 5's strict dataclass compares types, in every field its config class declares, read
or not): the fix writes the same number as a float, which every runtime reads as it read the integer,
unless one of them holds the key as an integer. Unsafe where a `"head_dim": null` is refused (an attention
that takes the file's head size divides by it): removing the key makes every runtime derive hidden_size //
num_attention_heads, which must be the checkpoint's head size (W004 says so from the weights). No automatic
fix for another value of the wrong type.
"""

from cfglint import consumers
from cfglint.diagnostics import Applicability, Edit, Effect, Finding, Fix
from cfglint.knowledge.entry import number_kind
from cfglint.reading import show
from cfglint.rule import describe, fails

CODE = "L001"
NAME = "load-error"
SEVERITY = "error"
# Keys the config classes default and the Rust and dataclass readers require: writing transformers 5's value
# keeps its reading. Not what shapes a tensor: a class default is not the checkpoint's (W004 says which is).
FILLABLE = ("rms_norm_eps", "max_position_embeddings")
# Its findings depend only on the intent, the readings and these keys of the config (cfglint.memo). An integer
# it rewrites as a float is the value of a key a refusing runtime declares, which every kept reading's serial
# settles (a value transformers 5's class refuses in a key no reading consults is read afresh).
CONFIG_KEYS = FILLABLE


def check(ctx):
    groups: dict[str, list[Effect]] = {}
    theta_nested = ctx.intent is not None and ctx.intent.sources["rope_theta"] not in (ctx.at("rope_theta"), "default")
    for name, view in ctx.failures({"missing", "type", "variant", "validation"}):
        if view.failure.pointer.startswith(ctx.at("rope_scaling")):
            continue  # R004 says why
        if view.failure.pointer == ctx.at("rope_theta") and view.failure.kind == "missing" and theta_nested:
            continue  # R001: the value is there, only nested where this runtime does not look
        groups.setdefault(view.failure.pointer, []).append(fails(name, view))
    for pointer, effects in groups.items():
        key = pointer.rsplit("/", 1)[-1] or "config"
        refusing = {e.consumer for e in effects}
        fix = _filled(ctx, key, pointer) or _as_float(ctx, key, pointer, refusing) or _null_head_dim_removed(ctx, key, pointer)
        yield Finding(f"{key}: {describe(effects)}", pointer, tuple(effects), fix)


def _filled(ctx, key: str, pointer: str) -> Fix | None:
    """Write the value transformers 5 reads for a fillable key the file leaves out."""
    if key not in FILLABLE or pointer != ctx.at(key) or key in ctx.config or ctx.intent is None:
        return None
    value = ctx.intent.values.get(key)
    if value is None:
        return None
    return Fix(f'add "{key}": {show(value)} (what transformers 5 reads)', Applicability.SAFE, (Edit("set", pointer, value),))


def _null_head_dim_removed(ctx, key: str, pointer: str) -> Fix | None:
    """Remove a null head_dim that an attention divides by: every runtime then derives hidden_size //
    num_attention_heads. Unsafe: that is the head size the weights must have, which the config does not say."""
    if key != "head_dim" or pointer != ctx.at(key) or key not in ctx.config or ctx.config[key] is not None:
        return None
    hidden, heads = ctx.config.get("hidden_size"), ctx.config.get("num_attention_heads")
    derived = f" = {hidden // heads}" if type(hidden) is int and type(heads) is int and heads > 0 else ""
    return Fix(f'remove "head_dim": null (the head size is then derived: hidden_size // num_attention_heads{derived})',
               Applicability.UNSAFE, (Edit("remove", pointer),))


def _as_float(ctx, key: str, pointer: str, refusing: set[str]) -> Fix | None:
    """Write an integer as the same number in a float, where a runtime refuses it because its field holds a
    float and no runtime holds an integer there (one that refuses through another's config class, as mlx-lm
    through transformers 5's, declares no type of its own)."""
    value = ctx.config.get(key)
    if type(value) is not int or pointer != ctx.at(key) or ctx.intent is None or ctx.intent.family is None or abs(value) > 2**53:
        return None  # beyond 2**53 the float is another number
    if not set(ctx.views) <= set(consumers.names()):
        return None  # what another runtime's reading declares is not known here
    intent = ctx.intent
    kinds = {name: number_kind(consumers.field_type(name, consumers.get(name).family_read(intent) or "", key) or "")  # the family it loads
             for name in ctx.views}
    if "integer" in kinds.values() or not any(kinds[name] == "float" for name in refusing):
        return None
    return Fix(f'write "{key}": {float(value)!r}, the same number as a float', Applicability.SAFE, (Edit("set", pointer, float(value)),))
