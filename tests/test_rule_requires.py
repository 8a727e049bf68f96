"""REQUIRES: a rule is not run for a context that lacks a part it requires, and that never loses a finding."""

from __future__ import annotations

import dataclasses
import types

import pytest

from cfglint.engine import lint
from cfglint.rule import PARTS, _from_module, load_builtin, parts_of
from cfglint.session import Session
from cfglint.tokenizer_names import NAMES as TOKENIZER_FILES
from tests.rule_fixtures import FIXTURES
from tests.test_rule_fixtures import lay_out

REQUIRING = sorted((r for r in load_builtin() if r.requires), key=lambda r: r.code)


def without(ctx, part: str):
    """The same context with one part taken away."""
    if part == "tokenizer":
        listing = ctx.listing - set(TOKENIZER_FILES) if ctx.listing is not None else None
        return dataclasses.replace(ctx, listing=listing)
    return dataclasses.replace(ctx, **{part: None})


@pytest.mark.parametrize("rule", REQUIRING, ids=lambda r: r.code)
def test_a_rule_finds_nothing_without_a_part_it_requires(rule, tmp_path, monkeypatch):
    """On its own fixture, where it fires, the rule yields nothing once a part it requires is taken away: so
    not running it there loses nothing."""
    fixture = FIXTURES[rule.code]
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))
    results = Session(isolated="settings" not in fixture).check_all([lay_out(fixture, tmp_path)])
    fired = [r for r in results if any(d.code == rule.code for d in r.diagnostics)]
    assert fired, f"{rule.code}'s fixture does not make it fire"
    for result in fired:
        assert rule.requires <= parts_of(result.ctx)
        for part in rule.requires:
            bare = without(result.ctx, part)
            assert part not in parts_of(bare)
            assert list(rule.check(bare)) == [], (rule.code, part)


def test_the_builtin_rules_name_known_parts():
    assert REQUIRING, "no built-in rule declares REQUIRES"
    assert {part for rule in REQUIRING for part in rule.requires} == set(PARTS)


def _module(requires: tuple[str, ...], check) -> types.ModuleType:
    module = types.ModuleType("x900")
    module.CODE, module.NAME, module.SEVERITY, module.REQUIRES, module.check = "X900", "x", "error", requires, check
    module.__doc__ = "A test rule."
    return module


def test_a_rule_is_not_run_without_what_it_requires(tmp_path):
    (tmp_path / "config.json").write_text('{"model_type": "qwen2", "hidden_size": 64}')
    ctx = Session(isolated=True).check_all([str(tmp_path)])[0].ctx
    assert "weights" not in parts_of(ctx)

    def check(ctx):
        raise AssertionError("run without weights")

    assert lint(ctx, [_from_module(_module(("weights",), check), "test")], "config.json") == []
    with pytest.raises(AssertionError, match="run without weights"):
        lint(ctx, [_from_module(_module((), check), "test")], "config.json")


def test_an_unknown_part_is_refused_when_the_rule_loads():
    with pytest.raises(ValueError, match="rule X900: REQUIRES names no part of a context: tokens"):
        _from_module(_module(("tokens",), lambda ctx: ()), "test")
