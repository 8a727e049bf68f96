"""The Llama readings' plain-Python checks against the pydantic schemas that declare the same fields.

transformers 5's strict type checks (consumers/transformers5.LLAMA_TYPES) refuse exactly the configs its
pydantic schema (`cfglint schema`) refuses, and name the field pydantic's first error names; mlx-lm's list of the keys ModelArgs keeps is the schema's fields.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from cfglint.consumers import mlx_lm, transformers5
from cfglint.consumers.llama_schemas.mlx_lm import ModelArgs
from cfglint.consumers.llama_schemas.transformers5 import LlamaConfig
from cfglint.knowledge import strict_types
from tests.conftest import examples

SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=False), st.text(max_size=3),
)
VALUES = st.one_of(SCALARS, st.lists(SCALARS, max_size=3), st.dictionaries(st.sampled_from(["rope_type", "factor"]), SCALARS, max_size=2))
KEYS = [*transformers5.LLAMA_TYPES, "rope_scaling", "unknown_key"]


INTS = st.integers(-(2**70), 2**70)
VALID = {  # values each strict type takes
    "int": INTS, "float": st.floats(allow_nan=False), "str": st.text(max_size=3), "bool": st.booleans(),
    "ids": st.one_of(st.none(), INTS, st.lists(INTS, max_size=3)), "rope": st.dictionaries(st.text(max_size=2), SCALARS, max_size=2),
}


def value_for(type_name: str):
    valid = VALID[type_name.rstrip("?")]
    return st.one_of(st.none(), valid) if type_name.endswith("?") else valid


@st.composite
def configs(draw):
    """Any subset of the typed keys (and two it does not type), each mostly a value of its type, now and then
    any JSON value, in any order."""
    keys = draw(st.lists(st.sampled_from(KEYS), unique=True))
    types = transformers5.LLAMA_TYPES
    return {key: draw(VALUES if key not in types or draw(st.integers(0, 3)) == 0 else value_for(types[key])) for key in keys}


def test_the_strict_types_are_the_schemas_fields():
    assert list(transformers5.LLAMA_TYPES) == list(LlamaConfig.model_fields)


@settings(max_examples=examples(600), deadline=None)
@given(config=configs())
def test_the_strict_checks_refuse_what_pydantic_refuses(config):
    refused = strict_types.strict_refusal(config, strict_types.strict_types(transformers5.LLAMA_TYPES))
    try:
        LlamaConfig.model_validate(config)
    except ValidationError as err:
        assert refused == err.errors()[0]["loc"][0], config
    else:
        assert refused is None, config


def test_mlx_lm_keeps_the_schemas_fields():
    assert mlx_lm.FIELDS == tuple(ModelArgs.model_fields)
