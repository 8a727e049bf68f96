"""The config against the weights it describes, from safetensors headers alone (no tensor data is read).

`find(directory)` reads a model directory's checkpoint headers into `Weights`; `loading.plan(ctx)`
predicts each consumer's load of it. Standard library only: `cfglint check` must stay light, so the
header reader is imported only for a directory that holds weight files.
"""

from __future__ import annotations

import os
from fnmatch import fnmatchcase
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cfglint.weights.checkpoint import Problem, Tensor, Weights

__all__ = ["INDEX", "SINGLE", "Problem", "Tensor", "Weights", "find", "is_pickle", "is_shard"]

INDEX = "model.safetensors.index.json"
SINGLE = "model.safetensors"
PICKLE_PATTERNS = ("pytorch_model*.bin", "pytorch_model.bin.index.json")


def is_shard(name: str) -> bool:
    """A safetensors file loaders may read: model.safetensors or a model-*.safetensors shard."""
    return name.startswith("model") and name.endswith(".safetensors")


def is_pickle(name: str) -> bool:
    return any(fnmatchcase(name, p) for p in PICKLE_PATTERNS)


def find(directory: Path) -> Weights | None:
    """The weights in a model directory, or None when it holds no weight files at all."""
    try:
        names = {e.name for e in os.scandir(directory) if e.is_file()}
    except OSError:
        return None
    if not any(n == INDEX or is_shard(n) or is_pickle(n) for n in names):
        return None
    from cfglint.weights.checkpoint import read_directory

    return read_directory(Path(directory), names)


def __getattr__(name: str) -> Any:
    if name in ("Problem", "Tensor", "Weights"):
        from cfglint.weights import checkpoint

        return getattr(checkpoint, name)
    raise AttributeError(f"module 'cfglint.weights' has no attribute {name!r}")
