"""The weight facts `cfglint view` shows: the checkpoint, and each consumer's load of it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cfglint.weights import loading

if TYPE_CHECKING:
    from cfglint.rule import Context

SHOWN = 3  # tensor names a table line lists before "+N more"


def as_json(ctx: Context) -> dict | None:
    """None when the directory holds no weight files (the key is then left out of the view)."""
    weights = ctx.weights
    if weights is None:
        return None
    return {
        "files": weights.files,
        "tensors": len(weights.tensors),
        "parameters": weights.parameters(),
        "dtypes": weights.dtypes(),
        "complete": weights.complete,
        "problems": [{"file": p.file, "kind": p.kind, "message": p.message} for p in weights.problems],
        "pickles": weights.pickles,
        "consumers": {name: plan.to_json() for name, plan in loading.plan(ctx).items()},
    }


def rows(ctx: Context, columns: list[str]) -> list[list[str]]:
    """Table rows under the config rows: columns are the intent column, then the consumers."""
    plans = loading.plan(ctx)
    if not plans:
        return []
    cells = [plans.get(loading.REFERENCE if i == 0 else name) for i, name in enumerate(columns)]
    return [
        ["weights", *[p.outcome if p else "-" for p in cells]],
        ["unused tensors", *[str(len(p.unused)) if p else "-" for p in cells]],
        ["missing tensors", *[str(len(p.missing)) if p else "-" for p in cells]],
        ["mismatched shapes", *[str(len(p.mismatched)) if p else "-" for p in cells]],
    ]


def lines(ctx: Context) -> list[str]:
    weights = ctx.weights
    if weights is None:
        return []
    if not weights.safetensors:
        return [f"weights: only pickle files ({', '.join(weights.pickles)}), not opened"]
    dtypes = ", ".join(weights.dtypes())
    out = [f"weights: {', '.join(weights.files)} ({len(weights.tensors):,} tensors, {weights.parameters():,} parameters, {dtypes or 'no dtype'})"]
    out += [f"weights problem: {p.file}: {p.message}" for p in weights.problems]
    for name, plan in loading.plan(ctx).items():
        details = []
        if plan.message:
            details.append(plan.message)
        for label, names in (("unused", plan.unused), ("missing", plan.missing), ("mismatched", [m.name for m in plan.mismatched])):
            if names:
                more = f" (+{len(names) - SHOWN} more)" if len(names) > SHOWN else ""
                details.append(f"{label}: {', '.join(names[:SHOWN])}{more}")
        if details:
            out.append(f"{name} weights: {plan.outcome}: " + "; ".join(details))
    return out
