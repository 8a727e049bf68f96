"""Probe: what mlx-lm builds for model directories of any family it has a module for (mlx[cpu] on Linux).

Usage: python mlx_lm_family_probe.py MODEL_DIR [MODEL_DIR ...]

Several directories per process, since importing mlx costs seconds. Every value is read off the built
model, never from `model.args`:
- `rope_theta` / `rope_local_base_freq`: `base` of the RoPE module of the full / sliding layers (per layer
  for gemma3_text; a layer slides when its cache is a RotatingKVCache). `rope_scaling` from the module
  class (nn.RoPE scale != 1 is linear). Table-based modules (yarn, longrope) keep no base: no theta then.
- `partial_rotary_factor`: the RoPE module's dims / head_dim.
- `head_dim`: q_proj rows / the attention's head count; `num_key_value_heads`: k_proj rows / head_dim.
- `attention_bias`: which of q/k/v/o_proj have a bias (True = all four, "q/k/v", False = none).
- `tie_word_embeddings`: whether the built model (a multimodal wrapper's language model) has no `lm_head`.
- `hidden_act`: the MLP (or the experts' SwitchGLU activation) evaluated on a few points with weights that
  make it compute act(x) * 1, matched numerically against silu, erf GELU and tanh GELU.
- `query_pre_attn_scalar`: `self_attn.scale ** -2`; softcaps from the attention / model attributes.
- `layer_types` / `sliding_window`: from `model.make_cache()` (RotatingKVCache max_size) when present,
  else every layer has a plain KVCache (full attention).
- `rms_norm_eps`: the final norm's eps; `eos_token_id`: the tokenizer wrapper's stop ids.
Prints one JSON object {"results": {MODEL_DIR: {outcome, message, values}}} and exits 0.
"""

from __future__ import annotations

import json
import math
import sys

from probe_io import one_line, reserve_stdout_for_json

_POINTS = [-3.0, -2.5, -2.0, -1.5, -1.0, -0.5, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0]


def main(argv: list[str]) -> int:
    json_out = reserve_stdout_for_json()
    from importlib.metadata import version

    import mlx_lm

    results = {}
    for model_dir in argv:
        result = {"outcome": "loads", "message": None, "values": {}}
        try:
            model, tokenizer = mlx_lm.load(model_dir)
        except Exception as exc:  # the failure to load is the observation, not a probe bug
            result["outcome"] = "error"
            result["message"] = one_line(exc)
        else:
            result["values"] = _values(model, tokenizer)
        results[model_dir] = result
    json_out.write(json.dumps({"runtime": "mlx-lm", "version": version("mlx-lm"), "results": results}) + "\n")
    json_out.flush()
    return 0


def _values(model, tokenizer) -> dict:
    layers = model.layers
    attention = layers[0].self_attn
    values: dict = {}
    heads = _first_attr(attention, ("n_heads", "num_heads", "num_attention_heads"))
    q_rows = _proj(attention, "q_proj")
    if heads and q_rows is None and hasattr(attention, "qkv_proj"):
        # Fused q/k/v (phi3): rows = (heads + 2 kv heads) * head_dim.
        kv = _first_attr(attention, ("n_kv_heads", "num_key_value_heads"))
        if kv:
            head_dim = int(attention.qkv_proj.weight.shape[0]) // (heads + 2 * kv)
            values["head_dim"] = head_dim
            values["num_key_value_heads"] = kv
    elif heads and q_rows is not None:
        head_dim = q_rows // heads
        values["head_dim"] = head_dim
        k_rows = _proj(attention, "k_proj")
        if k_rows is not None:
            values["num_key_value_heads"] = k_rows // head_dim
    kinds = _layer_kinds(model, len(layers))
    if kinds is not None:
        values["layer_types"] = [kind for kind, _ in kinds]
        windows = {window for kind, window in kinds if kind == "sliding_attention"}
        values["sliding_window"] = windows.pop() if len(windows) == 1 else None
    values.update(_rope(layers, kinds, values.get("head_dim")))
    values["attention_bias"] = _attention_bias(attention)
    values["tie_word_embeddings"] = "lm_head" not in getattr(model, "language_model", model)  # a wrapper's text model
    act = _activation(layers[0])
    if act is not None:
        values["hidden_act"] = act
    scale = getattr(attention, "scale", None)
    if isinstance(scale, (int, float)):
        values["query_pre_attn_scalar"] = _tidy(float(scale) ** -2)
    for holder, name in ((attention, "attn_logit_softcapping"), (model, "final_logit_softcapping")):
        for candidate in (holder, getattr(holder, "model", None)):
            if candidate is not None and hasattr(candidate, name):
                cap = getattr(candidate, name)
                values[name] = None if cap is None else _number(cap)
                break
    norm = getattr(getattr(model, "model", model), "norm", None)
    if norm is not None and hasattr(norm, "eps"):
        values["rms_norm_eps"] = _number(norm.eps)
    ids = sorted(tokenizer.eos_token_ids)
    if ids:
        values["eos_token_id"] = ids[0] if len(ids) == 1 else ids
    return values


def _first_attr(module, names):
    for name in names:
        value = getattr(module, name, None)
        if isinstance(value, int):
            return value
    return None


def _proj(attention, name):
    proj = getattr(attention, name, None)
    return None if proj is None else int(proj.weight.shape[0])


def _layer_kinds(model, n_layers):
    from mlx_lm.models import cache as cache_module

    if hasattr(model, "make_cache"):
        caches = model.make_cache()
    else:
        caches = cache_module.make_prompt_cache(model)
    if len(caches) != n_layers:
        return None
    kinds = []
    for cache in caches:
        if isinstance(cache, cache_module.RotatingKVCache):
            # a sliding layer without a window keeps a RotatingKVCache(max_size=None): reported as it is
            kinds.append(("sliding_attention", None if cache.max_size is None else int(cache.max_size)))
        elif type(cache).__name__ == "KVCache":
            kinds.append(("full_attention", None))
        else:
            return None
    return kinds


def _rope(layers, kinds, head_dim) -> dict:
    out: dict = {}
    groups = {"full_attention": [], "sliding_attention": []}
    for index, layer in enumerate(layers):
        rope = getattr(layer.self_attn, "rope", None)
        kind = kinds[index][0] if kinds else "full_attention"
        groups[kind].append(rope)
    for kind, key in (("full_attention", "rope_theta"), ("sliding_attention", "rope_local_base_freq")):
        ropes = [r for r in groups[kind] if r is not None]
        if not ropes:
            continue
        described = {json.dumps(_describe(r), sort_keys=True) for r in ropes}
        if len(described) != 1:
            continue  # layers of one kind disagree: nothing single to report
        base, scaling, dims = _describe(ropes[0])
        if base is not None:
            out[key] = base
        if kind == "full_attention":
            out["rope_scaling"] = scaling
            if dims is not None and head_dim:
                out["partial_rotary_factor"] = dims / head_dim
    return out


def _number(value):
    """A number the module holds as a float; anything else (a module built from a string or a list keeps it
    until it computes) as it is, where JSON can hold it."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    try:
        json.dumps(value)
    except TypeError:
        return repr(value)
    return value


def _describe(rope):
    import mlx.nn as nn

    name = type(rope).__name__
    if isinstance(rope, nn.RoPE):
        scaling = None if rope.scale == 1.0 else {"rope_type": "linear", "factor": _tidy(1.0 / rope.scale)}
        return _number(rope.base), scaling, int(rope.dims)
    if name == "DynamicNTKScalingRoPE":
        return _number(rope.base), {"rope_type": "dynamic", "factor": _number(rope.factor)}, int(rope.dims)
    kinds = {"YarnRoPE": "yarn", "SuScaledRoPE": "longrope", "Llama3RoPE": "llama3", "DeepseekV2YarnRotaryEmbedding": "yarn"}
    dims = getattr(rope, "dims", getattr(rope, "dim", None))
    return None, {"rope_type": kinds.get(name, name)}, None if dims is None else int(dims)


def _attention_bias(attention):
    if hasattr(attention, "qkv_proj"):
        fused = "bias" in attention.qkv_proj
        out = "bias" in attention.o_proj if hasattr(attention, "o_proj") else False
        return True if fused and out else "q/k/v" if fused else False if not out else "o"
    present = {name: "bias" in getattr(attention, name) for name in ("q_proj", "k_proj", "v_proj", "o_proj") if hasattr(attention, name)}
    if len(present) == 4 and all(present.values()):
        return True
    if present.get("q_proj") and present.get("k_proj") and present.get("v_proj") and not present.get("o_proj"):
        return "q/k/v"
    if not any(present.values()):
        return False
    return "+".join(sorted(n for n, b in present.items() if b))


def _activation(layer):
    """act(x) on _POINTS, from the MLP itself: gate row 0 reads x[0], up row 0 reads the constant x[1] = 1."""
    import mlx.core as mx

    mlp = getattr(layer, "mlp", None) or getattr(layer, "block_sparse_moe", None)
    if mlp is None:
        return None
    switch = getattr(mlp, "switch_mlp", None)
    points = mx.array(_POINTS, dtype=mx.float32)
    if switch is not None:
        observed = switch.activation(mx.ones_like(points), points)
    else:
        observed = _dense_activation(mlp, points)
        if observed is None:
            return None
    observed = [float(v) for v in observed.tolist()]
    return _match(observed)


def _dense_activation(mlp, points):
    import mlx.core as mx

    down = getattr(mlp, "down_proj", None)
    if down is None:
        return None
    intermediate, hidden = int(down.weight.shape[1]), int(down.weight.shape[0])
    gate_row = mx.zeros((hidden,)).at[0].add(1.0)
    up_row = mx.zeros((hidden,)).at[1].add(1.0)
    if hasattr(mlp, "gate_up_proj"):
        weight = mx.zeros((2 * intermediate, hidden))
        weight[0] = gate_row
        weight[intermediate] = up_row
        _set(mlp.gate_up_proj, weight)
    elif hasattr(mlp, "gate_proj") and hasattr(mlp, "up_proj"):
        gate = mx.zeros((intermediate, hidden))
        gate[0] = gate_row
        up = mx.zeros((intermediate, hidden))
        up[0] = up_row
        _set(mlp.gate_proj, gate)
        _set(mlp.up_proj, up)
    else:
        return None
    weight = mx.zeros((hidden, intermediate))
    weight[0, 0] = 1.0
    _set(down, weight)
    x = mx.zeros((len(_POINTS), hidden))
    x[:, 0] = points
    x[:, 1] = 1.0
    return mlp(x[None])[0, :, 0]


def _set(linear, weight):
    import mlx.core as mx

    update = {"weight": weight.astype(linear.weight.dtype)}
    if "bias" in linear:
        update["bias"] = mx.zeros_like(linear.bias)
    linear.update(update)


def _match(observed):
    def silu(x):
        return x / (1.0 + math.exp(-x))

    def gelu(x):
        return 0.5 * x * (1.0 + math.erf(x / math.sqrt(2.0)))

    def gelu_tanh(x):
        return 0.5 * x * (1.0 + math.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))

    for name, fn in (("silu", silu), ("gelu", gelu), ("gelu_pytorch_tanh", gelu_tanh)):
        if all(abs(o - fn(x)) <= 2e-5 * max(1.0, abs(fn(x))) for o, x in zip(observed, _POINTS)):
            return name
    return None


def _tidy(value: float) -> float:
    # 1/scale**2 in float32 arithmetic: the nearest short decimal (32.0, not 31.999998).
    rounded = round(value, 3)
    return rounded if math.isclose(rounded, value, rel_tol=1e-5) else value


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
