"""The pre-commit hooks, run by real pre-commit against this checkout in a scratch model repository."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

PRE_COMMIT = Path(sys.executable).parent / "pre-commit"


@pytest.fixture
def model_repo(tmp_path, monkeypatch):
    repo = tmp_path / "model"
    repo.mkdir()
    monkeypatch.setenv("PRE_COMMIT_HOME", str(tmp_path / "pre-commit-home"))
    for args in (["init", "-q"], ["config", "user.email", "t@example.com"], ["config", "user.name", "t"]):
        subprocess.run(["git", *args], cwd=repo, check=True)
    return repo


def try_repo(repo: Path, hook: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(PRE_COMMIT), "try-repo", str(ROOT), hook, "--all-files"],
        cwd=repo, capture_output=True, text=True, env=dict(os.environ, NO_COLOR="1"),
    )


def add_config(repo: Path, sample: str) -> Path:
    target = repo / "config.json"
    shutil.copy(ROOT / "samples" / sample / "config.json", target)
    subprocess.run(["git", "add", "config.json"], cwd=repo, check=True)
    return target


def test_check_hook_passes_a_clean_config(model_repo):
    add_config(model_repo, "smollm2-135m-instruct")
    proc = try_repo(model_repo, "cfglint-check")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "cfglint check" in proc.stdout and "Passed" in proc.stdout


def test_check_hook_fails_a_transformers5_config(model_repo):
    add_config(model_repo, "smollm2-135m-instruct-tf5")
    proc = try_repo(model_repo, "cfglint-check")
    assert proc.returncode == 1
    assert "Failed" in proc.stdout and "R001" in proc.stdout


def test_fix_hook_modifies_then_passes(model_repo):
    config = add_config(model_repo, "smollm2-135m-instruct-tf5")
    first = try_repo(model_repo, "cfglint-fix")
    assert first.returncode == 1 and "files were modified by this hook" in first.stdout
    assert '"rope_theta": 100000,\n  "tie_word_embeddings"' in config.read_text()
    subprocess.run(["git", "add", "config.json"], cwd=model_repo, check=True)
    second = try_repo(model_repo, "cfglint-fix")
    assert second.returncode == 0, second.stdout
    assert try_repo(model_repo, "cfglint-check").returncode == 0
