"""Output formats of `check`: json-lines, SARIF (validated against the official schema), GitHub annotations,
-o, --statistics, --exit-zero, and color only on a terminal."""

from __future__ import annotations

import hashlib
import json
import os
import pty
import re
import subprocess
import sys

import pytest

from cfglint.cli import main
from cfglint.diagnostics import Diagnostic, Severity
from cfglint.report import github_format
from tests.conftest import ROOT, sample_dirs
from tests.family import family

TF5 = "samples/smollm2-135m-instruct-tf5"
LLAMA_TF5 = "samples/llama-3.2-1b-tf5"
SARIF_DIR = ROOT / "tests" / "sarif"
SARIF_SCHEMA = SARIF_DIR / "sarif-schema-2.1.0.json"
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def sarif_validator():
    from jsonschema import Draft4Validator

    schema = json.loads(SARIF_SCHEMA.read_text())
    Draft4Validator.check_schema(schema)
    return Draft4Validator(schema, format_checker=Draft4Validator.FORMAT_CHECKER)


def test_vendored_sarif_schema_is_the_recorded_file():
    recorded = re.search(r"sha256: ([0-9a-f]{64})", (SARIF_DIR / "README.md").read_text()).group(1)
    assert hashlib.sha256(SARIF_SCHEMA.read_bytes()).hexdigest() == recorded


def test_json_lines_holds_the_json_objects_one_per_line(in_repo, capsys):
    _, listed, _ = run(capsys, "check", LLAMA_TF5, "--format", "json")
    code, lines, _ = run(capsys, "check", LLAMA_TF5, "--format", "json-lines")
    assert code == 1 and len(lines.splitlines()) == 3
    assert [json.loads(line) for line in lines.splitlines()] == json.loads(listed)


@pytest.mark.parametrize("sample", [p.name for p in sample_dirs()])
def test_sarif_of_every_sample_is_valid(sample, in_repo, capsys):
    _, out, _ = run(capsys, "check", f"samples/{sample}", "--format", "sarif")
    log = json.loads(out)
    errors = [e.message for e in sarif_validator().iter_errors(log)]
    assert errors == []
    _, listed, _ = run(capsys, "check", f"samples/{sample}", "--format", "json")
    assert [r["ruleId"] for r in log["runs"][0]["results"]] == [f["code"] for f in json.loads(listed)]


def test_sarif_describes_only_the_rules_that_fired(in_repo, capsys):
    _, out, _ = run(capsys, "check", LLAMA_TF5, "--format", "sarif")
    run_ = json.loads(out)["runs"][0]
    rules = run_["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == ["D001", "R001", "R002"]
    r001 = rules[1]
    assert r001["name"] == "rope-theta-only-nested" and r001["defaultConfiguration"] == {"level": "error"}
    assert "## Fix safety" in r001["help"]["markdown"]
    for result in run_["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
    r002 = run_["results"][2]
    assert r002["properties"]["pointer"] == "/rope_parameters/rope_type"
    assert r002["locations"][0]["physicalLocation"]["region"] == {"startLine": 30, "startColumn": 5}
    assert r002["locations"][0]["physicalLocation"]["artifactLocation"] == {"uri": f"{LLAMA_TF5}/config.json", "uriBaseId": "%SRCROOT%"}


def apply_replacement(text: str, replacement: dict) -> str:
    """Apply a SARIF replacement (1-based lines and columns, end exclusive) to text with \\n line ends."""
    starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]
    region = replacement["deletedRegion"]
    start = starts[region["startLine"] - 1] + region["startColumn"] - 1
    end = starts[region["endLine"] - 1] + region["endColumn"] - 1
    return text[:start] + replacement["insertedContent"]["text"] + text[end:]


def test_sarif_safe_fixes_are_replacements_that_do_what_fix_does(in_repo, capsys, tmp_path):
    original = (ROOT / TF5 / "config.json").read_text()
    _, out, _ = run(capsys, "check", TF5, "--format", "sarif")
    results = {r["ruleId"]: r for r in json.loads(out)["runs"][0]["results"]}
    [fix] = results["R001"]["fixes"]
    [change] = fix["artifactChanges"]
    [replacement] = change["replacements"]
    patched = apply_replacement(original, replacement)
    assert json.loads(patched) == dict(json.loads(original), rope_theta=100000)
    # The same edit `cfglint fix` makes, line for line.
    (tmp_path / "config.json").write_text(original)
    main(["fix", str(tmp_path), "--write", "--isolated", "--consumer", "candle"])
    fixed_lines = (tmp_path / "config.json").read_text().splitlines()
    assert set(patched.splitlines()) <= set(fixed_lines)


def test_sarif_has_no_fixes_for_unsafe_or_display_only_ones(write_config, capsys):
    conflict = write_config(family()["conflicting-theta"])  # R003: unsafe fix
    sampling = write_config(dict(family()["tf4-default"], temperature=0.7))  # S001: display-only
    _, out, _ = run(capsys, "check", conflict, sampling, "--format", "sarif")
    log = json.loads(out)
    assert sarif_validator().is_valid(log)
    results = {r["ruleId"]: r for r in log["runs"][0]["results"]}
    assert {"R003", "S001"} <= set(results)
    assert "fixes" not in results["R003"] and "fixes" not in results["S001"]
    uri = results["S001"]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == (sampling / "config.json").as_uri()  # absolute paths become file URIs


def test_sarif_with_an_unparseable_file_is_valid(write_config, capsys):
    broken = write_config(b'{"hidden_size": 576,}')
    _, out, _ = run(capsys, "check", broken, "--format", "sarif")
    log = json.loads(out)
    assert sarif_validator().is_valid(log)
    assert [r["ruleId"] for r in log["runs"][0]["results"]] == ["J001"]


def test_github_annotations(in_repo, capsys):
    code, out, _ = run(capsys, "check", TF5, "--format", "github")
    lines = out.splitlines()
    assert code == 1 and len(lines) == 2
    assert lines[0].startswith(f"::warning file={TF5}/config.json,line=8,col=3,title=D001::dtype ")
    assert lines[1].startswith(f"::error file={TF5}/config.json,line=27,col=5,title=R001::rope_theta 100000")


def test_github_escapes_what_the_runner_would_misread():
    d = Diagnostic("X001", "x", Severity.INFO, "100% sure\nsecond line", "a,b:c/config.json", 1, 2, "")
    assert github_format.render([d], {}, None) == "::notice file=a%2Cb%3Ac/config.json,line=1,col=2,title=X001::100%25 sure%0Asecond line\n"


@pytest.mark.parametrize("env, args, expected", [
    ({"GITHUB_ACTIONS": "true"}, [], "::"),
    ({"GITHUB_ACTIONS": "true"}, ["--format", "concise"], f"{TF5}/config.json:8:3: D001"),
    ({"GITHUB_ACTIONS": ""}, [], f"{TF5}/config.json:8:3: D001 [*]"),
])
def test_github_is_the_default_inside_github_actions(env, args, expected, in_repo, capsys, monkeypatch):
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    _, out, _ = run(capsys, "check", TF5, *args)
    assert out.startswith(expected)


def test_output_file_gets_the_report_without_color(in_repo, capsys, tmp_path, monkeypatch):
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setenv("FORCE_COLOR", "1")
    _, colored, _ = run(capsys, "check", TF5)
    assert ANSI.search(colored)
    target = tmp_path / "report.txt"
    code, out, err = run(capsys, "check", TF5, "-o", target)
    assert code == 1 and out == "" and err == ""
    assert target.read_text() == ANSI.sub("", colored)
    code, _, err = run(capsys, "check", TF5, "-o", tmp_path / "missing" / "report.txt")
    assert code == 2 and "cannot write" in err and err.count("\n") == 1


def test_statistics(in_repo, capsys, write_config):
    sampling = write_config(dict(family()["tf5-llama3"], temperature=0.7))
    paths = (LLAMA_TF5, TF5, sampling)
    _, listed, _ = run(capsys, "check", *paths, "--format", "json")
    findings = json.loads(listed)
    code, out, _ = run(capsys, "check", *paths, "--statistics")
    assert code == 1
    lines = out.splitlines()
    assert lines[-1] == f"Found {len(findings)} findings."
    rows = [re.fullmatch(r"(\d+)  ([A-Z]\d{3})  (\[\*\]|   ) (\S+)", line).groups() for line in lines[:-1]]
    counted = [(int(n), c) for n, c, _, _ in rows]
    assert counted == sorted(counted, key=lambda row: (-row[0], row[1]))  # most frequent first, then by code
    for n, c, mark, name in rows:
        mine = [f for f in findings if f["code"] == c]
        assert int(n) == len(mine) and name == mine[0]["name"]
        assert (mark == "[*]") == any(f["fix"] and f["fix"]["applicability"] == "safe" for f in mine)
    assert ("3", "D001", "[*]", "dtype-without-torch-dtype") in rows and ("1", "S001", "   ", "sampling-keys-in-config") in rows
    _, out, _ = run(capsys, "check", LLAMA_TF5, "--statistics", "--format", "json")
    assert json.loads(out)[0] == {"code": "D001", "name": "dtype-without-torch-dtype", "count": 1, "fixable": True}
    code, out, _ = run(capsys, "check", "samples/smollm2-135m-instruct", "--statistics")
    assert code == 0 and out == "All checks passed!\n"


def test_exit_zero(in_repo, capsys, tmp_path):
    code, out, _ = run(capsys, "check", TF5, "--exit-zero", "--format", "concise")
    assert code == 0 and "R001" in out
    code, _, _ = run(capsys, "check", TF5, tmp_path / "absent", "--exit-zero")
    assert code == 2  # unreadable input is still an error


def test_unknown_format_lists_the_formats(in_repo, capsys):
    code, _, err = run(capsys, "check", TF5, "--format", "xml")
    assert code == 2 and "full, concise, json, json-lines, sarif, github" in err


def _run_on_a_terminal(env: dict) -> str:
    """Run `cfglint check` with its stdout on a pseudo-terminal and return what it printed."""
    controller, terminal = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "cfglint", "check", TF5],
        cwd=ROOT, stdout=terminal, stderr=subprocess.DEVNULL, env=env,
    )
    os.close(terminal)
    chunks = []
    while True:
        try:
            chunk = os.read(controller, 4096)
        except OSError:  # the terminal closes when the process exits
            break
        if not chunk:
            break
        chunks.append(chunk)
    proc.wait()
    os.close(controller)
    return b"".join(chunks).decode()


def test_color_only_on_a_terminal_and_never_with_NO_COLOR():
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    assert ANSI.search(_run_on_a_terminal(env))
    assert not ANSI.search(_run_on_a_terminal(dict(env, NO_COLOR="1")))
    piped = subprocess.run([sys.executable, "-m", "cfglint", "check", TF5], cwd=ROOT, capture_output=True, text=True, env=env)
    assert "R001" in piped.stdout and not ANSI.search(piped.stdout)
