"""The from-scratch forward against transformers 5 on tiny random checkpoints, one Llama feature at a time."""

from __future__ import annotations

import pytest
import torch

from cfglint.logits import LlamaReading, ReadingError, TransformersReference, map_checkpoint

TOLERANCE = 1e-4
GREEDY_TOKENS = 8

LLAMA3 = {
    "rope_type": "llama3",
    "rope_theta": 500000.0,
    "factor": 8.0,
    "low_freq_factor": 1.0,
    "high_freq_factor": 4.0,
    "original_max_position_embeddings": 16,
}
LINEAR = {"rope_type": "linear", "rope_theta": 10000.0, "factor": 4.0}
# max_position_embeddings 16 < the 32-token prompt, so the NTK base really is recomputed.
DYNAMIC = {"rope_type": "dynamic", "rope_theta": 10000.0, "factor": 2.0}
YARN = {"rope_type": "yarn", "rope_theta": 10000.0, "factor": 4.0, "original_max_position_embeddings": 16}

# name -> (checkpoint overrides, a wrong value for the reading, what the wrong value must cause)
VARIANTS = {
    "default": ({}, {"rope_theta": 500.0}, "diverges"),
    "llama3": ({"rope_parameters": LLAMA3}, {"rope_scaling": None}, "diverges"),
    "linear": ({"rope_parameters": LINEAR}, {"rope_scaling": None}, "diverges"),
    "dynamic": ({"rope_parameters": DYNAMIC, "max_position_embeddings": 16}, {"rope_scaling": None}, "diverges"),
    "yarn": ({"rope_parameters": YARN}, {"rope_scaling": None}, "diverges"),
    "biases": ({"attention_bias": True, "mlp_bias": True}, {"attention_bias": False}, "diverges"),
    "mlp_bias_only": ({"mlp_bias": True}, {"mlp_bias": False}, "diverges"),
    "head_dim": ({"head_dim": 32}, {"head_dim": 16}, "fails"),
    "gelu": ({"hidden_act": "gelu"}, {"hidden_act": "silu"}, "diverges"),
    "tied": ({"tie_word_embeddings": True}, {"tie_word_embeddings": False}, "fails"),
    "untied": ({"tie_word_embeddings": False}, {"tie_word_embeddings": True}, "diverges"),
    "multi_head": ({"num_key_value_heads": 4}, {"num_key_value_heads": 2}, "fails"),
}


def max_diff(a: torch.Tensor, b: torch.Tensor) -> float:
    return (a - b).abs().max().item()


@pytest.fixture(scope="module")
def references(tiny_llama):
    loaded: dict[str, TransformersReference] = {}

    def get(name: str) -> TransformersReference:
        if name not in loaded:
            loaded[name] = TransformersReference(tiny_llama(name, **VARIANTS[name][0]))
        return loaded[name]

    return get


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_reading_with_reference_values_matches_transformers(references, prompt_ids, name):
    reference = references(name)
    reading = reference.reading(reference.values)
    assert max_diff(reading.logits(prompt_ids), reference.logits(prompt_ids)) < TOLERANCE
    assert reading.greedy(prompt_ids, GREEDY_TOKENS) == reference.greedy(prompt_ids, GREEDY_TOKENS)


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_a_wrong_value_changes_the_logits_or_fails_to_load(references, prompt_ids, name):
    """Each variant's feature must matter for this prompt, or the test above would prove nothing."""
    reference = references(name)
    _, wrong, effect = VARIANTS[name]
    values = {**reference.values, **wrong}
    if effect == "fails":
        with pytest.raises(ReadingError):
            reference.reading(values)
    else:
        assert max_diff(reference.reading(values).logits(prompt_ids), reference.logits(prompt_ids)) > 100 * TOLERANCE


def test_reference_reads_the_scaling_it_was_saved_with(references):
    assert references("llama3").values["rope_scaling"]["rope_type"] == "llama3"
    assert references("llama3").values["rope_theta"] == 500000.0
    assert references("default").values["rope_scaling"] is None
    assert references("head_dim").values["head_dim"] == 32


def test_dynamic_rope_matches_within_and_beyond_the_trained_length(references, prompt_ids):
    reference = references("dynamic")
    reading = reference.reading(reference.values)
    # Long first, then short: the reference must not keep the long prompt's frequencies.
    for length in (32, 24, 16, 9):
        ids = prompt_ids[:length]
        assert max_diff(reading.logits(ids), reference.logits(ids)) < TOLERANCE


def test_theta_10000_on_a_theta_100000_model_diverges(tiny_llama, prompt_ids):
    model_dir = tiny_llama("theta100k", rope_parameters={"rope_type": "default", "rope_theta": 100000.0})
    reference = TransformersReference(model_dir)
    assert reference.values["rope_theta"] == 100000.0
    right = reference.reading(reference.values)
    wrong = reference.reading({**reference.values, "rope_theta": 10000.0})
    expected = reference.logits(prompt_ids)
    assert max_diff(right.logits(prompt_ids), expected) < TOLERANCE
    assert max_diff(wrong.logits(prompt_ids), expected) > 1000 * TOLERANCE


def test_readings_share_the_reference_parameters(references):
    reference = references("biases")
    parameter_addresses = {p.data_ptr() for p in reference.model.parameters()}
    for values in (reference.values, {**reference.values, "rope_theta": 1.0}):
        held = reference.reading(values).tensors_in_use()
        assert held, "the reading holds no tensors"
        assert {t.data_ptr() for t in held} <= parameter_addresses


def test_memory_mapped_checkpoint_gives_the_same_logits(references, tiny_llama, prompt_ids):
    reference = references("tied")
    reading = LlamaReading(reference.values, reference.dims, map_checkpoint(tiny_llama("tied")))
    assert max_diff(reading.logits(prompt_ids), reference.logits(prompt_ids)) < TOLERANCE


def test_greedy_stops_at_the_eos_the_values_name(references, prompt_ids):
    reference = references("default")
    reading = reference.reading(reference.values)
    first = reading.greedy(prompt_ids, 1)[0]
    stopping = reference.reading({**reference.values, "eos_token_id": [first]})
    assert stopping.greedy(prompt_ids, 5, stop_at_eos=True) == [first]
    assert len(reading.greedy(prompt_ids, 5, stop_at_eos=False)) == 5


# Layer 0 slides over the last 4 positions, layer 1 attends fully: transformers' Ministral is Llama so built.
MIXED_ATTENTION = {"layer_types": ["sliding_attention", "full_attention"], "sliding_window": 4}


def test_sliding_layers_attend_as_transformers_ministral_does(references, tiny_llama, prompt_ids):
    from transformers import MinistralConfig, MinistralForCausalLM

    reference = references("default")
    ministral = MinistralForCausalLM.from_pretrained(
        tiny_llama("default"), config=MinistralConfig.from_pretrained(tiny_llama("default"), **MIXED_ATTENTION)
    ).eval()
    with torch.inference_mode():
        expected = ministral(torch.tensor([prompt_ids])).logits[0]
    sliding = reference.reading({**reference.values, **MIXED_ATTENTION})
    assert max_diff(sliding.logits(prompt_ids), expected) < TOLERANCE
    assert max_diff(reference.logits(prompt_ids), expected) > 100 * TOLERANCE  # the window matters here


def test_a_window_wider_than_the_prompt_or_no_sliding_layer_attends_fully(references, prompt_ids):
    reference = references("default")
    expected = reference.logits(prompt_ids)
    for attention in ({**MIXED_ATTENTION, "sliding_window": len(prompt_ids)}, {**MIXED_ATTENTION, "sliding_window": None},
                      {"layer_types": ["full_attention"] * 2, "sliding_window": 4}):
        assert max_diff(reference.reading({**reference.values, **attention}).logits(prompt_ids), expected) < TOLERANCE


def test_layer_types_for_another_layer_count_or_no_window_cannot_be_run(references):
    from cfglint.logits import NotReproducible

    reference = references("default")
    with pytest.raises(ReadingError, match="3 layer types for a checkpoint of 2 layers"):
        reference.reading({**reference.values, **MIXED_ATTENTION, "layer_types": ["sliding_attention"] * 3})
    for window in (0, -1, 1.5, "4", True):
        with pytest.raises(NotReproducible):
            reference.reading({**reference.values, **MIXED_ATTENTION, "sliding_window": window})
