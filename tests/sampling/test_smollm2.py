"""The sampler differences on real logits: SmolLM2-135M-Instruct, "The capital of France is", transformers 5."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cfglint.cli import main
from cfglint.sampling import distributions as dist
from cfglint.sampling.samplers import CandleSampling, MlxSampler, TransformersSampler

from .helpers import load_build_script, real_transformers

TEMPERATURES = (0.5, 0.7, 1.0, 1.2, 1.5, 2.0)


def mass_of_top(logits: np.ndarray, k: int, temperature: float) -> float:
    scaled = logits.astype(np.float64) / temperature
    probs = np.exp(scaled - scaled.max())
    probs /= probs.sum()
    return float(np.sort(probs)[::-1][:k].sum())


def test_the_logits_are_a_real_model_s(smollm2_logits):
    assert smollm2_logits.shape == (49152,)
    # " Paris" is SmolLM2's most likely next token here, with most of the mass.
    assert int(np.argmax(smollm2_logits)) == 7042
    assert mass_of_top(smollm2_logits, 1, 1.0) > 0.7


@pytest.mark.parametrize("temperature", TEMPERATURES)
def test_transformers_side_matches_its_warpers_on_real_logits(smollm2_logits, temperature):
    for top_k, top_p in ((50, 1.0), (40, 0.9), (0, 0.9)):
        kept, probs = real_transformers(smollm2_logits, temperature, top_k, top_p)
        ours = dist.transformers(smollm2_logits, TransformersSampler(True, temperature, top_k, top_p))
        assert (ours.kept == kept).all()
        assert np.abs(ours.probs - probs).max() < 1e-6


def test_implicit_top_50_against_the_whole_vocabulary(smollm2_logits):
    # {"do_sample": true}: transformers samples the top 50; candle's Sampling::All and mlx-lm's
    # make_sampler(temp=1.0) sample all 49152 tokens.
    reference = dist.transformers(smollm2_logits, TransformersSampler(True, 1.0, 50, 1.0))
    candle = dist.candle(smollm2_logits, CandleSampling("All", 1.0))
    mlx = dist.mlx(smollm2_logits, MlxSampler(1.0))
    assert reference.count == 50 and candle.count == mlx.count == 49152
    tv = dist.total_variation(candle, reference)
    assert tv == pytest.approx(1 - mass_of_top(smollm2_logits, 50, 1.0), abs=1e-5)
    assert tv > 0.02  # measured 0.047: about one draw in 21 lands outside transformers' top 50
    assert dist.total_variation(mlx, reference) == pytest.approx(tv, abs=1e-5)
    assert dist.total_variation(dist.candle(smollm2_logits, CandleSampling("TopK", 1.0, k=50)), reference) < 1e-6


@pytest.mark.parametrize("temperature", TEMPERATURES)
def test_top_k_40_top_p_09_transformers_never_keeps_more_than_candle(smollm2_logits, temperature):
    kept, _ = real_transformers(smollm2_logits, temperature, 40, 0.9)
    candle = dist.candle(smollm2_logits, CandleSampling("TopKThenTopP", temperature, 40, 0.9))
    assert kept.sum() <= candle.count
    if mass_of_top(smollm2_logits, 40, temperature) < 0.9:
        assert candle.count == 40  # p is never reached inside the un-renormalised top 40


def test_top_k_40_top_p_09_at_temperature_1_keeps_fewer_in_transformers(smollm2_logits):
    assert mass_of_top(smollm2_logits, 40, 1.0) > 0.9  # measured 0.948
    kept, _ = real_transformers(smollm2_logits, 1.0, 40, 0.9)
    candle = dist.candle(smollm2_logits, CandleSampling("TopKThenTopP", 1.0, 40, 0.9))
    assert kept.sum() < candle.count  # measured 4 against 10
    reference = dist.transformers(smollm2_logits, TransformersSampler(True, 1.0, 40, 0.9))
    assert dist.total_variation(candle, reference) > 0.02  # measured 0.048


def test_command_on_the_real_model_directory(smollm2_logits, tmp_path, capsys):
    built = load_build_script().build()
    model = tmp_path / "smollm2"
    model.mkdir()
    (model / "config.json").symlink_to(built / "config.json")
    (model / "generation_config.json").write_text(json.dumps({"do_sample": True, "top_k": 40, "top_p": 0.9, "eos_token_id": 2}))
    logits_file = tmp_path / "logits.npy"
    np.save(logits_file, smollm2_logits)
    code = main(["sampling", str(model), "--logits", str(logits_file), "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 1
    kept, _ = real_transformers(smollm2_logits, 1.0, 40, 0.9)
    assert report["logits"]["kept"] == int(kept.sum())
    candle, mlx = report["consumers"]
    assert candle["setting"] == "Sampling::TopKThenTopP { k: 40, p: 0.9, temperature: 1.0 }"
    assert candle["measured"]["literal"]["kept"] == dist.candle(smollm2_logits, CandleSampling("TopKThenTopP", 1.0, 40, 0.9)).count
    assert candle["measured"]["recipe"]["tv"] < 1e-5
    assert mlx["setting"] == "make_sampler(temp=1.0, top_p=0.9, top_k=40)"
    assert mlx["measured"]["literal"]["tv"] > 0.02
