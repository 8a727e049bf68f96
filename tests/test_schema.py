"""`cfglint schema CONSUMER`: the exported JSON Schema agrees with the profile on real configs.

A JSON Schema validator sees the parsed value, so three things are out of its reach and are left out of
the configs compared here: duplicate keys (the parser already kept the last), NaN/Infinity literals, and
integers written as floats (`64.0` is an integer to JSON Schema, not to serde). Configs a profile marks
not-applicable (not Llama-family) are skipped: the schema describes fields, not which models apply.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from cfglint import consumers, document
from cfglint.cli import main
from cfglint.consumers.base import NOT_APPLICABLE
from cfglint.intent import intent_of
from tests.conftest import sample_dirs
from cfglint import knowledge
from tests.families import all_cases
from tests.family import family

# Profiles that are a serde deserialization: the schema is exactly the reading contract, so the verdicts
# must agree both ways. Later failures (a shape check, a panic in into_config) happen after reading.
SERDE_PROFILES = [name for name in ("candle", "mistralrs") if name in consumers.names()]
READ_FAILURES = {"missing", "type", "variant"}


def exported(capsys, name: str, family: str | None = None) -> dict:
    assert main(["schema", name, *(["--family", family] if family else [])]) == 0
    return json.loads(capsys.readouterr().out)


def targeted_variants() -> dict[str, dict]:
    base = family()["tf4-default"]

    def changed(**values):
        return dict(copy.deepcopy(base), **values)

    def without(key):
        config = copy.deepcopy(base)
        del config[key]
        return config

    no_factor = copy.deepcopy(family()["tf4-llama3"])
    del no_factor["rope_scaling"]["factor"]
    return {
        "hidden-size-string": changed(hidden_size="64"),
        "heads-negative": changed(num_attention_heads=-4),
        "eps-bool": changed(rms_norm_eps=True),
        "eps-string": changed(rms_norm_eps="1e-5"),
        "vocab-missing": without("vocab_size"),
        "max-positions-missing": without("max_position_embeddings"),
        "kv-heads-null": changed(num_key_value_heads=None),
        "eos-list": changed(eos_token_id=[2, 3]),
        "eos-list-with-string": changed(eos_token_id=[2, "3"]),
        "tie-string": changed(tie_word_embeddings="false"),
        "theta-string": changed(rope_theta="10000"),
        "llama3-without-factor": no_factor,
        "layers-beyond-u64": changed(num_hidden_layers=2**64),
        "scaling-not-an-object": changed(rope_scaling="llama3"),
    }


def real_configs() -> dict[str, bytes]:
    configs = {p.name: (p / "config.json").read_bytes() for p in sample_dirs()}
    configs.update({f"family:{k}": json.dumps(v).encode() for k, v in family().items()})
    return configs


def verdicts(name: str, schema: dict, configs: dict[str, bytes], family: str = "llama"):
    """(config, schema says valid, the profile reads it) for every config the profile applies to."""
    validator = Draft202012Validator(schema)
    consumer = consumers.get(name)
    for label, raw in configs.items():
        doc = document.parse(Path("config.json"), raw)
        intent = intent_of(doc.data)
        view = consumer.view(doc, intent)
        if view.outcome == NOT_APPLICABLE or intent.family != family or intent.root:  # a multimodal file: its text_config is read
            continue
        reads = view.failure is None or view.failure.kind not in READ_FAILURES
        yield label, validator.is_valid(json.loads(raw)), reads, view


@pytest.mark.parametrize("name", consumers.names())
def test_export_is_a_json_schema_that_every_loading_sample_satisfies(name, capsys):
    schema = exported(capsys, name)
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert "duplicate keys" in schema["$comment"]
    rejected = [label for label, valid, _, view in verdicts(name, schema, real_configs()) if view.outcome == "loads" and not valid]
    assert rejected == []


@pytest.mark.parametrize("name", SERDE_PROFILES)
def test_schema_verdict_equals_what_serde_reads(name, capsys):
    schema = exported(capsys, name)
    configs = real_configs()
    configs.update({f"variant:{k}": json.dumps(v).encode() for k, v in targeted_variants().items()})
    rows = list(verdicts(name, schema, configs))
    disagreements = [(label, valid, view.message) for label, valid, reads, view in rows if valid != reads]
    assert disagreements == []
    # Both verdicts occur, with real samples on the accepting side.
    assert {valid for _, valid, _, _ in rows} == {True, False}
    assert any(valid for label, valid, _, _ in rows if not label.startswith(("family:", "variant:")))


def test_candle_schema_rejects_what_candle_rejects(capsys):
    schema = exported(capsys, "candle")
    validator = Draft202012Validator(schema)
    linear = family()["tf4-linear"]  # candle's Llama3RopeConfig has no linear variant
    assert not validator.is_valid(linear)
    assert validator.is_valid(family()["tf5-linear"])  # nested under rope_parameters: candle never looks


def test_unknown_consumer_is_exit_2(capsys):
    assert main(["schema", "vllm"]) == 2
    assert "unknown consumer 'vllm'" in capsys.readouterr().err


FAMILY_PROFILES = [(name, f) for name in consumers.names() for f in sorted(knowledge.entries(name))]


@pytest.mark.parametrize("name, family", FAMILY_PROFILES, ids=[f"{n}-{f}" for n, f in FAMILY_PROFILES])
def test_family_schema_accepts_every_config_of_the_family_it_reads(name, family, capsys):
    schema = exported(capsys, name, family)
    Draft202012Validator.check_schema(schema)
    configs = {**real_configs(), **{f"generated:{k}": json.dumps(v).encode() for k, v in all_cases(with_resaved=False).items()}}
    rejected = [label for label, valid, _, view in verdicts(name, schema, configs, family) if view.outcome == "loads" and not valid]
    assert rejected == []
