"""Every rule on its fixture (tests/rule_fixtures.py): exactly the findings it lists, and the fixed text."""

from __future__ import annotations

import json
import shutil
import struct

import pytest

from cfglint.cli import main
from cfglint.rule import load_builtin
from tests.conftest import SAMPLES
from tests.rule_fixtures import FIXTURES


def tiny_safetensors() -> bytes:
    header = json.dumps({"model.embed_tokens.weight": {"dtype": "F32", "shape": [1, 1], "data_offsets": [0, 4]}}).encode()
    return struct.pack("<Q", len(header)) + header + b"\0\0\0\0"


def with_extra_tensor(data: bytes) -> bytes:
    size = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8 : 8 + size])
    body = data[8 + size :]
    header["model.extra_projection.weight"] = {"dtype": "F32", "shape": [1], "data_offsets": [len(body), len(body) + 4]}
    encoded = json.dumps(header).encode()
    return struct.pack("<Q", len(encoded)) + encoded + body + b"\0\0\0\0"


def lay_out(fixture: dict, root) -> str:
    if "target" in fixture:
        return fixture["target"]
    model = root / "model"
    if "sample" in fixture:
        shutil.copytree(SAMPLES / fixture["sample"], model)
    else:
        model.mkdir()
        config = fixture["config"]
        (model / "config.json").write_bytes((config if isinstance(config, str) else json.dumps(config, indent=2) + "\n").encode())
    for name, content in fixture.get("files", {}).items():
        if content == "WEIGHTS":
            (model / name).write_bytes(tiny_safetensors())
        elif content == "EXTRA":  # the sample's checkpoint plus a tensor no runtime loads
            (model / name).write_bytes(with_extra_tensor((model / name).read_bytes()))
        else:
            (model / name).write_text(content if isinstance(content, str) else json.dumps(content))
    for name, spec in fixture.get("gguf", {}).items():
        write_fixture_gguf(model / name, dict(spec))
    if "settings" in fixture:
        (model / ".cfglint.toml").write_text(fixture["settings"])
    return str(model)


def write_fixture_gguf(path, spec: dict) -> None:
    import gguf

    from tests.gguf.files import tiny_gguf

    keep = spec.pop("truncate", None)
    for name, value in spec.items():
        if isinstance(value, tuple) and len(value) == 2 and isinstance(value[1], str):
            spec[name] = (value[0], gguf.GGUFValueType[value[1]])
    tiny_gguf(path, **spec)
    if keep is not None:
        path.write_bytes(path.read_bytes()[:keep])


def test_every_rule_has_a_fixture():
    assert {r.code for r in load_builtin()} == set(FIXTURES)


@pytest.mark.parametrize("code", sorted(FIXTURES))
def test_rule_on_its_fixture(code, tmp_path, capsys, monkeypatch):
    fixture = FIXTURES[code]
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))  # an empty cache, offline: the Hub target is unreadable
    target = lay_out(fixture, tmp_path)
    args = ["check", target, "--format", "json"] + ([] if "settings" in fixture else ["--isolated"])
    main(args)
    found = json.loads(capsys.readouterr().out or "[]")
    assert sorted((f["code"], f["pointer"]) for f in found if f["code"] == code) == sorted(fixture["expect"])
    if "fixed" in fixture:
        assert main(["fix", "--write", "--unsafe-fixes", "--isolated", target]) in (0, 1)
        fixed = json.loads((tmp_path / "model" / "config.json").read_text())
        for key, value in fixture["fixed"].items():
            assert fixed.get(key) == value, (key, fixed.get(key))
        capsys.readouterr()
        main(args)
        assert [f for f in json.loads(capsys.readouterr().out or "[]") if f["code"] == code] == []
