"""What a command-line path stands for: the config file, its stat, or a one-line error naming the path."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cfglint.targets import NoConfigHere, TargetError, located


def _model(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "config.json").write_text("{}")
    return folder


@pytest.mark.parametrize("name", ["model", "model.json", "model.gguf", "model.v1"])
def test_a_model_directory_stands_for_its_config(tmp_path, name):
    folder = _model(tmp_path / name)
    for arg in (str(folder), str(folder) + os.sep):
        path, info = located(arg)
        assert path == folder / "config.json"
        assert (info.st_dev, info.st_ino) == (os.stat(path).st_dev, os.stat(path).st_ino)


def test_a_relative_folder_keeps_its_spelling(tmp_path, monkeypatch):
    monkeypatch.chdir(_model(tmp_path / "m"))
    assert str(located(".")[0]) == "config.json"
    assert str(located(os.path.join("..", "m"))[0]) == os.path.join("..", "m", "config.json")


def test_files_beside_config_stand_for_it(tmp_path):
    folder = _model(tmp_path / "m")
    (folder / "generation_config.json").write_text("{}")
    assert located(str(folder / "config.json"))[0] == folder / "config.json"
    assert located(str(folder / "generation_config.json"))[0] == folder / "config.json"


@pytest.mark.parametrize(
    "make, error, words",
    [
        (lambda p: None, TargetError, "no such file or directory"),
        (lambda p: p.mkdir(), NoConfigHere, "no config.json in this directory"),
        (lambda p: (p.mkdir(), (p / "config.json").mkdir()), TargetError, "is a directory, not a config file"),
        (lambda p: (p.mkdir(), os.mkfifo(p / "config.json")), TargetError, "not a regular file"),
    ],
    ids=["missing", "no-config", "config-is-a-folder", "config-is-a-pipe"],
)
def test_what_is_not_a_config_file_is_one_error_naming_it(tmp_path, make, error, words):
    target = tmp_path / "m"
    make(target)
    with pytest.raises(error) as raised:
        located(str(target))
    assert type(raised.value) is error and words in str(raised.value) and str(target) in str(raised.value)

