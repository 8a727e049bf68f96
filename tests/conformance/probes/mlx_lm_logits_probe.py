"""Probe: the logits real mlx-lm computes for a prompt, for model directories of any family it loads.

Usage: python mlx_lm_logits_probe.py PROMPT_IDS MODEL_DIR [MODEL_DIR ...]   (PROMPT_IDS: 1,2,3)

Several directories per process, since importing mlx costs seconds. `values["logits"]` holds one row of
float32 logits per prompt position, computed in one forward without a cache.
Prints one JSON object {"results": {MODEL_DIR: {outcome, message, values}}} and exits 0, also when
mlx-lm fails to load a directory.
"""

from __future__ import annotations

import json
import sys

from probe_io import one_line, reserve_stdout_for_json


def main(argv: list[str]) -> int:
    prompt_ids, dirs = [int(t) for t in argv[0].split(",")], argv[1:]
    json_out = reserve_stdout_for_json()
    from importlib.metadata import version

    import mlx.core as mx
    import mlx_lm

    results = {}
    for model_dir in dirs:
        try:
            model, _ = mlx_lm.load(model_dir)
        except Exception as exc:  # noqa: BLE001 (the failure to load is the observation, not a probe bug)
            results[model_dir] = {"outcome": "error", "message": one_line(exc), "values": {}}
            continue
        logits = model(mx.array([prompt_ids]))[0].astype(mx.float32)
        results[model_dir] = {"outcome": "loads", "message": None, "values": {"logits": logits.tolist()}}
    json_out.write(json.dumps({"runtime": "mlx-lm", "version": version("mlx-lm"), "results": results}) + "\n")
    json_out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
