"""Which setting of each runtime's sampler reproduces the one transformers 5 builds, and what it cannot express.

Pure data: nothing here imports numpy. `measure.py` puts numbers on each candidate setting.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import product
from typing import Any, TypeVar

from cfglint.generation import Generation
from cfglint.reading import show
from cfglint.sampling.samplers import CandleSampling, MlxSampler, TransformersSampler

CANDLE, MLX = "candle", "mlx-lm"
CONSUMERS = (CANDLE, MLX)
T = TypeVar("T")


@dataclass(frozen=True)
class Candidate:
    """One setting of the runtime's own sampler: its source form, its command-line form, and the object."""

    code: str
    flags: str
    setting: CandleSampling | MlxSampler


@dataclass
class Translation:
    consumer: str
    exact: bool  # the literal setting draws from the same distribution as transformers (up to `caveats`)
    literal: Candidate | None  # the setting built from the same parameters; None when nothing applies
    why: list[str] = field(default_factory=list)  # why the literal setting differs, when it does
    caveats: list[str] = field(default_factory=list)  # differences that remain even when exact
    alternatives: list[Candidate] = field(default_factory=list)  # the same parameters with filters left out
    recipe: str | None = None  # how to reproduce it exactly with the runtime's extension point
    as_written: Candidate | None = None  # the setting a port of the written values gives, when that differs
    notes: list[str] = field(default_factory=list)  # repetition penalty and stop tokens

    @property
    def candidates(self) -> list[Candidate]:
        return ([self.literal] if self.literal else []) + self.alternatives


def translate(generation: Generation, consumer: str, vocab_size: int | None) -> Translation:
    written = TransformersSampler.of(generation)
    sampler = written.runnable()  # any JSON value can be written; the runtimes' samplers take numbers
    if consumer == CANDLE:
        out = _candle(sampler)
    elif consumer == MLX:
        out = _mlx(sampler, vocab_size)
    else:
        raise KeyError(consumer)
    out.notes = _notes(generation, consumer)
    if sampler.do_sample and sampler.k is not None and not generation.written("top_k"):
        # A port copies what the file says; the top-k filter transformers adds by default is not written.
        ported = TransformersSampler(True, sampler.temperature, 0, sampler.top_p, sampler.min_p)
        port = _candle(ported) if consumer == CANDLE else _mlx(ported, vocab_size)
        if port.literal is not None and port.literal != out.literal:
            out.as_written = port.literal
    if written.error:
        out.exact = False
        out.why.insert(0, f"transformers itself refuses these settings ({written.error})")
    return out


def _candle(s: TransformersSampler) -> Translation:
    if not s.do_sample:
        greedy = CandleSampling("ArgMax")
        return Translation(
            CANDLE, True, _candle_candidate(greedy),
            caveats=["on tied maximal logits candle's argmax takes the last token, transformers the first"],
        )
    temperature = float(s.temperature)
    if temperature <= 0:
        # candle's llama example: `if temperature <= 0. { Sampling::ArgMax }`.
        return Translation(CANDLE, False, _candle_candidate(CandleSampling("ArgMax")))
    literal = CandleSampling.build(temperature, s.k, s.p)
    out = Translation(CANDLE, True, _candle_candidate(literal))
    if s.k is not None and s.p is not None:
        out.why.append(
            "no Sampling variant renormalises between top-k and top-p: TopKThenTopP measures p against the "
            "top-k's un-renormalised mass, so it keeps at least as many tokens as transformers"
        )
    if s.minp is not None:
        out.why.append("candle has no min-p filter")
    if s.k is not None and s.k > 0:
        out.caveats.append(
            f"TopK keeps exactly {s.k} tokens; transformers also keeps every token tied with the {s.k}th logit"
        )
    out.exact = not out.why
    for k, p in product(_with_and_without(s.k), _with_and_without(s.p)):
        candidate = _candle_candidate(CandleSampling.build(temperature, k, p))
        if candidate != out.literal and candidate not in out.alternatives:
            out.alternatives.append(candidate)
    if not out.exact:
        out.recipe = (
            f"LogitsProcessor::sample_f with a closure that {_filters_in_order(s)}, then renormalises, "
            f"under {CandleSampling('All', temperature).rust()}"
        )
    return out


def _filters_in_order(s: TransformersSampler) -> str:
    """transformers' filters after temperature, in its order, as a closure would apply them."""
    steps = []
    if s.k is not None:
        steps.append(f"keeps the top {s.k} (ties included)")
    if s.p is not None:
        steps.append(f"{'renormalises and ' if s.k is not None else ''}keeps the smallest set reaching {s.p}")
    if s.minp is not None:
        steps.append(f"drops tokens below {s.minp} times the top probability")
    return ", ".join(steps)


def _candle_candidate(sampling: CandleSampling) -> Candidate:
    return Candidate(sampling.rust(), sampling.example_flags(), sampling)


def _mlx(s: TransformersSampler, vocab_size: int | None) -> Translation:
    if not s.do_sample:
        return Translation(MLX, True, _mlx_candidate(MlxSampler(0.0)))
    temperature = float(s.temperature)
    k = s.k
    out = Translation(MLX, True, None)
    if k is not None and vocab_size is not None and k >= vocab_size:
        # make_sampler refuses top_k >= vocab; transformers keeps everything then, as top_k=0 does.
        out.caveats.append(f"top_k {k} is not below the vocabulary ({vocab_size}): mlx-lm refuses it, top_k=0 keeps the same tokens")
        k = None
    out.literal = _mlx_candidate(MlxSampler(temperature, s.p or 0.0, s.minp or 0.0, k or 0))
    if k is not None and s.p is not None:
        out.why.append("mlx-lm applies top_p before top_k, over the whole vocabulary, so the p cut is not renormalised over the top-k")
    untempered = [name for name, on in (("top_p", s.p is not None), ("min_p", s.minp is not None)) if on]
    if temperature != 1.0 and untempered:
        out.why.append(f"mlx-lm applies {' and '.join(untempered)} to the untempered probabilities (temperature comes last)")
    if k is not None:
        out.caveats.append(f"top_k keeps exactly {k} tokens; transformers also keeps every token tied with the {k}th logit")
    out.exact = not out.why
    for kk, p, m in product(_with_and_without(k), _with_and_without(s.p), _with_and_without(s.minp)):
        candidate = _mlx_candidate(MlxSampler(temperature, p or 0.0, m or 0.0, kk or 0))
        if candidate != out.literal and candidate not in out.alternatives:
            out.alternatives.append(candidate)
    if not out.exact:
        out.recipe = (
            "pass generate()/stream_generate() your own sampler= callable that divides the log-probs by the "
            f"temperature first, then {_filters_in_order(s)}"
        )
    return out


def _with_and_without(value: T | None) -> list[T | None]:
    """A filter's value and its absence, for the settings that leave filters out."""
    return [value, None] if value is not None else [None]


def _mlx_candidate(sampler: MlxSampler) -> Candidate:
    return Candidate(sampler.python(), sampler.cli_flags(), sampler)


def _notes(generation: Generation, consumer: str) -> list[str]:
    notes = []
    penalty = generation.values["repetition_penalty"]
    if consumer == CANDLE:
        if penalty == 1.0:
            notes.append("repetition penalty: none in transformers; candle's llama example applies 1.1 over the last 128 tokens unless given --repeat-penalty 1")
        else:
            notes.append(
                f"repetition penalty: transformers applies {show(penalty)} over every token so far (prompt included); "
                f"candle: apply_repeat_penalty(&logits, {show(penalty)}, &tokens) over all of them, or in the example "
                f"--repeat-penalty {show(penalty)} --repeat-last-n N with N at least prompt plus generated length (its default is 128)"
            )
        candle_eos = _eos(generation.config_eos, fallback="the tokenizer's \"</s>\" token")
        notes.append(f"stops on: transformers {_eos(generation.values['eos_token_id'])}; candle {candle_eos} (config.json only)")
    else:
        if penalty != 1.0:
            notes.append(
                f"repetition penalty: transformers applies {show(penalty)} over every token so far; mlx-lm: "
                f"make_logits_processors(repetition_penalty={show(penalty)}, repetition_context_size=N) with N at least "
                "prompt plus generated length (its default window is 20); the mlx_lm.generate command has no option for it"
            )
        mlx_eos = _mlx_eos(generation)
        mlx_eos_text = _eos(mlx_eos, fallback="the tokenizer's eos token")
        notes.append(f"stops on: transformers {_eos(generation.values['eos_token_id'])}; mlx-lm {mlx_eos_text}")
    return notes


def _mlx_eos(generation: Generation) -> Any:
    """mlx-lm `load_config`: a truthy eos_token_id in generation_config.json replaces config.json's."""
    file = generation.file
    if file is not None and file.ok and isinstance(file.data, dict) and file.data.get("eos_token_id"):
        return file.data["eos_token_id"]
    return generation.config_eos


def _eos(value: Any, fallback: str = "no eos token (runs to the length limit)") -> str:
    return fallback if value is None else f"eos {show(value)}"
