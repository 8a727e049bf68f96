"""Phrasing what each consumer does with some tensors, for the weight rules' messages and effects."""

from __future__ import annotations

from typing import Iterable

from cfglint.diagnostics import Effect
from cfglint.weights.layout import HEAD, is_bias, is_inv_freq, layer_of
from cfglint.weights.loaders import RANK
from cfglint.weights.loading import Loading

# Which rule explains a tensor that a loader misses or leaves unused.
LAYERS, BIASES, HEAD_TIE, INV_FREQ, OTHER = "layers", "biases", "head", "inv_freq", "other"


def category(name: str, layers: int, present: set[int]) -> str:
    index = layer_of(name)
    if index is not None and (index >= layers or index not in present):
        return LAYERS  # a whole layer too many or missing
    if is_bias(name):
        return BIASES
    if name == HEAD:
        return HEAD_TIE
    if is_inv_freq(name):
        return INV_FREQ
    return OTHER


def reaction(loading: Loading, missing: list[str], unused: list[str]) -> Effect | None:
    """The consumer's worst reaction to these missing and unused tensors, as an Effect (None: unaffected)."""
    reactions = [loading.on_missing(n) for n in missing]
    if unused:
        reactions.append(loading.on_unused(unused))
    if not reactions:
        return None
    outcome, detail = max(reactions, key=lambda r: RANK[r[0]])
    return Effect(loading.consumer, outcome, None, detail)


def uses(consumer: str, detail: str = "") -> Effect:
    return Effect(consumer, "uses", None, detail)


def phrase(effects: Iterable[Effect], it: str = "them") -> str:
    """'candle and mistralrs ignore them; mlx-lm refuses to load (Received 2 parameters ...)'."""
    verbs = {
        "panic": ("panics at load", "panic at load"),
        "error": ("refuses to load", "refuse to load"),
        "warns": ("loads with a warning", "load with a warning"),
        "ignores": (f"ignores {it}", f"ignore {it}"),
        "drops": (f"drops {it}", f"drop {it}"),
        "uses": (f"uses {it}", f"use {it}"),
    }
    groups: dict[tuple[str, str], list[str]] = {}
    for e in effects:
        groups.setdefault((e.outcome, e.detail), []).append(e.consumer)
    parts = []
    for (outcome, detail), names in groups.items():
        one, many = verbs.get(outcome, (outcome, outcome))
        parts.append(f"{_join(names)} {one if len(names) == 1 else many}{f' ({detail})' if detail else ''}")
    return "; ".join(parts)


def _join(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def ranges(indices: Iterable[int]) -> str:
    """[0, 1, 2, 5] -> '0-2, 5'."""
    out: list[str] = []
    run: list[int] = []
    for i in sorted(set(indices)):
        if run and i == run[-1] + 1:
            run.append(i)
            continue
        if run:
            out.append(f"{run[0]}-{run[-1]}" if len(run) > 1 else str(run[0]))
        run = [i]
    if run:
        out.append(f"{run[0]}-{run[-1]}" if len(run) > 1 else str(run[0]))
    return ", ".join(out)


def some(names: list[str], limit: int = 2) -> str:
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")
