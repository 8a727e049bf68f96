"""Generic readers: an Entry (how one runtime reads one family) and a config in, that runtime's reading out.

One reader per reading mechanism, not per runtime: serde structs (candle, mistral.rs), Python dataclasses
(mlx-lm), keyword arguments (transformers 4), the GGUF converter (llama.cpp). Each parses the fields the
entry declares the way its mechanism does, then `values.fill` evaluates the entry's expressions and the named
RoPE reading over what was parsed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cfglint.consumers.base import View
    from cfglint.document import Document
    from cfglint.intent import Intent
    from cfglint.knowledge.entry import Entry


def read(entry: Entry, doc: Document, intent: Intent) -> View:
    if entry.reader == "serde":
        from cfglint.readers.serde_reader import read as reader
    elif entry.reader == "converter":
        from cfglint.readers.converter import read as reader
    else:
        from cfglint.readers.python_reader import read as reader
    return reader(entry, doc, intent)
