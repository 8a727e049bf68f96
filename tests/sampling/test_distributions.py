"""The sampler math: transformers' side against its real LogitsProcessorList, candle's and mlx-lm's by their source."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from transformers import TemperatureLogitsWarper, TopKLogitsWarper

from cfglint.sampling import distributions as dist
from cfglint.sampling.samplers import CandleSampling, MlxSampler, TransformersSampler

from .helpers import real_transformers


def random_cases(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    for _ in range(n):
        size = int(rng.integers(40, 4000))
        logits = (rng.standard_normal(size) * rng.uniform(0.5, 8.0)).astype(np.float32)
        yield (
            logits,
            float(rng.choice([1.0, 0.7, 0.3, 1.6])),
            int(rng.choice([0, 1, 5, 40, 50])),
            float(rng.choice([1.0, 0.95, 0.9, 0.5])),
            rng.choice([None, 0.05]),
        )


@pytest.mark.parametrize("seed", range(4))
def test_transformers_side_matches_the_real_logits_processor_list(seed):
    for logits, temperature, top_k, top_p, min_p in random_cases(60, seed):
        kept, probs = real_transformers(logits, temperature, top_k, top_p, min_p)
        ours = dist.transformers(logits, TransformersSampler(True, temperature, top_k, top_p, min_p))
        assert (ours.kept == kept).all(), (temperature, top_k, top_p, min_p)
        assert np.abs(ours.probs - probs).max() < 1e-6


def test_greedy_is_the_first_maximum_in_transformers_and_the_last_in_candle():
    logits = np.array([1.0, 3.0, 0.5, 3.0], dtype=np.float32)
    assert int(np.argmax(dist.transformers(logits, TransformersSampler(False)).probs)) == int(torch.argmax(torch.from_numpy(logits)))
    assert dist.transformers(logits, TransformersSampler(False)).kept.nonzero()[0].tolist() == [1]
    assert dist.candle(logits, CandleSampling("ArgMax")).kept.nonzero()[0].tolist() == [3]


def test_ties_at_the_kth_logit_transformers_keeps_them_candle_keeps_exactly_k():
    # Tokens 1, 2 and 3 tie for second place: top-2 keeps token 0 and all three in transformers, two in candle.
    logits = np.array([5.0, 3.0, 3.0, 3.0, 1.0, 0.0], dtype=np.float32)
    kept, _ = real_transformers(logits, 1.0, 2, 1.0)
    assert kept.sum() == 4
    assert dist.transformers(logits, TransformersSampler(True, 1.0, 2, 1.0)).count == 4
    candle = dist.candle(logits, CandleSampling("TopK", 1.0, k=2))
    assert candle.count == 2
    mlx = dist.mlx(logits, MlxSampler(1.0, top_k=2))
    assert mlx.count == 2
    reference = dist.transformers(logits, TransformersSampler(True, 1.0, 2, 1.0))
    assert dist.total_variation(candle, reference) > 0.1


def test_top_k_zero_disables_the_filter_in_transformers_and_fails_in_candle():
    logits = np.linspace(-2, 2, 30, dtype=np.float32)
    everything = dist.transformers(logits, TransformersSampler(True, 1.0, 0, 1.0))
    assert everything.count == 30
    with pytest.raises(ValueError):
        TopKLogitsWarper(0)  # transformers never builds it: generate() skips top_k == 0
    with pytest.raises(dist.SamplerError, match="WeightedIndex"):
        dist.candle(logits, CandleSampling("TopK", 1.0, k=0))
    with pytest.raises(dist.SamplerError, match="WeightedIndex"):
        dist.candle(logits, CandleSampling("TopKThenTopP", 1.0, k=0, p=0.9))
    assert dist.mlx(logits, MlxSampler(1.0, top_k=0)).count == 30


def test_candle_top_k_then_top_p_keeps_at_least_as_many_tokens_as_transformers():
    strictly_more = 0
    for logits, temperature, _, _, _ in random_cases(200, seed=7):
        for k, p in ((40, 0.9), (20, 0.5), (5, 0.95)):
            ours = dist.transformers(logits, TransformersSampler(True, temperature, k, p))
            candle = dist.candle(logits, CandleSampling("TopKThenTopP", temperature, k, p))
            assert candle.count >= ours.count
            strictly_more += candle.count > ours.count
    assert strictly_more > 100


def test_candle_top_k_then_top_p_measures_p_on_the_unrenormalised_mass():
    # Top-3 mass 0.8 < p 0.9: candle keeps all three. transformers renormalises to 0.75, 0.1875, 0.0625 and
    # stops after two (0.9375 >= 0.9).
    probs = np.array([0.6, 0.15, 0.05] + [0.2 / 17] * 17)
    logits = np.log(probs).astype(np.float32)
    assert dist.candle(logits, CandleSampling("TopKThenTopP", 1.0, 3, 0.9)).count == 3
    kept, _ = real_transformers(logits, 1.0, 3, 0.9)
    assert kept.sum() == 2
    assert dist.transformers(logits, TransformersSampler(True, 1.0, 3, 0.9)).count == 2


def test_candle_top_p_and_top_k_alone_match_transformers():
    for logits, temperature, _, _, _ in random_cases(80, seed=3):
        for k, p, sampling in ((0, 0.9, CandleSampling("TopP", temperature, p=0.9)), (40, 1.0, CandleSampling("TopK", temperature, k=40))):
            reference = dist.transformers(logits, TransformersSampler(True, temperature, k, p))
            candle = dist.candle(logits, sampling)
            assert (candle.kept == reference.kept).all() or dist.total_variation(candle, reference) < 1e-6
            assert dist.total_variation(candle, reference) < 1e-5


def test_the_sample_f_closure_reproduces_transformers_exactly():
    for logits, temperature, top_k, top_p, min_p in random_cases(60, seed=11):
        sampler = TransformersSampler(True, temperature, top_k, top_p, min_p)
        reference = dist.transformers(logits, sampler)
        recipe = dist.candle(logits, CandleSampling("All", temperature), dist.transformers_closure(sampler))
        assert recipe.count == reference.count
        assert dist.total_variation(recipe, reference) < 1e-5


def test_mlx_applies_top_p_to_the_untempered_distribution():
    logits = np.log(np.array([0.6, 0.25, 0.1, 0.05])).astype(np.float32)
    # Untempered, the top two reach 0.85 < 0.9 so three are kept; at temperature 0.5 the top two hold 0.94.
    assert dist.mlx(logits, MlxSampler(0.5, top_p=0.9)).count == 3
    kept, _ = real_transformers(logits, 0.5, 0, 0.9)
    assert kept.sum() == 2
    # At temperature 1 the two agree.
    assert dist.mlx(logits, MlxSampler(1.0, top_p=0.9)).count == real_transformers(logits, 1.0, 0, 0.9)[0].sum()


def test_mlx_applies_top_p_before_top_k():
    probs = np.array([0.6, 0.15, 0.05] + [0.2 / 17] * 17)
    logits = np.log(probs).astype(np.float32)
    # Over the whole vocabulary 0.9 needs more than three tokens, so top_k=3 then leaves all three.
    assert dist.mlx(logits, MlxSampler(1.0, top_p=0.9, top_k=3)).count == 3
    assert dist.transformers(logits, TransformersSampler(True, 1.0, 3, 0.9)).count == 2


def test_mlx_refuses_top_k_not_below_the_vocabulary():
    logits = np.zeros(10, dtype=np.float32)
    with pytest.raises(dist.SamplerError, match=r"\(0, 10\)"):
        dist.mlx(logits, MlxSampler(1.0, top_k=10))


def test_transformers_refusals_are_reported_not_computed():
    logits = np.zeros(10, dtype=np.float32)
    for sampler in (TransformersSampler(True, 0.0), TransformersSampler(True, 2), TransformersSampler(True, 1.0, -1)):
        with pytest.raises(dist.SamplerError, match="ValueError"):
            dist.transformers(logits, sampler)
    with pytest.raises(ValueError):
        TemperatureLogitsWarper(2)  # an integer temperature: transformers wants a float


@pytest.mark.parametrize("run", [
    lambda x: dist.transformers(x, TransformersSampler(True, 1e-300, 50, 0.5)),
    lambda x: dist.candle(x, CandleSampling("TopP", 1e-300, p=0.5)),
    lambda x: dist.mlx(x, MlxSampler(1e-300, top_p=0.5)),
], ids=["transformers", "candle", "mlx-lm"])
def test_a_temperature_that_overflows_float32_fails_sampling_without_a_numpy_warning(run):
    """Each runtime computes inf and NaN without a word; the outcome is the refusal, not a RuntimeWarning on stderr."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(dist.SamplerError, match="no token has a finite score left"):
            run(np.array([1.0, 2.0, 3.0], dtype=np.float32))
