"""Numbers for a translation: tokens kept and total-variation distance from transformers, on one logits vector."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cfglint.generation import Generation
from cfglint.sampling import distributions as dist
from cfglint.sampling.samplers import CandleSampling, MlxSampler, TransformersSampler
from cfglint.sampling.translate import Candidate, Translation


@dataclass(frozen=True)
class Measured:
    code: str
    kept: int | None  # None when the runtime fails
    tv: float | None
    error: str | None = None

    def to_json(self) -> dict:
        return {"setting": self.code, "kept": self.kept, "tv": self.tv, "error": self.error}


@dataclass
class Measurement:
    reference: dist.Outcome | None
    reference_error: str | None
    literal: Measured | None
    nearest: Measured | None  # the candidate with the smallest TV (the literal one on a tie)
    recipe: Measured | None  # the exact recipe, where it can be run here
    as_written: Measured | None = None  # the setting ported from the written values only


    def to_json(self) -> dict:
        return {
            "literal": self.literal.to_json() if self.literal else None,
            "nearest": self.nearest.to_json() if self.nearest else None,
            "recipe": self.recipe.to_json() if self.recipe else None,
            "as_written": self.as_written.to_json() if self.as_written else None,
        }


def reference(generation: Generation, logits: np.ndarray) -> dist.Outcome:
    return dist.transformers(logits, TransformersSampler.of(generation))


def run(candidate: Candidate, logits: np.ndarray) -> dist.Outcome:
    setting = candidate.setting
    if isinstance(setting, CandleSampling):
        return dist.candle(logits, setting)
    if isinstance(setting, MlxSampler):
        return dist.mlx(logits, setting)
    raise TypeError(type(setting))


def measure(translation: Translation, generation: Generation, logits: np.ndarray) -> Measurement:
    try:
        ref: dist.Outcome | None = reference(generation, logits)
        ref_error = None
    except dist.SamplerError as err:
        ref, ref_error = None, str(err)
    results = [_one(c.code, lambda c=c: run(c, logits), ref) for c in translation.candidates]
    literal = results[0] if translation.literal and results else None
    scored = [(m.tv, m) for m in results if m.tv is not None]
    nearest = min(scored, key=lambda pair: pair[0])[1] if scored else None  # min() keeps the first (literal) on ties
    recipe = None
    if translation.recipe and translation.consumer == "candle" and ref is not None:
        sampler = TransformersSampler.of(generation)
        all_tokens = CandleSampling("All", float(sampler.temperature))
        recipe = _one("sample_f closure", lambda: dist.candle(logits, all_tokens, dist.transformers_closure(sampler)), ref)
    as_written = None
    if translation.as_written is not None:
        port = translation.as_written
        as_written = _one(port.code, lambda: run(port, logits), ref)
    return Measurement(ref, ref_error, literal, nearest, recipe, as_written)


def _one(code: str, outcome, ref: dist.Outcome | None) -> Measured:
    try:
        got = outcome()
    except dist.SamplerError as err:
        return Measured(code, None, None, str(err))
    return Measured(code, got.count, dist.total_variation(got, ref) if ref is not None else None)
