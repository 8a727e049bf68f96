"""The Python API: the same findings and JSON as the command line, typed results, nothing on stdout or
stderr, UsageError only for misuse."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import cfglint
from cfglint.cli import main
from tests.conftest import ROOT

TF5 = "samples/smollm2-135m-instruct-tf5"
LLAMA_TF5 = "samples/llama-3.2-1b-tf5"


def cli(capsys, *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().out


@pytest.mark.parametrize("fmt", ["json", "full", "concise", "markdown", "sarif", "github"])
def test_check_is_what_the_command_line_prints(fmt, in_repo, capsys):
    report = cfglint.check([TF5, Path(LLAMA_TF5)])
    assert capsys.readouterr() == ("", "")
    code, out = cli(capsys, "check", TF5, LLAMA_TF5, "--format", fmt)
    assert report.render(fmt) == out and report.exit_code == code == 1
    if fmt == "json":
        assert report.to_json() == json.loads(out)
    assert report.files == [f"{TF5}/config.json", f"{LLAMA_TF5}/config.json"]
    assert [d.code for d in report.findings] == ["D001", "R001", "D001", "R001", "R002"]


def test_an_unreadable_target_is_an_error_line_not_an_exception(in_repo, capsys):
    report = cfglint.check(["samples/absent", TF5])
    assert capsys.readouterr() == ("", "")
    assert report.errors == ["samples/absent: no such file or directory"] and report.exit_code == 2
    assert [d.code for d in report.findings] == ["D001", "R001"]
    assert report.render().endswith("Found 2 findings; 1 target could not be read.\n[*] 2 fixable with `cfglint fix --write`.\n")


def test_select_consumers_and_settings(in_repo):
    assert [d.code for d in cfglint.check(LLAMA_TF5, select=["R"]).findings] == ["R001", "R002"]
    assert [d.code for d in cfglint.check(LLAMA_TF5, settings={"ignore": ["R"]}).findings] == ["D001"]
    [r001] = [d for d in cfglint.check(TF5, consumers=["mistralrs"]).findings if d.code == "R001"]
    assert r001.consumers == ["mistralrs"]
    assert cfglint.check("samples/smollm2-135m-instruct").exit_code == 0


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: cfglint.check(TF5, consumers=["nope"]), "unknown consumer 'nope'"),
        (lambda: cfglint.check(TF5, select=["Z9"]), "select: unknown rule code 'Z9'"),
        (lambda: cfglint.check(TF5, settings={"colour": 1}), "unknown key 'colour'"),
        (lambda: cfglint.check([]), "nothing to check"),
        (lambda: cfglint.check(42), "not int"),  # type: ignore[arg-type]
        (lambda: cfglint.check(TF5).render("xml"), "unknown format 'xml'"),
        (lambda: cfglint.view(TF5).render("xml"), "unknown format 'xml'"),
    ],
)
def test_misuse_raises_usage_error(call, message, in_repo):
    with pytest.raises(cfglint.UsageError, match=message):
        call()


def test_view_is_what_the_command_line_prints(in_repo, capsys):
    seen = cfglint.view(TF5)
    assert capsys.readouterr() == ("", "")
    code, out = cli(capsys, "view", TF5, "--format", "json")
    assert seen.to_json() == json.loads(out) and seen.exit_code == code == 0
    assert seen.render() == cli(capsys, "view", TF5)[1]


def test_fix_dry_run_then_write(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    shutil.copytree(ROOT / TF5, "model")
    before = Path("model/config.json").read_text()
    dry = cfglint.fix("model")
    assert capsys.readouterr() == ("", "")
    [change] = dry.files
    assert (change.path, change.written, change.pending, dry.exit_code) == ("model/config.json", False, True, 1)
    assert [d.code for d in change.applied] == ["D001", "R001"]
    assert Path("model/config.json").read_text() == before
    assert change.diff == cli(capsys, "fix", "model")[1]
    written = cfglint.fix("model", write=True)
    assert capsys.readouterr() == ("", "")
    assert (written.files[0].written, written.exit_code) == (True, 0)
    assert cfglint.check("model").exit_code == 0 and cfglint.fix("model").files == []


def test_fix_names_what_it_could_not_write(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copytree(ROOT / TF5, "real")
    Path("link").mkdir()
    Path("link/config.json").symlink_to(tmp_path / "real" / "config.json")
    result = cfglint.fix("link", write=True)
    assert result.exit_code == 2 and "is a symlink to" in result.errors[0]
    assert not result.files[0].written and result.files[0].diff.startswith("--- link/config.json")


def test_the_package_exports_its_api():
    assert set(cfglint.__all__) >= {"check", "view", "fix", "Report", "View", "FixResult", "FileFix", "UsageError"}
    assert cfglint.Report is cfglint.check(str(ROOT / TF5)).__class__
    with pytest.raises(AttributeError):
        cfglint.nothing  # noqa: B018


def test_a_finding_reads_back_from_its_json(in_repo):
    from cfglint.diagnostics import Diagnostic

    findings = cfglint.check(["samples/llama-3.2-1b-tf5", "samples/gemma-2-2b", "samples/weights-dtype"]).findings
    assert len(findings) > 5 and any(d.fix for d in findings) and any(d.effects for d in findings)
    assert [Diagnostic.from_json(d.to_json()) for d in findings] == findings


def test_select_on_the_command_line(in_repo, capsys):
    code, out = cli(capsys, "check", LLAMA_TF5, "--select", "R002", "--select", "D", "--format", "json")
    assert code == 1 and [f["code"] for f in json.loads(out)] == ["D001", "R002"]
    assert main(["check", LLAMA_TF5, "--select", "nope"]) == 2
    assert "select: unknown rule code 'nope'" in capsys.readouterr().err
    assert cli(capsys, "check", LLAMA_TF5, "--select", "R002, D", "--format", "json") == (code, out)  # as ruff takes a list
    assert main(["check", LLAMA_TF5, "--select", "R002,"]) == 2
    assert "select: unknown rule code ''" in capsys.readouterr().err


def test_a_batch_check_collects_cycles_less_often_and_restores_the_threshold(monkeypatch):
    """The cycle collector's first threshold is raised while a check runs, and is the caller's again after."""
    import gc

    from cfglint import batch, engine, session

    seen = []
    context_of = engine.context_of

    def spying(*args, **kwargs):
        seen.append(gc.get_threshold()[0])
        return context_of(*args, **kwargs)

    monkeypatch.setattr(session, "context_of", spying)
    before = gc.get_threshold()
    try:
        gc.set_threshold(700, before[1], before[2])
        session.Session().check_all([str(ROOT / "samples" / "qwen3-0.6b")])
        assert seen == [batch.THRESHOLD]
        assert gc.get_threshold() == (700, before[1], before[2])
    finally:
        gc.set_threshold(*before)


def test_a_batch_check_is_not_scanned_by_the_collector_and_leaves_cycles_collectable():
    """A small batch runs no collection, and what it kept is not left in the young generation for the
    caller's next collection to scan; a cycle made during it is still collected by a full collection."""
    import gc
    import weakref

    from cfglint import batch, session

    class Node:
        pass

    ran: list[int] = []
    kept: list[weakref.ref] = []

    def collection(phase: str, info: dict) -> None:
        if phase == "start":
            ran.append(info["generation"])

    def with_a_cycle():
        node = Node()
        node.self = node  # type: ignore[attr-defined]
        kept.append(weakref.ref(node))

    gc.callbacks.append(collection)
    try:
        with batch.fewer_collections():
            results = session.Session().check_all([str(ROOT / "samples" / name) for name in ("qwen3-0.6b", "gemma-2-2b", "smollm2-135m-instruct")])
            with_a_cycle()
        assert ran == [] and len(results) == 3
        assert gc.get_count()[0] < 700
    finally:
        gc.callbacks.remove(collection)
    assert kept[0]() is not None
    gc.collect()
    assert kept[0]() is None


def test_each_target_gets_the_rules_whose_targets_name_its_kind():
    """A config.json is not checked by the rules of GGUF files (TARGETS), nor a GGUF file by the config's."""
    from cfglint.rule import CONFIG, GGUF
    from cfglint.session import Session

    config, gguf = Session().check_all([str(ROOT / "samples" / "qwen3-0.6b"), str(ROOT / "samples" / "gguf" / "smollm2-135m-instruct.gguf")])
    assert config.rules and all(CONFIG in r.targets for r in config.rules)
    assert gguf.rules and all(GGUF in r.targets for r in gguf.rules)
    assert {r.code[0] for r in config.rules} >= {"A", "R", "S"} and {r.code[0] for r in gguf.rules} == {"G", "H"}
