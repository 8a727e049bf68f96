"""The fields each transformers 5 config class declares, with their annotations, in field order: the strict
dataclass checks every one of them when it builds the config (huggingface_hub 2.4 `@strict`), the first
refused one named, whether cfglint reads the key or not; and the bounds transformers' `interval` validator
puts on some of them, checked after the type: (min, max, exclude_min, exclude_max); and each field's default in
the class (what `cfglint schema transformers-5` exports); and the layer types every class takes
(configuration_utils.py: ALLOWED_ATTN_LAYER_TYPES, ALLOWED_MLP_LAYER_TYPES, and the legacy names
PreTrainedConfig.__post_init__ renames, _LEGACY_LAYER_TYPE_REMAP).

Source: transformers 5.24.0 `models/<family>/configuration_<family>.py`, the class's own fields (not
PreTrainedConfig's, no ClassVar), as `dataclasses.fields` gives them. The data is transformers5_fields.json,
generated: tests/knowledge/test_transformers5_strict.py checks it against the installed package, and
`CFGLINT_UPDATE_GOLDEN=1` writes it again from it.
"""

from __future__ import annotations

import json
from pathlib import Path

_DATA = json.loads(Path(__file__).with_suffix(".json").read_text(encoding="utf-8"))
FIELDS: dict[str, tuple[tuple[str, str], ...]] = {f: tuple((k, t) for k, t in v) for f, v in _DATA["fields"].items()}
INTERVALS: dict[str, dict[str, tuple]] = {f: {k: tuple(b) for k, b in v.items()} for f, v in _DATA["intervals"].items()}
DEFAULTS: dict[str, dict[str, object]] = _DATA["defaults"]  # each field's default in the class
ATTENTION_LAYER_TYPES: tuple[str, ...] = tuple(_DATA["layer_types"]["attention"])
MLP_LAYER_TYPES: tuple[str, ...] = tuple(_DATA["layer_types"]["mlp"])
LEGACY_LAYER_TYPES: dict[str, str] = _DATA["layer_types"]["legacy"]  # old name -> the one the class keeps
