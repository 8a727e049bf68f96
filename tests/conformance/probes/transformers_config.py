"""Probe: what a transformers LlamaConfig ends up with for a model directory (config only).

Usage: python transformers_config.py MODEL_DIR

Runs under transformers 4.x and 5.x, without torch. RoPE is reported the way that version's
*modeling code* reads it: 4.x reads `config.rope_theta` and `config.rope_scaling`; 5.x reads only
`config.rope_parameters` (its `rope_theta` and `rope_type`), whatever top-level keys the file has.
Prints one JSON object (see the values contract) and exits 0, also when the config fails to load.
"""

from __future__ import annotations

import json
import sys

from probe_io import one_line, reserve_stdout_for_json


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: transformers_config.py MODEL_DIR", file=sys.stderr)
        return 2
    json_out = reserve_stdout_for_json()
    import transformers

    major = int(transformers.__version__.split(".")[0])
    result = {
        "runtime": f"transformers{major}",
        "version": transformers.__version__,
        "outcome": "loads",
        "message": None,
        "values": {},
    }
    try:
        config = transformers.AutoConfig.from_pretrained(argv[0], local_files_only=True)
    except Exception as exc:  # the failure to load is the observation, not a probe bug
        result["outcome"] = "error"
        result["message"] = one_line(exc)
    else:
        # Outside the try: an exception here is a probe bug and must exit non-zero.
        result["values"] = _values(config, major)
    json_out.write(json.dumps(result, default=str) + "\n")
    json_out.flush()
    return 0


def _values(config, major: int) -> dict:
    rope_theta, rope_scaling = _rope_as_modeling_reads_it(config, major)
    hidden, heads = config.hidden_size, config.num_attention_heads
    return {
        "rope_theta": float(rope_theta),
        "rope_scaling": rope_scaling,
        "head_dim": getattr(config, "head_dim", None) or hidden // heads,
        "num_key_value_heads": config.num_key_value_heads,
        "tie_word_embeddings": config.tie_word_embeddings,
        "hidden_act": config.hidden_act,
        "attention_bias": config.attention_bias,
        "mlp_bias": config.mlp_bias,
        "max_position_embeddings": config.max_position_embeddings,
        "rms_norm_eps": config.rms_norm_eps,
        "eos_token_id": config.eos_token_id,
        "dtype": _dtype_name(config),
    }


def _rope_as_modeling_reads_it(config, major: int) -> tuple[float, dict | None]:
    if major >= 5:
        # 5.x LlamaRotaryEmbedding: rope_parameters["rope_type"] picks the init function, which
        # reads rope_parameters["rope_theta"] and the scaling keys from the same dict.
        parameters = dict(config.rope_parameters)
        return parameters.pop("rope_theta"), _scaling_or_none(parameters)
    # 4.x LlamaRotaryEmbedding: rope_scaling (or None) picks the type; rope_theta is the base.
    # A 5.x-only `rope_parameters` attribute is never read by 4.x modeling code.
    scaling = dict(config.rope_scaling) if config.rope_scaling else {}
    scaling.pop("rope_theta", None)
    return config.rope_theta, _scaling_or_none(scaling)


def _scaling_or_none(parameters: dict) -> dict | None:
    rope_type = parameters.pop("rope_type", None) or parameters.pop("type", None) or "default"
    parameters.pop("type", None)
    if rope_type == "default":
        return None  # plain RoPE: the contract's null
    return {"rope_type": rope_type, **parameters}


def _dtype_name(config) -> str | None:
    # 4.56+ and 5.x expose `dtype`; older 4.x only `torch_dtype`. Without torch it stays a string.
    value = getattr(config, "dtype", None) or getattr(config, "torch_dtype", None)
    return None if value is None else str(value).removeprefix("torch.")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
