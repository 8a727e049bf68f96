"""The check step of the GitHub Action (action.yml): `cfglint check` on the inputs, then annotations on
stdout, a Markdown job summary appended to $GITHUB_STEP_SUMMARY and outputs in $GITHUB_OUTPUT.

The inputs arrive as environment variables, never spliced into a shell line:
  CFGLINT_PATHS      targets, separated by whitespace (default "."; the whole repository)
  CFGLINT_CONSUMERS  runtimes, separated by spaces or commas (default: the configuration's, else all)
  CFGLINT_FAIL_ON    error, warning, info or never: the least severe finding that fails the step (default error)
  CFGLINT_ARGS       more `cfglint check` arguments, split as a POSIX shell splits them
The outputs are `findings` (how many), `errors` (targets not read) and `exit-code` (cfglint's own).
The step exits 1 when a finding is at or above fail-on, and 2 when cfglint exits 2.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

from cfglint.diagnostics import Diagnostic
from cfglint.report import github_format, markdown_format
from cfglint.report.full_format import headline
from cfglint.report.style import Style

FAIL_ON = {"error": 2, "warning": 1, "info": 0, "never": None}  # the least severity rank that fails
ERROR_PREFIX = "cfglint: error: "
SUMMARY_LIMIT = 1_000_000  # GitHub refuses a step summary over 1 MiB
MAX_ERRORS_LISTED = 100


class InputError(Exception):
    """An input the step cannot use; the message names it."""


def main(environ: Mapping[str, str] | None = None) -> int:
    env = dict(os.environ if environ is None else environ)
    try:
        command, threshold = _command(env)
    except InputError as err:
        return _finish(env, [], [str(err)], 2, None)
    with tempfile.TemporaryDirectory(prefix="cfglint-action-") as scratch:
        report = Path(scratch) / "findings.json"
        proc = subprocess.run([*command, "--output-file", str(report)], stderr=subprocess.PIPE, text=True, env=env, check=False)
        sys.stderr.write(proc.stderr)
        errors = [line[len(ERROR_PREFIX):] for line in proc.stderr.splitlines() if line.startswith(ERROR_PREFIX)]
        written = report.exists()
        findings = _findings(report) if written else []
    if findings is None:
        errors.append("the arguments changed the report's format; the findings could not be read")
        findings = []
    if not written and not errors:  # a usage error explains itself; anything else is named here
        errors.append(f"cfglint check exited {proc.returncode} without a report (see the step's log)")
    return _finish(env, findings, errors, proc.returncode, threshold)


def _finish(env: dict[str, str], findings: list[Diagnostic], errors: list[str], code: int, threshold: int | None) -> int:
    """Annotate, summarize, set the outputs; the step's own exit code."""
    _annotate(findings, errors)
    _append(env.get("GITHUB_STEP_SUMMARY"), summary(findings, errors))
    _append(env.get("GITHUB_OUTPUT"), f"findings={len(findings)}\nerrors={len(errors)}\nexit-code={code}\n")
    if code not in (0, 1) or errors:
        return 2
    failing = threshold is not None and any(d.severity.rank >= threshold for d in findings)
    return 1 if failing else 0


def summary(findings: list[Diagnostic], errors: list[str], limit: int = SUMMARY_LIMIT) -> str:
    """The job summary: a table per file, the run's headline, and the targets not read; within `limit`
    bytes, so a large run lists its first findings and says how many more there are."""
    shown = len(findings)
    while True:
        text = "## cfglint\n\n" + markdown_format.render(findings[:shown], {}, Style(False))
        if shown < len(findings):
            text += f"{len(findings) - shown} more findings are not listed here (the step's log has them all).\n\n"
        text += headline(len(findings), len(errors)) + "\n"
        if errors:
            text += "\nNot checked:\n\n" + "".join(f"- {markdown_format.cell(e)}\n" for e in errors[:MAX_ERRORS_LISTED])
        if len(text.encode()) < limit or shown == 0:
            return text + "\n"
        shown //= 2


def _command(env: dict[str, str]) -> tuple[list[str], int | None]:
    fail_on = env.get("CFGLINT_FAIL_ON", "").strip() or "error"
    if fail_on not in FAIL_ON:
        raise InputError(f"fail-on is {fail_on!r}; choose from {', '.join(FAIL_ON)}")
    try:
        paths = shlex.split(env.get("CFGLINT_PATHS", "")) or ["."]
        extra = shlex.split(env.get("CFGLINT_ARGS", ""))
    except ValueError as err:
        raise InputError(f"paths or args cannot be split: {err}") from None
    consumers = env.get("CFGLINT_CONSUMERS", "").replace(",", " ").split()
    command = [sys.executable, "-m", "cfglint", "check", *paths, *extra, "--format", "json"]
    for name in consumers:
        command += ["--runtime", name]
    return command, FAIL_ON[fail_on]


def _findings(report: Path) -> list[Diagnostic] | None:
    """The findings cfglint wrote, or None when the report is not a list of findings."""
    try:
        data = json.loads(report.read_text(encoding="utf-8"))
        return [Diagnostic.from_json(item) for item in data]
    except (OSError, ValueError, TypeError, KeyError):
        return None


def _annotate(findings: list[Diagnostic], errors: list[str]) -> None:
    text = github_format.render(findings, {}, Style(False))
    text += "".join(f"::error title=cfglint::{github_format.escape_data(e)}\n" for e in errors)
    sys.stdout.write(text)
    sys.stdout.flush()


def _append(path: str | None, text: str) -> None:
    if path:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(text)


if __name__ == "__main__":
    sys.exit(main())
