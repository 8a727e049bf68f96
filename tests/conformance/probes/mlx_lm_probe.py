"""Probe: what mlx-lm really builds from a model directory (runs on Linux with mlx[cpu]).

Usage: python mlx_lm_probe.py MODEL_DIR [--logits --prompt-ids 1,2,3]

Values are read from the built model wherever it holds them (the RoPE module actually created, the
projections' real parameters, the tied or separate output head), not only from `model.args`.
With --logits, `values["logits"]` holds the last-position logits for the prompt ids.
Prints one JSON object (see the values contract) and exits 0, also when mlx-lm fails to load.
"""

from __future__ import annotations

import argparse
import json
import sys

from probe_io import one_line, reserve_stdout_for_json


def main(argv: list[str]) -> int:
    options = _parse_args(argv)
    json_out = reserve_stdout_for_json()
    from importlib.metadata import version

    import mlx_lm

    result = {
        "runtime": "mlx-lm",
        "version": version("mlx-lm"),
        "outcome": "loads",
        "message": None,
        "values": {},
    }
    try:
        model, tokenizer = mlx_lm.load(options.model_dir)
    except Exception as exc:  # the failure to load is the observation, not a probe bug
        result["outcome"] = "error"
        result["message"] = one_line(exc)
    else:
        # Outside the try: an exception here is a probe bug and must exit non-zero.
        result["values"] = _values(model, tokenizer)
        if options.logits:
            result["values"]["logits"] = _last_position_logits(model, options.prompt_ids)
        # Observed, not assumed: the MLP's activation, matched numerically. It rewrites the first layer's MLP
        # weights, so it runs after the logits.
        from mlx_lm_family_probe import _activation

        activation = _activation(model.layers[0])
        if activation is not None:
            result["values"]["hidden_act"] = activation
    json_out.write(json.dumps(result) + "\n")
    json_out.flush()
    return 0


def _parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model_dir")
    parser.add_argument("--logits", action="store_true", help="add last-position logits")
    parser.add_argument(
        "--prompt-ids",
        type=lambda text: [int(token) for token in text.split(",")],
        default=[1, 2, 3],
        help="comma-separated token ids for --logits (default 1,2,3)",
    )
    return parser.parse_args(argv)


def _values(model, tokenizer) -> dict:
    attention = model.layers[0].self_attn
    mlp = model.layers[0].mlp
    rope_theta, rope_scaling = _rope_as_built(attention.rope, model.args)
    return {
        "rope_theta": rope_theta,
        "rope_scaling": rope_scaling,
        "head_dim": attention.head_dim,
        "num_key_value_heads": attention.n_kv_heads,
        # Model.__init__ creates lm_head only when embeddings are untied.
        "tie_word_embeddings": "lm_head" not in model,
        "attention_bias": "bias" in attention.q_proj,
        "mlp_bias": "bias" in mlp.gate_proj,
        "max_position_embeddings": model.args.max_position_embeddings,
        "rms_norm_eps": float(model.model.norm.eps),
        "eos_token_id": _eos_ids(tokenizer),
    }


def _rope_as_built(rope, args) -> tuple[float, dict | None]:
    """Theta and scaling of the RoPE module mlx-lm built, with mlx-lm's own defaults filled in."""
    import mlx.nn as nn
    from mlx_lm.models.rope_utils import DynamicNTKScalingRoPE, Llama3RoPE

    if isinstance(rope, nn.RoPE):
        if rope.scale == 1.0:
            return float(rope.base), None
        return float(rope.base), {"rope_type": "linear", "factor": 1.0 / rope.scale}
    if isinstance(rope, DynamicNTKScalingRoPE):
        return float(rope.base), {
            "rope_type": "dynamic",
            "factor": rope.factor,
            "max_position_embeddings": rope.max_position_embeddings,
        }
    if isinstance(rope, Llama3RoPE):
        # Llama3RoPE keeps only its frequency table; rebuild it from the parameters believed to
        # have been used and insist that it matches, so the report cannot drift from the module.
        scaling = args.rope_scaling
        parameters = {
            "rope_type": "llama3",
            "factor": scaling["factor"],
            "low_freq_factor": scaling.get("low_freq_factor", 1.0),
            "high_freq_factor": scaling.get("high_freq_factor", 4.0),
            "original_max_position_embeddings": scaling.get(
                "original_max_position_embeddings", 8192
            ),
        }
        _check_llama3_frequencies(rope, float(args.rope_theta), parameters)
        return float(args.rope_theta), parameters
    # Table-based modules (yarn, longrope, ...) keep no readable parameters: report what they got.
    return float(args.rope_theta), {"module": type(rope).__name__, **(args.rope_scaling or {})}


def _check_llama3_frequencies(rope, theta: float, parameters: dict) -> None:
    import numpy as np

    dims = rope.dims
    factor = parameters["factor"]
    low, high = parameters["low_freq_factor"], parameters["high_freq_factor"]
    context = parameters["original_max_position_embeddings"]
    freqs = theta ** (np.arange(0, dims, 2, dtype=np.float64) / dims)
    wavelens = 2 * np.pi * freqs
    freqs = np.where(wavelens > context / low, freqs * factor, freqs)
    smooth = (context / wavelens - low) / (high - low)
    smooth_freqs = freqs / ((1 - smooth) / factor + smooth)
    medium = (wavelens > context / high) & (wavelens < context / low)
    expected = np.where(medium, smooth_freqs, freqs)
    actual = np.array(rope._freqs, dtype=np.float64)
    if not np.allclose(actual, expected, rtol=1e-4):
        raise AssertionError(f"Llama3RoPE frequencies {actual} do not match {parameters}")


def _eos_ids(tokenizer):
    # The wrapper's stop set: config/generation_config eos ids plus the tokenizer's own eos token.
    ids = sorted(tokenizer.eos_token_ids)
    if not ids:
        return None
    return ids[0] if len(ids) == 1 else ids


def _last_position_logits(model, prompt_ids: list[int]) -> list[float]:
    import mlx.core as mx

    logits = model(mx.array([prompt_ids]))[0, -1].astype(mx.float32)
    return [float(value) for value in logits.tolist()]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
