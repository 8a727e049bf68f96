"""How a reading takes the contract's values: what it requires, what absence means, what it refuses."""

from __future__ import annotations

import pytest

from cfglint.logits import LlamaDims, LlamaReading, ReadingError, TransformersReference
from cfglint.logits.spec import REQUIRED_VALUE_KEYS, ReadingValues

COMPLETE = {
    "rope_theta": 10000.0,
    "head_dim": 16,
    "num_key_value_heads": 2,
    "tie_word_embeddings": False,
    "hidden_act": "silu",
    "rms_norm_eps": 1e-5,
}


@pytest.mark.parametrize("key", REQUIRED_VALUE_KEYS)
def test_each_required_value_must_be_given(key):
    values = {k: v for k, v in COMPLETE.items() if k != key}
    with pytest.raises(ReadingError, match=key):
        ReadingValues.from_values(values)


def test_absent_optional_values_mean_the_feature_is_off():
    read = ReadingValues.from_values(COMPLETE)
    assert read.rope.rope_type == "default"
    assert (read.attention_bias, read.mlp_bias, read.max_position_embeddings, read.eos_token_ids) == (
        False,
        False,
        None,
        (),
    )


def test_eos_may_be_one_id_or_a_list():
    assert ReadingValues.from_values({**COMPLETE, "eos_token_id": 2}).eos_token_ids == (2,)
    assert ReadingValues.from_values({**COMPLETE, "eos_token_id": [2, 7]}).eos_token_ids == (2, 7)


def test_default_rope_type_in_scaling_means_no_scaling():
    read = ReadingValues.from_values({**COMPLETE, "rope_scaling": {"rope_type": "default"}})
    assert (read.rope.rope_type, dict(read.rope.params)) == ("default", {})


def test_dims_come_from_a_config_and_must_be_complete():
    config = {"hidden_size": 64, "intermediate_size": 96, "num_hidden_layers": 2, "num_attention_heads": 4}
    with pytest.raises(ReadingError, match="vocab_size"):
        LlamaDims.from_config(config)
    assert LlamaDims.from_config({**config, "vocab_size": 96}).vocab_size == 96


@pytest.fixture(scope="module")
def reference(tiny_llama):
    return TransformersReference(tiny_llama("default"))


@pytest.mark.parametrize(
    "wrong",
    [
        {"num_key_value_heads": 3},  # 4 query heads cannot be split among 3
        {"head_dim": 15},  # half-split RoPE needs an even dimension
        {"rope_scaling": {"rope_type": "longrope"}},
        {"attention_bias": True},  # the checkpoint stores no biases
    ],
)
def test_values_the_weights_cannot_honour_are_refused(reference, prompt_ids, wrong):
    with pytest.raises(ReadingError):
        reference.reading({**reference.values, **wrong}).logits(prompt_ids)


def test_token_ids_outside_the_vocabulary_are_refused(reference):
    reading = LlamaReading(reference.values, reference.dims, reference.checkpoint_tensors())
    with pytest.raises(ValueError):
        reading.logits([0, reference.dims.vocab_size])
