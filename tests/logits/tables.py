"""Read back the table `cfglint check --logits` prints after a text report."""

from __future__ import annotations


def table_rows(text: str) -> dict[str, list[str]]:
    """runtime -> [max |diff| last, max |diff| all, greedy, verdict], from the first table in text."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.lstrip().startswith("runtime "))
    rows = {}
    for line in lines[start + 1 :]:
        if not line.strip():
            break
        cells = line.split(None, 4)
        rows[cells[0]] = cells[1:]
    return rows
