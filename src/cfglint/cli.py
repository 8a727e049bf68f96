"""The command line: `check`, `view`, `fix`, `rules`, `explain`. Every entry point returns an exit code.

Exit codes: 0 clean, 1 findings (or a pending fix), 2 usage error, unreadable input or internal error.
No `from __future__ import annotations` here: typer reads every command's annotations at each start, and
postponed (string) annotations take it twice as long to resolve.
"""

import copy
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

PathsArg = typer.Argument(None, metavar="TARGET...", help="Model directories, config.json files, folders to search for model directories, or Hub repository ids (org/name, org/name@revision).", show_default=False)
ConsumerOpt = typer.Option(None, "--runtime", "-r", "--consumer", "-c", metavar="NAME", help="Check only this runtime (repeatable).")
ConfigOpt = typer.Option(None, "--config", metavar="FILE", help="Use this configuration file instead of searching upwards from each path.")
IsolatedOpt = typer.Option(False, "--isolated", help="Ignore every configuration file.")
RevisionOpt = typer.Option(None, "--revision", metavar="REV", help="Branch, tag or commit of the Hub repositories named without @REV (default: main).")
TargetsFileOpt = typer.Option(None, "--targets-file", metavar="FILE", help="Also check the targets listed in FILE, one per line.")
HfCacheOpt = typer.Option(False, "--hf-cache", help="Also check every model snapshot in the local Hugging Face cache (read-only).")
JobsOpt = typer.Option(8, "--jobs", "-j", min=1, help="Hub repositories fetched at the same time.")
AgainstOpt = typer.Option(None, "--against", metavar="DIR", help="Compare every GGUF file with this source config (a model directory or its config.json) instead of the config.json beside it.")
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


GitignoreOpt = typer.Option(True, "--respect-gitignore/--no-respect-gitignore", help="In a tree search, leave out folders .gitignore files ignore.")


@app.command()
def check(
    paths: List[str] = PathsArg,
    consumer: Optional[List[str]] = ConsumerOpt,
    output_format: Optional[str] = typer.Option(None, "--format", help="full, concise, json, json-lines, sarif, github or markdown (default: github under GitHub Actions, full elsewhere)."),
    output_file: Optional[str] = typer.Option(None, "--output-file", "-o", metavar="FILE", help="Write the report to FILE instead of stdout."),
    statistics: bool = typer.Option(False, "--statistics", help="Count the findings per rule instead of listing them."),
    exit_zero: bool = typer.Option(False, "--exit-zero", help="Exit 0 even when there are findings."),
    baseline: Optional[str] = typer.Option(None, "--baseline", metavar="FILE", help="Report only findings not recorded in FILE."),
    write_baseline: Optional[str] = typer.Option(None, "--write-baseline", metavar="FILE", help="Record today's findings in FILE, report nothing, exit 0."),
    select: Optional[List[str]] = typer.Option(None, "--select", metavar="CODE", help="Run only these rule codes or prefixes, instead of the configuration's select (repeatable, or comma-separated)."),
    config: Optional[str] = ConfigOpt,
    isolated: bool = IsolatedOpt,
    respect_gitignore: bool = GitignoreOpt,
    revision: Optional[str] = RevisionOpt,
    targets_file: Optional[str] = TargetsFileOpt,
    hf_cache: bool = HfCacheOpt,
    jobs: int = JobsOpt,
    hub_timeout: float = HubTimeoutOpt,
    against: Optional[str] = AgainstOpt,
    logits: bool = typer.Option(False, "--logits", help="Also run the weights as transformers means them and as each runtime reads them, and compare logits and greedy tokens (needs the logits extra)."),
    prompt: Optional[str] = typer.Option(None, "--prompt", metavar="TEXT", help='With --logits: the prompt (default "The capital of France is").'),
    tokens: Optional[int] = typer.Option(None, "--tokens", metavar="N", help="With --logits: greedy tokens to compare (default 20)."),
    tolerance: Optional[float] = typer.Option(None, "--tolerance", metavar="T", help="With --logits: the largest max |logit diff| that still agrees (default 1e-4)."),
) -> int:
    """Report every place where a runtime will read a different model than transformers means."""
    from pathlib import Path

    from cfglint import api
    from cfglint.report import choose_format, write_report

    fmt = choose_format(output_format)
    measuring = None
    if logits or (prompt, tokens, tolerance) != (None, None, None):
        from cfglint.logits.command import LogitsRun

        measuring = LogitsRun.from_options(logits, prompt, tokens, tolerance)
    accepted = _baselines().load(Path(baseline)) if baseline else None
    report = api.check(
        paths, consumers=consumer, select=select, settings=config, isolated=isolated, respect_gitignore=respect_gitignore,
        revision=revision, targets_file=targets_file, hf_cache=hf_cache, jobs=jobs, hub_timeout=hub_timeout, on_error=_print_error,
        against=against,
    )
    if measuring is not None and report.session is not None:
        measuring.measure(report.results, report.session)
    if write_baseline:
        n = _baselines().write(Path(write_baseline), report.findings)
        sys.stderr.write(f"cfglint: recorded {n} finding{'s' if n != 1 else ''} in {write_baseline}\n")
        return EXIT_ERROR if report.errors else EXIT_CLEAN
    if accepted is not None:
        report.findings = accepted.new(report.findings)
    if measuring is not None:
        report.findings = measuring.annotate(report.findings)
    write_report(fmt, report.results, report.findings, output=output_file, statistics=statistics, unreadable=len(report.errors))
    code = report.exit_code
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
    respect_gitignore: bool = GitignoreOpt,
    revision: Optional[str] = RevisionOpt,
    targets_file: Optional[str] = TargetsFileOpt,
    hf_cache: bool = HfCacheOpt,
    jobs: int = JobsOpt,
    hub_timeout: float = HubTimeoutOpt,
) -> int:
    """Show what transformers means and what each runtime reads, side by side."""
    from cfglint import api

    if output_format not in ("table", "json"):
        raise UsageError(f"unknown format {output_format!r} (choose from table, json)")
    seen = api.view(
        paths, consumers=consumer, settings=config, isolated=isolated, respect_gitignore=respect_gitignore,
        revision=revision, targets_file=targets_file, hf_cache=hf_cache, jobs=jobs, hub_timeout=hub_timeout, on_error=_print_error,
    )
    sys.stdout.write(seen.render(output_format))
    return seen.exit_code


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
    respect_gitignore: bool = GitignoreOpt,
    revision: Optional[str] = RevisionOpt,
    targets_file: Optional[str] = TargetsFileOpt,
    hf_cache: bool = HfCacheOpt,
    jobs: int = JobsOpt,
    hub_timeout: float = HubTimeoutOpt,
    against: Optional[str] = AgainstOpt,
) -> int:
    """Rewrite configs so older runtimes read the same model, without changing what transformers 5 reads."""
    from cfglint import api

    fixed = api.fix(
        paths, write=write, unsafe=unsafe_fixes, consumers=consumer, settings=config, isolated=isolated,
        respect_gitignore=respect_gitignore, follow_symlinks=follow_symlinks, pr=pr, revision=revision,
        targets_file=targets_file, hf_cache=hf_cache, jobs=jobs, hub_timeout=hub_timeout, on_error=_print_error,
        against=against,
    )
    for change in fixed.files:
        if show_fixes:
            for d in change.applied:
                sys.stdout.write(f"{d.path}:{d.line}:{d.column}: {d.code} {d.fix.message if d.fix else ''}\n")
        if diff or not write:
            sys.stdout.write(change.diff)
        if change.message:
            sys.stderr.write(f"{change.path}: {change.message}\n")
        elif change.written:
            n = len(change.applied)
            sys.stderr.write(f"fixed {n} finding{'s' if n != 1 else ''} in {change.path}\n")
    return fixed.exit_code


def _print_error(message: str) -> None:
    sys.stderr.write(f"cfglint: error: {message}\n")


def _baselines():
    from cfglint import baseline  # only runs that read or write a baseline pay for it

    return baseline


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
    consumer: Optional[List[str]] = typer.Option(None, "--runtime", "-r", "--consumer", "-c", metavar="NAME", help="Only this runtime (repeatable): candle, mlx-lm."),
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


def _app_for(argv: list[str]) -> typer.Typer:
    """The app with only the command argv names, when it names one first: typer builds every command's
    options at each start, and one command's are all a run needs (help and errors read the same)."""
    named = [c for c in app.registered_commands if argv and (c.name or c.callback.__name__) == argv[0]]  # type: ignore[union-attr]
    if not named:
        return app
    one = copy.copy(app)
    one.registered_commands = named
    return one


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        result = _app_for(argv)(args=argv, prog_name="cfglint", standalone_mode=False)
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
    from cfglint.batch import COMMAND_THRESHOLD, fewer_collections

    with fewer_collections(COMMAND_THRESHOLD):  # the whole command, its report too
        sys.exit(main())
