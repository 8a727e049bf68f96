"""Run one model directory as transformers 5 means it and as each consumer reads it, and compare.

For one prompt: the max |logit diff| against the reference at the last position and over every position,
then N greedy tokens from each (full recompute, the same procedure for the reference and the readings),
with the first step where they part. Readings whose forwards are identical (several runtimes that make
the same mistake) are computed once.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterator

import torch

from .family import one_line
from .progress import Progress
from .readings import AGREES, DIVERGES, FAILS, NOT_RUN, RUNS, Plan
from .reference import TransformersReference
from .spec import NotReproducible, ReadingError

Decode = Callable[[Sequence[int]], str]


class LogitsError(Exception):
    """The reference itself cannot be run on this directory (so nothing can be compared)."""


@dataclass(frozen=True)
class Comparison:
    """One consumer's reading against the reference."""

    consumer: str
    verdict: str  # AGREES | DIVERGES | readings.FAILS | readings.NOT_RUN
    message: str | None = None
    last_position: float | None = None  # max |logit diff| at the prompt's last position
    all_positions: float | None = None  # max |logit diff| over every prompt position
    greedy_ids: tuple[int, ...] = ()
    first_divergent_step: int | None = None  # 1 = the first generated token; None when all match
    text: str | None = None

    @property
    def ran(self) -> bool:
        return self.verdict in (AGREES, DIVERGES)

    def matching_tokens(self, total: int) -> int:
        return total if self.first_divergent_step is None else self.first_divergent_step - 1

    def to_json(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "message": self.message,
            "max_abs_diff_last": self.last_position,
            "max_abs_diff_all": self.all_positions,
            "greedy_ids": list(self.greedy_ids) if self.ran else None,
            "first_divergent_step": self.first_divergent_step,
            "text": self.text,
        }


@dataclass(frozen=True)
class LogitsCheck:
    """Every consumer's comparison for one model directory and prompt."""

    prompt: str | None
    prompt_ids: tuple[int, ...]
    tokens: int
    tolerance: float
    reference_ids: tuple[int, ...]
    reference_text: str | None
    comparisons: dict[str, Comparison] = field(default_factory=dict)

    def to_json(self, consumers: Sequence[str] | None = None) -> dict[str, Any]:
        shown = self.comparisons if consumers is None else {n: c for n, c in self.comparisons.items() if n in consumers}
        return {
            "prompt": self.prompt,
            "prompt_ids": list(self.prompt_ids),
            "tokens": self.tokens,
            "tolerance": self.tolerance,
            "reference": {"runtime": "transformers-5", "greedy_ids": list(self.reference_ids), "text": self.reference_text},
            "consumers": {name: c.to_json() for name, c in shown.items()},
        }


def _max_abs_diff(a: torch.Tensor, b: torch.Tensor) -> float | None:
    value = (a - b).abs().max().item()
    return value if math.isfinite(value) else None  # NaN or inf logits: no distance to report


def greedy(model: Any, prompt_ids: Sequence[int], n: int, on_token: Callable[[int], None] | None = None) -> list[int]:
    """n tokens appended greedily by model.next_token_logits, recomputing the whole sequence each step.

    EOS does not stop it: the comparison is over exactly n steps, like mistral.rs with ignore_eos.
    """
    tokens = list(prompt_ids)
    generated: list[int] = []
    for step in range(1, n + 1):
        generated.append(int(model.next_token_logits(tokens + generated).argmax()))
        if on_token is not None:
            on_token(step)
    return generated


def _first_difference(a: Sequence[int], b: Sequence[int]) -> int | None:
    for step, (x, y) in enumerate(zip(a, b), start=1):
        if x != y:
            return step
    return None if len(a) == len(b) else min(len(a), len(b)) + 1


def compare(
    reference: Any,
    plans: Mapping[str, Plan],
    prompt_ids: Sequence[int],
    tokens: int,
    tolerance: float,
    decode: Decode | None = None,
    progress: Progress | None = None,
) -> tuple[list[int], str | None, dict[str, Comparison]]:
    """(reference greedy ids, their text, one Comparison per plan) for an already loaded reference."""
    progress = progress or Progress(enabled=False)
    text: Callable[[Sequence[int]], str | None] = decode or (lambda ids: None)
    reference_logits = reference.logits(prompt_ids)
    reference_ids = greedy(reference, prompt_ids, tokens, lambda i: progress.tokens("transformers-5 (reference)", i, tokens))
    sharing: dict[str, list[str]] = {}  # forward key -> the consumers whose readings compute it
    for name, plan in plans.items():
        if plan.status == RUNS:
            sharing.setdefault(plan.forward_key(), []).append(name)
    computed: dict[str, Comparison] = {}
    for key, names in sharing.items():
        label = ", ".join(names)
        on_token = lambda i, label=label: progress.tokens(label, i, tokens)  # noqa: E731
        computed[key] = _run_reading(reference, plans[names[0]], prompt_ids, (reference_logits, reference_ids), text, on_token)
    out: dict[str, Comparison] = {}
    for name, plan in plans.items():
        if plan.status == RUNS:
            out[name] = _verdict(replace(computed[plan.forward_key()], consumer=name), tolerance)
        else:
            out[name] = Comparison(name, plan.status, plan.message)
    progress.clear()
    return reference_ids, text(reference_ids), out


def _run_reading(
    reference: Any,
    plan: Plan,
    prompt_ids: Sequence[int],
    expected: tuple[torch.Tensor, Sequence[int]],
    text: Callable[[Sequence[int]], str | None],
    on_token: Callable[[int], None],
) -> Comparison:
    """Run one reading and measure it against the reference's (logits, greedy ids)."""
    reference_logits, reference_ids = expected
    assert plan.values is not None  # a plan that RUNS has its values
    try:
        reading = reference.reading(dict(plan.values))
        logits = reading.logits(prompt_ids)
    except NotReproducible as err:
        # transformers' code for the family cannot compute this reading: said, never run as something else.
        return Comparison(plan.consumer, NOT_RUN, str(err))
    except ReadingError as err:
        # The forward cannot be built over these tensors: the runtime would fail at weight load too.
        return Comparison(plan.consumer, FAILS, str(err))
    ids = greedy(reading, prompt_ids, len(reference_ids), on_token)
    return Comparison(
        plan.consumer,
        DIVERGES,
        last_position=_max_abs_diff(logits[-1], reference_logits[-1]),
        all_positions=_max_abs_diff(logits, reference_logits),
        greedy_ids=tuple(ids),
        first_divergent_step=_first_difference(ids, reference_ids),
        text=text(ids),
    )


def _verdict(comparison: Comparison, tolerance: float) -> Comparison:
    if not comparison.ran:
        return comparison
    close = comparison.all_positions is not None and comparison.all_positions <= tolerance
    agrees = close and comparison.first_divergent_step is None
    return replace(comparison, verdict=AGREES if agrees else DIVERGES)


@contextmanager
def _quiet_transformers() -> Iterator[None]:
    """Silence transformers' own progress bars and load reports; cfglint reports what matters itself."""
    from transformers.utils import logging as hf_logging

    verbosity, bars = hf_logging.get_verbosity(), hf_logging.is_progress_bar_enabled()
    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        hf_logging.set_verbosity(verbosity)
        if bars:
            hf_logging.enable_progress_bar()


def load(model_dir: Path, progress: Progress) -> tuple[TransformersReference, Any]:
    """The reference model and the directory's tokenizer (None when it has none)."""
    from transformers import AutoTokenizer

    size = sum(p.stat().st_size for p in model_dir.glob("*.safetensors"))
    with _quiet_transformers(), progress.waiting(f"loading weights ({size / 2**20:,.0f} MB, memory-mapped)"):
        try:
            reference = TransformersReference(model_dir)
        except (OSError, ValueError, KeyError, RuntimeError) as err:
            raise LogitsError(f"transformers 5 cannot load the model: {one_line(err)}") from None
        try:
            tokenizer = AutoTokenizer.from_pretrained(model_dir, local_files_only=True)
        except (OSError, ValueError, KeyError, TypeError):
            tokenizer = None
    return reference, tokenizer


def encode(tokenizer: Any, prompt: str, model_dir: Path) -> list[int]:
    if tokenizer is None:
        raise LogitsError(f"no tokenizer in {model_dir} to encode the prompt with")
    ids = list(tokenizer(prompt)["input_ids"])
    if not ids:
        raise LogitsError("the prompt encodes to no tokens")
    return ids


def run(
    model_dir: Path,
    plans: Mapping[str, Plan],
    prompt: str,
    tokens: int,
    tolerance: float,
    progress: Progress | None = None,
) -> LogitsCheck:
    """Load model_dir, encode prompt with its tokenizer, and compare every plan with the reference."""
    progress = progress or Progress()
    reference, tokenizer = load(model_dir, progress)
    prompt_ids = encode(tokenizer, prompt, model_dir)
    decode = lambda ids: tokenizer.decode(list(ids))  # noqa: E731
    reference_ids, reference_text, comparisons = compare(
        reference, plans, prompt_ids, tokens, tolerance, decode, progress
    )
    return LogitsCheck(prompt, tuple(prompt_ids), tokens, tolerance, tuple(reference_ids), reference_text, comparisons)


__all__ = ["AGREES", "DIVERGES", "FAILS", "NOT_RUN", "Comparison", "LogitsCheck", "LogitsError", "compare", "greedy", "run"]
