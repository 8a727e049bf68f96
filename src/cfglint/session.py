"""One run of cfglint: which consumers and rules, the files read, and the exit code they add up to."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

from cfglint import consumers, document
from cfglint.consumers.base import Consumer
from cfglint.diagnostics import Diagnostic, Severity
from cfglint.engine import context_of, lint
from cfglint.errors import UsageError
from cfglint.policy import Policy, plugin_rules
from cfglint.rule import Context, Rule, load_builtin
from cfglint.settings import Finder
from cfglint.targets import TargetError, resolve


@dataclass
class Result:
    display: str
    path: Path
    ctx: Context
    diagnostics: list[Diagnostic]
    rules: list[Rule] = field(default_factory=list)  # this file's rules with its suppressions bound; `fix` uses them too
    consumers: list[Consumer] = field(default_factory=list)


class Session:
    def __init__(self, consumer_names: list[str] | None = None, config: str | None = None, isolated: bool = False):
        known = consumers.names()
        unknown = [n for n in consumer_names or [] if n not in known]
        if unknown:
            raise UsageError(f"unknown consumer {', '.join(map(repr, unknown))} (known: {', '.join(known)})")
        self.consumers = [consumers.get(n) for n in (consumer_names or known)]
        self.rules = load_builtin()
        self.unreadable = 0
        self.chosen = consumer_names or None
        self.finder = Finder(config, isolated)
        self._policies: dict[Path | None, Policy] = {}

    def policy_for(self, path: Path) -> Policy:
        """The configuration that governs one file, bound to the rules it enables (cached per config file)."""
        settings = self.finder.for_file(path)
        if settings.source not in self._policies:
            rules = self.rules + plugin_rules(settings, self.rules)
            self._policies[settings.source] = Policy(settings, rules, consumers.names(), self.chosen)
        return self._policies[settings.source]

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
            policy = self.policy_for(path)
            chosen = [c for c in self.consumers if c.name in policy.consumer_names]
            ctx = context_of(doc, chosen)
            rules = policy.rules_for(path)
            results.append(Result(display, path, ctx, lint(ctx, rules, display), rules, chosen))
        return results

    def exit_code(self, diagnostics: list[Diagnostic]) -> int:
        if self.unreadable:
            return 2
        return 1 if any(d.severity is not Severity.INFO for d in diagnostics) else 0
