"""RoPE readings that only one family has (Phi-3's longrope in each runtime, ...), by name.

Each reading takes (entry, env, present, data, intent) as cfglint.readers.rope.read_rope does and returns
{reading key: (value, source)} for rope_theta, rope_scaling and any other key it decides (e.g.
partial_rotary_factor), or a Failure.

Phi-3's longrope, as transformers computes it: inverse frequencies 1 / (ext * theta^(2i/d)) with `ext` the
short factors while the sequence is at most original_max_position_embeddings tokens long and the long factors
beyond, cos/sin multiplied by one attention factor (sqrt(1 + ln(s) / ln(orig)) for s = max / orig > 1, else
1). Each runtime below is described by the same four things (short and long factors, the length past which
it switches, its attention factor; candle switches per position instead of per sequence). Its rope_scaling
is reported as a transformers `longrope` dict that computes the same thing, so that
`cfglint.reading.same("rope_scaling", reading, intent)` holds exactly when the runtime's RoPE equals
transformers 5's for every sequence up to max_position_embeddings: equal behaviour gives the intent's own
dict; otherwise the dict states what the runtime does (an `attention_factor` when it is not transformers'
default for the dict, the long factors as short ones when the runtime never uses the short ones, and
rope_type `longrope-by-position` for candle's per-position split, which no transformers dict expresses).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, TypeGuard

from cfglint.consumers.base import PANIC, Failure
from cfglint.serde_json import unexpected
from cfglint.reading import DEFAULT, copied, same

Values = dict[str, tuple[Any, str]]


# ------------------------------------------------------------------ shared
def _theta(env: dict, present: set[str]) -> tuple[Any, str]:
    return env.get("rope_theta"), "/rope_theta" if "rope_theta" in present else DEFAULT


def _at(key: str, present: set[str]) -> str:
    return "/" + key if key in present else DEFAULT


def _theta_and_partial(env: dict, present: set[str], partial: Any) -> Values:
    """What every Phi-3 reading reports besides the scaling: the top-level theta and the rotary share."""
    return {"rope_theta": _theta(env, present), "partial_rotary_factor": (partial, _at("partial_rotary_factor", present))}


def _numbers(value: Any) -> TypeGuard[list]:
    return isinstance(value, list) and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in value)


def _default_attention(max_positions: Any, original: Any, factor: Any = None) -> float:
    """transformers' longrope attention factor when the dict gives none."""
    if factor is None:
        factor = max_positions / original
    return 1.0 if factor <= 1.0 else math.sqrt(1 + math.log(factor) / math.log(original))


@dataclass
class LongRope:
    """What a runtime's Phi-3 RoPE does, for a sequence of L tokens (positions 0..L-1)."""

    short: list  # factors while L <= switch (or, by position, for positions < switch)
    long: list  # factors beyond
    switch: int | None  # None: the short factors always
    attention: float  # cos/sin multiplier
    original: Any = None  # the runtime's original_max_position_embeddings, as it names it
    by_position: bool = False  # candle: positions < switch short, the rest long, whatever L is

    def segments(self, length: int) -> list[tuple[int, int, list]]:
        if self.switch is None or length <= self.switch:
            return [(0, length, self.short)]
        if not self.by_position:
            return [(0, length, self.long)]
        return [(0, self.switch, self.short), (self.switch, length, self.long)]


def _equivalent(a: LongRope, b: LongRope, max_positions: int) -> bool:
    if not same("attention_factor", a.attention, b.attention):
        return False
    # Both are piecewise constant in L, changing only just past a switch.
    lengths = {1, max_positions}
    for switch in (a.switch, b.switch):
        if switch is not None:
            lengths.update((switch, switch + 1))
    for length in sorted(n for n in lengths if 1 <= n <= max_positions):
        for start_a, end_a, factors_a in a.segments(length):
            for start_b, end_b, factors_b in b.segments(length):
                if max(start_a, start_b) < min(end_a, end_b) and not same("factors", factors_a, factors_b):
                    return False
    return True


def _intended(intent: Any) -> tuple[LongRope | None, int | None]:
    """transformers 5's longrope for the intent (modeling_rope_utils._compute_longrope_parameters)."""
    values = getattr(intent, "values", None) or {}
    scaling, max_positions = values.get("rope_scaling"), values.get("max_position_embeddings")
    if not isinstance(max_positions, int) or isinstance(max_positions, bool) or max_positions < 1:
        max_positions = None
    if not isinstance(scaling, dict) or scaling.get("rope_type") != "longrope" or max_positions is None:
        return None, max_positions
    short, long, original = scaling.get("short_factor"), scaling.get("long_factor"), scaling.get("original_max_position_embeddings")
    if not (_numbers(short) and _numbers(long) and isinstance(original, int) and original > 1):
        return None, max_positions
    attention = scaling.get("attention_factor")
    try:
        if attention is None:
            attention = _default_attention(max_positions, original, scaling.get("factor"))
    except (TypeError, ValueError, ZeroDivisionError):
        return None, max_positions
    return LongRope(short, long, original, attention, original), max_positions


def _as_scaling(runtime: LongRope, max_positions: Any, intent: Any) -> dict:
    """The longrope dict that computes what `runtime` does (see the module docstring)."""
    intended, intent_max = _intended(intent)
    horizon = intent_max if intent_max is not None else max_positions
    if intended is not None and _equivalent(runtime, intended, horizon):
        return copied(intent.values["rope_scaling"])
    one_list = same("factors", runtime.short, runtime.long)
    shown = runtime.original if (one_list or runtime.switch is None) else runtime.switch
    if shown is None:
        shown = max_positions
    out: dict[str, Any] = {"rope_type": "longrope", "short_factor": runtime.short, "long_factor": runtime.long,
                           "original_max_position_embeddings": shown}
    if runtime.by_position and not one_list and runtime.switch is not None and runtime.switch < horizon:
        out["rope_type"] = "longrope-by-position"
    try:
        default = _default_attention(horizon, shown)
    except (TypeError, ValueError, ZeroDivisionError):
        default = None
    if default is None or not same("attention_factor", runtime.attention, default):
        out["attention_factor"] = runtime.attention
    if intent is not None and same("rope_scaling", out, (getattr(intent, "values", None) or {}).get("rope_scaling")):
        out["attention_factor"] = runtime.attention  # differs only past what the dict's keys say
    return out


def _rotary_pairs(head_dim: Any, partial: Any) -> int:
    """How many frequencies `(0..dim).step_by(2)` / `arange(0, dim, 2)` gives for dim = int(head_dim * partial)."""
    dim = int(head_dim * (1.0 if partial is None else partial))
    return (dim + 1) // 2


def _head_dim(env: dict) -> Any:
    return env["hidden_size"] // env["num_attention_heads"]


# ------------------------------------------------------------------ transformers 4.57
def _phi3_transformers4(entry: Any, env: dict, present: set[str], data: dict, intent: Any) -> Values | Failure:
    """Phi3Config._rope_scaling_adjustment + _rope_scaling_validation (configuration_phi3.py 185-238), then
    Phi3RotaryEmbedding with modeling_rope_utils._compute_longrope_parameters and longrope_frequency_update:
    the top-level original_max_position_embeddings (default 4096) is both the switch and the attention
    factor's base; a `factor` or `attention_factor` cannot be given (exactly three keys)."""
    partial = env.get("partial_rotary_factor")
    out = _theta_and_partial(env, present, partial)
    scaling = env.get("rope_scaling")
    if scaling is None:
        return {**out, "rope_scaling": (None, DEFAULT)}
    if not isinstance(scaling, dict):
        return Failure(f"AttributeError: '{type(scaling).__name__}' object has no attribute 'get'", "/rope_scaling", "type")
    scaling = copied(scaling)
    kind = scaling.get("type", None)
    if kind is not None and kind in ["su", "yarn"]:
        scaling["type"] = "longrope"
    if len(scaling) != 3:
        return Failure("ValueError: `rope_scaling` must be a dictionary with three fields, `type`, `short_factor` and "
                       f"`long_factor`, got {scaling}", "/rope_scaling", "validation")
    kind, short, long = scaling.get("type", None), scaling.get("short_factor", None), scaling.get("long_factor", None)
    if kind is None or kind != "longrope":
        return Failure(f"ValueError: `rope_scaling`'s type field must be one of ['longrope'], got {kind}",
                       "/rope_scaling/type" if "type" in scaling else "/rope_scaling", "variant")
    if not (isinstance(short, list) and all(isinstance(x, (int, float)) for x in short)):
        return Failure(f"ValueError: `rope_scaling`'s short_factor field must be a list of numbers, got {short}",
                       "/rope_scaling/short_factor" if "short_factor" in scaling else "/rope_scaling", "type")
    ndims = int(env["hidden_size"] // env["num_attention_heads"] * partial)
    if not len(short) == ndims // 2:
        return Failure(f"ValueError: `rope_scaling`'s short_factor field must have length {ndims // 2}, got {len(short)}",
                       "/rope_scaling/short_factor", "shape")
    if not (isinstance(long, list) and all(isinstance(x, (int, float)) for x in long)):
        return Failure(f"ValueError: `rope_scaling`'s long_factor field must be a list of numbers, got {long}",
                       "/rope_scaling/long_factor" if "long_factor" in scaling else "/rope_scaling", "type")
    if not len(long) == ndims // 2:
        return Failure(f"ValueError: `rope_scaling`'s long_factor field must have length {ndims // 2}, got {len(long)}",
                       "/rope_scaling/long_factor", "shape")
    # Building the model: Phi3RotaryEmbedding -> _compute_longrope_parameters.
    original, max_positions = env.get("original_max_position_embeddings"), env.get("max_position_embeddings")
    if not original:  # `factor` stays rope_scaling.get("factor"), i.e. None
        return Failure("TypeError: '<=' not supported between instances of 'NoneType' and 'float'",
                       "/original_max_position_embeddings", "type")
    head_dim = data.get("head_dim") if "head_dim" in data else _head_dim(env)  # getattr(config, "head_dim", ...)
    pairs = _rotary_pairs(head_dim, partial)
    if len(short) not in (pairs, 1):
        return Failure(f"RuntimeError: The size of tensor a ({len(short)}) must match the size of tensor b ({pairs}) "
                       "at non-singleton dimension 0", "/head_dim", "shape")
    short, long = [float(x) for x in short], [float(x) for x in long]
    runtime = LongRope(short, long, original, _default_attention(max_positions, original), original)
    return {**out, "rope_scaling": (_as_scaling(runtime, max_positions, intent), "/rope_scaling")}


# ------------------------------------------------------------------ mlx-lm 0.32
def _phi3_mlx_lm(entry: Any, env: dict, present: set[str], data: dict, intent: Any) -> Values | Failure:
    """mlx_lm/models/phi3.py: ModelArgs.__post_init__ (the required keys are the entry's check), then
    Attention.__init__: type longrope/su -> SuScaledRoPE, whose frequencies are the long factors at every
    length (the short ones are never used) and whose scale is sqrt(1 + ln(max / orig) / ln(orig)) from the
    top-level fields; linear -> nn.RoPE(scale=1 / factor); any other type drops the scaling."""
    partial = env.get("partial_rotary_factor")
    out = _theta_and_partial(env, present, partial)
    scaling = env.get("rope_scaling")
    if not scaling:
        return {**out, "rope_scaling": (None, DEFAULT)}
    if not isinstance(scaling, dict):
        return Failure(f"TypeError: {type(scaling).__name__} indices must be integers or slices, not str", "/rope_scaling", "type")
    kind = scaling["type"]
    if kind not in ["longrope", "su", "linear"]:
        # "[WARNING] rope_scaling 'type' currently only supports 'linear', 'su', and 'longrope'; setting rope
        # scaling to false."
        return {**out, "rope_scaling": (None, DEFAULT)}
    if kind == "linear":
        if "factor" not in scaling:
            return Failure("KeyError: 'factor'", "/rope_scaling", "missing")
        if not isinstance(scaling["factor"], float):
            return Failure("AssertionError", "/rope_scaling/factor", "type")
        return {**out, "rope_scaling": ({"rope_type": "linear", "factor": scaling["factor"]}, "/rope_scaling")}
    if "short_factor" not in scaling:
        return Failure("KeyError: 'short_factor'", "/rope_scaling", "missing")
    pairs = _rotary_pairs(_head_dim(env), partial)
    long = scaling["long_factor"]
    if isinstance(long, (int, float)):  # mx.array(long_factor) broadcasts a scalar; bools are numbers to mlx
        long = [long] * pairs
    if long is None:
        return Failure("TypeError: __init__(): incompatible function arguments.", "/rope_scaling/long_factor", "type")
    wrong = [x for x in long if not isinstance(x, (int, float))] if isinstance(long, list) else [long]
    if wrong:
        return Failure(f"ValueError: Invalid type {type(wrong[0]).__name__} received in array initialization.",
                       "/rope_scaling/long_factor", "type")
    if len(long) == 1:
        long = long * pairs
    if len(long) != pairs:
        return Failure(f"ValueError: [broadcast_shapes] Shapes ({len(long)}) and ({pairs}) cannot be broadcast.",
                       "/rope_scaling/long_factor", "shape")
    original, max_positions = env.get("original_max_position_embeddings"), env.get("max_position_embeddings")
    long = [float(x) for x in long]
    runtime = LongRope(long, long, None, _default_attention(max_positions, original), original)
    return {**out, "rope_scaling": (_as_scaling(runtime, max_positions, intent), "/rope_scaling")}


# ------------------------------------------------------------------ candle 0.11
def _phi3_candle(entry: Any, env: dict, present: set[str], data: dict, intent: Any) -> Values | Failure:
    """candle-transformers models/phi3.rs RotaryEmbedding::new: the serde errors are the entry's checks. The
    cos/sin table holds short-factor frequencies for positions below the top-level
    original_max_position_embeddings and long-factor ones from there to max_position_embeddings (all short
    when it is absent), whatever the sequence length; cos/sin are never scaled (no attention factor)."""
    partial = env.get("partial_rotary_factor")
    out = _theta_and_partial(env, present, 1.0 if partial is None else partial)  # Option<f64>: None rotates all
    scaling = env.get("rope_scaling")
    if scaling is None:
        return {**out, "rope_scaling": (None, DEFAULT)}
    for name in ("short_factor", "long_factor"):  # Vec<f32>
        value = scaling[name]
        if not isinstance(value, list):
            return Failure(f"invalid type: {unexpected(value)}, expected a sequence", f"/rope_scaling/{name}", "type")
        for i, x in enumerate(value):
            if not isinstance(x, (int, float)) or isinstance(x, bool):
                return Failure(f"invalid type: {unexpected(x)}, expected f32", f"/rope_scaling/{name}/{i}", "type")
    pairs = _rotary_pairs(_head_dim(env), partial)
    original, max_positions = env.get("original_max_position_embeddings"), env.get("max_position_embeddings")
    short = [float(x) for x in scaling["short_factor"]][:pairs]  # (0..dim).step_by(2).zip(short_factor)
    long = [float(x) for x in scaling["long_factor"]][:pairs]
    if len(short) < pairs or (original is not None and len(long) < pairs):
        which = "short_factor" if len(short) < pairs else "long_factor"
        return Failure(f"inconsistent last dim size in rope: {min(len(short), len(long))} frequencies for a rotary "
                       f"width of {2 * pairs}", f"/rope_scaling/{which}", "shape")
    if original is None:
        runtime = LongRope(short, short, None, 1.0, None)
    else:
        runtime = LongRope(short, long, original, 1.0, original, by_position=True)
    return {**out, "rope_scaling": (_as_scaling(runtime, max_positions, intent), "/rope_scaling")}


# ------------------------------------------------------------------ mistral.rs
MISTRALRS_PHI_TYPES = {"su": "su", "longrope": "su", "yarn": "yarn", "dynamic": "dynamic", "linear": "linear"}
MISTRALRS_UNTAGGED = "data did not match any variant of untagged enum PhiRopeScalingConfig"


def _phi3_mistralrs(entry: Any, env: dict, present: set[str], data: dict, intent: Any) -> Values | Failure:
    """mistral.rs layers.rs PhiRopeScalingConfig (untagged: Classic {short_factor, long_factor, type} matches
    before Scaled, so long_mscale/short_mscale are never used) and PhiRotaryEmbedding::new_classic_scaled:
    attention factor sqrt(1 + ln(s) / ln(orig)) for su/longrope, 0.1 ln(s) + 1 for yarn (s = max / orig, 1
    when s <= 1), linear/dynamic refused when s > 1; the long factors once max(position_ids) + 1 > orig,
    position_ids holding the sequence length, i.e. from L = orig on (transformers: from orig + 1).
    rope_scaling_attn_factor only applies to GGUF factor tensors."""
    partial = env.get("partial_rotary_factor")
    out = _theta_and_partial(env, present, 1.0 if partial is None else partial)  # Option<f64>: None rotates all
    scaling = env.get("rope_scaling")
    if scaling is None:
        return {**out, "rope_scaling": (None, DEFAULT)}
    kind = scaling.get("type") if isinstance(scaling, dict) else None
    if not (isinstance(scaling, dict) and _numbers(scaling.get("short_factor")) and _numbers(scaling.get("long_factor"))
            and isinstance(kind, str) and kind in MISTRALRS_PHI_TYPES):
        return Failure(MISTRALRS_UNTAGGED, "/rope_scaling", "variant")
    kind = MISTRALRS_PHI_TYPES[kind]
    original, max_positions = env.get("original_max_position_embeddings"), env.get("max_position_embeddings")
    scale = max_positions / original if original else math.inf
    if scale <= 1.0:
        attention = 1.0
    elif kind == "su":
        attention = math.sqrt(1.0 + math.log(scale) / math.log(original)) if original else math.nan
    elif kind == "yarn":
        attention = 0.1 * math.log(scale) + 1.0
    else:
        return Failure("Expected either `su` or `yarn` RoPE", "/rope_scaling/type", "variant")
    pairs = _rotary_pairs(_head_dim(env), partial)
    for name in ("long_factor", "short_factor"):  # inv_freq_long is built first
        if len(scaling[name]) < pairs:
            n = len(scaling[name])
            return Failure(f"index out of bounds: the len is {n} but the index is {n}", f"/rope_scaling/{name}", "shape", PANIC)
    short = [float(x) for x in scaling["short_factor"][:pairs]]
    long = [float(x) for x in scaling["long_factor"][:pairs]]
    runtime = LongRope(short, long, original - 1 if original else None, attention, original)
    return {**out, "rope_scaling": (_as_scaling(runtime, max_positions, intent), "/rope_scaling")}


# ------------------------------------------------------------------ transformers 4.57 olmo2
def _olmo2_two_field(entry: Any, env: dict, present: set[str], data: dict, intent: Any) -> Any:
    """Olmo2Config._rope_scaling_validation (configuration_olmo2.py @ v4.57.6): exactly `type` and `factor`,
    linear or dynamic, a float factor above 1; the model then runs that scaling over the top-level theta."""
    theta = env.get("rope_theta"), "/rope_theta" if "rope_theta" in present else DEFAULT
    scaling = env.get("rope_scaling")
    if scaling is None:
        return {"rope_theta": theta, "rope_scaling": (None, DEFAULT)}
    if not isinstance(scaling, dict) or len(scaling) != 2:
        return Failure(f"ValueError: `rope_scaling` must be a dictionary with two fields, `type` and `factor`, got {scaling}", "/rope_scaling", "validation")
    kind, factor = scaling.get("type"), scaling.get("factor")
    if kind not in ("linear", "dynamic"):
        return Failure(f"ValueError: `rope_scaling`'s type field must be one of ['linear', 'dynamic'], got {kind}", "/rope_scaling/type", "validation")
    if not isinstance(factor, float) or factor <= 1.0:
        return Failure(f"ValueError: `rope_scaling`'s factor field must be a float > 1, got {factor}", "/rope_scaling/factor", "validation")
    return {"rope_theta": theta, "rope_scaling": ({"rope_type": kind, "factor": factor}, "/rope_scaling")}


# ------------------------------------------------------------------ candle 0.11 granite
def _granite_llama3(entry: Any, env: dict, present: set[str], data: dict, intent: Any) -> Any:
    """granite.rs: rope_theta (f32, default 10000) and GraniteRopeConfig, whose five fields the entry's checks
    require; rope_type "granite" runs the llama3 formula, "default" none."""
    theta = env.get("rope_theta"), "/rope_theta" if "rope_theta" in present else DEFAULT
    scaling = env.get("rope_scaling")
    if not isinstance(scaling, dict) or scaling.get("rope_type") != "granite":
        return {"rope_theta": theta, "rope_scaling": (None, DEFAULT)}
    keys = ("factor", "low_freq_factor", "high_freq_factor", "original_max_position_embeddings")
    return {"rope_theta": theta, "rope_scaling": ({"rope_type": "llama3", **{k: scaling[k] for k in keys}}, "/rope_scaling")}


# ------------------------------------------------------------------ transformers 4.57 granite
def _scaling_no_type_copy(entry: Any, env: dict, present: set[str], data: dict, intent: Any) -> Any:
    """GraniteConfig validates rope_scaling without copying a legacy `type` to `rope_type` first."""
    from cfglint.readers.rope import read_rope, type_not_copied

    refused = type_not_copied(env.get("rope_scaling"))
    if refused:
        return refused
    return read_rope(entry._replace(rope="scaling"), env, present, data, intent)


READINGS: dict[str, Callable[..., Any]] = {
    "granite-llama3": _granite_llama3,
    "scaling-no-type-copy": _scaling_no_type_copy,
    "olmo2-two-field": _olmo2_two_field,
    "phi3-longrope": lambda entry, *rest: (_phi3_transformers4 if entry.runtime == "transformers-4" else _phi3_mistralrs)(entry, *rest),
    "phi3-su-scaled": _phi3_mlx_lm,
    "phi3-longrope-by-position": _phi3_candle,
}


# ------------------------------------------------------------------ DeepSeek's YaRN
def _mscale(scale: Any, m: Any) -> float:
    return 1.0 if scale <= 1 else 0.1 * m * math.log(scale) + 1.0


def _deepseek_yarn(given: dict, factor: Any, original: Any) -> dict:
    """DeepSeek's own YaRN (DeepseekV2YarnRotaryEmbedding, ported by candle and mlx-lm) as a transformers yarn
    dict: the same frequencies for the same factor, original context and betas; its cos/sin factor is always
    mscale(factor, mscale) / mscale(factor, mscale_all_dim), given as attention_factor where transformers'
    rule (that ratio only when both are set, else mscale(factor, 1)) gives another. Every port floors and
    ceils the correction range whatever truncate says (candle deepseek2.rs:380-382, mlx-lm deepseek_v2.py:59-65,
    mistral.rs layers.rs:1933-1936)."""
    out = {"rope_type": "yarn", "factor": factor, "original_max_position_embeddings": original}
    out.update({k: given[k] for k in ("beta_fast", "beta_slow", "mscale", "mscale_all_dim") if k in given})
    out["truncate"] = True
    m, m_all = given.get("mscale", 1), given.get("mscale_all_dim", 0)
    ours = _mscale(factor, m) / _mscale(factor, m_all)
    theirs = _mscale(factor, m) / _mscale(factor, m_all) if given.get("mscale") and given.get("mscale_all_dim") else _mscale(factor, 1)
    if not same("attention_factor", ours, theirs):
        out["attention_factor"] = ours
    return out


def _deepseek_always_yarn(entry: Any, env: dict, present: set[str], data: dict, intent: Any) -> Values:
    """mlx-lm deepseek_v2.py: DeepseekV2YarnRotaryEmbedding whatever rope_scaling's type, with factor =
    rope_scaling["factor"] and the other parameters from rope_scaling when there (defaults 4096, 32, 1, 1, 0);
    the entry's checks refuse a missing rope_scaling or factor."""
    scaling = env.get("rope_scaling")
    given = scaling if isinstance(scaling, dict) else {}
    built = _deepseek_yarn(given, given.get("factor"), given.get("original_max_position_embeddings", 4096))
    return {"rope_theta": _theta(env, present), "rope_scaling": (built, "/rope_scaling")}


def _deepseek_candle(entry: Any, env: dict, present: set[str], data: dict, intent: Any) -> Values:
    """candle deepseek2.rs DeepSeekV2RotaryEmbedding::new: the untagged Yarn variant (all seven keys, whatever
    the type names) runs DeepSeek's YaRN, no rope_scaling plain RoPE; the entry's checks refuse the rest."""
    scaling = env.get("rope_scaling")
    if not isinstance(scaling, dict):
        return {"rope_theta": _theta(env, present), "rope_scaling": (None, DEFAULT)}
    built = _deepseek_yarn(scaling, scaling.get("factor"), scaling.get("original_max_position_embeddings"))
    return {"rope_theta": _theta(env, present), "rope_scaling": (built, "/rope_scaling")}


READINGS.update({"deepseek-always-yarn": _deepseek_always_yarn, "deepseek-yarn": _deepseek_candle})


def _gpt_oss_mistralrs(entry: Any, env: dict, present: set[str], data: dict, intent: Any) -> Values:
    """mistral.rs gpt_oss.rs: GptOssRotaryEmbedding when rope_scaling.rope_type is "yarn" (factor, original
    context, betas 32/1 and truncate false by default: gpt_oss.rs:40-50), plain RoPE for any other type; the
    entry's checks hold RopeScaling's required fields. truncate is honoured (layers.rs:3067-3070), but an
    absent one means false where transformers' means true."""
    scaling = env.get("rope_scaling")
    if not isinstance(scaling, dict) or scaling.get("rope_type") != "yarn":
        return {"rope_theta": _theta(env, present), "rope_scaling": (None, DEFAULT)}
    built = {"rope_type": "yarn", "factor": scaling.get("factor"),
             "original_max_position_embeddings": scaling.get("original_max_position_embeddings"),
             "beta_fast": scaling.get("beta_fast", 32.0), "beta_slow": scaling.get("beta_slow", 1.0),
             "truncate": scaling.get("truncate", False)}
    return {"rope_theta": _theta(env, present), "rope_scaling": (built, "/rope_scaling")}


READINGS["gpt-oss-yarn-or-plain"] = _gpt_oss_mistralrs
