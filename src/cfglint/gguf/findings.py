"""The rules' side of GGUF checking: a topic's differences as findings, and their diagnostics."""

from __future__ import annotations

import shlex
from typing import Iterator

from cfglint.diagnostics import Applicability, Diagnostic, Finding, Fix, Severity
from cfglint.gguf import FILE_PLACEHOLDER


def findings(ctx, topic: str) -> Iterator[Finding]:
    """What a rule about `topic` reports on a GGUF target (nothing on any other target)."""
    target = ctx.gguf
    if target is None or target.header is None:
        return
    for difference in target.differences:
        if difference.topic != topic:
            continue
        if difference.runtime is not None and ctx.runtimes is not None and difference.runtime not in ctx.runtimes:
            continue  # --runtime (or the settings' consumers) left that runtime out
        text = difference.fix.replace(FILE_PLACEHOLDER, shlex.quote(str(target.path)))
        fix = Fix(text, Applicability.DISPLAY, ()) if text else None
        yield Finding(difference.message, difference.pointer, (), fix, None if difference.error else Severity.WARNING,
                      key=difference.gguf_key)


def lint(ctx, rules, display: str) -> list[Diagnostic]:
    """Like engine.lint, located by the GGUF key: line 1, column 1 of the file, the key in `gguf_key`, the
    source config (whose JSON Pointer is `pointer`) in `config`."""
    target = ctx.gguf
    config = str(target.against.path) if target.against is not None else None
    out = []
    for rule in rules:
        for finding in rule.check(ctx):
            key = finding.key
            out.append(Diagnostic(
                code=rule.code, name=rule.name, severity=finding.severity or rule.severity, message=finding.message,
                path=display, line=1, column=1, pointer=finding.pointer, effects=finding.effects, fix=finding.fix,
                extra={"gguf_key": key, "config": config},
            ))
    return sorted(out, key=lambda d: (d.code, d.extra["gguf_key"], d.message))
