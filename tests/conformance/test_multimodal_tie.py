"""A multimodal Gemma 3 file's tie, with the top level's and text_config's `tie_word_embeddings` each absent,
true or false: real transformers 5.24 ties Gemma3ForConditionalGeneration by the top level's (Gemma3Config's
own field, default true), real transformers 4.57 by text_config's. Both build each case
(transformers_tie_probe.py); cfglint's intent and its transformers-4 reading must say what each did, and
A004 must name transformers 4 exactly where the two differ.
"""

from __future__ import annotations

import itertools
import json
import sys
from pathlib import Path

import pytest

from cfglint import consumers, document
from cfglint.engine import context_of, lint
from cfglint.rule import load_builtin
from tests.conformance.venvs import TRANSFORMERS4_WITH_TORCH, run_probe, runtime_python
from tests.families import multimodal, variants

SETTINGS = {"absent": None, "true": True, "false": False}


def _cases() -> dict[str, dict]:
    out = {}
    for (top, at_top), (text, in_text) in itertools.product(SETTINGS.items(), repeat=2):
        config = multimodal(variants("gemma3_text")["base"])
        config["text_config"].pop("tie_word_embeddings", None)
        if in_text is not None:
            config["text_config"]["tie_word_embeddings"] = in_text
        if at_top is not None:
            config["tie_word_embeddings"] = at_top
        out[f"top-{top}-text-{text}"] = config
    return out


CASES = _cases()


@pytest.fixture(scope="module")
def observed(tmp_path_factory) -> dict[str, tuple[Path, dict, dict]]:
    """case -> (directory, transformers 5's report, transformers 4's report)."""
    root = tmp_path_factory.mktemp("multimodal-tie")
    dirs = {}
    for name, config in CASES.items():
        (root / name).mkdir()
        (root / name / "config.json").write_text(json.dumps(config, indent=2) + "\n")
        dirs[str(root / name)] = name
    reports = [run_probe(python, "transformers_tie_probe.py", *dirs)["results"]
               for python in (Path(sys.executable), runtime_python(*TRANSFORMERS4_WITH_TORCH))]
    return {name: (Path(d), reports[0][d], reports[1][d]) for d, name in dirs.items()}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_tie_is_the_one_each_transformers_builds(case, observed):
    directory, by_5, by_4 = observed[case]
    assert (by_5["outcome"], by_4["outcome"]) == ("loads", "loads"), (by_5, by_4)
    ctx = context_of(document.load(directory / "config.json"), [consumers.get(n) for n in ("transformers-5", "transformers-4")])
    assert ctx.intent.values["tie_word_embeddings"] == by_5["tied"]
    assert ctx.views["transformers-4"].values["tie_word_embeddings"] == by_4["tied"]
    found = [d for d in lint(ctx, load_builtin(), "config.json") if d.code == "A004"]
    named = {e.consumer for d in found for e in d.effects}
    assert ("transformers-4" in named) == (by_5["tied"] != by_4["tied"]), found


def test_the_two_versions_differ(observed):
    """The cases hold both ways the versions split, so the tests above could fail either way."""
    splits = {(by_5["tied"], by_4["tied"]) for _, by_5, by_4 in observed.values()}
    assert {(True, False), (False, True)} <= splits
