"""A JSON list of findings: the contract scripts rely on."""

from __future__ import annotations

from typing import Any

from cfglint.report.indented_json import dumps, members

ROW, MEMBER = "\n  ", "\n    "  # the indents of a finding in the list, and of its members


def render(diagnostics, docs, style, rules=None) -> str:
    try:
        return _listed(diagnostics) + "\n"
    except (TypeError, ValueError, RecursionError):  # what the encoder leaves to json.dumps (which says why)
        return dumps([d.to_json() for d in diagnostics]) + "\n"


def _listed(diagnostics) -> str:
    """dumps([d.to_json() for d in diagnostics]), with the effects and fix that findings kept for many files
    share written once."""
    if not diagnostics:
        return "[]"
    shared: dict[tuple[int, int], tuple[Any, Any, list[str]]] = {}  # holds what it names: no id is reused
    rows = []
    for d in diagnostics:
        if d.extra:  # what a target adds may replace any member
            parts = members(d.to_json(), MEMBER)
        else:
            key = id(d.effects), id(d.fix)
            if key not in shared:
                shared[key] = d.effects, d.fix, members(d.substance_json(), MEMBER)
            parts = members(d.place_json(), MEMBER) + shared[key][2]
        rows.append("{" + MEMBER + ("," + MEMBER).join(parts) + ROW + "}")
    return "[" + ROW + ("," + ROW).join(rows) + "\n]"
