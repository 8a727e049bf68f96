"""The GitHub Action: its check step, as action.yml writes it, run here against a scratch repository with
the GitHub environment variables set; the annotations, the job summary and the outputs it leaves."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT

ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
INPUT = re.compile(r"\$\{\{ inputs\.([a-z-]+) \}\}")


@pytest.fixture
def repo(tmp_path):
    work = tmp_path / "repo"
    for where, sample in (("models/tf5", "smollm2-135m-instruct-tf5"), ("models/clean", "smollm2-135m-instruct"), (".venv/lib/m", "llama-3.2-1b-tf5")):
        (work / where).mkdir(parents=True)
        shutil.copy(ROOT / "samples" / sample / "config.json", work / where / "config.json")
    (work / ".git").mkdir()
    return work


def run_step(repo: Path, **inputs: str) -> tuple[subprocess.CompletedProcess, str, dict[str, str]]:
    """The check step's script under bash, as the runner would start it: its env with the inputs (or their
    defaults) substituted, in the workspace, with an environment whose python is this one."""
    [step] = [s for s in ACTION["runs"]["steps"] if s.get("id") == "check"]
    given = {name: inputs.get(name.replace("-", "_"), spec.get("default", "")) for name, spec in ACTION["inputs"].items()}
    runner = repo.parent / "runner"
    (runner / "cfglint-venv" / "bin").mkdir(parents=True, exist_ok=True)
    python = runner / "cfglint-venv" / "bin" / "python"
    python.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    python.chmod(0o755)
    summary, output = repo.parent / "summary.md", repo.parent / "output.txt"
    summary.write_text("earlier step\n")
    output.write_text("")
    env = {
        "PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT / "src"), "HOME": str(repo.parent),
        "GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": str(repo), "RUNNER_TEMP": str(runner),
        "GITHUB_STEP_SUMMARY": str(summary), "GITHUB_OUTPUT": str(output),
        **{key: INPUT.sub(lambda m: given[m.group(1)], value) for key, value in step["env"].items()},
    }
    assert step["working-directory"] == "${{ github.workspace }}" and step["shell"] == "bash"
    proc = subprocess.run(["bash", "-c", step["run"]], cwd=repo, env=env, capture_output=True, text=True, timeout=120)
    outputs = dict(line.split("=", 1) for line in output.read_text().splitlines())
    return proc, summary.read_text(), outputs


def test_findings_annotate_summarize_and_fail(repo):
    proc, summary, outputs = run_step(repo)
    assert proc.returncode == 1, proc.stderr
    assert outputs == {"findings": "2", "errors": "0", "exit-code": "1"}
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("::warning file=models/tf5/config.json,line=8,col=3,title=D001::dtype \"bfloat16\" has no torch_dtype twin")
    assert lines[1].startswith("::error file=models/tf5/config.json,line=27,col=5,title=R001::rope_theta 100000 is only in rope_parameters")
    assert len(lines) == 2  # the virtual environment's model is not checked, the clean model has nothing
    assert summary.startswith("earlier step\n## cfglint\n\n### `models/tf5/config.json`\n\n| rule | location | message | runtimes affected |\n")
    assert "| `R001` rope-theta-only-nested (error) | 27:5 `/rope_parameters/rope_theta` |" in summary
    assert summary.endswith("\nFound 2 findings.\n\n")


@pytest.mark.parametrize(
    "inputs, code, findings",
    [
        ({"fail_on": "never"}, 0, "2"),
        ({"args": "--select D"}, 0, "1"),  # D001 is a warning; the step fails on errors
        ({"args": "--select D", "fail_on": "warning"}, 1, "1"),
        ({"consumers": "mistralrs, candle", "paths": "models/clean"}, 0, "0"),
    ],
)
def test_inputs_choose_what_fails(repo, inputs, code, findings):
    proc, summary, outputs = run_step(repo, **inputs)
    assert (proc.returncode, outputs["findings"]) == (code, findings), proc.stderr
    if findings == "0":
        assert summary.endswith("## cfglint\n\nAll checks passed!\n\n") and proc.stdout == ""


def test_an_unreadable_target_fails_the_step_and_is_named(repo):
    proc, summary, outputs = run_step(repo, paths="models/absent models/tf5")
    assert proc.returncode == 2 and outputs == {"findings": "2", "errors": "1", "exit-code": "2"}
    assert "::error title=cfglint::models/absent: no such file or directory" in proc.stdout.splitlines()
    assert "Found 2 findings; 1 target could not be read." in summary
    assert summary.endswith("Not checked:\n\n- models/absent: no such file or directory\n\n")


@pytest.mark.parametrize("inputs, message", [({"fail_on": "sometimes"}, "fail-on is 'sometimes'"), ({"args": "--bogus"}, "cfglint check exited 2 without a report")])
def test_bad_inputs_fail_with_a_message(repo, inputs, message):
    proc, summary, outputs = run_step(repo, **inputs)
    assert proc.returncode == 2 and message in proc.stdout and outputs["exit-code"] == "2"
    assert "All checks passed" not in summary and message in summary


def test_the_action_installs_its_own_checkout():
    [install] = [s for s in ACTION["runs"]["steps"] if s.get("name") == "Install cfglint"]
    assert install["env"]["CFGLINT_ACTION_PATH"] == "${{ github.action_path }}"
    assert 'pip install --quiet --disable-pip-version-check "$CFGLINT_ACTION_PATH"' in install["run"]
    assert ACTION["runs"]["using"] == "composite"
    assert set(ACTION["outputs"]) == {"findings", "errors", "exit-code"}


def test_a_large_run_keeps_the_summary_within_githubs_limit():
    from cfglint.diagnostics import Diagnostic, Severity
    from cfglint.github_action import SUMMARY_LIMIT, summary

    many = [Diagnostic("R001", "rope-theta-only-nested", Severity.ERROR, "x" * 200, f"m{i}/config.json", 1, 1, "/rope_theta") for i in range(20_000)]
    text = summary(many, ["gone: no such file or directory"])
    assert len(text.encode()) < SUMMARY_LIMIT and text.count("| `R001`") > 1000
    shown = text.count("| `R001`")
    assert f"{20_000 - shown} more findings are not listed here" in text and "Found 20000 findings; 1 target could not be read." in text
    assert summary(many[:3], []).count("| `R001`") == 3
