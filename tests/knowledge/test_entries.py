"""Every runtime's entries are well formed: expressions compile, field types are ones the readers know,
sources are complete, and a family is either an entry or listed as missing, never both."""

from __future__ import annotations

import re
import string

import pytest

from cfglint import knowledge
from cfglint.knowledge.expr import ExpressionError, compile_expression, evaluate
from cfglint.knowledge.transformers5 import FAMILIES
from cfglint.readers.serde_model import annotation, model_of

RUNTIMES = [r for r in knowledge.MODULES if r != "transformers-5"]
ALL = [(r, e) for r in knowledge.MODULES for e in getattr(knowledge.module(r), "ENTRIES", ())]


@pytest.mark.parametrize("runtime, entry", ALL, ids=[f"{r}-{e.family}" for r, e in ALL])
def test_entry_is_well_formed(runtime, entry):
    for text in (*entry.derive.values(), *(c.when for c in entry.checks)):
        compile_expression(text)
    assert entry.source.repo and entry.source.path and entry.source.ref
    for check in entry.checks:  # a refusal quotes values the runtime read, never a name the reading lacks
        for _, name, _, _ in string.Formatter().parse(check.message):
            if name and not name.startswith("'"):  # a quoted name is a Python set printed in the message
                assert re.split(r"[\[.]", name)[0] in entry.fields, (check.message, name)
    assert entry.reader in ("serde", "dataclass", "kwargs", "converter", "transformers-5")
    if entry.reader == "serde":
        for spec in entry.fields.values():
            annotation(spec.type, entry.runtime)
        model_of(entry)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_a_family_is_an_entry_or_missing_never_both(runtime):
    module = knowledge.module(runtime)
    entries = {e.family for e in module.ENTRIES}
    assert not entries & set(module.MISSING)
    for family in FAMILIES:
        assert family in entries or family in module.MISSING, f"{runtime}: {family} is neither an entry nor MISSING"


def test_expressions_refuse_what_they_do_not_allow():
    for text in ("__import__('os')", "open('x')", "a.b", "lambda: 1", "[x for x in y]", "x if"):
        with pytest.raises(ExpressionError):
            compile_expression(text)


def test_arithmetic_on_values_of_the_wrong_type_gives_none():
    assert evaluate("hidden_size // num_attention_heads", {"hidden_size": "64", "num_attention_heads": 4}) is None
    assert evaluate("hidden_size // num_attention_heads", {"hidden_size": 64, "num_attention_heads": 0}) is None
    assert evaluate("head_dim or hidden_size // num_attention_heads", {"hidden_size": 64, "num_attention_heads": 4}) == 16
    assert evaluate("layers(n, 'full_attention')", {"n": 10**9}) is None
