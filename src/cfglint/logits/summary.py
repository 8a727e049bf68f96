"""The per-consumer table `cfglint check --logits` prints after a text report."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from cfglint.logits.readings import AGREES, DIVERGES

if TYPE_CHECKING:
    from cfglint.logits.check import Comparison, LogitsCheck

HEADER = ("runtime", "max |diff| last", "max |diff| all", "greedy", "verdict")


def _quoted(text: str | None, ids) -> str:
    # JSON quoting shows newlines and other invisible characters as escapes, on one line.
    return json.dumps(text, ensure_ascii=False) if text is not None else str(list(ids))


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.3g}"


def _verdict(c: Comparison) -> str:
    if c.verdict == DIVERGES and c.first_divergent_step is not None:
        return f"diverges from token {c.first_divergent_step}: {_quoted(c.text, c.greedy_ids)}"
    if c.verdict in (AGREES, DIVERGES):
        return c.verdict
    return f"{c.verdict}: {c.message}"


def render(path: str, measured: LogitsCheck) -> str:
    n = measured.tokens
    prompt = f"prompt {json.dumps(measured.prompt, ensure_ascii=False)}" if measured.prompt is not None else "prompt"
    lines = [
        f"logits: {path}",
        f"  {prompt} ({len(measured.prompt_ids)} tokens), {n} greedy tokens, tolerance {measured.tolerance:g}",
        f"  transformers 5 (reference): {_quoted(measured.reference_text, measured.reference_ids)}",
    ]
    rows = [HEADER]
    for name, c in measured.comparisons.items():
        greedy = f"{c.matching_tokens(n)}/{n}" if c.ran else "-"
        rows.append((name, _number(c.last_position), _number(c.all_positions), greedy, _verdict(c)))
    widths = [max(len(row[i]) for row in rows) for i in range(len(HEADER) - 1)]
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row, widths)] + [row[-1]]
        lines.append("  " + "  ".join(cells).rstrip())
    return "\n".join(lines) + "\n\n"
