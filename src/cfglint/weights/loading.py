"""Each consumer's load of the checkpoint, predicted from headers: what it requests, misses, leaves unused.

The reference is transformers 5 reading the config as the intent says; each consumer builds the layout
from its own view's values and reacts to differences as its loader does (weights.loaders).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from cfglint.weights.layout import HEAD, LLAMA, Axis, Expected, Layout, Shape, blame, expected, is_bias, layout_of
from cfglint.weights.loaders import DROPS, ERROR, IGNORES, RANK, WARNS, Loader, loader_for

if TYPE_CHECKING:
    from cfglint.rule import Context
    from cfglint.weights.checkpoint import Weights

REFERENCE = "transformers (intent)"
LOADS = "loads"


@dataclass(frozen=True)
class Mismatch:
    name: str
    spec: Expected
    stored: tuple[int, ...]

    @property
    def axis(self) -> Axis | None:
        return blame(self.spec, self.stored)


@dataclass
class Loading:
    consumer: str
    loader: Loader
    tie: bool
    expected: dict[str, Expected]
    missing: list[str] = field(default_factory=list)
    unused: list[str] = field(default_factory=list)  # stored, never used (dropped ones included)
    mismatched: list[Mismatch] = field(default_factory=list)
    outcome: str = LOADS  # "loads" | "warns" | "error" | "panic"
    message: str | None = None

    def on_missing(self, name: str) -> tuple[str, str]:
        kind = self.expected[name].kind
        outcome = self.loader.missing_layer if kind in ("layer", "bias") else self.loader.missing
        return outcome, self.loader.missing_words.format(name=name)

    def on_unused(self, names: list[str]) -> tuple[str, str]:
        kept = [n for n in names if not self.loader.drops(n, self.tie)]
        if not kept:
            return DROPS, ""
        shown = kept[0] + (f" and {len(kept) - 1} more" if len(kept) > 1 else "")
        return self.loader.unused, self.loader.unused_words.format(count=len(kept), names=shown)

    def on_shape(self, m: Mismatch) -> tuple[str, str]:
        outcome = self.loader.shape_layer if m.spec.kind in ("layer", "bias") else self.loader.shape
        return outcome, self.loader.shape_words.format(name=m.name, expected=list(m.spec.shape), got=list(m.stored))

    def to_json(self) -> dict:
        return {
            "outcome": self.outcome,
            "message": self.message,
            "unused": self.unused,
            "missing": self.missing,
            "mismatched": [{"tensor": m.name, "expected": list(m.spec.shape), "stored": list(m.stored)} for m in self.mismatched],
        }


def shape_of(ctx: Context, values: dict, sources: dict) -> Shape | None:
    if ctx.intent is None:
        return None
    dims = {k: values.get(k, v) for k, v in ctx.intent.dims.items()}
    shape = Shape.of(dims, values, head_dim_given=sources.get("head_dim") == "/head_dim",
                     kv_given=sources.get("num_key_value_heads") == "/num_key_value_heads")
    layout = modelled_layout(ctx)
    if shape is None or layout is None or layout.experts is None:
        return shape
    # The experts' numbers as transformers 5 reads them, for every runtime, unless the family's readings report
    # their own (DeepSeek: experts, shared experts and which layers hold them).
    moe = layout.experts.shape(ctx.config, shape.layers, values)
    return replace(shape, moe=moe) if moe is not None else None


def load(weights: Weights, name: str, loader: Loader, shape: Shape, values: dict, layout: Layout = LLAMA) -> Loading:
    stored = weights.tensors
    tie = values.get("tie_word_embeddings") is True
    attention_bias = True if loader.biases_stored else values.get("attention_bias")
    mlp_bias = loader.biases_stored or values.get("mlp_bias") is True
    keeps_head = loader.head_stored or (loader.unties and HEAD in stored)
    want = expected(shape, tie=tie and not keeps_head, attention_bias=attention_bias if isinstance(attention_bias, (bool, str)) else False,
                    mlp_bias=mlp_bias, layout=layout)
    if loader.biases_stored:
        want = {n: e for n, e in want.items() if not is_bias(n) or n in stored}
    if loader.head_stored and HEAD not in stored:
        want = {n: e for n, e in want.items() if n != HEAD}  # llama.cpp falls back to the token embeddings
    plan = Loading(name, loader, tie, want)
    plan.missing = [n for n in want if n not in stored]
    plan.unused = [n for n in stored if n not in want]
    plan.mismatched = [Mismatch(n, e, stored[n].shape) for n, e in want.items() if n in stored and stored[n].shape != e.shape]
    reactions = [plan.on_missing(n) for n in plan.missing] + [plan.on_shape(m) for m in plan.mismatched]
    if plan.unused:
        reactions.append(plan.on_unused(plan.unused))
    if loader.unties and tie and HEAD in stored:
        reactions.append((WARNS, "both lm_head.weight and the embeddings are stored: not tied when they differ"))
    unreadable = [p for p in weights.problems if p.kind == "unreadable"]
    if unreadable:
        # Every runtime reads the files through the same format rules (W001 says which file and why).
        reactions.append((ERROR, f"{unreadable[0].file}: {unreadable[0].message}"))
    worst = max(reactions, key=lambda r: RANK[r[0]], default=(IGNORES, ""))
    if RANK[worst[0]] >= RANK[WARNS]:
        plan.outcome, plan.message = worst
    return plan


def plan(ctx: Context) -> dict[str, Loading]:
    """The reference first (under REFERENCE), then every loaded consumer with a known loader."""
    weights, intent, layout = ctx.weights, ctx.intent, modelled_layout(ctx)
    if weights is None or not weights.safetensors or intent is None or layout is None:
        return {}
    key = ("plan", tuple(ctx.views))
    if key not in weights.cache:
        family = intent.family
        out: dict[str, Loading] = {}
        reference = shape_of(ctx, intent.values, intent.sources)
        reference_loader = loader_for("transformers-5", family)
        if reference is not None and reference_loader is not None:
            out[REFERENCE] = load(weights, REFERENCE, reference_loader, reference, intent.values, layout)
        for name, view in ctx.loaded():
            loader = loader_for(name, family)
            shape = shape_of(ctx, view.values, view.sources) if loader else None
            if loader is not None and shape is not None:
                out[name] = load(weights, name, loader, shape, view.values, layout)
        weights.cache[key] = out
    return weights.cache[key]


def modelled_layout(ctx: Context) -> Layout | None:
    """The tensor layout the checkpoint beside this config is held against; None when cfglint has none for it:
    a family whose layout is not modelled, a multimodal file's text model (its tensors sit under the
    multimodal model's own prefixes), a quantized checkpoint (packed weights, scales)."""
    if ctx.intent is None or ctx.root or "quantization_config" in ctx.config:
        return None
    return layout_of(ctx.intent.family)


def consumers(ctx: Context) -> dict[str, Loading]:
    """plan(ctx) without the reference."""
    return {n: p for n, p in plan(ctx).items() if n != REFERENCE}
