"""Each consumer's reading of a model directory: the values its forward runs with, or why it will not run.

A consumer's view says what the runtime takes from config.json; its loader (cfglint.weights.loaders) says
what it does with the tensors it finds. Both shape the computation: llama.cpp uses every bias and a stored
lm_head.weight whatever the flags say, and transformers 5 keeps a stored head rather than tying it. A
runtime whose view or weight load fails is reported with its own message and never run.
Pure Python (no torch): the values are plain contract dicts.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cfglint.consumers.base import LOADS, NOT_APPLICABLE
from cfglint.logits.spec import ReadingError, attention_windows, required_keys
from cfglint.weights import loading
from cfglint.weights.layout import HEAD
from cfglint.weights.loaders import ERROR, PANIC, Loader, loader_for

if TYPE_CHECKING:
    from cfglint.rule import Context

RUNS, FAILS, NOT_RUN = "runs", "fails to load", "not run"
AGREES, DIVERGES = "agrees", "diverges"  # the verdicts on a reading that ran

# Values that change nothing in a forward pass: readings that differ only here compute the same logits.
_INERT_KEYS = ("eos_token_id",)


@dataclass(frozen=True)
class Plan:
    consumer: str
    status: str  # RUNS | FAILS | NOT_RUN
    values: Mapping[str, Any] | None = None  # for RUNS: the contract values the forward uses
    message: str | None = None  # for FAILS and NOT_RUN: why, in the runtime's words where there are some

    def forward_key(self) -> str:
        """Equal for two plans whose forwards compute the same logits (so one run serves both)."""
        assert self.values is not None
        return repr(sorted((k, repr(v)) for k, v in self.values.items() if k not in _INERT_KEYS))


# An MLP bias as the checkpoint stores it: a dense MLP's, or gpt-oss's experts' (one tensor for all of them).
_MLP_BIASES = ("mlp.gate_proj.bias", "mlp.experts.gate_up_proj_bias")


def _stores(names: Collection[str], suffix: str) -> bool:
    return any(name.endswith(suffix) for name in names)


def tensor_habits(values: Mapping[str, Any], loader: Loader | None, stored: Collection[str]) -> dict[str, Any]:
    """The values a runtime computes with once its loader has met the stored tensors."""
    out = dict(values)
    if loader is None:
        return out
    if loader.biases_stored:
        out["attention_bias"] = _stores(stored, "self_attn.q_proj.bias")
        out["mlp_bias"] = any(_stores(stored, suffix) for suffix in _MLP_BIASES)
    if loader.head_stored:
        out["tie_word_embeddings"] = HEAD not in stored
    elif loader.unties and out.get("tie_word_embeddings") is True and HEAD in stored:
        # Kept untied only when the two differ; when they are equal either choice gives the same logits.
        out["tie_word_embeddings"] = False
    return out


def plan(ctx: Context) -> dict[str, Plan]:
    """One Plan per consumer in the context, in the context's order."""
    stored = set(ctx.weights.tensors) if ctx.weights is not None else set()
    weight_loads = loading.consumers(ctx)
    plans: dict[str, Plan] = {}
    for name, view in ctx.views.items():
        if view.outcome != LOADS:
            message = view.failure.message if view.failure else view.outcome
            # A runtime with no loader for the family has nothing to run; one whose loader refuses fails.
            plans[name] = Plan(name, NOT_RUN if view.outcome == NOT_APPLICABLE else FAILS, message=message)
            continue
        weight_load = weight_loads.get(name)
        if weight_load is not None and weight_load.outcome in (ERROR, PANIC):
            plans[name] = Plan(name, FAILS, message=weight_load.message)
            continue
        unsaid = [key for key in required_keys(view.values) if view.values.get(key) is None]
        if unsaid:
            plans[name] = Plan(name, NOT_RUN, message=f"the {name} profile does not say which {', '.join(unsaid)} it uses")
            continue
        values = tensor_habits(view.values, loader_for(name), stored)
        plans[name] = Plan(name, RUNS, values=_llama_attention(values) if ctx.intent is not None and ctx.intent.is_llama else values)
    return plans


def _llama_attention(values: dict[str, Any]) -> dict[str, Any]:
    """A Llama reading without a sliding layer attends as one that never read layer_types: said once, so
    that the two share a forward."""
    try:
        sliding = attention_windows(values) is not None
    except ReadingError:
        sliding = True  # kept, for the forward to refuse
    if not sliding:
        values = {k: v for k, v in values.items() if k not in ("layer_types", "sliding_window")}
    return values
