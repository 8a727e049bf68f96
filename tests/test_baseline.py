"""Baselines: record today's findings, then report only new ones; keyed by file, code and pointer, not line."""

from __future__ import annotations

import json
import shutil

import pytest

from cfglint.cli import main
from tests.conftest import ROOT

TF5 = ROOT / "samples" / "smollm2-135m-instruct-tf5"  # D001 at /dtype, R001 at /rope_parameters/rope_theta


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A model repository with a transformers-5 config, as the working directory."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    (tmp_path / "model").mkdir()
    shutil.copy(TF5 / "config.json", tmp_path / "model" / "config.json")
    return tmp_path


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def edit_config(repo, change) -> None:
    path = repo / "model" / "config.json"
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data, indent=4) + "\n")  # a different indentation moves every line


def test_write_then_check_against_the_baseline(repo, capsys):
    code, out, err = run(capsys, "check", "model", "--write-baseline", "baseline.json")
    assert code == 0 and out == "" and "recorded 2 findings in baseline.json" in err
    recorded = json.loads((repo / "baseline.json").read_text())
    assert recorded == {"cfglint-baseline": 1, "findings": [
        {"path": "model/config.json", "code": "D001", "pointer": "/dtype", "count": 1},
        {"path": "model/config.json", "code": "R001", "pointer": "/rope_parameters/rope_theta", "count": 1},
    ]}
    code, out, _ = run(capsys, "check", "model", "--baseline", "baseline.json", "--format", "concise")
    assert code == 0 and out == ""


def test_moved_lines_are_not_new_but_a_new_finding_is(repo, capsys):
    run(capsys, "check", "model", "--write-baseline", "baseline.json")
    edit_config(repo, lambda d: d.update({"_name_or_path": "x", "temperature": 0.7}))
    code, out, _ = run(capsys, "check", "model", "--baseline", "baseline.json", "--format", "json")
    reported = [(f["code"], f["pointer"]) for f in json.loads(out)]
    assert code == 1 and ("S001", "/temperature") in reported
    assert ("D001", "/dtype") not in reported and ("R001", "/rope_parameters/rope_theta") not in reported


def test_fixing_one_finding_leaves_the_other_absorbed(repo, capsys):
    run(capsys, "check", "model", "--write-baseline", "baseline.json")
    edit_config(repo, lambda d: d.update({"dtype": None, "torch_dtype": None}))  # D001 gone
    code, out, _ = run(capsys, "check", "model", "--baseline", "baseline.json", "--format", "json")
    assert code == 0 and json.loads(out) == []


def test_paths_are_relative_to_the_baseline_so_any_working_directory_works(repo, capsys, monkeypatch):
    (repo / "ci").mkdir()
    run(capsys, "check", "model", "--write-baseline", "ci/baseline.json")
    assert json.loads((repo / "ci" / "baseline.json").read_text())["findings"][0]["path"] == "../model/config.json"
    monkeypatch.chdir(repo / "model")
    code, out, _ = run(capsys, "check", ".", "--baseline", "../ci/baseline.json", "--format", "concise")
    assert code == 0 and out == ""


def test_only_the_same_file_code_and_pointer_match(repo, capsys):
    (repo / "baseline.json").write_text(json.dumps({"cfglint-baseline": 1, "findings": [
        {"path": "model/config.json", "code": "R001", "pointer": "/rope_parameters/rope_theta", "count": 1},
        {"path": "model/config.json", "code": "D001", "pointer": "/torch_dtype", "count": 1},
        {"path": "other/config.json", "code": "D001", "pointer": "/dtype", "count": 1},
    ]}))
    code, out, _ = run(capsys, "check", "model", "--baseline", "baseline.json", "--format", "json")
    assert code == 1 and [f["code"] for f in json.loads(out)] == ["D001"]


@pytest.mark.parametrize("content, message", [
    ("{", "not a cfglint baseline (invalid JSON"),
    ('{"findings": []}', "not a cfglint baseline (expected"),
    ('{"cfglint-baseline": 1, "findings": [{"path": "a"}]}', "each finding needs path, code and pointer"),
    ('{"cfglint-baseline": 1, "findings": [{"path": "a", "code": "R001", "pointer": "", "count": 0}]}', "bad entry"),
])
def test_a_bad_baseline_is_one_line_and_exit_2(content, message, repo, capsys):
    (repo / "baseline.json").write_text(content)
    code, out, err = run(capsys, "check", "model", "--baseline", "baseline.json")
    assert code == 2 and out == "" and message in err and err.count("\n") == 1


def test_a_missing_baseline_is_exit_2(repo, capsys):
    code, _, err = run(capsys, "check", "model", "--baseline", "absent.json")
    assert code == 2 and "absent.json" in err
