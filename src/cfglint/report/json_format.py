"""A JSON list of findings: the contract scripts rely on."""

from __future__ import annotations

from json.encoder import encode_basestring as _quote  # the C function ensure_ascii=False uses
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
    shared: dict[tuple[int, int], tuple[Any, Any, str]] = {}  # holds what it names: no id is reused
    rows = []
    for d in diagnostics:
        if d.extra or type(d.line) is not int or type(d.column) is not int:  # what a target adds may replace any member
            rows.append("{" + MEMBER + ("," + MEMBER).join(members(d.to_json(), MEMBER)) + ROW + "}")
            continue
        key = id(d.effects), id(d.fix)
        if key not in shared:
            shared[key] = d.effects, d.fix, "," + MEMBER + ("," + MEMBER).join(members(d.substance_json(), MEMBER)) + ROW + "}"
        rows.append(  # place_json's members, each of a type known here (a str that is not raises TypeError)
            '{\n    "code": ' + _quote(d.code) + ',\n    "name": ' + _quote(d.name)
            + ',\n    "severity": ' + _quote(d.severity.value) + ',\n    "message": ' + _quote(d.message)
            + ',\n    "path": ' + _quote(d.path) + ',\n    "line": ' + int.__repr__(d.line)
            + ',\n    "column": ' + int.__repr__(d.column) + ',\n    "pointer": ' + _quote(d.pointer) + shared[key][2]
        )
    return "[" + ROW + ("," + ROW).join(rows) + "\n]"
