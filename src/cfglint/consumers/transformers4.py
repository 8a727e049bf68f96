"""transformers 4.46-4.57 `LlamaConfig`: keeps unknown keys, checks no types, knows nothing of rope_parameters.

Source: transformers 4.57.6 wheel, models/llama/configuration_llama.py (`__init__` identical in 4.46.3) and
modeling_rope_utils.py (`rope_config_validation`). Missing keys take Llama-2-7B defaults (hidden 4096, 32
layers...), `rope_theta` defaults to 10000, a legacy `type` in rope_scaling is copied to `rope_type`, and the
per-type validators raise KeyError for missing required keys. `rope_parameters` is kept as an inert attribute.
4.57's YaRN reads `truncate` as transformers 5 does (default true; modeling_rope_utils.py:359): the dict is
kept as written.
"""

from __future__ import annotations

from typing import Any

from cfglint.consumers.base import Consumer, Failure, View
from cfglint.consumers.python_reader import set_text, take, unreadable
from cfglint.document import Document
from cfglint.intent import LLAMA_DEFAULTS, Intent, read_llama_fields

from cfglint.knowledge.transformers4 import ROPE_REQUIRED as REQUIRED



def scaling_as_read(scaling: Any, max_position_embeddings: Any) -> tuple[dict | None, str | None]:
    """(the scaling the modeling code runs, or None; a KeyError message when validation fails)."""
    if not isinstance(scaling, dict) or not scaling:
        return None, None
    kind = scaling.get("rope_type", scaling.get("type", "default"))
    if "type" in scaling:
        kind = scaling["type"]  # __init__ copies the legacy key over rope_type
    if isinstance(kind, (dict, list)):
        # rope_config_validation looks the type up in a dict of validators: Python refuses the key.
        return None, f"TypeError: unhashable type: '{type(kind).__name__}'"
    missing = (REQUIRED.get(kind, set()) if isinstance(kind, str) else set()) - set(scaling)
    if missing:
        return None, f"KeyError: \"Missing required keys in `rope_scaling` for 'rope_type'='{kind}': {set_text(missing)}\""
    if kind == "default":
        return None, None
    out = {k: v for k, v in scaling.items() if k not in ("type", "rope_type", "rope_theta")}
    if kind in ("yarn", "longrope") and "original_max_position_embeddings" not in out:
        out["original_max_position_embeddings"] = max_position_embeddings
    return {"rope_type": kind, **out}, None


class Transformers4(Consumer):
    name = "transformers-4"
    runtime = "transformers 4.57"
    title = "transformers 4.46-4.57 LlamaConfig"
    source = "transformers 4.57.6 models/llama/configuration_llama.py, modeling_rope_utils.py"
    schema_ref = "transformers4:LlamaConfig"

    def read(self, doc: Document, intent: Intent) -> View:
        view = View(consumer=self.name)
        failure = unreadable(doc)
        if failure:
            return view.fail(failure)
        data = doc.data
        take(view, data, "rope_theta", 10000.0)
        max_pos = data.get("max_position_embeddings", LLAMA_DEFAULTS["max_position_embeddings"])
        scaling, error = scaling_as_read(data.get("rope_scaling"), max_pos)
        if error:
            return view.fail(Failure(error, "/rope_scaling", "missing"))
        view.set("rope_scaling", scaling, "/rope_scaling" if scaling else "default")
        read_llama_fields(view, data)
        return view
