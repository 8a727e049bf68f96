"""`cfglint view`: intent and every consumer's reading, side by side."""

from __future__ import annotations

import json

from cfglint.reading import ALL_KEYS, same, show
from cfglint.stops import report as stops_report
from cfglint.weights import report as weights_report


def as_json(result) -> dict:
    ctx = result.ctx
    if ctx.gguf is not None:
        from cfglint.gguf import view as gguf_view

        return {"path": result.display, "gguf": gguf_view.as_json(ctx.gguf)}
    intent = ctx.intent
    weights = weights_report.as_json(ctx)
    stops = stops_report.as_json(ctx)
    return {
        "path": result.display,
        "intent": None if intent is None else {
            **intent.values,
            "model_type": intent.model_type,
            "layout": intent.layout,
            "dtype": intent.dtype,
        },
        "consumers": {name: view.to_json() for name, view in ctx.views.items()},
        **({"weights": weights} if weights is not None else {}),
        **({"stops": stops} if stops is not None else {}),
    }


def render_json(results) -> str:
    return json.dumps([as_json(r) for r in results], indent=2, ensure_ascii=False) + "\n"


def render_table(results) -> str:
    blocks = []
    for r in results:
        ctx = r.ctx
        if ctx.gguf is not None:
            from cfglint.gguf import view as gguf_view

            blocks.append("\n".join(gguf_view.lines(r.display, ctx.gguf)) + "\n")
            continue
        if ctx.intent is None:
            blocks.append(f"{r.display}: not a readable config (run `cfglint check`)\n")
            continue
        names = list(ctx.views)
        header = ["key", "transformers (intent)", *names]
        rows = [header]
        rows.append(["outcome", "loads", *[v.outcome for v in ctx.views.values()]])
        for key in [k for k in ALL_KEYS if k in ctx.intent.values]:
            want = ctx.intent.values[key]
            row = [key, show(want)]
            for v in ctx.views.values():
                if key not in v.values:
                    row.append("-")
                else:
                    cell = show(v.values[key])
                    row.append(cell if same(key, v.values[key], want) else cell + " !")
            rows.append(row)
        rows += weights_report.rows(ctx, header[1:])
        widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
        lines = [f"{r.display} ({ctx.intent.layout} layout, model_type {ctx.intent.model_type})"]
        for row in rows:
            lines.append("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
        for v in ctx.views.values():
            if v.failure:
                lines.append(f"{v.consumer}: {v.outcome}: {v.failure.message}")
        lines += weights_report.lines(ctx)
        lines += stops_report.lines(ctx)
        blocks.append("\n".join(lines) + "\n")
    return "\n".join(blocks)
