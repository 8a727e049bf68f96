"""A model directory's weights as loaders see them: tensor names, shapes and dtypes, from headers only.

Which files count follows the loaders: with `model.safetensors.index.json`, the shards its weight_map
names (transformers and candle read only those); without one, `model.safetensors`. Other
`model*.safetensors` files beside an index are "stray": mlx-lm globs `model*.safetensors` and loads them
too, and llama.cpp's converter refuses a directory whose index and files disagree. Pickle checkpoints
(`pytorch_model*.bin`) are only noted: opening a pickle can run code, so cfglint never does.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path

from cfglint.weights import INDEX, SINGLE, is_pickle, is_shard
from cfglint.weights.header import MAX_HEADER, FLOAT_DTYPES, Header, TensorInfo, json_problem, read_header



@dataclass(frozen=True)
class Tensor:
    name: str
    dtype: str
    shape: tuple[int, ...]
    file: str

    @property
    def numel(self) -> int:
        return math.prod(self.shape)


@dataclass(frozen=True)
class Problem:
    file: str
    message: str
    kind: str  # "unreadable": loaders cannot read it; "index": index and shards disagree; "stray": unindexed shards


@dataclass
class Weights:
    directory: Path
    files: list[str] = field(default_factory=list)  # the safetensors files loaders read, in order
    tensors: dict[str, Tensor] = field(default_factory=dict)
    stray: dict[str, list[str]] = field(default_factory=dict)  # model*.safetensors the index does not name -> tensor names
    problems: list[Problem] = field(default_factory=list)
    pickles: list[str] = field(default_factory=list)  # pickle weight files, when there is no safetensors checkpoint
    complete: bool = True  # False when some file's tensor list could not be read
    indexed: bool = False  # the shards come from model.safetensors.index.json
    cache: dict = field(default_factory=dict, repr=False)  # per-context computations (loading plans)

    @property
    def safetensors(self) -> bool:
        return bool(self.files)

    def dtypes(self) -> dict[str, int]:
        """Stored dtype -> number of elements held in it, largest first."""
        counts: dict[str, int] = {}
        for t in self.tensors.values():
            counts[t.dtype] = counts.get(t.dtype, 0) + t.numel
        return dict(sorted(counts.items(), key=lambda kv: -kv[1]))

    def float_dtypes(self) -> dict[str, int]:
        return {d: n for d, n in self.dtypes().items() if d in FLOAT_DTYPES}

    def parameters(self) -> int:
        return sum(t.numel for t in self.tensors.values())


def read_directory(directory: Path, names: Collection[str]) -> Weights | None:
    """The weights among a model directory's files (`names`), or None when none of them is a weight file."""
    return assemble(
        Weights(directory), names,
        index=lambda weights: _read_index(weights, directory / INDEX),
        header=lambda name: _read_one(directory / name),
        place="model directory",
    )


def assemble(
    weights: Weights,
    names: Collection[str],
    index: Callable[[Weights], dict[str, str] | None],
    header: Callable[[str], Header],
    place: str,
) -> Weights | None:
    """Which of the files `names` loaders read, with their headers, wherever the files are: `index`
    gives the index's weight map (recording why when there is none), `header` one file's header, and
    `place` names where the files are in messages ("model directory", "repository")."""
    model_files = sorted(filter(is_shard, names))
    if INDEX in names:
        weights.indexed = True
        _read_sharded(weights, names, model_files, index, header, place)
    elif SINGLE in names:
        read_files(weights, [SINGLE], header)
        for stray in model_files:
            if stray != SINGLE:
                weights.stray[stray] = _tensor_names(header(stray))
                weights.problems.append(Problem(stray, f"{stray} sits beside {SINGLE} with no index: transformers and candle never read it", "stray"))
    elif model_files:
        read_files(weights, model_files, header)
        shown = ", ".join(model_files[:2]) + (", ..." if len(model_files) > 2 else "")
        weights.problems.append(Problem(model_files[0], f"{len(model_files)} safetensors shards ({shown}) and no {INDEX}: transformers and candle find no weights", "stray"))
    else:
        weights.pickles = sorted(filter(is_pickle, names))
        return weights if weights.pickles else None
    return weights


def _read_sharded(weights: Weights, names: Collection[str], model_files: list[str], index, header, place: str) -> None:
    weight_map = index(weights)
    if weight_map is None:
        weights.complete = False
        return
    shards: list[str] = []
    for shard in dict.fromkeys(weight_map.values()):
        if "/" in shard or "\\" in shard or shard in ("", ".", ".."):
            weights.problems.append(Problem(INDEX, f"names shard {shard!r}, which is not a file name in the {place}; not read", "unreadable"))
            weights.complete = False
        elif shard not in names:
            weights.problems.append(Problem(INDEX, f"names shard {shard}, which is not in the {place}", "unreadable"))
            weights.complete = False
        else:
            shards.append(shard)
    headers = read_files(weights, shards, header, weight_map)
    for name, shard in weight_map.items():
        held = headers.get(shard)
        if held is not None and held.readable and name not in held.tensors:
            weights.problems.append(Problem(INDEX, f"{INDEX} lists {name} in {shard}, which does not hold it", "index"))
    for shard, held in headers.items():
        unlisted = [n for n in held.tensors if n not in weight_map]
        if unlisted:
            weights.problems.append(Problem(shard, f"{shard} holds {len(unlisted)} tensor(s) that {INDEX} does not list, e.g. {unlisted[0]}", "index"))
    named = set(weight_map.values())
    for stray in model_files:
        if stray not in named:
            weights.stray[stray] = _tensor_names(header(stray))
            weights.problems.append(Problem(stray, f"{stray} is not named by {INDEX}: transformers and candle never read it", "stray"))


def _read_index(weights: Weights, path: Path) -> dict[str, str] | None:
    try:
        size = path.stat().st_size
        if size > MAX_HEADER:
            _unreadable_index(weights, f"is {size / 2**20:.0f} MiB, over the {MAX_HEADER >> 20} MiB limit; not read")
            return None
        raw = path.read_bytes()
    except OSError as err:
        _unreadable_index(weights, f"cannot be read: {err.strerror or err}")
        return None
    return parse_index(weights, raw)


def parse_index(weights: Weights, raw: bytes) -> dict[str, str] | None:
    """The weight_map of an index file's bytes, or None with the reason recorded as a problem."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        _unreadable_index(weights, "is not UTF-8")
        return None
    except (ValueError, RecursionError) as err:
        _unreadable_index(weights, f"is not JSON: {json_problem(err)}")
        return None
    weight_map = data.get("weight_map") if isinstance(data, dict) else None
    if not isinstance(weight_map, dict) or not all(isinstance(v, str) for v in weight_map.values()):
        _unreadable_index(weights, 'has no "weight_map" object of tensor name -> shard file')
        return None
    return weight_map


def _unreadable_index(weights: Weights, message: str) -> None:
    weights.problems.append(Problem(INDEX, message, "unreadable"))


def read_files(
    weights: Weights,
    files: list[str],
    read_header: Callable[[str], Header],
    weight_map: dict[str, str] | None = None,
) -> dict[str, Header]:
    """Read each file's header into weights. A name held by two files is a duplicate; the index, when
    there is one, says which copy index-driven loaders take."""
    headers: dict[str, Header] = {}
    owner: dict[str, str] = {}
    for name in files:
        header = read_header(name)
        headers[name] = header
        weights.files.append(name)
        for message in header.problems:
            weights.problems.append(Problem(name, message, "unreadable"))
        if not header.readable:
            weights.complete = False
            continue
        for tensor in header.tensors.values():
            if tensor.name in owner:
                weights.problems.append(Problem(name, f"{tensor.name} is in both {owner[tensor.name]} and {name}", "index"))
                if weight_map is None or weight_map.get(tensor.name) != name:
                    continue
            owner[tensor.name] = name
            weights.tensors[tensor.name] = Tensor(tensor.name, tensor.dtype, tensor.shape, name)
    return headers


def _read_one(path: Path) -> Header:
    try:
        with path.open("rb") as stream:
            return read_header(stream, os.fstat(stream.fileno()).st_size)
    except OSError as err:
        return Header(problems=[f"cannot be read: {err.strerror or err}"], readable=False)


def _tensor_names(header: Header) -> list[str]:
    return list(header.tensors) if header.readable else []


__all__ = ["Problem", "Tensor", "TensorInfo", "Weights", "assemble", "parse_index", "read_directory"]
