"""transformers 5's strict config classes against cfglint's reading of them, value by value: for every
family's typed fields (and Llama's), the installed transformers 5 refuses a value with a
StrictDataclassFieldValidationError exactly when cfglint predicts it, and cfglint quotes its message."""

from __future__ import annotations

import warnings

import pytest

from cfglint.consumers import transformers5
from cfglint.knowledge.transformers5 import FAMILIES

# A value of each JSON type, and the edge cases the validators tell apart (an int for a float, a bool for an
# int, a list with an item of the wrong type).
PROBES = (1, 2.5, True, "x", None, [1], ["a"], [1, "a"], {"a": 1})


def _typed_fields() -> list[tuple[str, str, str]]:
    out = []
    for family, entry in [("llama", None), *FAMILIES.items()]:
        types = transformers5.LLAMA_TYPES if entry is None else {k: spec.type for k, spec in entry.fields.items()}
        out += [(family, key, types[key]) for key, _ in transformers5.strict_types(types)]
    return out


def _predicted(family: str, key: str, value: object) -> str | None:
    if family == "llama":
        found = transformers5.refusal({key: value})
    else:
        found = transformers5.family_refusal({key: value}, FAMILIES[family])
    if found is None or not found[0].startswith("StrictDataclassFieldValidationError"):
        return None
    return found[0]


@pytest.mark.parametrize(("family", "key", "declared"), _typed_fields(), ids=lambda v: str(v))
def test_strict_refusals_are_transformers5s(family: str, key: str, declared: str) -> None:
    from huggingface_hub.errors import StrictDataclassFieldValidationError
    from transformers import CONFIG_MAPPING

    cls = CONFIG_MAPPING[family]
    for value in PROBES:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                cls.from_dict({key: value})
                observed = None
            except StrictDataclassFieldValidationError as err:
                observed = f"{type(err).__name__}: " + " ".join(line.strip() for line in str(err).splitlines())
            except Exception:  # noqa: BLE001  (a later check of the config class: not the strict types')
                observed = None
        assert _predicted(family, key, value) == observed, (key, value)


@pytest.mark.parametrize(("family", "key", "declared"), [c for c in _typed_fields() if c[0] != "llama"], ids=lambda v: str(v))
def test_the_family_schema_refuses_what_the_strict_checks_refuse(family: str, key: str, declared: str) -> None:
    """`cfglint schema transformers-5 --family F`: its pydantic model takes a value exactly when the strict
    check does."""
    from pydantic import ValidationError

    from cfglint.readers.schema import model_of

    model = model_of(FAMILIES[family])
    for value in PROBES:
        try:
            model.model_validate({key: value})
            takes = True
        except ValidationError:
            takes = False
        assert takes == (_predicted(family, key, value) is None), (key, value)
