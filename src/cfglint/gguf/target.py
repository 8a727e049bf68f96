"""A GGUF file checked as a target: its header, what llama.cpp runs, and the source config it is compared with.

The source config is the config.json beside the file, or the one `--against` names (a model directory or
its config.json). A GGUF finding is located by the file and the GGUF key (a binary file has no lines, so
reports give line 1, column 1), plus the JSON Pointer into the source config when there is one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from cfglint import document
from cfglint.document import Document
from cfglint.generation import load as load_generation
from cfglint.intent import intent_of

if TYPE_CHECKING:
    from cfglint.gguf.header import GgufHeader

SUFFIX = ".gguf"


def is_gguf(path: str | Path) -> bool:
    return str(path).lower().endswith(SUFFIX)


@dataclass
class GgufTarget:
    path: Path
    header: GgufHeader | None = None  # None when unreadable
    problem: str | None = None  # why the header could not be read (llama.cpp would refuse the file)
    against: Document | None = None  # the source config.json, when known
    notes: list[str] = field(default_factory=list)

    @cached_property
    def runs(self):
        from cfglint.gguf.runs import runs_of

        return runs_of(self.header) if self.header is not None else None

    @cached_property
    def source(self):
        """The source config as transformers 5 reads it (None without a readable config)."""
        doc = self.against
        if doc is None or not doc.ok or not isinstance(doc.data, dict):
            return None
        from cfglint.gguf.compare import Source

        intent = intent_of(doc.data)
        root = intent.root
        config = doc.data.get(root.lstrip("/"), {}) if root else doc.data
        values = {**{k: v for k, v in config.items()}, **intent.dims, **intent.values}
        sources = {k: f"{root}/{k}" for k in config} | dict(intent.sources)
        generation = load_generation(doc)
        written = {k: generation.values[k] for k in generation.values if generation.written(k)}
        pointers = {k: generation.sources[k] for k in written}
        return Source(values, sources, intent.named_family, root, written, pointers)

    @property
    def later_shard(self) -> bool:
        """The second or a later file of a split GGUF (`split.no` > 0): the first one carries the metadata."""
        shard = self.header.metadata.get("split.no") if self.header is not None else None
        return isinstance(shard, int) and not isinstance(shard, bool) and shard > 0

    @cached_property
    def differences(self):
        if self.runs is None or self.later_shard:
            return []
        from cfglint.gguf import loaders
        from cfglint.gguf.compare import differences

        assert self.header is not None
        return [*differences(self.runs, self.header.tensors, self.source), *loaders.differences(self.header)]


def load(path: Path, against: Path | None = None) -> GgufTarget:
    """Read the header (never the tensor data) and the source config; problems become the target's `problem`."""
    from cfglint.gguf.header import GgufError, read_header

    target = GgufTarget(path)
    try:
        target.header = read_header(path)
    except GgufError as err:
        target.problem = str(err)
    config = _source_config(path, against)
    if config is not None:
        try:
            target.against = document.load(config)
        except OSError as err:
            target.notes.append(f"{config}: cannot be read: {err.strerror or err}")
    return target


def _source_config(path: Path, against: Path | None) -> Path | None:
    if against is not None:
        return against / "config.json" if against.is_dir() else against
    beside = path.parent / "config.json"
    return beside if beside.is_file() else None
