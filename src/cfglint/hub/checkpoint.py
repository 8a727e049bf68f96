"""A Hub repository's checkpoint as `cfglint.weights` describes a local one, from its headers alone.

Which files count follows `weights.checkpoint.read_directory` (and so the loaders): the shards the index names;
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

from cfglint.weights import Problem, Weights, find
from cfglint.weights.checkpoint import INDEX, PICKLE_PATTERNS, SINGLE, parse_index, read_files
from cfglint.weights.header import Header

ReadIndex = Callable[[], bytes]
ReadHeader = Callable[[str], Header]


def assemble(directory: Path, names: set[str], read_index: ReadIndex, read_header: ReadHeader) -> Weights | None:
    """The weights of a repository holding the top-level files `names`; None when it has no weight files."""
    weights = Weights(directory)
    model_files = sorted(n for n in names if n.startswith("model") and n.endswith(".safetensors"))
    if INDEX in names:
        weights.indexed = True
        weight_map = parse_index(weights, read_index())
        if weight_map is None:
            weights.complete = False
            return weights
        shards = []
        for shard in dict.fromkeys(weight_map.values()):
            if "/" in shard or "\\" in shard or shard in ("", ".", ".."):
                weights.problems.append(Problem(INDEX, f"names shard {shard!r}, which is not a file name in the model directory; not read", "unreadable"))
                weights.complete = False
            elif shard not in names:
                weights.problems.append(Problem(INDEX, f"names shard {shard}, which is not in the repository", "unreadable"))
                weights.complete = False
            else:
                shards.append(shard)
        headers = read_files(weights, shards, weight_map, read_header)
        _compare_index(weights, weight_map, headers)
        named = set(weight_map.values())
        for stray in model_files:
            if stray not in named:
                header = read_header(stray)
                weights.stray[stray] = list(header.tensors) if header.readable else []
                weights.problems.append(Problem(stray, f"{stray} is not named by {INDEX}: transformers and candle never read it", "stray"))
    elif SINGLE in names:
        read_files(weights, [SINGLE], read_header=read_header)
        for stray in model_files:
            if stray != SINGLE:
                header = read_header(stray)
                weights.stray[stray] = list(header.tensors) if header.readable else []
                weights.problems.append(Problem(stray, f"{stray} sits beside {SINGLE} with no index: transformers and candle never read it", "stray"))
    elif model_files:
        read_files(weights, model_files, read_header=read_header)
        shown = ", ".join(model_files[:2]) + (", ..." if len(model_files) > 2 else "")
        weights.problems.append(Problem(model_files[0], f"{len(model_files)} safetensors shards ({shown}) and no {INDEX}: transformers and candle find no weights", "stray"))
    else:
        weights.pickles = sorted(n for n in names if any(Path(n).match(p) for p in PICKLE_PATTERNS))
        return weights if weights.pickles else None
    return weights


def _compare_index(weights: Weights, weight_map: dict[str, str], headers: dict[str, Header]) -> None:
    for name, shard in weight_map.items():
        header = headers.get(shard)
        if header is not None and header.readable and name not in header.tensors:
            weights.problems.append(Problem(INDEX, f"{INDEX} lists {name} in {shard}, which does not hold it", "index"))
    for shard, header in headers.items():
        unlisted = [n for n in header.tensors if n not in weight_map]
        if unlisted:
            weights.problems.append(Problem(shard, f"{shard} holds {len(unlisted)} tensor(s) that {INDEX} does not list, e.g. {unlisted[0]}", "index"))


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
