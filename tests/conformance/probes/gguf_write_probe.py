"""Probe: convert model directories with llama.cpp's convert_hf_to_gguf.py and keep the GGUF files.

Usage: python gguf_write_probe.py --converter PATH/convert_hf_to_gguf.py MODEL_DIR OUT.gguf [MODEL_DIR OUT.gguf ...]

The conversion is llama_cpp_family_probe.py's (`--outtype f32`, the vocabulary step stubbed: the tiny
checkpoints' tokenizer is not one every family's vocab code accepts), so the files carry no tokenizer.
Prints one JSON object {"results": {MODEL_DIR: {outcome, message}}} and exits 0.
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

from probe_io import one_line, reserve_stdout_for_json


def main(argv: list[str]) -> int:
    if len(argv) < 4 or argv[0] != "--converter" or len(argv) % 2:
        print(__doc__.splitlines()[2], file=sys.stderr)
        return 2
    converter, pairs = Path(argv[1]), list(zip(argv[2::2], argv[3::2]))
    json_out = reserve_stdout_for_json()
    sys.path.insert(0, str(converter.parent))
    sys.path.insert(0, str(converter.parent / "gguf-py"))
    import convert_hf_to_gguf as cli
    import llama_cpp_family_probe as family_probe

    results = {}
    for model_dir, out in pairs:
        try:
            family_probe._convert(cli, Path(model_dir), Path(out), io.StringIO())
            results[model_dir] = {"outcome": "written", "message": None}
        except (Exception, SystemExit) as exc:  # the converter's refusal is the observation
            results[model_dir] = {"outcome": "error", "message": one_line(exc) if isinstance(exc, Exception) else "converter exited"}
    json_out.write(json.dumps({"results": results}) + "\n")
    json_out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
