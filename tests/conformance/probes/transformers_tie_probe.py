"""Probe: whether transformers ties a multimodal model's lm_head to its input embeddings.

Usage: python transformers_tie_probe.py MODEL_DIR [MODEL_DIR ...]

Builds the model `AutoModelForImageTextToText.from_config` makes of each directory's config (random
weights, nothing loaded), calls `tie_weights()` as loading does, and reports whether the output
embeddings are the input embeddings' tensor. Runs under any transformers (4.57 and 5.x here).
Prints one JSON object {"version": ..., "results": {MODEL_DIR: {outcome, message, tied}}} and exits 0.
"""

from __future__ import annotations

import json
import sys

from probe_io import one_line, reserve_stdout_for_json


def main(argv: list[str]) -> int:
    json_out = reserve_stdout_for_json()
    import torch
    import transformers

    results = {}
    for model_dir in argv:
        try:
            config = transformers.AutoConfig.from_pretrained(model_dir, local_files_only=True)
            torch.manual_seed(0)
            model = transformers.AutoModelForImageTextToText.from_config(config)
            model.tie_weights()
        except Exception as exc:  # the refusal is the observation
            results[model_dir] = {"outcome": "error", "message": one_line(exc), "tied": None}
            continue
        tied = model.get_output_embeddings().weight.data_ptr() == model.get_input_embeddings().weight.data_ptr()
        results[model_dir] = {"outcome": "loads", "message": None, "tied": tied}
    json_out.write(json.dumps({"runtime": "transformers", "version": transformers.__version__, "results": results}) + "\n")
    json_out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
