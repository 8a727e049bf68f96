"""The pydantic model of what a runtime reads for one family, built from its entry (`cfglint schema --family`)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, create_model

from cfglint.knowledge.entry import REQUIRED, Entry


def model_of(entry: Entry) -> type[BaseModel]:
    if entry.reader == "serde":
        from cfglint.readers.serde_model import model_of as serde_model

        return serde_model(entry)
    if entry.reader == "transformers-5":  # its config class: every field it declares, typed as its strict dataclass checks it
        from cfglint.consumers.llama_schemas.transformers5 import class_fields

        declared: dict[str, Any] = class_fields(entry.family)
        for name, field in entry.fields.items():  # what it reads beside the class's fields (rope_theta in kwargs)
            declared.setdefault(name, (Any, field.default if field.default is not REQUIRED else ...))
        return create_model(entry.struct, __config__=ConfigDict(extra="allow"), **declared)
    # The other Python readers check no type: every field takes any value, required ones must be present (for
    # the converter, present in the hparams, which transformers 5's config class fills in).
    if entry.reader == "converter":
        from cfglint.readers.converter import hparam_defaults as given
    else:
        from cfglint.readers.values import defaults as given
    defaulted = given(entry)
    declared = {n: (Any, defaulted[n] if n in defaulted else ...) for n in entry.fields}
    extra: Literal["ignore", "allow"] = "ignore" if entry.reader == "dataclass" else "allow"
    return create_model(entry.struct, __config__=ConfigDict(extra=extra), **declared)
