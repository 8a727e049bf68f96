"""The config against the weights it describes, from safetensors headers alone (no tensor data is read).

`find(directory)` reads a model directory's checkpoint headers into `Weights`; `loading.plan(ctx)`
predicts each consumer's load of it. Standard library only: `cfglint check` must stay light, so the
header reader is imported only for a directory that holds weight files.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cfglint.weights.checkpoint import Problem, Tensor, Weights

__all__ = ["Problem", "Tensor", "Weights", "find"]


def find(directory: Path) -> Weights | None:
    """The weights in a model directory, or None when it holds no weight files at all."""
    try:
        names = {e.name for e in os.scandir(directory) if e.is_file()}
    except OSError:
        return None
    if not any(_may_be_weights(n) for n in names):
        return None
    from cfglint.weights.checkpoint import read_directory

    return read_directory(Path(directory), names)


def _may_be_weights(name: str) -> bool:
    """Every file read_directory looks at passes (safetensors checkpoints, their index, pickles)."""
    return name.startswith("pytorch_model") or (name.startswith("model") and (name.endswith(".safetensors") or name.endswith(".json")))


def __getattr__(name: str) -> Any:
    if name in ("Problem", "Tensor", "Weights"):
        from cfglint.weights import checkpoint

        return getattr(checkpoint, name)
    raise AttributeError(f"module 'cfglint.weights' has no attribute {name!r}")
