"""Probe: convert model directories of any family to GGUF files llama.cpp itself can load.

Usage: python llama_cpp_convert_probe.py --converter PATH/convert_hf_to_gguf.py --out DIR
           [--outtype f32|f16] MODEL_DIR [MODEL_DIR ...]

Runs the converter's model class in this process for every directory, as llama_cpp_family_probe.py
does, but keeps the GGUF (DIR/<n>.gguf) and writes a real vocabulary: the tiny checkpoints' Llama-2-style
tokenizer.json through the converter's own `_set_vocab_llama_hf` (the families' own vocab steps reject
it), so that llama.cpp finds the tokens, scores and special ids it needs to load the file.
Prints {"results": {MODEL_DIR: {outcome, message, gguf}}} and exits 0; a refusal is outcome "error".
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from pathlib import Path

from probe_io import one_line, reserve_stdout_for_json


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--converter", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--outtype", choices=("f32", "f16"), default="f32")
    parser.add_argument("model_dirs", nargs="+")
    options = parser.parse_args(argv)
    json_out = reserve_stdout_for_json()
    converter = Path(options.converter)
    sys.path.insert(0, str(converter.parent))
    sys.path.insert(0, str(converter.parent / "gguf-py"))
    import convert_hf_to_gguf as cli
    import llama_cpp_family_probe as family_probe

    file_type = {"f32": cli.gguf.LlamaFileType.ALL_F32, "f16": cli.gguf.LlamaFileType.MOSTLY_F16}[options.outtype]
    out_dir = Path(options.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    results = {}
    for index, model_dir in enumerate(options.model_dirs):
        gguf_path = out_dir / f"{index}.gguf"
        result = {"outcome": "loads", "message": None, "gguf": str(gguf_path)}
        try:
            family_probe._convert(
                cli, Path(model_dir), gguf_path, io.StringIO(),
                set_vocab=lambda self, _family_vocab: self._set_vocab_llama_hf(), file_type=file_type,
            )  # fmt: skip
        except SystemExit:
            result.update(outcome="error", message="converter exited", gguf=None)
        except Exception as exc:  # the converter's refusal is the observation
            result.update(outcome="error", message=one_line(exc), gguf=None)
        results[model_dir] = result
    json_out.write(json.dumps({"runtime": "llama.cpp-convert", "results": results}) + "\n")
    json_out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
