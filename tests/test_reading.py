"""How two values compare (cfglint.reading): as a runtime computes with them."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from cfglint.reading import same, same_as, show
from tests.conftest import examples


def _by_element(a, b) -> bool:
    """The definition: booleans by identity, numbers to f32 precision, lists element by element."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        try:
            return math.isclose(a, b, rel_tol=1e-6, abs_tol=0.0) or a == b
        except OverflowError:
            return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_by_element(x, y) for x, y in zip(a, b))
    return a == b


scalars = st.sampled_from([None, True, False, 0, 1, 1.0, 1000000, 1000001, 1e6, "full_attention", "sliding_attention", "1"])
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=5), max_leaves=12)


@settings(max_examples=examples(400), deadline=None)
@given(values, values)
def test_values_compare_as_the_definition_says(a, b):
    assert same("layer_types", a, b) == _by_element(a, b)
    assert same("layer_types", a, list(a) if isinstance(a, list) else a) == _by_element(a, a)


# Values that Python calls equal where a runtime may not, or unequal to themselves, drawn often.
tricky = st.sampled_from([None, True, False, 0, 1, 0.0, -0.0, 1.0, math.nan, 1e6, 1000001, "1", "full_attention"])
with_nan = tricky | st.floats() | st.lists(tricky, max_size=3)


@settings(max_examples=examples(400), deadline=None)
@given(st.sampled_from(["layer_types", "rope_theta", "eos_token_id", "rope_scaling"]), with_nan, with_nan)
def test_a_test_of_one_value_answers_as_same_does(key, want, value):
    """same_as' shortcut for equal scalars of one type (NaN, -0.0, 1 and True and 1.0 included) changes no answer."""
    assert same_as(key, want)(value) == same(key, value, want)


def test_lists_that_python_calls_equal_are_not_always_the_same():
    assert not same("mlp_layers", [1, 0], [True, False])
    assert same("mlp_layers", [1000000], [1000001])  # f32 cannot tell them apart
    assert same("layer_types", ["sliding_attention", "full_attention"], ["sliding_attention", "full_attention"])
    assert not same("layer_types", ["sliding_attention"], ["full_attention"])


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=examples(200), deadline=None)
@given(json_values)
def test_a_copy_is_equal_and_shares_no_container(value):
    import copy

    from cfglint.reading import copied

    out = copied(value)
    assert out == copy.deepcopy(value)

    def containers(v):
        if isinstance(v, dict):
            return [v, *(c for x in v.values() for c in containers(x))]
        if isinstance(v, list):
            return [v, *(c for x in v for c in containers(x))]
        return []

    assert not {id(c) for c in containers(out)} & {id(c) for c in containers(value)}


def test_a_rope_dict_shows_its_own_parameters_not_a_layer_types():
    # transformers 5's LlamaConfig keeps a full_attention dict beside the type it runs, and runs the type
    assert show({"rope_type": "linear", "factor": 2.0, "full_attention": {"rope_type": "default"}}) == "linear(factor=2.0)"
    # without a type of its own, the dict is the layer types' parameters (Gemma 3)
    assert show({"full_attention": {"rope_type": "default", "rope_theta": 1e6}}) == "?(full_attention=default(rope_theta=1000000.0))"
    assert show({"rope_type": "", "factor": 2.0}) == '""(factor=2.0)'
    assert show({"rope_type": 3, "factor": 2.0}) == "3(factor=2.0)"
