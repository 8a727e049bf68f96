"""One run of cfglint: which consumers and rules, the files read, and the exit code they add up to."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from cfglint import consumers, document
from cfglint.diagnostics import Diagnostic, Severity
from cfglint.engine import context_of, lint
from cfglint.errors import UsageError
from cfglint.rule import Context, load_builtin
from cfglint.targets import TargetError, resolve


@dataclass
class Result:
    display: str
    path: Path
    ctx: Context
    diagnostics: list[Diagnostic]


class Session:
    def __init__(self, consumer_names: list[str] | None = None):
        known = consumers.names()
        unknown = [n for n in consumer_names or [] if n not in known]
        if unknown:
            raise UsageError(f"unknown consumer {', '.join(map(repr, unknown))} (known: {', '.join(known)})")
        self.consumers = [consumers.get(n) for n in (consumer_names or known)]
        self.rules = load_builtin()
        self.unreadable = 0

    def error(self, message: str) -> None:
        sys.stderr.write(f"cfglint: error: {message}\n")
        self.unreadable += 1

    def check_all(self, args: list[str]) -> list[Result]:
        results = []
        for arg in args:
            try:
                path = resolve(arg)
                doc = document.load(path)
            except TargetError as err:
                self.error(str(err))
                continue
            except OSError as err:
                self.error(f"{arg}: {err.strerror or err}")
                continue
            display = str(path)
            ctx = context_of(doc, self.consumers)
            results.append(Result(display, path, ctx, lint(ctx, self.rules, display)))
        return results

    def exit_code(self, diagnostics: list[Diagnostic]) -> int:
        if self.unreadable:
            return 2
        return 1 if any(d.severity is not Severity.INFO for d in diagnostics) else 0
