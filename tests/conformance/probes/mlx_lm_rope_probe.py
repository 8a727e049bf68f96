"""Probe: the rotary embedding real mlx-lm builds for a config, without loading any weights.

Usage: python mlx_lm_rope_probe.py MODEL_DIR [MODEL_DIR ...]

For each directory, mlx-lm's own load_config and the model module its model_type selects build the model
from config.json alone; the first layer's RoPE module is reported as `values`: its class, `inverse_frequencies`
(1 / _freqs, what positions are multiplied by, for table-based modules such as YarnRoPE) and `mscale`
(the factor it multiplies queries and keys by). A checkpoint mlx-lm cannot load can still be observed here.
Prints one JSON object {"results": {MODEL_DIR: {outcome, message, values}}} and exits 0.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from probe_io import one_line, reserve_stdout_for_json


def _rope(model):
    inner = getattr(model, "model", model)
    return inner.layers[0].self_attn.rope


def main(argv: list[str]) -> int:
    json_out = reserve_stdout_for_json()
    from importlib.metadata import version

    import mlx.core as mx
    from mlx_lm.utils import _get_classes, load_config

    results = {}
    for model_dir in argv:
        try:
            config = load_config(Path(model_dir))
            model_class, args_class = _get_classes(config)
            rope = _rope(model_class(args_class.from_dict(config)))
        except Exception as exc:  # noqa: BLE001 (the failure to build is the observation, not a probe bug)
            results[model_dir] = {"outcome": "error", "message": one_line(exc), "values": {}}
            continue
        values = {"class": type(rope).__name__, "mscale": float(getattr(rope, "mscale", 1.0))}
        freqs = getattr(rope, "_freqs", None)
        if freqs is not None:
            values["inverse_frequencies"] = (1.0 / freqs.astype(mx.float32)).tolist()
        results[model_dir] = {"outcome": "loads", "message": None, "values": values}
    json_out.write(json.dumps({"runtime": "mlx-lm", "version": version("mlx-lm"), "results": results}) + "\n")
    json_out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
