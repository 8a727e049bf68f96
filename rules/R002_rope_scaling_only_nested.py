"""RoPE scaling is only inside rope_parameters, where older runtimes do not look.

## What it does
Reports a non-default RoPE (llama3, linear, dynamic, yarn, ...) written only in `rope_parameters`, the
transformers 5 layout, and the scaling each runtime will run with instead.

## Why it matters
candle, mlx-lm and transformers 4 read only a top-level `rope_scaling`: they run plain, unscaled RoPE
without a warning. A Llama-3.x model then loses its long-context frequency smoothing.

## Example
```json
"rope_parameters": {"factor": 32.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                    "original_max_position_embeddings": 8192, "rope_theta": 500000.0, "rope_type": "llama3"}
```
candle will use null (no scaling).

## Fix safety
Safe: adds a top-level `rope_scaling` with the same type and parameters, and a top-level `rope_theta`
when there is none. transformers 5 lets a non-null `rope_scaling` replace `rope_parameters` and then takes
theta from the top-level key, so it ends up with exactly the same RoPE parameters as before. Unsafe where
the family's legacy form cannot hold every nested key (Phi-3's three keys and an `attention_factor`,
OLMo 2's `type` and `factor` and any other key), or where a top-level `rope_theta` differs from the nested
one (R003): transformers 5 would then read the scaling without that key, or with the top-level theta. Unsafe
too where `rope_parameters` holds a key named after one of the config's layer types (`sliding_attention` in a
Gemma 2 file): transformers 5 then takes the dict for per-layer-type parameters and takes no theta from the
top level for it. A runtime that does not build the type (transformers 4 and "proportional") refuses the
fixed file, where before it ran unscaled RoPE: R004 reports that refusal once the scaling is written.
"""

from cfglint.diagnostics import Applicability, Edit, Finding, Fix
from cfglint.reading import show
from cfglint.rule import uses

CODE = "R002"
NAME = "rope-scaling-only-nested"
SEVERITY = "error"
# Its findings depend only on the intent, the readings and these keys of the config (cfglint.memo): the
# written scaling it looks at is inside rope_parameters.
CONFIG_KEYS = ("rope_scaling", "rope_parameters", "rope_theta", "original_max_position_embeddings",
               "partial_rotary_factor", "rope_local_base_freq")


def legacy_form(family: str | None, scaling: dict) -> dict | None:
    """The top-level rope_scaling older readers accept. Phi-3's (transformers 4.57) has exactly three keys,
    `type`, `short_factor` and `long_factor`, OLMo 2's exactly `type` and `factor`, DeepSeek's a `type` beside
    `rope_type` (candle's and mistral.rs' untagged enum matches on it); everything else takes the
    dict transformers 5 resolved. None when the family's legacy form cannot hold the scaling."""
    if family == "phi3" and scaling.get("rope_type") == "longrope":
        return {"type": "longrope", "short_factor": scaling.get("short_factor"), "long_factor": scaling.get("long_factor")}
    if family == "olmo2":  # Olmo2Config (4.57): exactly `type` and `factor`, linear or dynamic only
        kind = scaling.get("rope_type")
        return {"type": kind, "factor": scaling.get("factor")} if kind in ("linear", "dynamic") else None
    if family in ("deepseek_v2", "deepseek_v3"):  # DeepSeek's files carry the legacy type, which its ports require
        return {**scaling, "type": scaling.get("rope_type")}
    return scaling


# What transformers 5 takes from the top level when a rope_scaling replaces rope_parameters, with the value it
# takes when the key is absent: theta always, Phi-3's original context and rotary share too (Phi3Config, 5.24).
TOP_LEVEL_RESTORED = {"rope_theta": None}
PHI3_TOP_LEVEL_RESTORED = {"original_max_position_embeddings": 4096, "partial_rotary_factor": 1.0}


def dropped_keys(family: str | None, legacy: dict, nested: dict, top_level: dict) -> set[str]:
    """Keys of the nested RoPE parameters (`nested`: the scaling and its theta) that transformers 5 reads
    differently once `legacy` stands at the top level beside `top_level` (the config's keys after the fix):
    its non-null rope_scaling replaces rope_parameters outright, and only the type (from a legacy `type`) and
    the top-level keys it restores come back. Phi-3's three keys drop an explicit attention factor, OLMo 2's
    two any key a file adds, even an unknown one; a different top-level theta replaces the nested one."""
    restored = TOP_LEVEL_RESTORED | (PHI3_TOP_LEVEL_RESTORED if family == "phi3" else {})
    return {key for key in set(nested) - set(legacy) - {"rope_type"}
            if key not in restored or top_level.get(key, restored[key]) != nested[key]}


def legacy_companions(family: str | None, intent, config: dict, at) -> list[Edit]:
    """Top-level keys transformers 5 then reads back instead of the nested ones: a top-level rope_scaling
    replaces Phi-3's rope_parameters, so its original context and rotary share must stand beside it."""
    edits = []
    if family == "phi3":
        scaling = intent.values["rope_scaling"]
        if "original_max_position_embeddings" not in config and "original_max_position_embeddings" in scaling:
            edits.append(Edit("set", at("original_max_position_embeddings"), scaling["original_max_position_embeddings"]))
        if "partial_rotary_factor" not in config and intent.values.get("partial_rotary_factor", 1.0) != 1.0:
            edits.append(Edit("set", at("partial_rotary_factor"), intent.values["partial_rotary_factor"]))
    if "rope_local_base_freq" in intent.values and "rope_local_base_freq" not in config:
        edits.append(Edit("set", at("rope_local_base_freq"), intent.values["rope_local_base_freq"]))
    return edits


def _written_kind(data, pointer: str):
    """The rope_type (or legacy type) as the file writes it at pointer. Anything but a string transformers 5
    refuses, and the intent holds only its repr: there is no scaling to copy for older readers."""
    for part in pointer.split("/")[1:]:
        data = data.get(part.replace("~1", "/").replace("~0", "~")) if isinstance(data, dict) else None
    return data.get("rope_type", data.get("type", "default")) if isinstance(data, dict) else None


def check(ctx):
    intent = ctx.intent
    if intent is None or intent.values["rope_scaling"] is None or not intent.sources["rope_scaling"].startswith(ctx.at("rope_parameters")):
        return
    if ctx.config.get("rope_scaling") is not None:
        return
    scaling = intent.values["rope_scaling"]
    effects = [uses(n, v, "rope_scaling") for n, v in ctx.diverging("rope_scaling")
               if v.values["rope_scaling"] is None and not ctx.from_layer_type(v, "rope_scaling")]  # R007
    if not effects:
        return
    legacy = legacy_form(intent.family, scaling) if isinstance(_written_kind(ctx.doc.data, intent.sources["rope_scaling"]), str) else None
    fix = None
    if legacy is not None:
        edits = [Edit("set", ctx.at("rope_scaling"), legacy), *legacy_companions(intent.family, intent, ctx.config, ctx.at)]
        if "rope_theta" not in ctx.config:
            edits.insert(0, Edit("set", ctx.at("rope_theta"), intent.values["rope_theta"]))
        top_level = ctx.config | {edit.pointer.rsplit("/", 1)[1]: edit.value for edit in edits}
        nested = scaling | {"rope_theta": intent.values["rope_theta"]}
        unsafe = dropped_keys(intent.family, legacy, nested, top_level) or intent.layer_type_keys(scaling)
        safety = Applicability.UNSAFE if unsafe else Applicability.SAFE
        fix = Fix(f"add top-level \"rope_scaling\" ({scaling['rope_type']})", safety, tuple(edits))
    readers = [e.consumer for e in effects]
    who = readers[0] if len(readers) == 1 else ", ".join(readers[:-1]) + " and " + readers[-1]
    where = intent.sources["rope_scaling"]
    yield Finding(f"RoPE scaling {show(scaling)} is only in {where[len(ctx.root) + 1:]}: {who} will run plain, unscaled RoPE", where + "/rope_type", tuple(effects), fix)
