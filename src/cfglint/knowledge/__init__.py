"""Runtime knowledge as data: for each runtime, one Entry per model family it loads (see entry.py).

Each runtime's entries live in a module of their own, imported only when a config of a family other than
Llama is read (Llama keeps its hand-written profiles in cfglint.consumers). A runtime lists the families it
has no loader for in `MISSING`, so it can say so for itself.
"""

from __future__ import annotations

import importlib
from functools import lru_cache
from types import ModuleType

from cfglint.knowledge.entry import Entry

# runtime (the consumer's name) -> the module holding its entries
MODULES = {
    "candle": "candle",
    "transformers-5": "transformers5",
    "transformers-4": "transformers4",
    "mlx-lm": "mlx_lm",
    "mistralrs": "mistralrs",
    "llama-cpp": "llama_cpp",
}


@lru_cache(maxsize=None)
def module(runtime: str) -> ModuleType | None:
    try:
        return importlib.import_module(f"cfglint.knowledge.{MODULES[runtime]}")
    except ModuleNotFoundError:
        return None


@lru_cache(maxsize=None)
def entries(runtime: str) -> dict[str, Entry]:
    found = module(runtime)
    # An entry whose RoPE reading is still to be written is not used: the runtime reads as not modelled yet.
    return {e.family: e for e in getattr(found, "ENTRIES", ()) if not e.rope.startswith("TODO")}


def entry(runtime: str, family: str) -> Entry | None:
    return entries(runtime).get(family)


@lru_cache(maxsize=None)
def text_entry(runtime: str, family: str, wrapper: str | None) -> Entry | None:
    """The entry a runtime reads a multimodal file's text model with: the family's, with the defaults the
    wrapper writes into text_config where it has none (the runtime's WRAPPER_DEFAULTS)."""
    found = entry(runtime, family)
    fills = getattr(module(runtime), "WRAPPER_DEFAULTS", {}).get(wrapper)
    if found is None or not fills:
        return found
    return found._replace(fields={k: f._replace(default=fills[k]) if k in fills else f for k, f in found.fields.items()})

