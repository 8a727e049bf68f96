"""Which targets are Hub repositories, and at which revision."""

from __future__ import annotations

import pytest

from cfglint.hub.refs import RepoRef, parse


@pytest.mark.parametrize(
    ("arg", "revision", "expected"),
    [
        ("HuggingFaceTB/SmolLM2-135M-Instruct", None, RepoRef("HuggingFaceTB/SmolLM2-135M-Instruct", "main")),
        ("org/name", "v2", RepoRef("org/name", "v2")),
        ("org/name@v1.0", "v2", RepoRef("org/name", "v1.0")),  # written on the target, it wins
        ("org/name@refs/pr/3", None, RepoRef("org/name", "refs/pr/3")),
        ("hf://org/name", None, RepoRef("org/name", "main")),
        ("hf://org/name@refs%2Fpr%2F3/config.json", None, RepoRef("org/name", "refs/pr/3")),  # what cfglint prints
    ],
)
def test_repository_ids(arg, revision, expected, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert parse(arg, revision) == expected


@pytest.mark.parametrize("arg", ["name", "org/name/config.json", "org--x/name", "org/na..me", "-org/name", "org/name.git", "org/name@", "./org/name", "/abs/path", "a/" + "b" * 97])
def test_not_repository_ids(arg, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert parse(arg) is None


def test_an_existing_path_or_folder_stays_local(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "models" / "llama").mkdir(parents=True)
    assert parse("models/llama") is None  # exists
    assert parse("models/typo") is None  # its folder exists: a mistyped local path, not a repository
    assert parse("hf://models/llama") == RepoRef("models/llama", "main")  # the scheme says which is meant


def test_display_path_round_trips():
    ref = RepoRef("org/name", "refs/pr/3")
    assert ref.url == "hf://org/name@refs%2Fpr%2F3"
    assert parse(ref.url + "/config.json") == ref
