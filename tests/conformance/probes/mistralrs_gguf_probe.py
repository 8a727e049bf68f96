"""Probe: whether real mistral.rs loads GGUF files, and its refusal when it does not.

Usage: python mistralrs_gguf_probe.py GGUF [GGUF ...]

Each file is loaded with `Which.GGUF` (its own tokenizer, CPU) and dropped again; nothing is generated.
A refusal (a missing key it requires, tensors of other shapes than the header implies) is outcome "error"
with mistral.rs' message on one line; a Rust panic is outcome "panic".
Prints one JSON object {"runtime", "version", "results": {GGUF: {outcome, message}}} and exits 0.
"""

from __future__ import annotations

import gc
import json
import os
import sys
from pathlib import Path

from mistralrs_probe import _is_panic, _one_line
from probe_io import reserve_stdout_for_json


def main(argv: list[str]) -> int:
    json_out = reserve_stdout_for_json()
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["RUST_BACKTRACE"] = "0"
    from importlib.metadata import version

    import mistralrs

    payload = {"runtime": "mistral.rs", "version": version("mistralrs"),
               "results": {path: _load_outcome(mistralrs, Path(path)) for path in argv}}
    json_out.write(json.dumps(payload) + "\n")
    json_out.flush()
    return 0


def _load_outcome(mistralrs, path: Path) -> dict:
    which = mistralrs.Which.GGUF(quantized_model_id=str(path.parent), quantized_filename=path.name)
    try:
        runner = mistralrs.Runner(which=which, token_source="none")
    except BaseException as exc:  # Rust panics surface as pyo3's BaseException subclass
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        return {"outcome": "panic" if _is_panic(exc) else "error", "message": _one_line(exc)}
    del runner
    gc.collect()
    return {"outcome": "loads", "message": None}


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
