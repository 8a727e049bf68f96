"""How candle's quantized GGUF loaders read the same header: the head size, their own way.

candle-transformers' `quantized_llama.rs` (read at commit 024fdc75) and `quantized_qwen2.rs` (at commit
1808309b) set every layer's `head_dim` to `embedding_length / head_count` and never read
`{arch}.attention.key_length` (huggingface/candle#3917). When the file's key length is another, the query
projection's output (heads x key length) cannot be reshaped to heads x that head size: the first forward
pass fails.
"""

from __future__ import annotations

from typing import Iterator

from cfglint.gguf.compare import Difference
from cfglint.gguf.runs import FILE, Runs

LOADERS = {"llama": "quantized_llama", "qwen2": "quantized_qwen2"}


def differences(runs: Runs) -> Iterator[Difference]:
    loader = LOADERS.get(runs.architecture or "")
    key_length, embd, heads = runs.get("key_length"), runs.get("embedding_length"), runs.get("head_count")
    if loader is None or key_length is None or key_length.origin != FILE or embd is None or heads is None:
        return
    if not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in (key_length.value, embd.value, heads.value)):
        return
    derived = embd.value // heads.value
    if key_length.value != derived:
        yield Difference("candle-head-dim", f"candle's {loader} ignores {key_length.key} {key_length.value} and derives the head size as {embd.key} / {heads.key} = {embd.value} / {heads.value} = {derived}: its attention reshape fails on the first token (huggingface/candle#3917); llama.cpp runs {key_length.value}",
                         key_length.key, "", "no GGUF edit helps: run the file with llama.cpp, or with a candle loader that reads the key length")
