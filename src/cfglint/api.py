"""The Python API, which the command line is a layer over: `check`, `view` and `fix` return typed results.

Nothing here writes to stdout or stderr. A target that cannot be read is one line in the result's
`errors` (exit code 2), as on the command line; only misuse (an unknown consumer, rule code or format,
malformed settings, nothing to check) raises `UsageError`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cfglint.errors import UsageError

if TYPE_CHECKING:
    from cfglint.diagnostics import Diagnostic
    from cfglint.document import Document
    from cfglint.fixing import Outcome
    from cfglint.session import Result, Session

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2

PathArg = str | os.PathLike[str]
Targets = PathArg | Sequence[PathArg]
SettingsArg = PathArg | Mapping[str, Any] | None
ErrorSink = Callable[[str], None]


@dataclass
class Report:
    """What `check` found: the findings in order, the files read, and the targets that could not be read."""

    findings: list[Diagnostic]
    files: list[str]  # the config files checked, as their findings name them
    errors: list[str]  # one line per target not read; the run's exit code is then 2
    results: list[Result] = field(default_factory=list, repr=False)  # per file: the document, its readings, rules
    session: Session | None = field(default=None, repr=False)

    @property
    def exit_code(self) -> int:
        """0 clean (info findings do not count), 1 findings, 2 a target could not be read."""
        from cfglint.session import exit_code

        return exit_code(self.findings, len(self.errors))

    def to_json(self) -> list[dict[str, Any]]:
        """The findings as `cfglint check --format json` prints them."""
        return [d.to_json() for d in self.findings]

    def render(self, format: str = "full", *, statistics: bool = False) -> str:
        """The report as `cfglint check --format FORMAT` prints it (never colored)."""
        from cfglint import report

        report.choose_format(format)
        return report.render(format, self.results, self.findings, statistics=statistics, unreadable=len(self.errors))


@dataclass
class View:
    """What `view` read: per file, transformers' intent and each runtime's reading."""

    files: list[str]
    errors: list[str]
    results: list[Result] = field(default_factory=list, repr=False)

    @property
    def exit_code(self) -> int:
        return EXIT_ERROR if self.errors else EXIT_CLEAN

    def to_json(self) -> list[dict[str, Any]]:
        """As `cfglint view --format json` prints it: {"path", "intent", "consumers", ["weights"]} per file."""
        from cfglint.viewing import as_json

        return [as_json(r) for r in self.results]

    def render(self, format: str = "table") -> str:
        from cfglint.viewing import render_json, render_table

        if format not in ("table", "json"):
            raise UsageError(f"unknown format {format!r} (choose from table, json)")
        return (render_json if format == "json" else render_table)(self.results)


@dataclass(frozen=True)
class FileFix:
    """One file's change: written, or pending (a dry run, or a Hub pull request not opened)."""

    path: str
    diff: str  # unified diff from the file as read to the file as fixed
    applied: tuple[Diagnostic, ...]  # the findings the change repairs
    written: bool
    pending: bool
    message: str = ""  # for a Hub repository: the pull request opened, or the one that would be


@dataclass
class FixResult:
    files: list[FileFix]  # every file that has a change, in order
    errors: list[str]  # targets not read, not fixable or not written

    @property
    def exit_code(self) -> int:
        """0 nothing left to do, 1 a change is pending, 2 a target could not be read, fixed or written."""
        if self.errors:
            return EXIT_ERROR
        return EXIT_FINDINGS if any(f.pending for f in self.files) else EXIT_CLEAN


def check(
    path: Targets, *, consumers: Sequence[str] | None = None, select: Sequence[str] | None = None,
    settings: SettingsArg = None, isolated: bool = False, respect_gitignore: bool = True,
    revision: str | None = None, targets_file: PathArg | None = None, hf_cache: bool = False,
    jobs: int = 8, hub_timeout: float = 120.0, on_error: ErrorSink | None = None, against: PathArg | None = None,
) -> Report:
    """Check model directories, config.json files, trees of model directories or Hub repository ids.

    `consumers`: the runtimes to check (default: the settings', else all); `select`: rule codes or prefixes
    to run instead of the settings' `select`; `settings`: a configuration file, or a `[tool.cfglint]` table
    as a mapping (default: the nearest file above each checked file; `isolated=True`: none). `on_error` is
    called with each error line as it happens. `against`: the source config (a model directory or its
    config.json) every GGUF file is compared with, instead of the config.json beside it.
    """
    session = _session(consumers, select, settings, isolated, respect_gitignore, on_error)
    session.against = os.fspath(against) if against is not None else None
    results = _results(session, path, targets_file, revision, jobs, hub_timeout, hf_cache)
    findings = [d for r in results for d in r.diagnostics]
    return Report(findings, [r.display for r in results], session.errors, results, session)


def view(
    path: Targets, *, consumers: Sequence[str] | None = None, settings: SettingsArg = None, isolated: bool = False,
    respect_gitignore: bool = True, revision: str | None = None, targets_file: PathArg | None = None,
    hf_cache: bool = False, jobs: int = 8, hub_timeout: float = 120.0, on_error: ErrorSink | None = None,
) -> View:
    """Read each target as transformers 5 means it and as each runtime reads it (what `cfglint view` shows)."""
    session = _session(consumers, None, settings, isolated, respect_gitignore, on_error)
    results = _results(session, path, targets_file, revision, jobs, hub_timeout, hf_cache)
    return View([r.display for r in results], session.errors, results)


def fix(
    path: Targets, *, write: bool = False, unsafe: bool = False, consumers: Sequence[str] | None = None,
    settings: SettingsArg = None, isolated: bool = False, respect_gitignore: bool = True,
    follow_symlinks: bool = False, pr: bool = False, revision: str | None = None,
    targets_file: PathArg | None = None, hf_cache: bool = False, jobs: int = 8, hub_timeout: float = 120.0,
    on_error: ErrorSink | None = None, against: PathArg | None = None,
) -> FixResult:
    """Compute the fixes for each target; with `write=True` write them (atomically). `unsafe=True` also
    applies fixes that may change what transformers reads. A Hub repository is never written in place:
    `pr=True` shows (with `write=True`, opens) the pull request that carries its fix."""
    from cfglint.edit import EditError
    from cfglint.fixing import fix_document

    session = _session(consumers, None, settings, isolated, respect_gitignore, on_error)
    session.against = os.fspath(against) if against is not None else None
    files: list[FileFix] = []
    for result in _results(session, path, targets_file, revision, jobs, hub_timeout, hf_cache):
        if result.ctx.gguf is not None:
            continue  # a GGUF is never rewritten: its findings say what to do (display-only fixes)
        doc, remote = result.ctx.doc, result.ctx.remote
        if remote is not None and not remote.readable:
            session.error(f"{result.display}: not fixed: {remote.notes[0].message}")
            continue
        if not doc.ok or result.ctx.intent is None:
            session.error(f"{result.display}: not fixed: {doc.syntax.message if doc.syntax else 'top level is not an object'}")
            continue
        try:
            outcome = fix_document(doc, result.consumers, result.rules, result.display, unsafe=unsafe, weights=result.ctx.weights)
        except EditError as err:
            session.error(f"{result.display}: not fixed: {err}")
            continue
        if not outcome.changed:
            continue
        if remote is not None:
            pending, message = _fix_remote(session, result, outcome, write=write, pr=pr, unsafe=unsafe)
            files.append(_file_fix(result, outcome, written=False, pending=pending, message=message))
        elif not write:
            files.append(_file_fix(result, outcome, written=False, pending=True))
        else:  # a file not written is in `errors`, and its diff still here
            files.append(_file_fix(result, outcome, written=_write(session, result, outcome, follow_symlinks), pending=False))
    return FixResult(files, session.errors)


def _session(
    consumers: Sequence[str] | None, select: Sequence[str] | None, settings: SettingsArg, isolated: bool,
    respect_gitignore: bool, on_error: ErrorSink | None,
) -> Session:
    from cfglint.session import Session
    from cfglint.settings import Finder, parse

    if isinstance(settings, Mapping):
        finder = Finder(isolated=isolated, explicit=parse(dict(settings), Path("settings"), "the settings mapping"))
    elif settings is None or isinstance(settings, (str, os.PathLike)):
        finder = Finder(os.fspath(settings) if settings is not None else None, isolated)
    else:
        raise UsageError(f"settings must be a path or a mapping, not {type(settings).__name__}")
    session = Session(_names(consumers, "consumers"), finder=finder, respect_gitignore=respect_gitignore, on_error=on_error)
    if select is not None:
        session.select(_names(select, "select") or [])
    return session


def _names(values: Sequence[str] | None, what: str) -> list[str] | None:
    if values is None:
        return None
    values = [values] if isinstance(values, str) else list(values)
    if not all(isinstance(v, str) for v in values):
        raise UsageError(f"{what} must be a list of strings")
    return values


def _results(session: Session, path: Targets, targets_file: PathArg | None, revision: str | None, jobs: int, hub_timeout: float, hf_cache: bool) -> list[Result]:
    """The targets given, then those in `targets_file`, then (`hf_cache`) the cached snapshots."""
    from cfglint.targets import TargetError, read_list

    if isinstance(path, (str, os.PathLike)):
        targets = [os.fspath(path)]
    elif isinstance(path, Sequence):
        targets = [os.fspath(p) for p in path if isinstance(p, (str, os.PathLike))]
        if len(targets) != len(path):
            raise UsageError("every target must be a path or a Hub repository id (a string)")
    elif path is None:
        targets = []
    else:
        raise UsageError(f"a target must be a path, a Hub repository id or a list of them, not {type(path).__name__}")
    if targets_file:
        try:
            targets += read_list(os.fspath(targets_file))
        except TargetError as err:
            raise UsageError(str(err)) from None
    if not targets and not hf_cache:
        raise UsageError("nothing to check: give TARGET..., --targets-file FILE or --hf-cache")
    return session.check_all(targets, revision=revision, jobs=jobs, deadline=hub_timeout, hf_cache=hf_cache)


def _file_fix(result: Result, outcome: Outcome, *, written: bool, pending: bool, message: str = "") -> FileFix:
    return FileFix(result.display, outcome.diff(result.display), tuple(outcome.applied), written, pending, message)


def _write(session: Session, result: Result, outcome: Outcome, follow_symlinks: bool) -> bool:
    """Write one local file's fix atomically; a symlink only when asked, a cache blob never."""
    from cfglint.edit import write_atomic
    from cfglint.targets import is_cache_blob

    target = result.path
    if target.is_symlink():
        if not follow_symlinks:
            session.error(f"{result.display}: is a symlink to {target.resolve()}; not written (use --follow-symlinks to write the target)")
            return False
        target = target.resolve()
    if is_cache_blob(target):
        session.error(f"{result.display}: is a Hugging Face cache blob ({target}), shared by every snapshot with the same bytes; not written (fix a copy: hf download ORG/NAME --local-dir DIR)")
        return False
    try:
        write_atomic(target, encoded(outcome.after))
    except OSError as err:
        session.error(f"{result.display}: cannot write: {err.strerror or err}")
        return False
    return True


def encoded(doc: Document) -> bytes:
    """A document's bytes as they are written: UTF-8, with its byte-order mark if it had one."""
    return ("\ufeff" if doc.bom else "").encode() + doc.text[1 if doc.bom else 0:].encode("utf-8")


def _fix_remote(session: Session, result: Result, outcome: Outcome, *, write: bool, pr: bool, unsafe: bool) -> tuple[bool, str]:
    """A Hub repository is never written in place: its fix is a pull request (a dry run without `write`).
    Returns whether the fix is left pending, and the line that says what was (or would be) opened."""
    from cfglint.hub.publish import open_pull_request, refusal

    remote = result.ctx.remote
    assert remote is not None
    if not pr:
        if write:
            session.error(f"{result.display}: {refusal(remote)}")
            return False, ""
        return True, ""
    try:
        line = open_pull_request(remote, encoded(outcome.after), outcome.applied, unsafe, dry_run=not write)
    except Exception as err:  # noqa: BLE001 - huggingface_hub's errors (auth, network, a moved branch) end this repository only
        from cfglint.hub.fetch import explain

        session.error(f"{result.display}: pull request not opened: {explain(err, remote.ref, 'the pull request')}")
        return False, ""
    return not write, line
