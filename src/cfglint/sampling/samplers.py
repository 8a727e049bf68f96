"""Sampler settings as each runtime spells them: plain data, no numpy (the math is in distributions.py).

- transformers 5.24: `_get_logits_processor` builds TemperatureLogitsWarper (if temperature != 1.0), then
  TopKLogitsWarper (if top_k is not None and != 0), TopPLogitsWarper (if top_p < 1.0), MinPLogitsWarper (if
  min_p is not None), and only when do_sample is truthy; otherwise decoding is greedy.
- candle 0.11 `candle-transformers/src/generation/mod.rs`: the `Sampling` enum of `LogitsProcessor`.
- mlx-lm `sample_utils.make_sampler(temp, top_p, min_p, min_tokens_to_keep, top_k)`.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

from cfglint.generation import Generation


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_float(value: Any) -> bool:
    """A number float() takes: not an integer beyond a float's range."""
    return isinstance(value, float) or _is_number(value) and abs(value) <= sys.float_info.max


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


@dataclass(frozen=True)
class TransformersSampler:
    """generate()'s sampler after defaults; `error` is why transformers itself refuses the settings."""

    do_sample: bool
    temperature: Any = 1.0
    top_k: Any = 50
    top_p: Any = 1.0
    min_p: Any = None

    @classmethod
    def of(cls, generation: Generation) -> TransformersSampler:
        v = generation.values
        return cls(bool(v["do_sample"]), v["temperature"], v["top_k"], v["top_p"], v["min_p"])

    # The filters generate() actually applies; each is None when it is off.
    @property
    def tempered(self) -> bool:
        return self.do_sample and self.temperature != 1.0

    @property
    def k(self) -> int | None:
        return self.top_k if self.do_sample and self.top_k is not None and self.top_k != 0 else None

    @property
    def p(self) -> float | None:
        return self.top_p if self.do_sample and _is_number(self.top_p) and self.top_p < 1.0 else None

    @property
    def minp(self) -> float | None:
        return self.min_p if self.do_sample and self.min_p is not None else None

    @property
    def error(self) -> str | None:
        """The ValueError the warpers' constructors raise (transformers 5.24 `logits_process.py`)."""
        if not self.do_sample:
            return None
        if self.temperature != 1.0 and not (isinstance(self.temperature, float) and self.temperature > 0):
            return f"`temperature` (={self.temperature}) has to be a strictly positive float"
        if self.k is not None and not _is_count(self.k):
            return f"`top_k` has to be a strictly positive integer, but is {self.k}"
        if not _is_number(self.top_p):
            return f"`top_p` has to be a number, but is {self.top_p!r}"
        if self.p is not None and self.p < 0:
            return f"`top_p` has to be a float > 0 and < 1, but is {self.p}"
        if self.minp is not None and not (_is_number(self.minp) and 0 <= self.minp <= 1.0):
            return f"`min_p` has to be a float in the [0, 1] interval, but is {self.minp}"
        return None

    def runnable(self) -> TransformersSampler:
        """These settings without the values transformers refuses (`error` names the first): a runtime's own
        sampler takes a positive integer top_k and numbers elsewhere, so a refused value is left out, not copied."""
        return TransformersSampler(
            self.do_sample,
            self.temperature if _is_float(self.temperature) else 1.0,
            self.top_k if self.top_k is None or _is_count(self.top_k) else 0,
            self.top_p if _is_float(self.top_p) else 1.0,
            self.min_p if _is_float(self.min_p) else None,
        )

    def describe(self) -> str:
        if not self.do_sample:
            return "greedy (do_sample false)"
        parts = [f"temperature={_num(self.temperature)}"]
        parts.append(f"top_k={self.k}" if self.k is not None else "top_k off")
        if self.p is not None:
            parts.append(f"top_p={_num(self.p)}")
        if self.minp is not None:
            parts.append(f"min_p={_num(self.minp)}")
        return "sample: " + ", ".join(parts)


@dataclass(frozen=True)
class CandleSampling:
    """One `candle_transformers::generation::Sampling` variant."""

    variant: str  # "ArgMax" | "All" | "TopK" | "TopP" | "TopKThenTopP"
    temperature: float | None = None
    k: int | None = None
    p: float | None = None

    def rust(self) -> str:
        if self.variant == "ArgMax":
            return "Sampling::ArgMax"
        fields = []
        if self.k is not None:
            fields.append(f"k: {self.k}")
        if self.p is not None:
            fields.append(f"p: {_num(self.p)}")
        fields.append(f"temperature: {_num(self.temperature)}")
        return f"Sampling::{self.variant} {{ {', '.join(fields)} }}"

    def example_flags(self) -> str:
        """The same choice through candle's llama example, which maps (top_k, top_p) onto these variants."""
        if self.variant == "ArgMax":
            return "--temperature 0"
        flags = [f"--temperature {_num(self.temperature)}"]
        if self.k is not None:
            flags.append(f"--top-k {self.k}")
        if self.p is not None:
            flags.append(f"--top-p {_num(self.p)}")
        return " ".join(flags)

    @classmethod
    def build(cls, temperature: float, k: int | None, p: float | None) -> CandleSampling:
        if k is not None and p is not None:
            return cls("TopKThenTopP", temperature, k, p)
        if k is not None:
            return cls("TopK", temperature, k=k)
        if p is not None:
            return cls("TopP", temperature, p=p)
        return cls("All", temperature)


@dataclass(frozen=True)
class MlxSampler:
    """Arguments of mlx-lm's `make_sampler`; 0 turns top_k and min_p off, 1.0 (or 0) turns top_p off."""

    temp: float
    top_p: float = 0.0
    min_p: float = 0.0
    top_k: int = 0

    def python(self) -> str:
        return f"make_sampler({', '.join(f'{name}={_num(value)}' for name, value in self._set())})"

    def cli_flags(self) -> str:
        """The same arguments as mlx_lm.generate's flags (--top-p for top_p, ...)."""
        return " ".join(f"--{name.replace('_', '-')} {_num(value)}" for name, value in self._set())

    def _set(self) -> list[tuple[str, Any]]:
        """The arguments that are not off, in make_sampler's order."""
        pairs: list[tuple[str, Any]] = [("temp", self.temp)]
        if 0 < self.top_p < 1.0:
            pairs.append(("top_p", self.top_p))
        if self.min_p != 0.0:
            pairs.append(("min_p", self.min_p))
        if self.top_k > 0:
            pairs.append(("top_k", self.top_k))
        return pairs


def _num(value: Any) -> str:
    # repr keeps a float a float ("1.0"), as a Rust f64 field and a Python argument both want.
    return repr(value) if isinstance(value, float) else str(value)
