"""The sampling rules S002-S010 through `cfglint check`, on model directories with a generation_config.json."""

from __future__ import annotations

import json

import pytest

from cfglint.cli import main
from tests.conftest import SAMPLES

SMOLLM2 = json.loads((SAMPLES / "smollm2-135m-instruct" / "config.json").read_text())


@pytest.fixture
def model(tmp_path):
    """model(generation, **config_updates) -> a directory with SmolLM2's config and this generation_config.json."""
    counter = iter(range(1000))

    def make(generation=None, **config_updates):
        directory = tmp_path / f"m{next(counter)}"
        directory.mkdir()
        (directory / "config.json").write_text(json.dumps({**SMOLLM2, **config_updates}, indent=2))
        if generation is not None:
            text = generation if isinstance(generation, str) else json.dumps(generation, indent=2)
            (directory / "generation_config.json").write_text(text)
        return directory

    return make


def sampling_findings(directory, capsys, *consumers):
    args = ["check", str(directory), "--format", "json"]
    for name in consumers:
        args += ["--consumer", name]
    main(args)
    return {f["code"]: f for f in json.loads(capsys.readouterr().out) if f["code"][0] == "S"}


def test_a_config_without_generation_settings_has_no_sampling_findings(model, capsys):
    assert sampling_findings(model(), capsys) == {}
    assert sampling_findings(model({"bos_token_id": 1, "eos_token_id": 2}), capsys) == {}


def test_implicit_top_k(model, capsys):
    found = sampling_findings(model({"do_sample": True, "temperature": 0.7, "eos_token_id": 2}), capsys)
    s002 = found["S002"]
    assert "Sampling::TopK { k: 50, temperature: 0.7 }" in s002["message"]
    assert "Sampling::All { temperature: 0.7 }" in s002["message"]
    assert "make_sampler(temp=0.7, top_k=50)" in s002["message"]
    assert s002["consumers"] == ["candle", "mlx-lm"]
    assert s002["message"].startswith("generation_config.json:2:3: ")
    assert "S002" not in sampling_findings(model({"do_sample": True, "top_k": 50, "eos_token_id": 2}), capsys)
    assert "S002" not in sampling_findings(model({"temperature": 0.7, "eos_token_id": 2}), capsys)


def test_top_k_with_top_p_including_the_default_top_k(model, capsys):
    # Llama 3's published generation settings: temperature 0.6, top_p 0.9, no top_k.
    found = sampling_findings(model({"do_sample": True, "temperature": 0.6, "top_p": 0.9, "eos_token_id": 2}), capsys)
    assert {"S002", "S003", "S007"} <= set(found)
    assert "top_k 50 (transformers' default) with top_p 0.9" in found["S003"]["message"]
    assert "TopKThenTopP { k: 50, p: 0.9, temperature: 0.6 }" in found["S003"]["message"]
    assert "S003" not in sampling_findings(model({"do_sample": True, "top_k": 0, "top_p": 0.9, "eos_token_id": 2}), capsys)


def test_top_k_zero(model, capsys):
    found = sampling_findings(model({"do_sample": True, "top_k": 0, "top_p": 0.95, "eos_token_id": 2}), capsys)
    assert "Sampling::TopP { p: 0.95, temperature: 1.0 }" in found["S004"]["message"]
    assert "S004" not in sampling_findings(model({"do_sample": True, "top_k": 0, "eos_token_id": 2}), capsys, "mlx-lm")


@pytest.mark.parametrize(
    "temperature, severity, words",
    [(0.0, "error", "mlx-lm decodes greedily"), (-0.5, "error", "least likely"), (1e-9, "info", "below 1e-7")],
)
def test_temperature_near_zero(model, capsys, temperature, severity, words):
    found = sampling_findings(model({"do_sample": True, "temperature": temperature, "top_k": 40, "eos_token_id": 2}), capsys)
    assert found["S005"]["severity"] == severity
    assert words in found["S005"]["message"]
    assert "S010" not in found


def test_repetition_penalty(model, capsys):
    found = sampling_findings(model({"do_sample": True, "top_k": 40, "repetition_penalty": 1.2, "eos_token_id": 2}), capsys)
    assert found["S006"]["severity"] == "warning" and "(128 by default)" in found["S006"]["message"]
    default = sampling_findings(model({"do_sample": True, "top_k": 40, "eos_token_id": 2}), capsys)
    assert default["S006"]["severity"] == "info" and "1.1" in default["S006"]["message"]


def test_generation_config_ignored_names_the_flags_to_pass(model, capsys):
    found = sampling_findings(model({"do_sample": True, "temperature": 0.6, "top_k": 20, "eos_token_id": 2}), capsys)
    message = found["S007"]["message"]
    assert "candle never reads generation_config.json; pass --temperature 0.6 --top-k 20" in message
    assert "mlx-lm reads only eos_token_id from generation_config.json; pass --temp 0.6 --top-k 20" in message


def test_eos_mismatch(model, capsys):
    found = sampling_findings(model({"eos_token_id": [2, 7]}), capsys)
    s008 = found["S008"]
    assert s008["consumers"] == ["candle"]  # mlx-lm takes generation_config.json's eos
    assert s008["fix"]["edits"] == [{"op": "set", "pointer": "/eos_token_id", "value": [2, 7]}]
    missing = sampling_findings(model({"do_sample": True, "top_k": 5}), capsys)["S008"]
    assert "stops on no token" in missing["message"] and missing["consumers"] == ["candle", "mlx-lm"]
    assert "S008" not in sampling_findings(model({"eos_token_id": [2]}), capsys)


def test_sampling_settings_without_do_sample(model, capsys):
    found = sampling_findings(model({"temperature": 0.6, "top_p": 0.9, "eos_token_id": 2}), capsys)
    assert "temperature 0.6, top_p 0.9 without do_sample" in found["S009"]["message"]
    assert not {"S002", "S003"} & set(found)


def test_sampling_keys_in_config_json_count_when_there_is_no_generation_file(model, capsys):
    found = sampling_findings(model(do_sample=True, temperature=0.7), capsys)
    assert {"S001", "S002"} <= set(found)
    assert found["S002"]["pointer"] == "/do_sample"
    # With a generation_config.json, transformers ignores them for generation.
    assert "S002" not in sampling_findings(model({"eos_token_id": 2}, do_sample=True, temperature=0.7), capsys)


def test_settings_transformers_rejects(model, capsys):
    found = sampling_findings(model({"do_sample": True, "temperature": 2, "top_k": 40, "eos_token_id": 2}), capsys)
    assert "`temperature` (=2) has to be a strictly positive float" in found["S010"]["message"]
    assert "S010" not in sampling_findings(model({"do_sample": True, "temperature": 2.0, "top_k": 40, "eos_token_id": 2}), capsys)


def test_only_the_checked_consumers_are_spoken_for(model, capsys):
    directory = model({"do_sample": True, "temperature": 0.7, "eos_token_id": 2})
    assert sampling_findings(directory, capsys, "mistralrs") == {}
    assert sampling_findings(directory, capsys, "mlx-lm")["S002"]["consumers"] == ["mlx-lm"]
