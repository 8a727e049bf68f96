"""The tokens each sampler keeps, and the distribution it draws from, for one logits vector.

Each function follows its runtime's arithmetic (float32, its filter order, its comparisons and accumulators)
so that the kept set matches it token for token. Where the runtime leaves a choice open (which of several
tokens tied at the k-th value candle and mlx-lm keep), the lowest token ids are kept here.

numpy is imported by this module only; nothing on the `cfglint check` path imports it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np

from cfglint.sampling.samplers import CandleSampling, MlxSampler, TransformersSampler

Closure = Callable[[np.ndarray], np.ndarray]

# A tiny temperature overflows float32 and a row of -inf has no softmax: the runtimes compute the same inf and
# NaN without a word, and the outcome says what follows (sampling fails). numpy would warn on stderr instead.
_as_runtimes_compute = np.errstate(over="ignore", divide="ignore", invalid="ignore")


class SamplerError(Exception):
    """The runtime itself fails with these settings on these logits."""


@dataclass
class Outcome:
    kept: np.ndarray  # bool per token: the sampler may draw it
    probs: np.ndarray  # float64 per token, summing to 1, zero outside `kept`

    @property
    def count(self) -> int:
        return int(self.kept.sum())


def total_variation(a: Outcome, b: Outcome) -> float:
    """Half the L1 distance: the share of draws that land differently, at best coupling."""
    return float(0.5 * np.abs(a.probs - b.probs).sum())


def as_logits(values) -> np.ndarray:
    logits = np.asarray(values, dtype=np.float32)
    if logits.ndim != 1 or logits.size == 0:
        raise ValueError(f"expected one non-empty logits vector, got shape {logits.shape}")
    return logits


# transformers 5.24: TemperatureLogitsWarper -> TopKLogitsWarper -> TopPLogitsWarper -> MinPLogitsWarper.
@_as_runtimes_compute
def transformers(logits: np.ndarray, sampler: TransformersSampler) -> Outcome:
    x = as_logits(logits)
    if sampler.error:
        raise SamplerError(f"transformers raises ValueError: {sampler.error}")
    if not sampler.do_sample:
        return _one_hot(x.size, int(np.argmax(x)))  # torch.argmax returns the first of equal maxima
    return _outcome(transformers_scores(x, sampler))


def transformers_scores(x: np.ndarray, sampler: TransformersSampler) -> np.ndarray:
    """The processed scores generate() samples from (-inf where a warper removed the token)."""
    if sampler.tempered:
        x = x / np.float32(sampler.temperature)
    if sampler.k is not None:
        k = min(max(sampler.k, 1), x.size)
        kth = np.partition(x, x.size - k)[x.size - k]
        x = np.where(x < kth, np.float32(-np.inf), x)  # `scores < kth`: ties at the k-th value stay
    if sampler.p is not None:
        order = np.argsort(x, kind="stable")  # ascending
        # torch's CPU cumsum accumulates float32 in double and rounds each partial sum to float32.
        cumulative = np.cumsum(_softmax32(x[order]).astype(np.float64)).astype(np.float32)
        remove = cumulative <= np.float32(1 - sampler.p)
        remove[-1] = False  # min_tokens_to_keep = 1
        x = x.copy()
        x[order[remove]] = -np.inf
    if sampler.minp is not None:
        probs = _softmax32(x)
        remove = probs < np.float32(sampler.minp) * probs.max()
        remove[int(np.argmax(probs))] = False
        x = np.where(remove, np.float32(-np.inf), x)
    return x


def transformers_closure(sampler: TransformersSampler) -> Closure:
    """What a candle `sample_f` closure does to reproduce transformers: zero what it drops, renormalise.

    It sees the tempered softmax, so it filters the same way transformers does on the tempered scores.
    """

    def closure(prs: np.ndarray) -> np.ndarray:
        keep = np.isfinite(transformers_scores(np.log(np.maximum(prs, np.finfo(np.float32).tiny)), _untempered(sampler)))
        kept = np.where(keep, prs, np.float32(0))
        return (kept / kept.sum(dtype=np.float32)).astype(np.float32)

    return closure


def _untempered(sampler: TransformersSampler) -> TransformersSampler:
    return TransformersSampler(True, 1.0, sampler.top_k, sampler.top_p, sampler.min_p)


# candle 0.11 `LogitsProcessor::sample_f`: temperature, softmax, the closure, then the variant's filter.
@_as_runtimes_compute
def candle(logits: np.ndarray, sampling: CandleSampling, closure: Optional[Closure] = None) -> Outcome:
    x = as_logits(logits)
    if sampling.variant == "ArgMax":
        # `max_by(total_cmp)` returns the last of equal maxima.
        return _one_hot(x.size, int(np.flatnonzero(x == x.max())[-1]))
    assert sampling.temperature is not None  # every variant but ArgMax carries one (CandleSampling.build)
    temperature = float(sampling.temperature)
    if temperature == 0:
        raise SamplerError("candle divides the logits by 0: the probabilities are NaN and WeightedIndex::new fails")
    prs = _softmax32(x * np.float32(1.0 / temperature))  # `&logits / t` is affine(1/t, 0)
    if closure is not None:
        prs = closure(prs)
    if sampling.variant == "All":
        weights = prs
    elif sampling.variant == "TopP":
        assert sampling.p is not None
        p = float(sampling.p)
        weights = prs if p <= 0.0 or p >= 1.0 else _candle_top_p(prs, np.float32(p))
    elif sampling.variant == "TopK":
        assert sampling.k is not None
        weights = _candle_top_k(prs, int(sampling.k))
    elif sampling.variant == "TopKThenTopP":
        assert sampling.k is not None and sampling.p is not None
        weights = _candle_top_k_then_top_p(prs, int(sampling.k), np.float32(sampling.p))
    else:
        raise ValueError(f"unknown candle Sampling variant {sampling.variant!r}")
    return _weighted(weights)


def _candle_top_k(prs: np.ndarray, k: int) -> np.ndarray:
    if k >= prs.size:
        return prs
    return np.where(_exactly_top(prs, k), prs, np.float32(0))


def _candle_top_p(prs: np.ndarray, p: np.float32, among: np.ndarray | None = None) -> np.ndarray:
    """`sample_topp`: walk tokens by descending probability, keep each while the running sum is below p."""
    order = np.argsort(-prs, kind="stable")  # Rust's sort_by is stable
    if among is not None:
        order = order[among[order]]
    running = np.cumsum(prs[order], dtype=np.float32)
    before = np.concatenate(([np.float32(0)], running[:-1]))
    out = np.zeros_like(prs)
    kept = order[before < p]
    out[kept] = prs[kept]
    return out


def _candle_top_k_then_top_p(prs: np.ndarray, k: int, p: np.float32) -> np.ndarray:
    if k >= prs.size:
        return _candle_top_p(prs, p)  # no p <= 0 / p >= 1 guard on this path
    top = _exactly_top(prs, k)
    subset = np.where(top, prs, np.float32(0))
    # p is measured against the top-k's own mass, not renormalised to 1.
    mass = np.cumsum(np.sort(prs[top])[::-1], dtype=np.float32)[-1] if k > 0 else np.float32(0)
    if p <= 0.0 or p >= mass:
        return subset
    return _candle_top_p(prs, p, among=top)


def _exactly_top(prs: np.ndarray, k: int) -> np.ndarray:
    """`select_nth_unstable_by(k)`: exactly k tokens; ties at the k-th value broken toward low ids here."""
    mask = np.zeros(prs.size, dtype=bool)
    mask[np.argsort(-prs, kind="stable")[:k]] = True
    return mask


def _weighted(weights: np.ndarray) -> Outcome:
    """`WeightedIndex::new`: fails on an empty or all-zero weight list."""
    kept = weights > 0
    if not kept.any():
        raise SamplerError("candle's WeightedIndex::new fails: no token has a non-zero weight")
    probs = weights.astype(np.float64) * kept
    return Outcome(kept, probs / probs.sum())


# mlx-lm `make_sampler`: top_p, min_p, top_k on the untempered log-probs; temperature last.
@_as_runtimes_compute
def mlx(logits: np.ndarray, sampler: MlxSampler) -> Outcome:
    x = as_logits(logits)
    if sampler.temp == 0:
        return _one_hot(x.size, int(np.argmax(x)))
    logprobs = x - _logsumexp32(x)
    if 0 < sampler.top_p < 1.0:
        order = np.argsort(logprobs, kind="stable")  # ascending
        cumulative = np.cumsum(np.exp(logprobs[order]), dtype=np.float32)
        drop = order[~(cumulative > np.float32(1 - sampler.top_p))]
        logprobs = logprobs.copy()
        logprobs[drop] = -np.inf
    if sampler.min_p != 0.0:
        if not 0 <= sampler.min_p <= 1.0:
            raise SamplerError(f"mlx-lm raises ValueError: `min_p` has to be a float in the [0, 1] interval, but is {sampler.min_p}")
        threshold = logprobs.max() + np.float32(np.log(sampler.min_p))
        logprobs = np.where(logprobs < threshold, np.float32(-np.inf), logprobs)
    if sampler.top_k > 0:
        if not 0 < sampler.top_k < x.size:
            raise SamplerError(f"mlx-lm raises ValueError: `top_k` has to be an integer in the (0, {x.size}) interval, but is {sampler.top_k}.")
        logprobs = np.where(_exactly_top(logprobs, sampler.top_k), logprobs, np.float32(-np.inf))
    return _outcome(logprobs * np.float32(1.0 / sampler.temp))


def _softmax32(x: np.ndarray) -> np.ndarray:
    finite = np.isfinite(x)
    if not finite.any():
        raise SamplerError("no token has a finite score left (the probabilities are NaN), so sampling fails")
    top = x[finite].max()
    e = np.where(finite, np.exp(np.where(finite, x - top, 0), dtype=np.float32), np.float32(0))
    return (e / e.sum(dtype=np.float32)).astype(np.float32)


def _logsumexp32(x: np.ndarray) -> np.float32:
    top = x.max()
    return np.float32(top + np.log(np.exp(x - top, dtype=np.float32).sum(dtype=np.float32)))


def _outcome(scores: np.ndarray) -> Outcome:
    """The distribution of softmax(scores), computed in float64 from the float32 scores."""
    kept = np.isfinite(scores) & (scores > -np.inf)
    if not kept.any():
        # A temperature that underflows float32 leaves no finite score: softmax is NaN and the draw fails.
        raise SamplerError("no token has a finite score left (the probabilities are NaN), so sampling fails")
    s = scores.astype(np.float64)
    e = np.where(kept, np.exp(np.where(kept, s - s[kept].max(), 0.0)), 0.0)
    return Outcome(kept, e / e.sum())


def _one_hot(size: int, index: int) -> Outcome:
    kept = np.zeros(size, dtype=bool)
    kept[index] = True
    return Outcome(kept, kept.astype(np.float64))
