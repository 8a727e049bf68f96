"""Shared by the sampling tests: transformers' own warpers as the reference, and the SmolLM2 build script."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
BUILD_SCRIPT = ROOT / "scripts" / "build_smollm2.py"
PROMPT = "The capital of France is"


def load_build_script():
    """scripts/build_smollm2.py as a module (scripts/ is not a package)."""
    spec = importlib.util.spec_from_file_location("build_smollm2_for_sampling", BUILD_SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def real_transformers(logits: np.ndarray, temperature: float, top_k: int, top_p: float, min_p=None):
    """Kept mask and distribution from transformers' own warpers, in generate()'s order."""
    import torch
    from transformers import LogitsProcessorList, MinPLogitsWarper, TemperatureLogitsWarper, TopKLogitsWarper, TopPLogitsWarper

    processors = LogitsProcessorList()
    if temperature != 1.0:
        processors.append(TemperatureLogitsWarper(temperature))
    if top_k:
        processors.append(TopKLogitsWarper(top_k))
    if top_p < 1.0:
        processors.append(TopPLogitsWarper(top_p))
    if min_p is not None:
        processors.append(MinPLogitsWarper(min_p))
    scores = processors(torch.zeros((1, 1), dtype=torch.long), torch.from_numpy(logits.copy())[None])[0]
    return torch.isfinite(scores).numpy(), torch.softmax(scores.double(), -1).numpy()
