"""The serde reader's fast path (plain Python type checks) against the pydantic path it stands in for.

For every serde entry (candle's and mistral.rs' families) and the Llama structs (with their nested
rope_scaling struct and its enum), random configs mixing values serde takes and values it refuses: whenever the plain-Python path decides, its fields (values and their Python types) or its
error (a scalar's refusal, a missing field) are exactly what the pydantic model and the serde translation
give; when it leaves the file to pydantic, pydantic refuses a value.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cfglint import knowledge
from cfglint.consumers.base import Failure
from cfglint.consumers.serde import deserialize
from cfglint.document import parse
from cfglint.consumers import candle_llama, mistralrs
from cfglint.knowledge.entry import Struct
from cfglint.readers.serde_model import model_of
from cfglint.readers.serde_reader import accepted, plain
from tests.conftest import ROOT, examples

ENTRIES = [e for runtime in ("candle", "mistralrs") for e in knowledge.entries(runtime).values()]
LLAMA_STRUCTS = [candle_llama.LLAMA, mistralrs.LLAMA]

EDGE_INTS = st.sampled_from([0, 1, -1, 2**32 - 1, 2**32, 2**63, 2**64 - 1, 2**64, -(2**63), -(2**63) - 1, 10**30, 10**309, -(10**309)])
SCALARS = st.one_of(
    st.none(), st.booleans(), EDGE_INTS, st.integers(-10, 10**7),
    st.floats(allow_nan=False, allow_infinity=False), st.sampled_from(["silu", "gelu", "gelu_pytorch_tanh", "swiglu", "x", ""]),
)
VALUES = st.one_of(SCALARS, st.lists(SCALARS, max_size=3), st.dictionaries(st.sampled_from(["a", "type"]), SCALARS, max_size=2))


def typed(value):
    """A value with the types of everything in it, so 1 and 1.0 (and True) differ."""
    if isinstance(value, list):
        return ("list", [typed(v) for v in value])
    if isinstance(value, dict):
        return ("dict", {k: typed(v) for k, v in value.items()})
    return (type(value).__name__, value)


def valid(type_name: str, runtime: str, types=None):
    """Values serde takes for a field type (ints for floats too, as serde_json does)."""
    types = types or {}
    if type_name.startswith("option<"):
        return st.one_of(st.none(), valid(type_name[7:-1], runtime, types))
    named = types.get(type_name)
    if isinstance(named, Struct):  # a map, or an array serde's visit_seq reads as its fields in order
        return st.one_of(near_valid(named), sequences(named))
    if isinstance(named, tuple):  # an enum: its variants, and now and then a near miss
        return st.one_of(st.sampled_from(named), st.sampled_from(["yarn", "Llama3", ""]))
    if named is not None:
        type_name = named
    unsigned = st.one_of(st.integers(0, 2**32 - 1), st.sampled_from([0, 2**32 - 1]))
    return {
        "usize": st.one_of(unsigned, st.just(2**64 - 1)),
        "u32": unsigned,
        "f32": st.one_of(st.floats(allow_nan=False, allow_infinity=False), st.integers(-(2**40), 2**40)),
        "f64": st.one_of(st.floats(allow_nan=False, allow_infinity=False), st.integers(-(2**40), 2**40)),
        "bool": st.booleans(),
        "json": VALUES,
        "map": st.dictionaries(st.sampled_from(["a", "bits"]), SCALARS, max_size=2),
        "eos": st.one_of(unsigned, st.lists(unsigned, max_size=3)),
        "activation": st.sampled_from([a for a in knowledge.module(runtime).ACTIVATIONS]),
    }[type_name]


@st.composite
def configs(draw, entry):
    """Each field absent, a value of its type, or (now and then) any value at all, in any order."""
    data = {}
    for name, spec in entry.fields.items():
        choice = draw(st.integers(0, 9))
        if choice == 0:
            continue
        data[name] = draw(VALUES if choice == 1 else valid(spec.type, entry.runtime, getattr(entry, "types", None)))
    if draw(st.booleans()):
        data["unknown_key"] = draw(VALUES)  # serde ignores it
    order = draw(st.permutations(list(data)))  # serde walks members in the order written, not declared
    return {name: data[name] for name in order}


@st.composite
def near_valid(draw, entry):
    """Every field a value of its type, then up to two of them dropped or replaced by any value, in any order."""
    types = getattr(entry, "types", None)
    data = {name: draw(valid(spec.type, entry.runtime, types)) for name, spec in entry.fields.items()}
    for name in draw(st.lists(st.sampled_from(list(data)), max_size=2)):
        if draw(st.booleans()):
            data.pop(name, None)
        else:
            data[name] = draw(VALUES)
    order = draw(st.permutations(list(data)))
    return {name: data[name] for name in order}


@st.composite
def sequences(draw, struct):
    """A struct's fields as a JSON array in declaration order: all of them, fewer, or one too many."""
    types = getattr(struct, "types", None)
    values = [draw(valid(spec.type, struct.runtime, types)) for spec in struct.fields.values()]
    return values[: draw(st.integers(0, len(values)))] + draw(st.lists(VALUES, max_size=1))


def _decides_as_pydantic_does(entry, config):
    doc = parse(Path("config.json"), json.dumps(config).encode())
    fast = accepted(entry, doc)
    slow = deserialize(model_of(entry), doc)
    if fast is None:
        assert isinstance(slow, Failure) and slow.kind != "missing", (config, slow)
    elif isinstance(fast, Failure):
        assert isinstance(slow, Failure) and (fast.message, fast.pointer, fast.kind) == (slow.message, slow.pointer, slow.kind), config
    else:
        assert not isinstance(slow, Failure), (config, slow)
        assert typed(fast) == typed(plain(slow)), config


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: f"{e.runtime}-{e.family}")
@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_fast_path_decides_as_pydantic_does(entry, data):
    _decides_as_pydantic_does(entry, data.draw(configs(entry)))


@pytest.mark.parametrize("struct", LLAMA_STRUCTS, ids=lambda s: s.runtime)
@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_llama_structs_fast_path_decides_as_pydantic_does(struct, data):
    """rope_scaling is drawn as a struct of every rope type (and near misses), null, or any value."""
    _decides_as_pydantic_does(struct, data.draw(st.one_of(configs(struct), near_valid(struct))))


@pytest.mark.parametrize("struct", LLAMA_STRUCTS, ids=lambda s: s.runtime)
def test_a_nested_struct_holds_its_fields_in_declaration_order(struct):
    """Llama 3.2's rope_scaling is written in alphabetical order, its Llama3RopeConfig declares another: both
    paths hold the declared one, which the readings report."""
    config = json.loads((ROOT / "samples/llama-3.2-1b/config.json").read_text())
    doc = parse(Path("config.json"), json.dumps(config).encode())
    fast, slow = accepted(struct, doc), plain(deserialize(model_of(struct), doc))
    assert isinstance(fast, dict) and list(fast["rope_scaling"]) == list(slow["rope_scaling"])
    assert list(fast["rope_scaling"]) != list(config["rope_scaling"])
