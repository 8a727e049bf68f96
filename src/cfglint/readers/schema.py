"""The pydantic model of what a runtime reads for one family, built from its entry (`cfglint schema --family`)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, create_model

from cfglint.consumers.llama_schemas.transformers5 import strict_annotation
from cfglint.knowledge.entry import Entry


def model_of(entry: Entry) -> type[BaseModel]:
    if entry.reader == "serde":
        from cfglint.readers.serde_model import model_of as serde_model

        return serde_model(entry)
    # transformers 5's strict dataclass checks each field's type; the other Python readers check none: every
    # field takes any value, required ones must be present (for the converter, present in the hparams, which
    # transformers 5's config class fills in).
    if entry.reader == "converter":
        from cfglint.readers.converter import hparam_defaults as given
    else:
        from cfglint.readers.values import defaults as given
    defaulted = given(entry)
    typed = entry.reader == "transformers-5"
    declared: dict[str, Any] = {
        n: (strict_annotation(f.type) if typed else Any, defaulted[n] if n in defaulted else ...) for n, f in entry.fields.items()
    }
    extra: Literal["ignore", "allow"] = "ignore" if entry.reader == "dataclass" else "allow"
    return create_model(entry.struct, __config__=ConfigDict(extra=extra), **declared)
