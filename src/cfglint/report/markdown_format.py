"""GitHub-flavoured Markdown: a table per file (rule, location, message, runtimes affected), for job
summaries and pull-request comments. Cell text is escaped so a message can neither end its cell (`|`) nor
open HTML."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from cfglint.diagnostics import Diagnostic
from cfglint.report.style import Style

HEADER = "| rule | location | message | runtimes affected |\n|---|---|---|---|\n"


def render(diagnostics: Iterable[Diagnostic], docs: Mapping[str, Any], style: Style, rules: Mapping[str, Any] | None = None) -> str:
    by_file: dict[str, list[Diagnostic]] = {}
    for d in diagnostics:
        by_file.setdefault(d.path, []).append(d)
    blocks = []
    for path, found in by_file.items():
        rows = "".join(_row(d) for d in found)
        blocks.append(f"### `{_code(path)}`\n\n{HEADER}{rows}\n")
    return "".join(blocks)


def _row(d: Diagnostic) -> str:
    rule = f"`{d.code}` {cell(d.name)} ({d.severity.value})"
    location = f"{d.line}:{d.column}" + (f" `{_code(d.pointer)}`" if d.pointer else "")
    affected = ", ".join(d.consumers) or "-"
    return f"| {rule} | {location} | {cell(d.message)} | {cell(affected)} |\n"


def cell(text: str) -> str:
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\r\n", "<br>").replace("\n", "<br>")


def _code(text: str) -> str:
    """Text for a code span: a backtick would close it, a `|` would end a table cell."""
    return text.replace("`", "'").replace("|", "\\|")
