"""The consumer registry: runtime name -> profile, imported on first use."""

from __future__ import annotations

import importlib

from cfglint.consumers.base import Consumer

_PROFILES = {
    "candle-llama": "cfglint.consumers.candle_llama:CandleLlama",
}


def names() -> list[str]:
    return list(_PROFILES)


def get(name: str) -> Consumer:
    module, _, cls = _PROFILES[name].partition(":")
    return getattr(importlib.import_module(module), cls)()
