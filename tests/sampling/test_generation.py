"""cfglint.generation resolves the settings exactly as transformers 5's generate() does, on the same files."""

from __future__ import annotations

import pytest

from cfglint import document
from cfglint.generation import FROM_CONFIG, FROM_GENERATION_FILE
from cfglint.generation import load as load_generation

KEYS = ("do_sample", "temperature", "top_k", "top_p", "repetition_penalty", "eos_token_id")

CASES = {
    "no generation file, no keys": ({}, None),
    "no generation file, sampling keys in config.json": ({"do_sample": True, "temperature": 0.7, "top_p": 0.9}, None),
    "generation file wins over config.json keys": (
        {"temperature": 0.3, "top_k": 7},
        {"do_sample": True, "temperature": 0.6, "top_p": 0.9, "eos_token_id": [2, 9]},
    ),
    "implicit defaults": ({}, {"do_sample": True}),
    "null means default, not off": ({}, {"do_sample": True, "top_k": None, "temperature": None}),
    "top_k 0": ({}, {"do_sample": True, "top_k": 0, "top_p": 0.95}),
    "generation file without eos stops on nothing": ({}, {"do_sample": True, "temperature": 0.8}),
    "unparseable generation file falls back to config.json": ({"do_sample": True, "temperature": 0.5}, '{"do_sample": true, '),
    "duplicate key: the last one": ({}, '{"top_k": 7, "top_k": 9, "do_sample": true}'),
    "repetition penalty": ({}, {"repetition_penalty": 1.3, "eos_token_id": 2}),
}


def transformers_settings(directory):
    from transformers import LlamaForCausalLM

    model = LlamaForCausalLM.from_pretrained(directory)
    config, _ = model._prepare_generation_config(None)
    return {key: getattr(config, key) for key in KEYS}


@pytest.mark.parametrize("case", list(CASES))
def test_resolution_matches_transformers(case, model_dir):
    config_updates, generation = CASES[case]
    directory = model_dir(config_updates, generation)
    ours = load_generation(document.load(directory / "config.json"))
    assert {key: ours.values[key] for key in KEYS} == transformers_settings(directory)


def test_origin_and_positions(model_dir):
    directory = model_dir({"temperature": 0.3}, '{\n  "do_sample": true,\n  "top_p": 0.9\n}\n')
    g = load_generation(document.load(directory / "config.json"))
    assert g.origin == FROM_GENERATION_FILE
    assert g.written("top_p") and not g.written("top_k") and not g.written("temperature")
    assert g.doc.locate("/top_p") == (3, 3)
    assert g.config_eos == [2, 3]
    plain = load_generation(document.load(model_dir({"temperature": 0.3}) / "config.json"))
    assert plain.origin == FROM_CONFIG and plain.written("temperature") and plain.has_settings


def test_a_file_not_named_config_json_has_no_generation_file(tmp_path):
    (tmp_path / "other.json").write_text('{"model_type": "llama"}')
    (tmp_path / "generation_config.json").write_text('{"do_sample": true}')
    g = load_generation(document.load(tmp_path / "other.json"))
    assert g.file is None and g.values["do_sample"] is False and not g.has_settings
