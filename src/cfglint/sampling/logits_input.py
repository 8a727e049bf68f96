"""Where a logits vector comes from: a saved .npy or JSON file, or transformers 5 run on the model directory."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from cfglint.errors import UsageError


def last_position(values: np.ndarray, source: str) -> np.ndarray:
    """One vector: a (vocab,) array as is, or the last position of (..., positions, vocab)."""
    array = np.asarray(values)
    if array.ndim == 0 or array.size == 0:
        raise UsageError(f"{source}: expected logits, got an array of shape {array.shape}")
    if not np.issubdtype(array.dtype, np.number):
        raise UsageError(f"{source}: logits must be numbers, got {array.dtype}")
    vector = array.reshape(-1, array.shape[-1])[-1].astype(np.float32)
    if np.isnan(vector).any():
        raise UsageError(f"{source}: logits contain NaN")
    return vector


def from_npy(path: str) -> np.ndarray:
    try:
        # allow_pickle=False: a .npy file must not be able to run code.
        array = np.load(path, allow_pickle=False)
    except OSError as err:
        raise UsageError(f"{path}: {err.strerror or err}") from None
    except ValueError as err:
        raise UsageError(f"{path}: not a plain .npy array ({err})") from None
    return last_position(array, path)


def from_json(path: str) -> np.ndarray:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as err:
        raise UsageError(f"{path}: {err.strerror or err}") from None
    except (ValueError, UnicodeDecodeError) as err:
        raise UsageError(f"{path}: not JSON ({err})") from None
    except RecursionError:
        raise UsageError(f"{path}: not JSON (nested too deeply)") from None
    try:
        array = np.asarray(data, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):  # OverflowError: an integer beyond float64
        raise UsageError(f"{path}: expected a JSON array of numbers (or of equal-length arrays)") from None
    return last_position(array, path)


def from_model(model_dir: Path, prompt: str) -> np.ndarray:
    """Last-position logits of transformers 5's LlamaForCausalLM (float32, eager) for prompt; local files only."""
    try:
        import torch
        from transformers import AutoTokenizer, LlamaForCausalLM
    except ImportError:
        raise UsageError("--prompt needs torch and transformers: pip install 'hf-cfglint[logits,sampling]'") from None
    tokenizer = AutoTokenizer.from_pretrained(model_dir, local_files_only=True)
    model = LlamaForCausalLM.from_pretrained(
        model_dir, dtype=torch.float32, attn_implementation="eager", local_files_only=True
    ).eval()
    ids = tokenizer(prompt, return_tensors="pt").input_ids
    with torch.no_grad():
        return model(ids).logits[0, -1].numpy().astype(np.float32)
