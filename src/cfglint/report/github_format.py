"""GitHub Actions workflow commands: each finding becomes an annotation on the pull request's diff.

`::error file=PATH,line=L,col=C,title=CODE::message`; data escapes %, CR and LF, and properties also `:` and
`,`, as the runner's parser expects.
"""

from __future__ import annotations

_LEVEL = {"error": "error", "warning": "warning", "info": "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render(diagnostics, docs, style, rules=None) -> str:
    lines = []
    for d in diagnostics:
        fields = f"file={escape_property(d.path)},line={d.line},col={d.column},title={escape_property(d.code)}"
        lines.append(f"::{_LEVEL[d.severity.value]} {fields}::{escape_data(d.message)}")
    return "".join(line + "\n" for line in lines)
