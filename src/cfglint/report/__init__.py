"""Output formats for `check`: each `<name>_format.render(diagnostics, docs, style, rules)` returns text."""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any, Callable

from cfglint.errors import UsageError

FORMATS = ("full", "concise", "json", "json-lines", "sarif", "github", "markdown")
SUMMARIZED = ("full", "markdown")  # the formats a person reads to the end, which close with a summary line


def choose_format(requested: str | None) -> str:
    """The format asked for; without one, GitHub annotations inside GitHub Actions and `full` elsewhere."""
    if requested is None:
        return "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "full"
    if requested not in FORMATS:
        raise UsageError(f"unknown format {requested!r} (choose from {', '.join(FORMATS)})")
    return requested


def renderer(fmt: str) -> Callable:
    return importlib.import_module(f"cfglint.report.{fmt.replace('-', '_')}_format").render


def render(fmt: str, results, diagnostics, *, style=None, statistics: bool = False, unreadable: int = 0) -> str:
    """The findings (or their statistics) as text; `unreadable` targets are named in the summary line."""
    from cfglint.report.style import Style

    style = style or Style(False)
    if statistics:
        from cfglint.report.statistics import render_statistics

        return render_statistics(diagnostics, as_json=fmt in ("json", "json-lines"), unreadable=unreadable)
    rules: dict[str, Any] = {}
    shared: set[int] = set()  # most results share one list of rules: read each list once
    for result in reversed(results):  # the last result's rule for a code, as a comprehension would keep
        if id(result.rules) not in shared:
            shared.add(id(result.rules))
            for r in result.rules:
                rules.setdefault(r.code, r)
    docs = {r.display: r.ctx.doc for r in results}
    text = renderer(fmt)(diagnostics, docs, style, rules)
    if fmt in SUMMARIZED:
        from cfglint.report.full_format import summary

        text += summary(diagnostics, unreadable)
    return text


def write_report(fmt: str, results, diagnostics, *, output: str | None = None, statistics: bool = False, unreadable: int = 0) -> None:
    """Render the findings (or their statistics) to stdout, or to `output` without color."""
    from cfglint.report.style import Style, for_stream

    style = Style(False) if output else for_stream(sys.stdout)
    text = render(fmt, results, diagnostics, style=style, statistics=statistics, unreadable=unreadable)
    if output is None:
        sys.stdout.write(text)
        return
    try:
        with open(output, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as err:
        raise UsageError(f"{output}: cannot write: {err.strerror or err}") from None
