"""`check --format markdown`: a table per file for job summaries and pull-request comments."""

from __future__ import annotations

import os

from cfglint.cli import main
from cfglint.diagnostics import Diagnostic, Effect, Severity
from cfglint.report import markdown_format
from cfglint.report.style import Style
from tests.conftest import ROOT

GOLDEN = ROOT / "tests" / "golden" / "markdown-report.md"
SAMPLES = ["samples/llama-3.2-1b-tf5", "samples/gemma-2-2b", "samples/smollm2-135m-instruct"]


def test_markdown_report_matches_golden(in_repo, capsys):
    code = main(["check", *SAMPLES, "--format", "markdown"])
    out = capsys.readouterr().out
    if os.environ.get("CFGLINT_UPDATE_GOLDEN"):
        GOLDEN.write_text(out)
    assert code == 1 and out == GOLDEN.read_text()


def test_a_clean_run_is_one_line(in_repo, capsys):
    assert main(["check", "samples/smollm2-135m-instruct", "--format", "markdown"]) == 0
    assert capsys.readouterr().out == "All checks passed!\n"


def test_cells_cannot_break_the_table_or_open_html():
    d = Diagnostic(
        code="X001", name="odd|name", severity=Severity.WARNING, message="a | b <script>\nnext `code`",
        path="we`ird|dir/config.json", line=3, column=4, pointer="/a|b",
        effects=(Effect("candle", "uses", 1),),
    )
    text = markdown_format.render([d], {}, Style(False))
    assert text == (
        "### `we'ird\\|dir/config.json`\n\n"
        + markdown_format.HEADER
        + "| `X001` odd\\|name (warning) | 3:4 `/a\\|b` | a \\| b &lt;script&gt;<br>next `code` | candle |\n\n"
    )
    # Every row has exactly the table's four cells once escaped pipes are set aside.
    row = text.splitlines()[-2]
    assert row.replace("\\|", "").count("|") == 5
