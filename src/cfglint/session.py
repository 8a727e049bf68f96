"""One run of cfglint: which consumers and rules, the files read, and the exit code they add up to."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path

from cfglint import consumers, document, hub
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
        consumer_names = [consumers.canonical(n) for n in consumer_names] if consumer_names else consumer_names
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

    def check_all(
        self, args: list[str], *, revision: str | None = None, jobs: int = hub.DEFAULT_JOBS,
        deadline: float = hub.DEFAULT_DEADLINE, hf_cache: bool = False,
    ) -> list[Result]:
        """Every argument (a local path or a Hub repository id) in order, then the cached snapshots if asked."""
        remote = hub.checkouts(args, revision, jobs, deadline)
        results = []
        seen: set[object] = set()
        for arg in args:
            if arg in remote:
                results.append(self.check_checkout(remote[arg]))
                continue
            try:
                path = resolve(arg)
                doc = document.load(path)
            except TargetError as err:
                self.error(str(err))
                continue
            except OSError as err:
                self.error(f"{arg}: {err.strerror or err}")
                continue
            identity = _identity(path)
            if identity in seen:
                continue  # named twice, e.g. as config.json and as its generation_config.json
            seen.add(identity)
            display = str(path)
            policy = self.policy_for(path)
            chosen = [c for c in self.consumers if c.name in policy.consumer_names]
            ctx = context_of(doc, chosen)
            rules = policy.rules_for(path)
            results.append(Result(display, path, ctx, lint(ctx, rules, display), rules, chosen))
        if hf_cache:
            results += [self.check_checkout(c) for c in hub.cached_checkouts()]
        return results

    def check_checkout(self, checkout: hub.Checkout) -> Result:
        """A Hub repository's config, linted like a local file; its weights are the ones read from the Hub.

        A repository has no folder here, so settings are found from the working directory and
        suppressions see it as ./org/name/config.json.
        """
        remote = checkout.remote
        anchor = Path.cwd() / remote.ref.repo_id / "config.json"
        policy = self.policy_for(anchor)
        chosen = [c for c in self.consumers if c.name in policy.consumer_names]
        rules = policy.rules_for(anchor)
        doc = None
        if checkout.config is not None:
            try:
                doc = document.load(checkout.config)
            except OSError as err:
                remote.notes.append(hub.Note(f"config.json in the cache cannot be read: {err.strerror or err}"))
        if doc is None:  # nothing to lint: only the rule about the repository itself speaks
            remote.readable = False
            ctx = Context(document.Document(path=anchor, text=""), None, {}, remote=remote)
            rules = [r for r in rules if r.code == hub.RULE]
        else:
            ctx = context_of(doc, chosen, checkout.weights)
            ctx.remote = remote
        found = [replace(d, extra={**d.extra, **remote.to_json()}) for d in lint(ctx, rules, checkout.display)]
        return Result(checkout.display, checkout.config or anchor, ctx, found, rules, chosen)

    def exit_code(self, diagnostics: list[Diagnostic]) -> int:
        if self.unreadable:
            return 2
        return 1 if any(d.severity is not Severity.INFO for d in diagnostics) else 0


def _identity(path: Path) -> object:
    """The file itself, however it is named: one stat instead of resolving every folder on the way."""
    try:
        info = os.stat(path)
        return info.st_dev, info.st_ino
    except OSError:
        return path.resolve()
