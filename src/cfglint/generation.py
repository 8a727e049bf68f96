"""The generation settings transformers 5 samples with, read from the files beside a config.json.

transformers 5.24 (`GenerationMixin` loading and `_prepare_generation_config`, `generation/utils.py`), each
point checked by running it:
- the settings come from generation_config.json when that file exists and parses; otherwise (no file, or
  not valid JSON, silently) they are read from config.json itself, so sampling keys left in config.json
  are used then and ignored otherwise (the model config drops them either way);
- a setting that is absent or null takes `GenerationConfig._get_default_generation_params()`: greedy
  (do_sample false), temperature 1.0, top_k 50, top_p 1.0, repetition_penalty 1.0. `"top_k": null` is
  therefore 50; only 0 turns top-k off;
- generate() stops on the generation settings' eos_token_id alone: a generation_config.json without one
  stops on nothing, whatever config.json says.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Collection

from cfglint import document
from cfglint.document import Document
from cfglint.once import once
from cfglint.reading import DEFAULT

FILENAME = "generation_config.json"

# The settings the sampler depends on, with transformers 5's defaults for unset ones.
DEFAULTS: dict[str, Any] = {
    "do_sample": False,
    "temperature": 1.0,
    "top_k": 50,
    "top_p": 1.0,
    "min_p": None,
    "repetition_penalty": 1.0,
}
SAMPLER_KEYS = tuple(DEFAULTS)

FROM_GENERATION_FILE = "generation_config.json"
FROM_CONFIG = "config.json"


@dataclass
class Generation:
    """What generate() uses: values under transformers' names, and where each one is written.

    `sources` maps a key to a JSON pointer in `doc` (the file the settings come from), or to DEFAULT.
    """

    origin: str  # FROM_GENERATION_FILE or FROM_CONFIG
    doc: Document  # the file the settings come from
    values: dict[str, Any] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)
    file: Document | None = None  # generation_config.json when present, even if it did not parse
    config_eos: Any = None  # config.json's eos_token_id (None when absent)

    @property
    def sampling(self) -> bool:
        # transformers tests `if generation_config.do_sample:`, so any truthy value samples.
        return bool(self.values["do_sample"])

    def written(self, key: str) -> bool:
        """The key is set to a non-null value in the file the settings come from."""
        return self.sources.get(key, DEFAULT) != DEFAULT

    @once  # asked by every sampling rule
    def has_settings(self) -> bool:
        """Generation was configured at all: a generation_config.json, or sampler keys in config.json."""
        return self.file is not None or any(self.written(k) for k in SAMPLER_KEYS)


def load(config_doc: Document, listing: Collection[str] | None = None) -> Generation:
    """Resolve the generation settings for the config in config_doc, reading generation_config.json beside it
    (`listing`: the directory's files, when already listed)."""
    file: Document | None = None
    # Only a model directory's config.json has a generation_config.json that transformers would read.
    path = config_doc.path
    if path.name == "config.json" and (FILENAME in listing if listing is not None else beside(path).is_file()):
        try:
            file = document.load(beside(config_doc.path))
        except OSError:
            file = None  # unreadable: transformers' loader raises OSError and falls back to config.json
    return resolve(config_doc, file)


def resolve(config_doc: Document, file: Document | None) -> Generation:
    config = config_doc.data if isinstance(config_doc.data, dict) else {}
    if file is not None and file.ok and isinstance(file.data, dict):
        generation = _from(FROM_GENERATION_FILE, file, file.data)
    else:
        generation = _from(FROM_CONFIG, config_doc, config)
    generation.file = file
    generation.config_eos = config.get("eos_token_id")
    return generation


def _from(origin: str, doc: Document, data: dict) -> Generation:
    generation = Generation(origin, doc)
    for key, default in DEFAULTS.items():
        if data.get(key) is not None:
            generation.values[key] = data[key]
            generation.sources[key] = document.pointer_of(key)
        else:
            generation.values[key] = default
            generation.sources[key] = DEFAULT
    # eos has no default: without one in the file the settings come from, generate() never stops early.
    if data.get("eos_token_id") is not None:
        generation.values["eos_token_id"] = data["eos_token_id"]
        generation.sources["eos_token_id"] = "/eos_token_id"
    else:
        generation.values["eos_token_id"] = None
        generation.sources["eos_token_id"] = DEFAULT
    return generation


def beside(path: Path) -> Path:
    return path.with_name(FILENAME)
