"""The stop-token part of a GGUF beside config.json: its special ids and its vocabulary's texts.

A model directory may hold a converted file (`*.gguf`); llama.cpp then runs from that file, not from the
tokenizer files, so its stop set is read from there. The first GGUF in name order that has a token list is
used (a vision projector, `mmproj-*.gguf`, has none). The header reader (cfglint.gguf.header) needs the
`gguf` package; it is imported only when a directory holds a GGUF, and without it the directory is read as
if it held none.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

# tokenizer.ggml.<kind>_token_id: the ids llama-vocab.cpp adds to the end-of-generation set itself.
SPECIAL_KINDS = ("eos", "eot", "eom", "fim_pad", "fim_rep", "fim_sep")


@dataclass
class GgufVocabulary:
    file: str
    special: dict[str, int] = field(default_factory=dict)  # kind -> id, from its tokenizer.ggml key
    defaulted: set[str] = field(default_factory=set)  # kinds whose key is absent, taken from llama.cpp's default
    tokens: list[str] = field(default_factory=list)  # tokenizer.ggml.tokens, by id
    problem: str | None = None  # the file could not be read (one line)

    def by_text(self) -> dict[str, int]:
        """token_to_id as llama-vocab.cpp builds it: for a text held twice, the later id."""
        return {text: i for i, text in enumerate(self.tokens)}


def read(directory: Path, listing: Collection[str]) -> GgufVocabulary | None:
    names = sorted(n for n in listing if n.endswith(".gguf"))
    if not names:
        return None
    try:
        from cfglint.gguf.header import GgufError, read_header
        from cfglint.gguf.runs import SPECIAL_DEFAULTS
    except ImportError:  # the gguf package is an optional extra
        return None
    for name in names:
        try:
            header = read_header(directory / name)
        except GgufError as err:
            return GgufVocabulary(name, problem=str(err))
        meta = header.metadata
        tokens = meta.get("tokenizer.ggml.tokens")
        if tokens is None:
            continue
        found = GgufVocabulary(name, tokens=[t if isinstance(t, str) else "" for t in tokens])
        for kind in SPECIAL_KINDS:
            value = meta.get(f"tokenizer.ggml.{kind}_token_id")
            if type(value) is int:
                found.special[kind] = value
        model = meta.get("tokenizer.ggml.model")
        default = SPECIAL_DEFAULTS.get(model if isinstance(model, str) else "", {}).get("eos")
        if "eos" not in found.special and default is not None:  # llama-vocab.cpp: the tokenizer model's eos
            found.special["eos"] = default
            found.defaulted.add("eos")
        return found
    return None
