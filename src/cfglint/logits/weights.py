"""Which tensors a model directory stores, and a memory-mapped view of them.

safetensors maps a file into memory instead of reading it: tensors returned by safe_open are backed by
the page cache, so mapping the same checkpoint twice does not double the resident memory, and handing the
returned tensors to several readings costs nothing.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from pathlib import Path

import torch
from safetensors import safe_open

SINGLE_FILE = "model.safetensors"
SHARD_INDEX = "model.safetensors.index.json"


def checkpoint_files(model_dir: Path | str) -> list[Path]:
    """The safetensors files of a model directory, single-file or sharded (via its index)."""
    model_dir = Path(model_dir)
    if (model_dir / SINGLE_FILE).is_file():
        return [model_dir / SINGLE_FILE]
    index_path = model_dir / SHARD_INDEX
    if index_path.is_file():
        weight_map = json.loads(index_path.read_text(encoding="utf-8"))["weight_map"]
        return [model_dir / name for name in sorted(set(weight_map.values()))]
    raise FileNotFoundError(f"no {SINGLE_FILE} or {SHARD_INDEX} in {model_dir}")


def stored_tensor_names(model_dir: Path | str) -> frozenset[str]:
    """Names of the tensors actually stored (only the file headers are read)."""
    names: set[str] = set()
    for path in checkpoint_files(model_dir):
        with safe_open(path, framework="pt") as handle:
            names.update(handle.keys())
    return frozenset(names)


def map_checkpoint(model_dir: Path | str, names: Collection[str] | None = None) -> dict[str, torch.Tensor]:
    """Every stored tensor (or those in names), memory-mapped from the files (no copy for tensors stored as-is)."""
    tensors: dict[str, torch.Tensor] = {}
    for path in checkpoint_files(model_dir):
        with safe_open(path, framework="pt") as handle:
            for name in handle.keys():  # noqa: SIM118 (safe_open handles are not iterable)
                if names is None or name in names:
                    tensors[name] = handle.get_tensor(name)
    return tensors
