"""RoPE frequencies and MLP activations against transformers 5's own tables, value for value."""

from __future__ import annotations

import pytest
import torch
from transformers import LlamaConfig
from transformers.activations import ACT2CLS, ACT2FN
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

from cfglint.logits import ReadingError
from cfglint.logits.activations import ACTIVATIONS, activation
from cfglint.logits.rope import inverse_frequencies
from cfglint.logits.spec import RopeSpec

HEAD_DIM = 64
MAX_POSITIONS = 4096

SCALINGS = {
    "linear": {"rope_type": "linear", "factor": 2.5},
    "llama3": {
        "rope_type": "llama3",
        "factor": 32.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_max_position_embeddings": 8192,
    },
    "llama3_without_original_length": {
        "rope_type": "llama3",
        "factor": 8.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
    },
    "dynamic": {"rope_type": "dynamic", "factor": 3.0},
    "yarn": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 1024},
    "yarn_mscale_untruncated": {
        "rope_type": "yarn",
        "factor": 40.0,
        "original_max_position_embeddings": 1024,
        "mscale": 0.707,
        "mscale_all_dim": 0.707,
        "beta_fast": 24,
        "beta_slow": 2,
        "truncate": False,
    },
    "yarn_explicit_attention_factor": {
        "rope_type": "yarn",
        "factor": 8.0,
        "original_max_position_embeddings": 512,
        "attention_factor": 1.25,
    },
}


def transformers_frequencies(scaling: dict, theta: float, seq_len: int) -> tuple[torch.Tensor, float]:
    config = LlamaConfig(
        hidden_size=HEAD_DIM * 8,
        num_attention_heads=8,
        max_position_embeddings=MAX_POSITIONS,
        rope_parameters={**scaling, "rope_theta": theta},
    )
    # transformers passes the sequence length as a tensor (max position id + 1) during a forward.
    return ROPE_INIT_FUNCTIONS[scaling["rope_type"]](config, None, seq_len=torch.tensor(seq_len))


@pytest.mark.parametrize("name", sorted(SCALINGS))
@pytest.mark.parametrize("theta", [10000.0, 500000.0])
def test_scaled_frequencies_equal_transformers(name, theta):
    scaling = SCALINGS[name]
    values = {"rope_theta": theta, "rope_scaling": dict(scaling)}
    # A sequence longer than max_position_embeddings, which is when dynamic scaling acts.
    seq_len = 3 * MAX_POSITIONS
    ours, our_scale = inverse_frequencies(RopeSpec.from_values(values), HEAD_DIM, MAX_POSITIONS, seq_len)
    theirs, their_scale = transformers_frequencies(scaling, theta, seq_len)
    assert our_scale == pytest.approx(their_scale, rel=1e-12)
    assert torch.equal(ours, theirs.to(torch.float32))


def test_dynamic_keeps_plain_frequencies_within_the_trained_length():
    spec = RopeSpec.from_values({"rope_theta": 10000.0, "rope_scaling": SCALINGS["dynamic"]})
    plain = RopeSpec.from_values({"rope_theta": 10000.0, "rope_scaling": None})
    within, _ = inverse_frequencies(spec, HEAD_DIM, MAX_POSITIONS, MAX_POSITIONS)
    beyond, _ = inverse_frequencies(spec, HEAD_DIM, MAX_POSITIONS, 2 * MAX_POSITIONS)
    default, _ = inverse_frequencies(plain, HEAD_DIM, MAX_POSITIONS, MAX_POSITIONS)
    assert torch.allclose(within, default, rtol=1e-6, atol=0)
    assert not torch.allclose(beyond, default, rtol=1e-3, atol=0)


def test_legacy_type_key_is_read_as_rope_type():
    spec = RopeSpec.from_values({"rope_theta": 10000.0, "rope_scaling": {"type": "linear", "factor": 2.0}})
    assert (spec.rope_type, dict(spec.params)) == ("linear", {"factor": 2.0})


@pytest.mark.parametrize(
    "scaling",
    [{"rope_type": "longrope", "short_factor": [1.0], "long_factor": [1.0]}, {"rope_type": "linear"}],
)
def test_unsupported_or_incomplete_scaling_is_a_reading_error(scaling):
    with pytest.raises(ReadingError):
        inverse_frequencies(RopeSpec.from_values({"rope_theta": 1e4, "rope_scaling": scaling}), 64, 2048, 8)


# Activations with learnable parameters are not functions of a name alone.
PARAMETRIC_ACTIVATIONS = {"prelu", "xielu"}


def test_every_parameter_free_transformers_activation_is_known():
    assert set(ACT2CLS) - PARAMETRIC_ACTIVATIONS <= set(ACTIVATIONS)


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation_equals_transformers(name):
    x = torch.linspace(-12.0, 12.0, 2001)
    assert torch.allclose(activation(name)(x), ACT2FN[name](x), rtol=0, atol=1e-6)


def test_unknown_activation_is_a_reading_error():
    with pytest.raises(ReadingError):
        activation("not_an_activation")
