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
