"""The default format: each finding with its source line, a caret, who is affected, and the fix."""

from __future__ import annotations

from cfglint.diagnostics import Applicability
from cfglint.report.style import Style

_SEVERITY_STYLE = {"error": "red", "warning": "yellow", "info": "blue"}


def render(diagnostics, docs, style: Style, rules=None) -> str:
    out: list[str] = []
    for d in diagnostics:
        fixable = " [*]" if d.fix and d.fix.applicability is Applicability.SAFE else ""
        out.append(
            f"{style(d.path, 'bold')}:{d.line}:{d.column}: "
            f"{style(d.code, 'bold', _SEVERITY_STYLE[d.severity.value])}{fixable} {d.message}"
        )
        doc = docs.get(d.path)
        if doc is not None and doc.text:
            source = doc.line_text(d.line)
            gutter = " " * len(str(d.line))
            out.append(style(f"{gutter} |", "blue"))
            out.append(style(f"{d.line} |", "blue") + f" {source}")
            out.append(style(f"{gutter} |", "blue") + " " * d.column + style("^", "red"))
            if d.pointer:
                out.append(style(f"{gutter} = ", "blue") + f"at {d.pointer}")
            if d.fix:
                label = {"safe": "fix", "unsafe": "unsafe fix", "display-only": "help"}[d.fix.applicability.value]
                out.append(style(f"{gutter} = ", "blue") + f"{label}: {d.fix.message}")
        elif d.fix and d.extra.get("gguf_key"):  # a GGUF file: no source line to show, only what to do
            out.append(style("  = ", "blue") + f"help: {d.fix.message}")
        out.append("")
    return "\n".join(out) + ("\n" if out else "")


def summary(diagnostics, unreadable: int = 0) -> str:
    safe = sum(1 for d in diagnostics if d.fix and d.fix.applicability is Applicability.SAFE)
    unsafe = sum(1 for d in diagnostics if d.fix and d.fix.applicability is Applicability.UNSAFE)
    text = headline(len(diagnostics), unreadable)
    if safe:
        text += f"\n[*] {safe} fixable with `cfglint fix --write`."
    if unsafe:
        text += f"\n{unsafe} more fixable with `cfglint fix --write --unsafe-fixes`."
    return text + "\n"


def headline(findings: int, unreadable: int = 0) -> str:
    """The run in one line; it never says every check passed when a target could not be read."""
    found = f"Found {findings} finding{'s' if findings != 1 else ''}" if findings else ""
    if unreadable:
        missed = f"{unreadable} target{'s' if unreadable != 1 else ''} could not be read"
        return f"{found}; {missed}." if found else f"No findings in what was read, but {missed}."
    return f"{found}." if found else "All checks passed!"
