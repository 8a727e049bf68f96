"""The consumer registry: runtime name -> profile, imported on first use."""

from __future__ import annotations

import importlib
from functools import lru_cache

from cfglint.consumers.base import Consumer

_PROFILES = {
    "candle": "cfglint.consumers.candle_llama:CandleLlama",
    "transformers-5": "cfglint.consumers.transformers5:Transformers5",
    "transformers-4": "cfglint.consumers.transformers4:Transformers4",
    "mlx-lm": "cfglint.consumers.mlx_lm:MlxLm",
    "mistralrs": "cfglint.consumers.mistralrs:MistralRs",
    "llama-cpp": "cfglint.consumers.llama_cpp:LlamaCpp",
}


# The runtime whose reading is the intent (cfglint.intent): what every fix keeps.
REFERENCE = "transformers-5"

# Names a runtime had before: still accepted on the command line and in settings.
ALIASES = {"candle-llama": "candle"}


def canonical(name: str) -> str:
    return ALIASES.get(name, name)


def names() -> list[str]:
    return list(_PROFILES)


def get(name: str) -> Consumer:
    module, _, cls = _PROFILES[name].partition(":")
    return getattr(importlib.import_module(module), cls)()


@lru_cache(maxsize=None)
def field_type(runtime: str, family: str, key: str) -> str | None:
    """The type a built-in runtime's reading of a family declares for a key (Consumer.field_type)."""
    return get(runtime).field_type(family, key)
