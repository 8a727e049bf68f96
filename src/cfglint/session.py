"""One run of cfglint: which consumers and rules, the files read, and the exit code they add up to."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from cfglint import consumers, document, hub, memo
from cfglint.batch import fewer_collections
from cfglint.consumers.base import Consumer
from cfglint.diagnostics import Diagnostic, Severity
from cfglint.engine import context_of, lint, model_directory_listing
from cfglint.errors import UsageError
from cfglint.policy import Policy, plugin_rules
from cfglint.rule import Context, Rule, load_builtin
from cfglint.settings import ALL, Finder, is_selector
from cfglint.targets import Located, NoConfigHere, TargetError, located


@dataclass
class Result:
    display: str
    path: Path
    ctx: Context
    diagnostics: list[Diagnostic]
    rules: list[Rule] = field(default_factory=list)  # this file's rules with its suppressions bound; `fix` uses them too
    consumers: list[Consumer] = field(default_factory=list)


class Session:
    """Problems that end one target (unreadable, not written) are collected in `errors`, one line each, and
    handed to `on_error` as they happen (the command line prints them on stderr)."""

    def __init__(
        self, consumer_names: list[str] | None = None, config: str | None = None, isolated: bool = False, *,
        finder: Finder | None = None, respect_gitignore: bool = True, on_error: Callable[[str], None] | None = None,
        against: str | None = None,
    ):
        known = consumers.names()
        consumer_names = [consumers.canonical(n) for n in consumer_names] if consumer_names else consumer_names
        unknown = [n for n in consumer_names or [] if n not in known]
        if unknown:
            raise UsageError(f"unknown consumer {', '.join(map(repr, unknown))} (known: {', '.join(known)})")
        self.consumers = [consumers.get(n) for n in (consumer_names or known)]
        self.rules = load_builtin()
        self.errors: list[str] = []
        self.on_error = on_error
        self.chosen = consumer_names or None
        self.finder = finder or Finder(config, isolated)
        self.respect_gitignore = respect_gitignore
        self.against = against  # the source config of every GGUF checked (a model directory or config.json)
        self.selected: tuple[str, ...] | None = None
        self._policies: dict[Path | None, Policy] = {}
        self.hub_sources: dict[str, hub.Checkout] = {}  # Hub GGUF repositories' source configs, fetched once

    def select(self, selectors: list[str]) -> None:
        """Run these rule codes or prefixes instead of what the settings select; each may be a
        comma-separated list, as ruff's `--select R001,D` is."""
        selectors = [part.strip() for selector in selectors for part in selector.split(",")]
        if not selectors:
            raise UsageError("select: name at least one rule code or prefix")
        codes = [r.code for r in self.rules]
        bad = [s for s in selectors if not is_selector(s) or (s != ALL and not any(c.startswith(s) for c in codes))]
        if bad:
            raise UsageError(f"select: unknown rule code{'s' if len(bad) != 1 else ''} {', '.join(map(repr, bad))} (see `cfglint rules`)")
        self.selected = tuple(selectors)

    def policy_for(self, path: Path, listing: frozenset[str] | None = None) -> Policy:
        """The configuration that governs one file, bound to the rules it enables (cached per config file);
        `listing`, the files of its folder, spares looking for settings files there."""
        settings = self.finder.for_file(path, listing)
        if self.selected is not None:
            settings = settings._replace(select=self.selected)
        if settings.source not in self._policies:
            rules = self.rules + plugin_rules(settings, self.rules)
            self._policies[settings.source] = Policy(settings, rules, consumers.names(), self.chosen)
        return self._policies[settings.source]

    @property
    def unreadable(self) -> int:
        return len(self.errors)

    def error(self, message: str) -> None:
        self.errors.append(message)
        if self.on_error is not None:
            self.on_error(message)

    def local_targets(self, arg: str) -> list[tuple[str, Located | Exception]]:
        """A local argument as the paths to read, each with its config file and stat or the error to report:
        itself, or the model directories of the tree it names."""
        found = _located(arg)
        if not isinstance(found, NoConfigHere):
            return [(arg, found)]
        from cfglint import discovery  # only a tree search needs it (and its gitignore matcher)

        tree = discovery.model_directories(Path(arg), respect_gitignore=self.respect_gitignore, excluded=self._excluded)
        for problem in tree.problems:
            self.error(problem)
        if not tree.files and not tree.problems:
            self.error(f"{arg}: no config.json in this directory or in any folder below it")
        return [(str(f), _located(str(f))) for f in tree.files]

    def _excluded(self, folder: Path) -> bool:
        return self.finder.for_file(folder / "config.json").excludes(folder)

    def check_all(
        self, args: list[str], *, revision: str | None = None, jobs: int = hub.DEFAULT_JOBS,
        deadline: float = hub.DEFAULT_DEADLINE, hf_cache: bool = False,
    ) -> list[Result]:
        """Every argument (a local path or a Hub repository id) in order, then the cached snapshots if asked.
        A folder without config.json stands for the model directories found below it."""
        with fewer_collections(), memo.run():
            return self._check_all(args, revision, jobs, deadline, hf_cache)

    def _check_all(self, args: list[str], revision: str | None, jobs: int, deadline: float, hf_cache: bool) -> list[Result]:
        remote = hub.checkouts(args, revision, jobs, deadline)
        results = []
        seen: set[object] = set()
        local = [
            (arg, target, found) for arg in args
            for target, found in ([(arg, None)] if arg in remote else self.local_targets(arg))
        ]
        for arg, target, found in local:
            if arg in remote:
                if remote[arg].ggufs:
                    from cfglint.hub import gguf_check

                    results += gguf_check.check(self, remote[arg])
                else:
                    results.append(self.check_checkout(remote[arg]))
                continue
            if target.lower().endswith(".gguf"):
                if isinstance(found, tuple):  # located: its stat names the file
                    results += self.check_gguf(found[0], (found[1].st_dev, found[1].st_ino), seen)
                else:
                    results += self.check_ggufs([Path(target)], seen)
                continue
            try:
                if isinstance(found, Exception):
                    raise found
                assert found is not None  # None only for a Hub repository, checked above
                path, info = found
                doc = document.load(path, info.st_size)
            except TargetError as err:
                self.error(str(err))
                continue
            except OSError as err:
                self.error(f"{target}: {err.strerror or err}")
                continue
            identity = info.st_dev, info.st_ino
            if identity in seen:
                continue  # named twice, e.g. as config.json and as its generation_config.json
            seen.add(identity)
            display = str(path)
            listing = model_directory_listing(doc)  # also beside a broken config; it holds the settings files too
            policy = self.policy_for(path, listing)
            chosen = [c for c in self.consumers if c.name in policy.consumer_names]
            ctx = context_of(doc, chosen, listing=listing)
            rules = policy.rules_for(path)
            results.append(Result(display, path, ctx, lint(ctx, rules, display), rules, chosen))
            if listing is not None and any(n.lower().endswith(".gguf") for n in listing):
                results += self.check_ggufs(sorted(path.parent / n for n in listing if n.lower().endswith(".gguf")), seen)
        if hf_cache:
            results += [self.check_checkout(c) for c in hub.cached_checkouts()]
        return results

    def check_ggufs(self, paths: list[Path], seen: set[object]) -> list[Result]:
        """GGUF files, each against its source config; only the GGUF rules run on them."""
        return [result for path in paths for result in self.check_gguf(path, _identity(path), seen)]

    def check_gguf(self, path: Path, identity: object, seen: set[object]) -> list[Result]:
        """One GGUF file, unless it was checked already under another name (`identity`: its device and inode)."""
        from cfglint.gguf import checking

        if identity in seen:
            return []
        seen.add(identity)
        result = checking.check(self, path)
        return [result] if result is not None else []

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
        found = [d._replace(extra={**d.extra, **remote.to_json()}) for d in lint(ctx, rules, checkout.display)]
        return Result(checkout.display, checkout.config or anchor, ctx, found, rules, chosen)

    def exit_code(self, diagnostics: list[Diagnostic]) -> int:
        return exit_code(diagnostics, self.unreadable)


def exit_code(diagnostics: list[Diagnostic], unreadable: int) -> int:
    """2 when a target could not be read, else 1 when a finding is not info, else 0."""
    if unreadable:
        return 2
    return 1 if any(d.severity is not Severity.INFO for d in diagnostics) else 0


def _located(target: str) -> Located | Exception:
    try:
        return located(target)
    except (TargetError, OSError) as err:
        return err


def _identity(path: Path) -> object:
    """The file itself, however it is named: one stat instead of resolving every folder on the way."""
    try:
        info = os.stat(path)
        return info.st_dev, info.st_ino
    except OSError:
        return path.resolve()
