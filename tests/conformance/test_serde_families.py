"""cfglint's serde emulation against real serde, for every candle family entry.

tests/conformance/serde/src/generated_families.rs is generated from cfglint.knowledge.candle.ENTRIES (one serde
`Config` per family, the entry's fields, types and defaults) and compiled against Debian's serde; the program
runs as consumer `candle:<family>`. For each family's generated configs (tests/families.py, transformers 4 and 5
layouts; the multimodal Gemma 3 files for gemma3_text, which candle reads at the top) and shipped samples, the
parse cfglint predicts (cfglint.consumers.serde.deserialize on the entry's model) must equal serde's: outcome,
error message (without serde_json's position suffix) and, when it loads, every field's value.

Only the parse layer is compared, not the readings derived from it; the entries' own claims about candle are
checked elsewhere (tests/knowledge, test_families.py).
"""

from __future__ import annotations

import json

import pytest

from cfglint import document
from cfglint.consumers.base import Failure
from cfglint.consumers.serde import deserialize
from cfglint.serde_json import f32
from cfglint.knowledge.candle import ENTRIES
from cfglint.knowledge.entry import REQUIRED
from cfglint.readers.serde_model import model_of
from cfglint.reading import same
from tests.conformance import serde_replica
from tests.conformance.test_serde_profiles import POSITION
from tests.conftest import sample_dirs
from tests.families import all_cases

FAMILIES = {e.family: e for e in ENTRIES if not e.rope.startswith("TODO")}
# candle's gemma example reads gemma3::Config from the top of a multimodal file (knowledge/candle.py TEXT_CONFIG).
ALSO_READS = {"gemma3_text": ("gemma3",)}

# Where cfglint's emulation differs from real serde (serde 1.0.217, serde_json 1.0.139): edge-case suffix ->
# (why, a fragment of the disagreement that must still show). Expanded below to (family, case) for every family
# that has the case; each is asserted still to differ, so a fix in cfglint shows up as a failure here.
_WRONG_EDITS = {
    # {"elu": 1.0} is candle_nn::Activation::Elu(1.0); cfglint's Literal accepts only the unit strings.
    "_act-newtype-map": ("newtype activation {\"elu\": 1.0} loads in serde", "invalid type: map, expected variant identifier"),
    "_activation-newtype-map": ("newtype activation {\"elu\": 1.0} loads in serde", "invalid type: map, expected variant identifier"),
}


def _cases() -> dict[tuple[str, str], str]:
    out: dict[tuple[str, str], str] = {}
    generated = all_cases(with_resaved=True)
    for family in FAMILIES:
        model_types = (family, *ALSO_READS.get(family, ()))
        for name, config in generated.items():
            if config.get("model_type") in model_types:
                out[(family, f"generated:{name}")] = json.dumps(config, indent=2)
        for sample in sample_dirs():
            text = (sample / "config.json").read_text(encoding="utf-8")
            if json.loads(text).get("model_type") in model_types:
                out[(family, f"sample:{sample.name}")] = text
    out.update(_edge_cases(generated))
    return out


def _edge_cases(generated: dict[str, dict]) -> dict[tuple[str, str], str]:
    """Edits of each family's base config, chosen from the entry's own field types: the serde behaviours the
    generated configs do not reach (unknown and newtype variants, range and type errors, f32 overflow,
    defaults, null options, duplicates, errors racing a missing field)."""
    out: dict[tuple[str, str], str] = {}
    for family, entry in FAMILIES.items():
        base = generated.get(f"{family}/tf4-base")
        if base is None:
            continue
        edits: dict[str, dict] = {}
        for name, spec in entry.fields.items():
            kind = spec.type.removeprefix("option<").removesuffix(">")
            if kind == "activation":
                for label, value in (("unknown", "gelu_fast"), ("newtype", "elu"), ("newtype-map", {"elu": 1.0}),
                                     ("int", 1), ("alias", "gelu_pytorch_tanh")):
                    edits[f"{name}-{label}"] = {name: value}
            elif kind in ("usize", "u32"):
                edits.setdefault(f"{kind}-negative", {name: -1})
                edits.setdefault(f"{kind}-float", {name: 2.0})
                edits.setdefault(f"{kind}-string", {name: "2"})
                edits.setdefault(f"{kind}-huge", {name: 2**64})
            elif kind in ("f32", "f64"):
                edits.setdefault(f"{kind}-int", {name: 3})
                edits.setdefault(f"{kind}-huge", {name: 1e39})
                edits.setdefault(f"{kind}-string", {name: "1.0"})
            elif kind == "bool":
                edits.setdefault("bool-int", {name: 1})
            elif kind == "eos":
                edits[f"{name}-list"] = {name: [1, 2]}
                edits[f"{name}-negative"] = {name: -1}
            if spec.type.startswith("option<"):
                edits.setdefault("option-null", {name: None})
            if spec.default is not REQUIRED:
                edits[f"{name}-defaulted"] = {name: _DELETE}
        names = list(entry.fields)
        edits["two-missing"] = {names[-1]: _DELETE, names[0]: _DELETE}
        edits["error-after-missing"] = {names[0]: _DELETE, names[-1]: "x"}
        for label, changes in edits.items():
            config = {k: v for k, v in base.items()}
            for key, value in changes.items():
                if value is _DELETE:
                    config.pop(key, None)
                else:
                    config[key] = value
            out[(family, f"edge:{label}")] = json.dumps(config, indent=2)
        first = names[0]
        text = json.dumps(base, indent=2)
        out[(family, "edge:duplicate")] = text.replace(f'"{first}":', f'"{first}": {json.dumps(base.get(first, 1))},\n  "{first}":', 1)
    return out


_DELETE = object()
CASES = _cases()
KNOWN_WRONG: dict[tuple[str, str], tuple[str, str]] = {
    (family, case): why
    for family, case in CASES
    for suffix, why in _WRONG_EDITS.items()
    if case.startswith("edge:") and case.endswith(suffix)
}


@pytest.fixture(scope="module")
def replica():
    return serde_replica.ensure_built()


def test_every_family_is_covered():
    covered = {family for family, _ in CASES}
    assert covered == set(FAMILIES), set(FAMILIES) - covered
    assert set(KNOWN_WRONG) <= set(CASES), set(KNOWN_WRONG) - set(CASES)


def _disagreement(entry, actual: dict, doc) -> str | None:
    """None when cfglint's parse equals serde's report, else what differs."""
    parsed = deserialize(model_of(entry), doc)
    predicted = "error" if isinstance(parsed, Failure) else "loads"
    if predicted != actual["outcome"]:
        ours = parsed.message if isinstance(parsed, Failure) else "loads"
        return f"outcome: cfglint {predicted} ({ours}), serde {actual['outcome']} ({actual['message']})"
    if isinstance(parsed, Failure):
        theirs = POSITION.sub("", actual["message"])
        return None if parsed.message == theirs else f"message: cfglint {parsed.message!r}, serde {theirs!r}"
    if list(actual["values"]) != list(entry.fields):
        return f"fields: serde printed {list(actual['values'])}"
    for name, spec in entry.fields.items():
        ours = getattr(parsed, name)
        if spec.type in ("f32", "option<f32>") and isinstance(ours, float):
            ours = f32(ours)
        if not same(name, ours, actual["values"][name]):
            return f"{name}: cfglint {ours!r}, serde {actual['values'][name]!r}"
    return None


@pytest.mark.parametrize("family,case", sorted(CASES), ids=[f"{f}-{c}" for f, c in sorted(CASES)])
def test_parse_matches_serde(family, case, replica, tmp_path):
    path = tmp_path / "config.json"
    path.write_bytes(CASES[(family, case)].encode("utf-8"))
    actual = serde_replica.run(serde_replica.FAMILY_PREFIX + family, path)
    assert actual["outcome"] in ("loads", "error"), actual
    problem = _disagreement(FAMILIES[family], actual, document.load(path))
    if (family, case) in KNOWN_WRONG:
        why, shows = KNOWN_WRONG[(family, case)]
        assert problem is not None, f"fixed, remove from KNOWN_WRONG: {why}"
        assert shows in problem, (why, problem)
    else:
        assert problem is None, problem
