"""One line per finding: path:line:col: CODE message (the format editors and grep understand)."""

from __future__ import annotations

from cfglint.report.style import Style


def render(diagnostics, docs, style: Style, rules=None) -> str:
    lines = [f"{d.path}:{d.line}:{d.column}: {d.code} {d.message}" for d in diagnostics]
    return "\n".join(lines) + ("\n" if lines else "")
