"""Where a reading says a value comes from (readers/values.py): the key when the runtime's expression takes
the file's value, derived when it falls back, as the expression's own test decides."""

from __future__ import annotations

import copy
import json

import pytest

from cfglint import consumers, document
from cfglint.engine import context_of
from tests.families import BASES


def _sources(tmp_path, family: str, runtime: str, **changes) -> tuple[object, str]:
    config = dict(copy.deepcopy(BASES[family]), **changes)
    (tmp_path / "config.json").write_text(json.dumps(config), encoding="utf-8")
    view = context_of(document.load(tmp_path / "config.json"), [consumers.get(runtime)]).views[runtime]
    return view.values["head_dim"], view.sources["head_dim"]


@pytest.mark.parametrize(("runtime", "head_dim", "expected"), [
    # `head_dim if head_dim is not None else hidden // heads`: a written value is the file's, 0 included
    ("mistralrs", 16, (16, "/head_dim")),
    ("mistralrs", 0, (0, "/head_dim")),
    ("mistralrs", None, (16, "derived")),
    # `head_dim or hidden // heads`: a 0 is no value of the file's, it falls back
    ("transformers-5", 16, (16, "/head_dim")),
    ("transformers-5", 0, (16, "derived")),
    ("transformers-5", None, (16, "derived")),
])
def test_a_fallback_is_derived_and_a_value_taken_is_the_files(tmp_path, runtime, head_dim, expected):
    assert _sources(tmp_path, "mistral", runtime, head_dim=head_dim) == expected


def test_a_head_dim_transformers_replaces_is_reported_where_a_runtime_takes_it(tmp_path):
    """Mistral's attention replaces a head_dim of 0 by hidden // heads; candle, mistral.rs and the converter take the 0
    (A001). Qwen2's attention divides by it: transformers refuses (L001), and builds nothing to compare with."""
    import cfglint

    def findings(family: str) -> dict:
        directory = tmp_path / family
        directory.mkdir()
        (directory / "config.json").write_text(json.dumps(dict(copy.deepcopy(BASES[family]), head_dim=0)), encoding="utf-8")
        return {(d.code, d.pointer): d for d in cfglint.check([directory]).findings}

    mistral = findings("mistral")[("A001", "/head_dim")]
    assert {e.consumer for e in mistral.effects} == {"candle", "mistralrs", "llama-cpp"}
    assert "= 16" in mistral.message and all(e.value == 0 for e in mistral.effects)
    qwen2 = findings("qwen2")
    assert ("A001", "/head_dim") not in qwen2 and ("L001", "/head_dim") in qwen2
