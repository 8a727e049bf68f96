"""The logits check: run the same weights as each runtime would read the config, and compare with transformers 5.

This is the only part of cfglint that uses torch, transformers and safetensors (the `logits` extra). Names
are resolved lazily so that importing cfglint.logits.spec stays free of those imports.

    reference = TransformersReference(model_dir)          # transformers 5, the weights' only copy
    reading = reference.reading(values_a_runtime_uses)    # over the same tensors: from scratch for Llama,
                                                          # the family's own transformers code otherwise
    diff = (reading.logits(ids) - reference.logits(ids)).abs().max()
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "LlamaDims": "spec",
    "ReadingError": "spec",
    "ReadingValues": "spec",
    "LlamaReading": "forward",
    "FamilyReading": "family",
    "NotReproducible": "spec",
    "TransformersReference": "reference",
    "checkpoint_files": "weights",
    "map_checkpoint": "weights",
    "stored_tensor_names": "weights",
}

__all__ = [
    "FamilyReading",
    "LlamaDims",
    "LlamaReading",
    "NotReproducible",
    "ReadingError",
    "ReadingValues",
    "TransformersReference",
    "checkpoint_files",
    "map_checkpoint",
    "stored_tensor_names",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f".{module}", __name__), name)
