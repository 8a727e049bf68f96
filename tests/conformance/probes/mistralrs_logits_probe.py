"""Probe: the last-position log-probabilities and greedy tokens real mistral.rs computes, for any family.

Usage: python mistralrs_logits_probe.py PROMPT_IDS GREEDY MODEL_DIR [MODEL_DIR ...]   (PROMPT_IDS: 1,2,3)

The plain `Architecture` is picked from config.json's model_type as mistralrs_family_probe does; the
prompt is given as text that mistral.rs must tokenize back to exactly PROMPT_IDS (see mistralrs_probe).
`values["logprobs"]`: log-softmax of the last-position logits, one float per vocabulary id;
`values["greedy_ids"]`: GREEDY tokens generated at temperature 0, eos ignored.
Prints one JSON object {"results": {MODEL_DIR: {outcome, message, values}}} and exits 0.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import tempfile
from pathlib import Path

from mistralrs_family_probe import _ARCHITECTURES, _VERBATIM_TEMPLATE, _load
from mistralrs_probe import _generation_values, _is_panic, _one_line
from probe_io import reserve_stdout_for_json


def main(argv: list[str]) -> int:
    prompt_ids, greedy, dirs = [int(t) for t in argv[0].split(",")], int(argv[1]), argv[2:]
    json_out = reserve_stdout_for_json()
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["RUST_BACKTRACE"] = "0"
    os.environ["MISTRALRS_CPU_KV_F32"] = "1"  # a float32 KV cache, not the CPU default f16
    from importlib.metadata import version

    import mistralrs

    options = argparse.Namespace(prompt_ids=prompt_ids, logprobs=True, greedy=greedy)
    results = {}
    with tempfile.TemporaryDirectory(prefix="mistralrs-logits-probe-") as scratch:
        template = Path(scratch) / "verbatim.jinja"
        template.write_text(_VERBATIM_TEMPLATE, encoding="utf-8")
        for model_dir in dirs:
            model_type = json.loads((Path(model_dir) / "config.json").read_text(encoding="utf-8")).get("model_type")
            arch_name = _ARCHITECTURES.get(model_type)
            if arch_name is None or not hasattr(mistralrs.Architecture, arch_name):
                results[model_dir] = {"outcome": "not-applicable", "message": f"no plain Architecture for {model_type}", "values": {}}
                continue
            try:
                runner = _load(mistralrs, Path(model_dir), getattr(mistralrs.Architecture, arch_name), template)
            except BaseException as exc:  # Rust panics surface as pyo3's BaseException subclass
                if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                    raise
                results[model_dir] = {"outcome": "panic" if _is_panic(exc) else "error", "message": _one_line(exc), "values": {}}
                continue
            # Outside the try: an exception here is a probe bug and must exit non-zero.
            results[model_dir] = {"outcome": "loads", "message": None, "values": _generation_values(runner, options)}
            del runner
            gc.collect()
    json_out.write(json.dumps({"runtime": "mistral.rs", "version": version("mistralrs"), "results": results}) + "\n")
    json_out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
