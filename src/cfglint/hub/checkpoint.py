"""A Hub repository's checkpoint as `cfglint.weights` describes a local one, from its headers alone.

Which files count is `weights.checkpoint.assemble`'s choice (and so the loaders'): the shards the index names;
without an index, `model.safetensors`; shards beside an index that does not name them are stray. Here
the file list is the repository's and each header is fetched over HTTP, so reading is injected: the
caller passes `read_index()` (the index's bytes) and `read_header(name)` (a `weights.header.Header`).

A cached snapshot holds only the files someone downloaded: its weights are read only when the checkpoint
they form is complete, since a missing shard there means "not downloaded", not "broken".
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

from cfglint.weights import INDEX, SINGLE, Weights, checkpoint, find
from cfglint.weights.header import Header

ReadIndex = Callable[[], bytes]
ReadHeader = Callable[[str], Header]


def assemble(directory: Path, names: set[str], read_index: ReadIndex, read_header: ReadHeader) -> Weights | None:
    """The weights of a repository holding the top-level files `names`; None when it has no weight files."""
    return checkpoint.assemble(
        Weights(directory), names,
        index=lambda weights: checkpoint.parse_index(weights, read_index()),
        header=read_header,
        place="repository",
    )


def cached(snapshot: Path) -> Weights | None:
    """A cached snapshot's weights when every file its checkpoint needs was downloaded, else None."""
    index = snapshot / INDEX
    if index.is_file():
        try:
            weight_map = json.loads(index.read_bytes().decode("utf-8")).get("weight_map")
            shards = set(weight_map.values())
        except (OSError, ValueError, AttributeError, TypeError, RecursionError):
            return find(snapshot)  # an unreadable index is a finding whatever else is there
        if not all(isinstance(s, str) and "/" not in s and (snapshot / s).is_file() for s in shards):
            return None
        return find(snapshot)
    return find(snapshot) if (snapshot / SINGLE).is_file() else None
