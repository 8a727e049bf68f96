"""GGUF files as `check` targets: files, model directories, tree search, --against, formats, suppressions, fix."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys

import pytest

from cfglint.cli import main
from tests.conftest import ROOT
from tests.gguf.files import TINY_CONFIG, tiny_gguf
from tests.test_report import sarif_validator


@pytest.fixture
def model(tmp_path):
    """A model directory: the tiny config and a GGUF converted from it without its RoPE base."""
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(TINY_CONFIG, indent=2))
    tiny_gguf(folder / "tiny.gguf", drop=("{arch}.rope.freq_base",))
    return folder


def run(capsys, *args) -> tuple[int, list[dict]]:
    code = main(["check", *args, "--isolated", "--format", "json", "--select", "G"])
    return code, json.loads(capsys.readouterr().out or "[]")


def test_a_gguf_file_is_compared_with_the_config_beside_it(model, capsys):
    code, found = run(capsys, str(model / "tiny.gguf"))
    assert code == 1
    [finding] = found
    assert finding["code"] == "G002" and finding["pointer"] == "/rope_parameters/rope_theta"
    assert finding["gguf_key"] == "llama.rope.freq_base" and finding["config"] == str(model / "config.json")
    assert (finding["line"], finding["column"]) == (1, 1)
    assert "10000.0 (its default: the key is absent), but the config means 100000.0" in finding["message"]
    assert finding["fix"]["applicability"] == "display-only" and finding["fix"]["edits"] == []
    assert "llama.rope.freq_base = 100000.0" in finding["fix"]["message"]


def test_a_model_directory_checks_its_gguf_files_too(model, capsys):
    code, found = run(capsys, str(model))
    assert code == 1 and [(f["code"], f["path"]) for f in found] == [("G002", str(model / "tiny.gguf"))]


def test_a_folder_of_gguf_files_is_found_by_the_tree_search(model, tmp_path, capsys):
    (model / "config.json").unlink()
    code, found = run(capsys, str(tmp_path))
    # Without a config the absent key is a warning: the file's own consistency, not a comparison.
    assert code == 1 and [(f["code"], f["severity"], f["pointer"]) for f in found] == [("G002", "warning", "")]


def test_against_names_the_source_config(model, tmp_path, capsys):
    other = tmp_path / "other"
    other.mkdir()
    (other / "config.json").write_text(json.dumps({**TINY_CONFIG, "rope_parameters": {"rope_theta": 10000.0, "rope_type": "default"}}))
    code, found = run(capsys, str(model / "tiny.gguf"), "--against", str(other))
    assert code == 0 and found == []  # the GGUF runs llama.cpp's default 10000, which this config means
    assert main(["check", str(model / "tiny.gguf"), "--against", str(tmp_path / "absent"), "--isolated"]) == 2
    assert "--against names no config.json" in capsys.readouterr().err


def test_a_consistent_gguf_checks_clean(model, capsys):
    tiny_gguf(model / "tiny.gguf")
    assert run(capsys, str(model)) == (0, [])


def test_an_unreadable_gguf_is_a_finding_and_a_missing_one_an_error(model, capsys):
    (model / "tiny.gguf").write_bytes(b"GGUF\x01\x00\x00\x00" + bytes(16))
    code, found = run(capsys, str(model / "tiny.gguf"))
    assert code == 1 and [(f["code"], f["message"]) for f in found] == [
        ("G001", "llama.cpp refuses this file: GGUF version 1, which llama.cpp no longer reads (reconvert the model)")]
    assert main(["check", str(model / "absent.gguf"), "--isolated"]) == 2
    assert capsys.readouterr().err.strip().endswith("absent.gguf: no such file")


def test_without_the_gguf_package_a_one_line_error(model):
    probe = "import sys; sys.modules['gguf'] = None; from cfglint.cli import main; sys.exit(main(['check', sys.argv[1], '--isolated']))"
    proc = subprocess.run([sys.executable, "-c", probe, str(model / "tiny.gguf")], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [f"cfglint: error: {model / 'tiny.gguf'}: checking a GGUF file needs the gguf package: pip install 'hf-cfglint[gguf]'"]


def test_formats_locate_a_gguf_finding_by_file_and_key(model, capsys):
    target = str(model / "tiny.gguf")
    main(["check", target, "--isolated", "--format", "sarif"])
    log = json.loads(capsys.readouterr().out)
    sarif_validator().validate(log)
    [result] = log["runs"][0]["results"]
    assert result["locations"][0]["logicalLocations"] == [{"name": "llama.rope.freq_base", "kind": "member"}]
    assert result["locations"][0]["physicalLocation"]["region"] == {"startLine": 1, "startColumn": 1}
    main(["check", target, "--isolated", "--format", "github"])
    assert capsys.readouterr().out.startswith(f"::error file={target},line=1,col=1,title=G002::llama.rope.freq_base: ")
    main(["check", target, "--isolated"])
    full = capsys.readouterr().out
    assert f"{target}:1:1: G002 llama.rope.freq_base" in full and "  = help: reconvert" in full
    main(["check", target, "--isolated", "--format", "markdown"])
    assert "`G002` gguf-rope-base (error)" in capsys.readouterr().out


def test_suppressions_and_severities_apply_to_gguf_files(model, capsys):
    (model / ".cfglint.toml").write_text('[[suppress]]\npath = "*.gguf"\ncodes = ["G002"]\nreason = "trained at 10000"\n')
    assert main(["check", str(model / "tiny.gguf"), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == []
    (model / ".cfglint.toml").write_text('[severity]\nG002 = "info"\n')
    assert main(["check", str(model / "tiny.gguf"), "--format", "json"]) == 0
    assert [f["severity"] for f in json.loads(capsys.readouterr().out)] == ["info"]


def test_fix_write_never_touches_a_gguf(model, capsys):
    (model / "tiny.gguf").write_bytes((model / "tiny.gguf").read_bytes())
    before = hashlib.sha256((model / "tiny.gguf").read_bytes()).hexdigest()
    assert main(["fix", "--write", "--unsafe-fixes", "--isolated", str(model)]) in (0, 1)
    assert main(["fix", "--write", "--isolated", str(model / "tiny.gguf")]) == 0
    capsys.readouterr()
    assert hashlib.sha256((model / "tiny.gguf").read_bytes()).hexdigest() == before
    assert "rope_theta" in json.loads((model / "config.json").read_text())  # config.json itself was fixed (R001)


def test_view_shows_what_llama_cpp_runs(model, capsys):
    assert main(["view", str(model / "tiny.gguf"), "--isolated", "--format", "json"]) == 0
    [viewed] = json.loads(capsys.readouterr().out)
    runs = viewed["gguf"]["runs"]
    assert runs["rope_freq_base"] == {"value": 10000.0, "key": "llama.rope.freq_base", "origin": "default"}
    assert runs["key_length"] == {"value": 16, "key": "llama.attention.key_length", "origin": "file"}
    assert viewed["gguf"]["config"] == str(model / "config.json")
    assert main(["view", str(model / "tiny.gguf"), "--isolated"]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0] == f"{model / 'tiny.gguf'} (GGUF, architecture llama, source config {model / 'config.json'})"
    assert "rope_freq_base         10000.0   llama.rope.freq_base (default)" in table


def test_a_later_shard_of_a_split_gguf_is_checked_for_its_header_only(tmp_path, capsys):
    """gguf-split's second file holds tensors and split.* keys, not the model's metadata."""
    import gguf
    import numpy as np

    from tests.gguf.files import write_gguf

    T = gguf.GGUFValueType
    write_gguf(tmp_path / "m-00002-of-00002.gguf", kv={"split.no": (1, T.UINT16), "split.count": (2, T.UINT16)},
               tensors={"blk.1.attn_q.weight": np.zeros((64, 64), np.float32)})
    (tmp_path / "config.json").write_text(json.dumps(TINY_CONFIG))
    assert run(capsys, str(tmp_path / "m-00002-of-00002.gguf")) == (0, [])


def test_a_gguf_beside_a_broken_config_is_checked_on_its_own(model, capsys):
    (model / "config.json").write_text('{"model_type": "llama",}')
    code, found = run(capsys, str(model))
    assert code == 1 and [(f["code"], f["severity"], f["pointer"]) for f in found] == [("G002", "warning", "")]


def test_the_rules_for_a_gguf_target_are_those_that_declare_it():
    from cfglint.rule import CONFIG, GGUF, load_builtin

    rules = load_builtin()
    assert sorted(r.code for r in rules if GGUF in r.targets) == [f"G{i:03d}" for i in range(1, 15)] + ["H001"]
    assert all(CONFIG in r.targets for r in rules if not r.code.startswith("G"))  # the default, for plugins too
