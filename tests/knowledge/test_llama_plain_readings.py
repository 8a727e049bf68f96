"""The Llama readings' plain-Python checks against the pydantic schemas that declare the same fields.

transformers 5's strict type checks (knowledge/strict_types over the class's fields) refuse exactly the
configs its pydantic schema (`cfglint schema`, built from the same table) refuses, and name the field
pydantic's first error names; mlx-lm's list of the keys ModelArgs keeps is the schema's fields.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from cfglint.consumers import mlx_lm
from cfglint.consumers.llama_schemas.mlx_lm import ModelArgs
from cfglint.consumers.llama_schemas.transformers5 import LlamaConfig
from cfglint.knowledge import strict_types
from tests.conftest import examples

SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=False), st.text(max_size=3),
)
VALUES = st.one_of(SCALARS, st.lists(SCALARS, max_size=3), st.dictionaries(st.sampled_from(["rope_type", "factor"]), SCALARS, max_size=2))
TYPES = strict_types.field_annotations("llama")
KEYS = [*TYPES, "rope_scaling", "unknown_key"]


INTS = st.integers(-(2**70), 2**70)
MEMBERS = {  # values each member of an annotation takes
    "int": INTS, "float": st.floats(allow_nan=False), "str": st.text(max_size=3), "bool": st.booleans(), "None": st.none(),
    "list[int]": st.lists(INTS, max_size=3), "list[str]": st.lists(st.text(max_size=3), max_size=3),
    "dict": st.dictionaries(st.text(max_size=2), SCALARS, max_size=2), "RopeParameters": st.nothing(),
}


def value_for(annotation: str):
    return st.one_of(*(MEMBERS[m.strip()] for m in annotation.split("|")))


@st.composite
def configs(draw):
    """Any subset of the class's fields (and two it does not declare), each mostly a value its annotation
    takes, now and then any JSON value, in any order."""
    keys = draw(st.lists(st.sampled_from(KEYS), unique=True))
    return {key: draw(VALUES if key not in TYPES or draw(st.integers(0, 3)) == 0 else value_for(TYPES[key])) for key in keys}


def test_the_strict_types_are_the_schemas_fields():
    assert list(TYPES) == list(LlamaConfig.model_fields)


@settings(max_examples=examples(600), deadline=None)
@given(config=configs())
def test_the_strict_checks_refuse_what_pydantic_refuses(config):
    refused = strict_types.strict_refusal(config, strict_types.class_typed("llama"))
    try:
        LlamaConfig.model_validate(config)
    except ValidationError as err:
        assert refused == err.errors()[0]["loc"][0], config
    else:
        assert refused is None, config


def test_mlx_lm_keeps_the_schemas_fields():
    assert mlx_lm.FIELDS == tuple(ModelArgs.model_fields)
