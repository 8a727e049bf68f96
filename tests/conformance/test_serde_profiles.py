"""The candle and mistralrs profiles against real serde: a Rust program with the runtimes' exact
config types (candle-transformers 0.11 `LlamaConfig`, mistral.rs `llama::Config`).

For every sample, the generated family and the edge cases serde is strict about, the profile's outcome,
serde's error message and the values the runtime derives must equal what the compiled program reports.
"""

from __future__ import annotations

import copy
import json
import re

import pytest

from cfglint import consumers, document
from cfglint.engine import context_of
from cfglint.reading import same
from tests.conftest import sample_dirs
from tests.conformance import serde_replica
from tests.family import family

SMOLLM = json.loads((sample_dirs()[0].parent / "smollm2-135m-instruct" / "config.json").read_text())
LLAMA3 = json.loads((sample_dirs()[0].parent / "llama-3.2-1b" / "config.json").read_text())


def edited(base: dict, **changes) -> dict:
    config = copy.deepcopy(base)
    for key, value in changes.items():
        if value is _DELETE:
            config.pop(key, None)
        else:
            config[key] = value
    return config


_DELETE = object()


def variants() -> dict[str, str]:
    """name -> file text (text, not dicts, so duplicates and literals can be written)."""
    # The replica holds the runtimes' Llama structs: other families' samples are read through their entries,
    # checked in tests/knowledge and tests/conformance/test_families.py.
    out = {p.name: (p / "config.json").read_text() for p in sample_dirs() if json.loads((p / "config.json").read_text()).get("model_type") in ("llama", None)}
    out.update({f"family-{k}": json.dumps(v, indent=2) for k, v in family().items()})
    cases = {
        "theta-absent": edited(SMOLLM, rope_theta=_DELETE),
        "hidden-float": edited(SMOLLM, hidden_size=576.0),
        "hidden-string": edited(SMOLLM, hidden_size="576"),
        "hidden-negative": edited(SMOLLM, hidden_size=-1),
        "theta-null": edited(SMOLLM, rope_theta=None),
        "theta-string": edited(SMOLLM, rope_theta="100000"),
        "theta-int": edited(SMOLLM, rope_theta=100000),
        "scaling-default-only": edited(SMOLLM, rope_scaling={"rope_type": "default"}),
        "scaling-default-full": edited(SMOLLM, rope_scaling={"rope_type": "default", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}),
        "scaling-linear": edited(SMOLLM, rope_scaling={"rope_type": "linear", "factor": 2.0}),
        "scaling-legacy-type": edited(SMOLLM, rope_scaling={"type": "linear", "factor": 2.0}),
        "scaling-llama3-type-key": edited(LLAMA3, rope_scaling={"type": "llama3", "factor": 32.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}),
        "scaling-llama3-missing-low": edited(LLAMA3, rope_scaling={"rope_type": "llama3", "factor": 32.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}),
        "scaling-string": edited(SMOLLM, rope_scaling="llama3"),
        # serde's derived visit_seq: an array fills the struct's fields in declaration order
        "scaling-list-short": edited(SMOLLM, rope_scaling=[1]),
        "scaling-list-of-pairs": edited(SMOLLM, rope_scaling=[["factor", 2.0]]),
        "scaling-list-wrong-element": edited(SMOLLM, rope_scaling=[8.0, "one"]),
        "scaling-list-too-long": edited(LLAMA3, rope_scaling=[32.0, 1.0, 4.0, 8192, "llama3", 1]),
        "scaling-list-complete": edited(LLAMA3, rope_scaling=[32.0, 1.0, 4.0, 8192, "llama3"]),
        "eos-negative": edited(SMOLLM, eos_token_id=-1),
        "eos-string": edited(SMOLLM, eos_token_id="</s>"),
        "eos-null": edited(SMOLLM, eos_token_id=None),
        "eos-list": edited(SMOLLM, eos_token_id=[2, 3]),
        "bos-list": edited(SMOLLM, bos_token_id=[1, 2]),
        "tie-string": edited(SMOLLM, tie_word_embeddings="true"),
        "tie-null": edited(SMOLLM, tie_word_embeddings=None),
        "tie-absent": edited(SMOLLM, tie_word_embeddings=_DELETE),
        "kv-absent": edited(SMOLLM, num_key_value_heads=_DELETE),
        "kv-null": edited(SMOLLM, num_key_value_heads=None),
        "eps-absent": edited(SMOLLM, rms_norm_eps=_DELETE),
        "eps-int": edited(SMOLLM, rms_norm_eps=0),
        "maxpos-absent": edited(SMOLLM, max_position_embeddings=_DELETE),
        "heads-zero": edited(SMOLLM, num_attention_heads=0),
        "hidden-act-gelu": edited(SMOLLM, hidden_act="gelu"),
        "hidden-act-alias": edited(SMOLLM, hidden_act="gelu_pytorch_tanh"),
        "hidden-act-unknown": edited(SMOLLM, hidden_act="gelu_fast"),
        "hidden-act-newtype": edited(SMOLLM, hidden_act="elu"),
        "hidden-act-absent": edited(SMOLLM, hidden_act=_DELETE),
        "llama3-optional-factors-absent": edited(LLAMA3, rope_scaling={"rope_type": "llama3", "factor": 32.0}),
        "scaling-dynamic": edited(SMOLLM, rope_scaling={"rope_type": "dynamic", "factor": 2.0}),
        "theta-huge": edited(SMOLLM, rope_theta=1e39),
        "several-missing": edited(SMOLLM, rms_norm_eps=_DELETE, hidden_size=_DELETE),
        "error-after-missing": edited(SMOLLM, rms_norm_eps=_DELETE, vocab_size=1.5),
    }
    out.update({k: json.dumps(v, indent=2) for k, v in cases.items()})
    smollm_text = json.dumps(SMOLLM, indent=2)
    out["duplicate-known"] = smollm_text.replace('"rope_theta": 100000', '"rope_theta": 10000.0,\n  "rope_theta": 100000')
    out["duplicate-unknown"] = smollm_text.replace('"rope_theta": 100000', '"zzz": 1,\n  "zzz": 2,\n  "rope_theta": 100000')
    out["duplicate-after-error"] = json.dumps(edited(SMOLLM, hidden_size=1.5), indent=2).replace('"rope_theta": 100000', '"rope_theta": 1,\n  "rope_theta": 100000')
    out["nan-literal"] = smollm_text.replace('"rope_theta": 100000', '"rope_theta": NaN')
    out["bom"] = "\ufeff" + smollm_text
    return out


VARIANTS = variants()


def write_variants(folder) -> list[str]:
    """Every variant as folder/NAME/config.json; returns the names, sorted (relative paths from folder)."""
    for name, text in VARIANTS.items():
        (folder / name).mkdir()
        (folder / name / "config.json").write_text(text, encoding="utf-8")
    return sorted(VARIANTS)


POSITION = re.compile(r" at line \d+ column \d+$")


@pytest.fixture(scope="module")
def replica():
    return serde_replica.ensure_built()


# The runtime's own activation names, for the aliases serde accepts.
RUNTIME_ACTIVATION = {"gelu_new": "newgelu", "gelu_pytorch_tanh": "gelupytorchtanh"}
PROFILES = {"candle": "candle", "mistralrs": "mistralrs"}


@pytest.mark.parametrize("runtime", sorted(PROFILES))
@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_profile_matches_serde(runtime, name, replica, tmp_path):
    path = tmp_path / "config.json"
    path.write_bytes(VARIANTS[name].encode("utf-8"))
    actual = serde_replica.run(runtime, path)
    ctx = context_of(document.load(path), [consumers.get(PROFILES[runtime])])
    view = ctx.views.get(PROFILES[runtime])
    if view.outcome == "not-applicable":
        # A family cfglint does not model: the profile makes no prediction, and says so.
        assert ctx.intent.family is None
        return
    predicted_outcome = view.outcome
    if view.failure is not None and view.failure.kind == "shape":
        predicted_outcome = "loads"  # the config parses; the panic comes from the weights (checked below)
    assert predicted_outcome == actual["outcome"], (view.message, actual["message"])
    if actual["outcome"] != "loads":
        assert view.message == POSITION.sub("", actual["message"])
        return
    if view.failure is not None and view.failure.kind == "missing" and actual["outcome"] == "loads":
        # mistral.rs checks the optional llama3 factors when it builds the rotary embedding, after serde.
        assert runtime == "mistralrs" and view.failure.pointer.startswith("/rope_scaling/")
        return
    for key, value in actual["values"].items():
        if key in view.values:
            ours = RUNTIME_ACTIVATION.get(view.values[key], view.values[key]) if key == "hidden_act" and runtime == "mistralrs" else view.values[key]
            assert same(key, ours, value), (key, ours, value)


def test_every_variant_is_exercised():
    """Guard against the variant list silently shrinking: each serde behaviour appears at least once."""
    kinds = set()
    for text in VARIANTS.values():
        doc = document.parse(document.Path("config.json"), text.encode())
        view = context_of(doc, [consumers.get("candle")]).views.get("candle")
        if view is not None and view.failure is not None:
            kinds.add(view.failure.kind)
    assert {"missing", "type", "variant", "duplicate", "syntax", "shape"} <= kinds
