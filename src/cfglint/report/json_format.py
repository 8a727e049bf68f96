"""A JSON list of findings: the contract scripts rely on."""

from __future__ import annotations

from cfglint.report.indented_json import dumps


def render(diagnostics, docs, style, rules=None) -> str:
    return dumps([d.to_json() for d in diagnostics]) + "\n"
