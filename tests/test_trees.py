"""A folder that is not a model directory: the model directories below it, in a stable order, without the
folders a repository does not hold models in (hidden, virtual environments, node_modules, .gitignore'd,
excluded), bounded on symlink loops; the same for view and fix."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from cfglint.cli import main
from tests.conftest import ROOT

TF5 = ROOT / "samples" / "smollm2-135m-instruct-tf5"  # D001, R001
CLEAN = ROOT / "samples" / "smollm2-135m-instruct"


@pytest.fixture
def tree(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    return tmp_path


def add(root: Path, where: str, sample: Path = TF5) -> None:
    (root / where).mkdir(parents=True, exist_ok=True)
    shutil.copy(sample / "config.json", root / where / "config.json")


def checked(capsys, *argv: str) -> tuple[int, list[str], str]:
    """The exit code, the folders of the files with findings (in report order, once each), and stderr."""
    code = main(["check", *argv, "--format", "json"])
    out, err = capsys.readouterr()
    folders = list(dict.fromkeys(str(Path(f["path"]).parent) for f in json.loads(out)))
    return code, folders, err


def test_a_tree_is_checked_in_sorted_order(tree, capsys):
    for where in ("models/b", "models/a/nested/x", "models/a10", "models/a2", "top"):
        add(tree, where)
    add(tree, "models/clean", CLEAN)
    code, folders, err = checked(capsys, ".")
    assert (code, err) == (1, "")
    assert folders == ["models/a/nested/x", "models/a10", "models/a2", "models/b", "top"]
    code, folders, _ = checked(capsys, "models")
    assert folders == ["models/a/nested/x", "models/a10", "models/a2", "models/b"]


def test_a_model_directory_is_not_searched_further(tree, capsys):
    add(tree, "run")
    add(tree, "run/checkpoint-500")
    assert checked(capsys, ".")[1] == ["run"]


def test_folders_without_models_are_left_out(tree, capsys):
    add(tree, "kept")
    for where in (".git/models", ".hidden/m", ".venv/m", "node_modules/pkg", "__pycache__/m", "env/lib/m", "conda/m"):
        add(tree, where)
    (tree / "env" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (tree / "conda" / "conda-meta").mkdir()
    assert checked(capsys, ".")[1] == ["kept"]
    # Named explicitly, a hidden folder is searched (and what is below it follows the same rules).
    assert checked(capsys, ".hidden")[1] == [".hidden/m"]


def test_gitignore_files_as_git_reads_them(tree, capsys):
    for where in ("a/keep", "a/drop", "b/out/m", "b/m", "build/m", "c/m", "c/special", "d/m"):
        add(tree, where)
    (tree / ".git").mkdir()
    (tree / ".gitignore").write_text("# comment\nbuild/\n/c/*\n!/c/special\n")
    (tree / "a" / ".gitignore").write_text("drop\n")
    (tree / "b" / ".gitignore").write_text("out/\n")
    (tree / ".git" / "info").mkdir()
    (tree / ".git" / "info" / "exclude").write_text("d\n")
    code, folders, _ = checked(capsys, ".")
    assert folders == ["a/keep", "b/m", "c/special"]
    # From a folder below the repository's top, the .gitignore files above it still apply.
    assert checked(capsys, "a")[1] == ["a/keep"]
    assert checked(capsys, "c")[1] == ["c/special"]
    everything = ["a/drop", "a/keep", "b/m", "b/out/m", "build/m", "c/m", "c/special", "d/m"]
    assert checked(capsys, ".", "--no-respect-gitignore")[1] == everything


def test_a_gitignored_config_does_not_make_a_model_directory(tree, capsys):
    add(tree, "m")
    add(tree, "other")
    (tree / ".gitignore").write_text("m/config.json\n")
    assert checked(capsys, ".")[1] == ["other"]


def test_settings_exclude_globs(tree, capsys):
    for where in ("legacy-1/m", "models/legacy-2", "models/current", "deep/x/archive/m"):
        add(tree, where)
    (tree / ".cfglint.toml").write_text('exclude = ["legacy-*", "deep/*/archive"]\n')
    assert checked(capsys, ".")[1] == ["models/current"]
    # A path named on the command line is checked whatever exclude says, as in ruff.
    assert checked(capsys, "legacy-1/m")[1] == ["legacy-1/m"]
    assert checked(capsys, ".", "--isolated")[1] == ["deep/x/archive/m", "legacy-1/m", "models/current", "models/legacy-2"]


def test_exclude_must_be_a_list_of_strings(tree, capsys):
    add(tree, "m")
    (tree / ".cfglint.toml").write_text('exclude = "legacy"\n')
    code = main(["check", "."])
    assert code == 2 and "exclude must be a list of strings" in capsys.readouterr().err


def test_symlink_loops_end(tree, capsys):
    add(tree, "real/m")
    os.symlink("..", tree / "real" / "up")
    os.symlink(tree / "real", tree / "alias")
    code, folders, err = checked(capsys, ".")
    assert (code, err) == (1, "")
    assert folders == ["alias/m"]  # the same folder reached twice is searched once, first in sorted order


def test_a_tree_with_nothing_to_check_is_an_error(tree, capsys):
    (tree / "docs").mkdir()
    add(tree, "node_modules/m")
    code = main(["check", "."])
    out, err = capsys.readouterr()
    assert code == 2 and err == "cfglint: error: .: no config.json in this directory or in any folder below it\n"
    assert "All checks passed" not in out and out == "No findings in what was read, but 1 target could not be read.\n"


def test_a_folder_with_only_generation_config_is_named(tree, capsys):
    add(tree, "ok", CLEAN)
    (tree / "half").mkdir()
    (tree / "half" / "generation_config.json").write_text("{}")
    code = main(["check", "."])
    out, err = capsys.readouterr()
    assert code == 2 and "half/generation_config.json: no config.json beside it" in err
    assert out == "No findings in what was read, but 1 target could not be read.\n"


def test_missing_path_summary_never_says_all_checks_passed(tree, capsys):
    add(tree, "m")
    for argv, expected in (
        (["absent"], "No findings in what was read, but 1 target could not be read.\n"),
        (["absent", "m", "--statistics"], "Found 2 findings; 1 target could not be read.\n"),
    ):
        assert main(["check", *argv]) == 2
        assert capsys.readouterr().out.endswith(expected)


def test_view_and_fix_take_a_tree(tree, capsys):
    add(tree, "a")
    add(tree, "b")
    add(tree, ".cache/c")
    assert main(["view", ".", "--format", "json"]) == 0
    assert [v["path"] for v in json.loads(capsys.readouterr().out)] == ["a/config.json", "b/config.json"]
    assert main(["fix", "."]) == 1
    out = capsys.readouterr().out
    assert out.count("--- a/config.json") == 1 and out.count("--- b/config.json") == 1
    assert main(["fix", ".", "--write"]) == 0
    assert "fixed 2 findings in a/config.json" in capsys.readouterr().err
    assert main(["check", ".", "--format", "concise"]) == 0
    assert (tree / ".cache" / "c" / "config.json").read_bytes() == (TF5 / "config.json").read_bytes()


def test_a_folder_that_cannot_be_listed_is_named_and_the_rest_is_checked(tree, capsys, monkeypatch):
    # Running as root, permissions cannot make a folder unlistable: the OS's refusal is raised in its place.
    from cfglint import discovery

    add(tree, "a")
    add(tree, "locked/m")
    real = os.scandir

    def scandir(path):
        if Path(path).name == "locked":
            raise PermissionError(13, "Permission denied")
        return real(path)

    monkeypatch.setattr(discovery.os, "scandir", scandir)
    code = main(["check", ".", "--format", "concise"])
    out, err = capsys.readouterr()
    assert code == 2 and err == "cfglint: error: locked: cannot be searched: Permission denied\n"
    assert "a/config.json:8:3: D001" in out


def test_gitignore_files_above_the_repository_do_not_apply(tree, capsys):
    (tree / ".gitignore").write_text("m\n")
    add(tree, "repo/m")
    (tree / "repo" / ".git").mkdir()
    assert checked(capsys, "repo")[1] == ["repo/m"]
    # Outside any repository the searched folder's own .gitignore files still apply.
    add(tree, "export/m")
    add(tree, "export/kept")
    (tree / "export" / ".gitignore").write_text("m\n")
    assert checked(capsys, "export")[1] == ["export/kept"]
