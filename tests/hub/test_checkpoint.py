"""A repository's checkpoint from its file list and headers agrees with the local reading of the same files."""

from __future__ import annotations

import json
import shutil

import pytest

from cfglint.hub.checkpoint import assemble, cached
from cfglint.weights import find
from cfglint.weights.header import read_header
from tests.conftest import SAMPLES


def readers(directory):
    """What fetch.py injects, served from a local folder."""
    def read_index():
        return (directory / "model.safetensors.index.json").read_bytes()

    def read_header_of(name):
        with (directory / name).open("rb") as stream:
            return read_header(stream, (directory / name).stat().st_size)

    return read_index, read_header_of


def summary(weights):
    if weights is None:
        return None
    return (weights.files, sorted(weights.tensors), weights.stray, [(p.file, p.kind) for p in weights.problems], weights.pickles, weights.complete)


@pytest.mark.parametrize("sample", ["weights-consistent", "weights-sharded", "weights-sharded-stray", "weights-truncated", "weights-layers-missing"])
def test_the_same_files_read_the_same_way(sample):
    directory = SAMPLES / sample
    names = {p.name for p in directory.iterdir()}
    assert summary(assemble(directory, names, *readers(directory))) == summary(find(directory))


def test_a_shard_the_repository_lacks_or_a_path_is_unreadable(tmp_path):
    directory = tmp_path / "m"
    shutil.copytree(SAMPLES / "weights-sharded", directory)
    index = json.loads((directory / "model.safetensors.index.json").read_text())
    first = next(iter(index["weight_map"]))
    index["weight_map"][first] = "../outside.safetensors"
    (directory / "model.safetensors.index.json").write_text(json.dumps(index))
    names = {p.name for p in directory.iterdir()} - {"model-00002-of-00002.safetensors"}

    weights = assemble(directory, names, *readers(directory))

    messages = [p.message for p in weights.problems if p.kind == "unreadable"]
    assert "names shard '../outside.safetensors', which is not a file name in the repository; not read" in messages
    assert "names shard model-00002-of-00002.safetensors, which is not in the repository" in messages
    assert not weights.complete


def test_an_index_that_is_not_json_is_one_problem(tmp_path):
    weights = assemble(tmp_path, {"model.safetensors.index.json"}, lambda: b"{nope", lambda name: pytest.fail("no shard is read"))
    assert [(p.file, p.kind) for p in weights.problems] == [("model.safetensors.index.json", "unreadable")]
    assert weights.problems[0].message.startswith("is not JSON")


def test_no_weights_and_pickles_only(tmp_path):
    never = lambda *a: pytest.fail("nothing to read")  # noqa: E731
    assert assemble(tmp_path, {"config.json", "README.md"}, never, never) is None
    assert assemble(tmp_path, {"config.json", "pytorch_model.bin"}, never, never).pickles == ["pytorch_model.bin"]


def test_a_partly_downloaded_snapshot_has_no_weights_to_check(tmp_path):
    snapshot = tmp_path / "snapshot"
    shutil.copytree(SAMPLES / "weights-sharded", snapshot)
    assert summary(cached(snapshot)) == summary(find(snapshot))  # complete: read as a local directory
    (snapshot / "model-00002-of-00002.safetensors").unlink()
    assert cached(snapshot) is None  # one shard not downloaded: unknown, not broken
    (snapshot / "model.safetensors.index.json").write_text("{nope")
    assert [p.kind for p in cached(snapshot).problems] == ["unreadable"]  # a broken index is broken wherever it is
    only_config = tmp_path / "config-only"
    only_config.mkdir()
    (only_config / "config.json").write_text("{}")
    assert cached(only_config) is None
