"""The command line: `check`, `view`, `fix`, `rules`, `explain`. Every entry point returns an exit code.

Exit codes: 0 clean, 1 findings (or a pending fix), 2 usage error, unreadable input or internal error.
No `from __future__ import annotations` here: typer reads every command's annotations at each start, and
postponed (string) annotations take it twice as long to resolve.
"""

import os
import sys
from typing import List, Optional

# pydantic scans every installed distribution for plugins on first use (~40 ms); a linter needs none.
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")

import typer  # noqa: E402
from typer import Abort, Exit  # noqa: E402

from cfglint import __version__  # noqa: E402
from cfglint.errors import UsageError  # noqa: E402

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2

# The base of typer's usage errors (unknown option, missing argument) is click's ClickException, which
# typer imports from click or, since 0.26, from its private copy of click: find it through a public class.
ClickException = next(c for c in typer.BadParameter.__mro__ if issubclass(c, Exception) and c.__name__ == "ClickException")

app = typer.Typer(
    name="cfglint",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
    help="Find where model runtimes read a Hugging Face config.json differently from transformers, and fix it.",
)

PathsArg = typer.Argument(None, metavar="TARGET...", help="Model directories, config.json files, or Hub repository ids (org/name, org/name@revision).", show_default=False)
ConsumerOpt = typer.Option(None, "--consumer", "-c", metavar="NAME", help="Check only this runtime (repeatable).")
ConfigOpt = typer.Option(None, "--config", metavar="FILE", help="Use this configuration file instead of searching upwards from each path.")
IsolatedOpt = typer.Option(False, "--isolated", help="Ignore every configuration file.")
RevisionOpt = typer.Option(None, "--revision", metavar="REV", help="Branch, tag or commit of the Hub repositories named without @REV (default: main).")
TargetsFileOpt = typer.Option(None, "--targets-file", metavar="FILE", help="Also check the targets listed in FILE, one per line.")
HfCacheOpt = typer.Option(False, "--hf-cache", help="Also check every model snapshot in the local Hugging Face cache (read-only).")
JobsOpt = typer.Option(8, "--jobs", "-j", min=1, help="Hub repositories fetched at the same time.")
HubTimeoutOpt = typer.Option(120.0, "--hub-timeout", metavar="SECONDS", min=0, help="Give up on a Hub repository not read after this long and report it (H001); 0: no limit.")


def _version(value: bool) -> None:
    if value:
        typer.echo(f"cfglint {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Show the version and exit."),
) -> None:
    pass


@app.command()
def check(
    paths: List[str] = PathsArg,
    consumer: Optional[List[str]] = ConsumerOpt,
    output_format: Optional[str] = typer.Option(None, "--format", help="full, concise, json, json-lines, sarif or github (default: github under GitHub Actions, full elsewhere)."),
    output_file: Optional[str] = typer.Option(None, "--output-file", "-o", metavar="FILE", help="Write the report to FILE instead of stdout."),
    statistics: bool = typer.Option(False, "--statistics", help="Count the findings per rule instead of listing them."),
    exit_zero: bool = typer.Option(False, "--exit-zero", help="Exit 0 even when there are findings."),
    baseline: Optional[str] = typer.Option(None, "--baseline", metavar="FILE", help="Report only findings not recorded in FILE."),
    write_baseline: Optional[str] = typer.Option(None, "--write-baseline", metavar="FILE", help="Record today's findings in FILE, report nothing, exit 0."),
    config: Optional[str] = ConfigOpt,
    isolated: bool = IsolatedOpt,
    revision: Optional[str] = RevisionOpt,
    targets_file: Optional[str] = TargetsFileOpt,
    hf_cache: bool = HfCacheOpt,
    jobs: int = JobsOpt,
    hub_timeout: float = HubTimeoutOpt,
    logits: bool = typer.Option(False, "--logits", help="Also run the weights as transformers means them and as each runtime reads them, and compare logits and greedy tokens (needs the logits extra)."),
    prompt: Optional[str] = typer.Option(None, "--prompt", metavar="TEXT", help='With --logits: the prompt (default "The capital of France is").'),
    tokens: Optional[int] = typer.Option(None, "--tokens", metavar="N", help="With --logits: greedy tokens to compare (default 20)."),
    tolerance: Optional[float] = typer.Option(None, "--tolerance", metavar="T", help="With --logits: the largest max |logit diff| that still agrees (default 1e-4)."),
) -> int:
    """Report every place where a runtime will read a different model than transformers means."""
    from pathlib import Path

    from cfglint.report import choose_format, write_report
    from cfglint.session import Session

    fmt = choose_format(output_format)
    measuring = None
    if logits or (prompt, tokens, tolerance) != (None, None, None):
        from cfglint.logits.command import LogitsRun

        measuring = LogitsRun.from_options(logits, prompt, tokens, tolerance)
    accepted = _baselines().load(Path(baseline)) if baseline else None
    session = Session(consumer, config=config, isolated=isolated)
    results = _check_targets(session, paths, targets_file, revision, jobs, hub_timeout, hf_cache)
    if measuring is not None:
        measuring.measure(results, session)
    diagnostics = [d for r in results for d in r.diagnostics]
    if write_baseline:
        n = _baselines().write(Path(write_baseline), diagnostics)
        sys.stderr.write(f"cfglint: recorded {n} finding{'s' if n != 1 else ''} in {write_baseline}\n")
        return EXIT_ERROR if session.unreadable else EXIT_CLEAN
    if accepted is not None:
        diagnostics = accepted.new(diagnostics)
    if measuring is not None:
        diagnostics = measuring.annotate(diagnostics)
    write_report(fmt, results, diagnostics, output=output_file, statistics=statistics)
    code = session.exit_code(diagnostics)
    if measuring is not None:
        measuring.write_summary(fmt, output_file, statistics)
        code = measuring.exit_code(code)
    return EXIT_CLEAN if exit_zero and code == EXIT_FINDINGS else code


@app.command()
def view(
    paths: List[str] = PathsArg,
    consumer: Optional[List[str]] = ConsumerOpt,
    output_format: str = typer.Option("table", "--format", help="table or json."),
    config: Optional[str] = ConfigOpt,
    isolated: bool = IsolatedOpt,
    revision: Optional[str] = RevisionOpt,
    targets_file: Optional[str] = TargetsFileOpt,
    hf_cache: bool = HfCacheOpt,
    jobs: int = JobsOpt,
    hub_timeout: float = HubTimeoutOpt,
) -> int:
    """Show what transformers means and what each runtime reads, side by side."""
    from cfglint.session import Session
    from cfglint.viewing import render_json, render_table

    if output_format not in ("table", "json"):
        raise UsageError(f"unknown format {output_format!r} (choose from table, json)")
    session = Session(consumer, config=config, isolated=isolated)
    results = _check_targets(session, paths, targets_file, revision, jobs, hub_timeout, hf_cache)
    render = render_json if output_format == "json" else render_table
    sys.stdout.write(render(results))
    return session.exit_code([])


@app.command()
def fix(
    paths: List[str] = PathsArg,
    write: bool = typer.Option(False, "--write", "-w", help="Apply the fixes (default: show them as a diff)."),
    diff: bool = typer.Option(False, "--diff", help="Show the diff (also with --write)."),
    unsafe_fixes: bool = typer.Option(False, "--unsafe-fixes", help="Also apply fixes that may change what transformers reads."),
    show_fixes: bool = typer.Option(False, "--show-fixes", help="List each fix and the finding it repairs."),
    follow_symlinks: bool = typer.Option(False, "--follow-symlinks", help="Write through a config.json that is a symlink (never into a Hugging Face cache blob)."),
    pr: bool = typer.Option(False, "--pr", help="For Hub repositories: show the pull request that would carry the fixes; with --write, open it."),
    consumer: Optional[List[str]] = ConsumerOpt,
    config: Optional[str] = ConfigOpt,
    isolated: bool = IsolatedOpt,
    revision: Optional[str] = RevisionOpt,
    targets_file: Optional[str] = TargetsFileOpt,
    hf_cache: bool = HfCacheOpt,
    jobs: int = JobsOpt,
    hub_timeout: float = HubTimeoutOpt,
) -> int:
    """Rewrite configs so older runtimes read the same model, without changing what transformers 5 reads."""
    from cfglint.edit import EditError, write_atomic
    from cfglint.fixing import fix_document
    from cfglint.session import Session
    from cfglint.targets import is_cache_blob

    session = Session(consumer, config=config, isolated=isolated)
    pending = 0
    for result in _check_targets(session, paths, targets_file, revision, jobs, hub_timeout, hf_cache):
        doc = result.ctx.doc
        remote = result.ctx.remote
        if remote is not None and not remote.readable:
            session.error(f"{result.display}: not fixed: {remote.notes[0].message}")
            continue
        if not doc.ok or result.ctx.intent is None:
            session.error(f"{result.display}: not fixed: {doc.syntax.message if doc.syntax else 'top level is not an object'}")
            continue
        try:
            outcome = fix_document(doc, result.consumers, result.rules, result.display, unsafe=unsafe_fixes, weights=result.ctx.weights)
        except EditError as err:
            session.error(f"{result.display}: not fixed: {err}")
            continue
        if not outcome.changed:
            continue
        if show_fixes:
            for d in outcome.applied:
                if d.fix is not None:  # applied diagnostics all carry one
                    sys.stdout.write(f"{d.path}:{d.line}:{d.column}: {d.code} {d.fix.message}\n")
        if diff or not write:
            sys.stdout.write(outcome.diff(result.display))
        if remote is not None:
            pending += _fix_remote(session, result, outcome, write=write, pr=pr, unsafe=unsafe_fixes)
            continue
        if not write:
            pending += 1
            continue
        target = result.path
        if target.is_symlink():
            if not follow_symlinks:
                session.error(f"{result.display}: is a symlink to {target.resolve()}; not written (use --follow-symlinks to write the target)")
                continue
            target = target.resolve()
        if is_cache_blob(target):
            session.error(f"{result.display}: is a Hugging Face cache blob ({target}), shared by every snapshot with the same bytes; not written (fix a copy: hf download ORG/NAME --local-dir DIR)")
            continue
        data = _encoded(outcome.after)
        try:
            write_atomic(target, data)
        except OSError as err:
            session.error(f"{result.display}: cannot write: {err.strerror or err}")
            continue
        n = len(outcome.applied)
        sys.stderr.write(f"fixed {n} finding{'s' if n != 1 else ''} in {result.display}\n")
    if session.unreadable:
        return EXIT_ERROR
    return EXIT_FINDINGS if pending else EXIT_CLEAN


def _baselines():
    from cfglint import baseline  # only runs that read or write a baseline pay for it

    return baseline


def _encoded(doc) -> bytes:
    return ("\ufeff" if doc.bom else "").encode() + doc.text[1 if doc.bom else 0:].encode("utf-8")


def _check_targets(session, paths, targets_file, revision, jobs, deadline, hf_cache):
    """The targets on the command line, then those in --targets-file, then (--hf-cache) the cached snapshots."""
    from cfglint.targets import TargetError, read_list

    targets = list(paths or [])
    if targets_file:
        try:
            targets += read_list(targets_file)
        except TargetError as err:
            raise UsageError(str(err)) from None
    if not targets and not hf_cache:
        raise UsageError("nothing to check: give TARGET..., --targets-file FILE or --hf-cache")
    return session.check_all(targets, revision=revision, jobs=jobs, deadline=deadline, hf_cache=hf_cache)


def _fix_remote(session, result, outcome, *, write: bool, pr: bool, unsafe: bool) -> int:
    """A Hub repository is never written in place: its fix is a pull request (a dry run without --write).
    Returns 1 when a fix is left pending."""
    from cfglint.hub.publish import open_pull_request, refusal

    remote = result.ctx.remote
    if not pr:
        if write:
            session.error(f"{result.display}: {refusal(remote)}")
            return 0
        return 1
    try:
        line = open_pull_request(remote, _encoded(outcome.after), outcome.applied, unsafe, dry_run=not write)
    except Exception as err:  # noqa: BLE001 - huggingface_hub's errors (auth, network, a moved branch) end this repository only
        from cfglint.hub.fetch import explain

        session.error(f"{result.display}: pull request not opened: {explain(err, remote.ref, 'the pull request')}")
        return 0
    sys.stderr.write(f"{result.display}: {line}\n")
    return 0 if write else 1


@app.command()
def rules(output_format: str = typer.Option("table", "--format", help="table or json.")) -> int:
    """List the rules."""
    import json

    from cfglint.rule import load_builtin

    loaded = load_builtin()
    if output_format == "json":
        data = [{"code": r.code, "name": r.name, "severity": r.severity.value, "summary": r.summary} for r in loaded]
        sys.stdout.write(json.dumps(data, indent=2) + "\n")
    elif output_format == "table":
        for r in loaded:
            sys.stdout.write(f"{r.code}  {r.name:<28} {r.severity.value:<8} {r.summary}\n")
    else:
        raise UsageError(f"unknown format {output_format!r} (choose from table, json)")
    return EXIT_CLEAN


@app.command()
def explain(code: str = typer.Argument(..., help="A rule code such as R001, or its name.")) -> int:
    """Print a rule's documentation."""
    from cfglint.rule import load_builtin

    for r in load_builtin():
        if code.upper() == r.code or code == r.name:
            sys.stdout.write(f"# {r.code} {r.name} ({r.severity.value})\n\n{r.doc.strip()}\n")
            return EXIT_CLEAN
    raise UsageError(f"unknown rule {code!r} (see `cfglint rules`)")


@app.command()
def sampling(
    path: str = typer.Argument(..., metavar="PATH", help="A model directory or its config.json."),
    consumer: Optional[List[str]] = typer.Option(None, "--consumer", "-c", metavar="NAME", help="Only this runtime (repeatable): candle, mlx-lm."),
    logits: Optional[str] = typer.Option(None, "--logits", metavar="FILE.npy", help="Measure on this logits vector (last position of a .npy array)."),
    logits_json: Optional[str] = typer.Option(None, "--logits-json", metavar="FILE", help="Measure on a logits vector saved as a JSON array."),
    prompt: Optional[str] = typer.Option(None, "--prompt", help="Measure on transformers 5's next-token logits for this prompt (needs the weights and the logits extra)."),
    output_format: str = typer.Option("table", "--format", help="table or json."),
) -> int:
    """Show the setting of each runtime's sampler that reproduces transformers' generate(), or how far off it is."""
    from cfglint.sampling.command import run as run_sampling

    return run_sampling(path, consumer, logits, logits_json, prompt, output_format)


@app.command()
def schema(
    name: str = typer.Argument(..., metavar="CONSUMER", help="A runtime, e.g. candle."),
    family: Optional[str] = typer.Option(None, "--family", metavar="MODEL_TYPE", help="A model family, e.g. qwen2 (default: llama)."),
) -> int:
    """Print what a runtime reads from config.json as JSON Schema, for any JSON Schema validator."""
    from cfglint.report.json_schema import consumer_schema

    sys.stdout.write(consumer_schema(name, family))
    return EXIT_CLEAN


def main(argv: list[str] | None = None) -> int:
    try:
        result = app(args=argv, prog_name="cfglint", standalone_mode=False)
    except Exit as exit_:
        return exit_.exit_code
    except UsageError as err:
        sys.stderr.write(f"cfglint: error: {err}\n")
        return EXIT_ERROR
    except ClickException as err:
        show = getattr(err, "show", None)
        show() if show else sys.stderr.write(f"cfglint: error: {err}\n")
        return EXIT_ERROR
    except Abort:
        sys.stderr.write("cfglint: aborted\n")
        return EXIT_ERROR
    except BrokenPipeError:
        return EXIT_ERROR
    return result if isinstance(result, int) else EXIT_CLEAN


def run() -> None:
    sys.exit(main())
