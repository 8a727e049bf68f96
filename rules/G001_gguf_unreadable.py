"""A GGUF file whose header llama.cpp refuses.

## What it does
Reads the GGUF header (magic, version, key-values, tensor infos; never the tensor data) with checks that mirror ggml's `gguf.cpp`: a bad magic or version (1, or newer than 3), a count or length past the end of the file, an unknown value type, nested arrays, duplicate or empty keys, a bad `general.alignment`, a tensor with an unknown ggml type, over 4 dimensions, rows not a multiple of the block size, offsets out of sequence, or data past the end (a truncated download).

## Why it matters
llama.cpp, Ollama and LM Studio refuse the file with `gguf_init_from_file_impl` errors, usually after the user has downloaded gigabytes; nothing else about the model can be checked.

## Example
A 4 GB download cut at 3.1 GB: `truncated: the tensor data ends at byte 4,368,712,352, but the file holds 3,328,599,040 bytes`.

## Fix safety
No fix: download or convert the file again.
"""

from cfglint.diagnostics import Finding
from cfglint.rule import GGUF

CODE = "G001"
NAME = "gguf-unreadable"
SEVERITY = "error"
TARGETS = (GGUF,)


def check(ctx):
    target = ctx.gguf
    if target is not None and target.problem is not None:
        yield Finding(f"llama.cpp refuses this file: {target.problem}")
