"""The commands through main(argv): exit codes, formats, the JSON contract, and bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cfglint.cli import main
from tests.family import family

TF5 = "samples/smollm2-135m-instruct-tf5"
CLEAN = "samples/smollm2-135m-instruct"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_clean_sample_exits_0(in_repo, capsys):
    code, out, _ = run(capsys, "check", CLEAN)
    assert code == 0 and "All checks passed" in out


def test_transformers5_sample_exits_1_with_the_consequence(in_repo, capsys):
    code, out, _ = run(capsys, "check", TF5, "--format", "concise")
    assert code == 1
    lines = out.splitlines()
    assert lines[0].startswith(f"{TF5}/config.json:8:3: D001 dtype \"bfloat16\" has no torch_dtype twin")
    assert lines[1] == (
        f"{TF5}/config.json:27:5: R001 rope_theta 100000 is only in rope_parameters: candle, transformers-4 and "
        "mlx-lm will use 10000.0 (default); mistralrs refuses to load (missing field `rope_theta`)"
    )


def test_json_contract(in_repo, capsys):
    code, out, _ = run(capsys, "check", TF5, "--format", "json")
    findings = json.loads(out)
    assert code == 1 and [f["code"] for f in findings] == ["D001", "R001"]
    f = findings[1]
    for key in ("code", "severity", "message", "path", "line", "column", "pointer", "consumers", "fix"):
        assert key in f
    assert (f["code"], f["severity"], f["pointer"], f["consumers"]) == ("R001", "error", "/rope_parameters/rope_theta", ["candle", "transformers-4", "mlx-lm", "mistralrs"])
    assert f["fix"] == {"message": 'add top-level "rope_theta": 100000', "applicability": "safe", "edits": [{"op": "set", "pointer": "/rope_theta", "value": 100000}]}


def test_view_json_contract(in_repo, capsys):
    code, out, _ = run(capsys, "view", TF5, "--format", "json")
    [entry] = json.loads(out)
    assert code == 0 and entry["path"] == f"{TF5}/config.json"
    candle = entry["consumers"]["candle"]
    assert candle["outcome"] == "loads" and candle["message"] is None
    assert candle["values"]["rope_theta"] == 10000.0 and entry["intent"]["rope_theta"] == 100000
    assert set(candle["values"]) == {
        "rope_theta", "rope_scaling", "head_dim", "num_key_value_heads", "tie_word_embeddings", "hidden_act",
        "attention_bias", "mlp_bias", "max_position_embeddings", "rms_norm_eps", "eos_token_id",
    }


def test_view_table_marks_divergence(in_repo, capsys):
    code, out, _ = run(capsys, "view", TF5, "--consumer", "candle")
    row = next(line for line in out.splitlines() if line.startswith("rope_theta"))
    assert row.split() == ["rope_theta", "100000", "10000.0", "!"]


def test_a_family_nobody_models_is_reported_unchecked(in_repo, capsys, write_config):
    model = write_config({"model_type": "falcon", "hidden_size": 64})
    code, out, _ = run(capsys, "check", str(model), "--format", "json")
    [finding] = json.loads(out)
    assert code == 1 and finding["code"] == "M001" and finding["severity"] == "warning"
    code, out, _ = run(capsys, "view", str(model), "--format", "json")
    assert json.loads(out)[0]["consumers"]["candle"]["outcome"] == "not-applicable"


def test_a_runtime_without_the_family_says_so_for_itself(in_repo, capsys):
    code, out, _ = run(capsys, "check", "samples/gemma-3-1b-it", "--format", "json")
    [finding] = [f for f in json.loads(out) if f["code"] == "M002"]
    assert finding["severity"] == "info"
    assert "mistralrs" in finding["consumers"] and "mistral.rs 0.9 has no gemma3_text loader" in finding["message"]


def test_several_paths_and_a_config_file_path(in_repo, capsys):
    code, out, _ = run(capsys, "check", CLEAN, f"{TF5}/config.json", "--format", "concise")
    assert code == 1 and out.count("R001") == 1 and out.count("D001") == 1


def test_unknown_consumer_is_a_usage_error(in_repo, capsys):
    code, _, err = run(capsys, "check", CLEAN, "--consumer", "nope")
    assert code == 2 and "unknown consumer 'nope'" in err


def test_unknown_format_is_a_usage_error(in_repo, capsys):
    code, _, err = run(capsys, "check", CLEAN, "--format", "xml")
    assert code == 2 and "unknown format 'xml'" in err


def test_rules_and_explain(in_repo, capsys):
    code, out, _ = run(capsys, "rules", "--format", "json")
    codes = [r["code"] for r in json.loads(out)]
    assert code == 0 and {"R001", "R002", "R003", "R004", "A001", "A002", "A003", "L001", "J002", "S001", "M001"} <= set(codes)
    code, out, _ = run(capsys, "explain", "R001")
    assert code == 0 and "## Fix safety" in out and "Safe" in out
    code, _, err = run(capsys, "explain", "Z999")
    assert code == 2 and "unknown rule" in err


@pytest.mark.parametrize(
    "content, code, rule",
    [
        (b'{"hidden_size": 576,}', "J001", "trailing comma"),
        (b"\xef\xbb\xbf" + json.dumps(family()["tf4-default"]).encode(), "J004", "byte-order mark"),
        (b'{"a": "\xff"}', "J001", "not valid UTF-8"),
        (b"[1, 2]", "J005", "top level is an array"),
        (json.dumps(dict(family()["tf4-default"], rms_norm_eps=float("nan"))).encode(), "J003", "NaN is not valid JSON"),
        (b"[" * 100_000, "J001", "nesting deeper"),
    ],
)
def test_bad_content_is_a_finding(content, code, rule, write_config, capsys):
    directory = write_config(content)
    exit_code, out, err = run(capsys, "check", str(directory), "--format", "concise")
    assert exit_code == 1 and err == ""
    assert f" {code} " in out and rule in out
    assert "Traceback" not in out


def test_bom_and_nan_name_the_runtimes_that_fail(write_config, capsys):
    nan = dict(family()["tf4-default"], rms_norm_eps=float("nan"))
    _, out, _ = run(capsys, "check", str(write_config(json.dumps(nan))), "--format", "concise")
    assert "candle and mistralrs refuse to load (expected value)" in out


def test_huge_file_is_a_finding(write_config, capsys, tmp_path):
    directory = tmp_path / "big"
    directory.mkdir()
    with open(directory / "config.json", "wb") as handle:
        handle.truncate(50 * 1024 * 1024)
    code, out, _ = run(capsys, "check", str(directory), "--format", "concise")
    assert code == 1 and "J001" in out and "50.0 MiB" in out


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda d: d / "absent", "no such file or directory"),
        (lambda d: d, "no config.json in this directory"),
    ],
)
def test_unreadable_paths_exit_2_with_one_line(make, message, tmp_path, capsys):
    target = make(tmp_path)
    code, out, err = run(capsys, "check", str(target))
    assert code == 2 and err.count("\n") == 1 and message in err and str(target) in err


def test_a_directory_named_config_json(tmp_path, capsys):
    (tmp_path / "config.json").mkdir()
    code, _, err = run(capsys, "check", str(tmp_path))
    assert code == 2 and "is a directory" in err


def test_unreadable_file_exits_2(tmp_path, capsys):
    # A path through a file: the OS refuses it regardless of privileges.
    (tmp_path / "plain").write_text("{}")
    code, _, err = run(capsys, "check", str(tmp_path / "plain" / "config.json"))
    assert code == 2 and err.startswith("cfglint: error:") and err.count("\n") == 1


def test_other_paths_are_still_checked_after_an_unreadable_one(in_repo, capsys, tmp_path):
    code, out, err = run(capsys, "check", str(tmp_path / "absent"), TF5, "--format", "concise")
    assert code == 2 and "R001" in out and "no such file" in err


def test_console_script_and_module_entry(in_repo):
    script = Path(sys.executable).parent / "cfglint"
    for argv in ([str(script)], [sys.executable, "-m", "cfglint"]):
        proc = subprocess.run([*argv, "check", TF5, "--format", "concise"], capture_output=True, text=True)
        assert proc.returncode == 1 and "R001" in proc.stdout, proc.stderr


def test_version(capsys):
    code, out, _ = run(capsys, "--version")
    assert code == 0 and out.startswith("cfglint 0.")


def test_generation_config_path_checks_its_config_once(in_repo, capsys, tmp_path):
    model = tmp_path / "model"
    model.mkdir()
    (model / "config.json").write_text((in_repo / TF5 / "config.json").read_text())
    (model / "generation_config.json").write_text('{"do_sample": true, "temperature": 0.7}')
    code, out, _ = run(capsys, "check", str(model / "generation_config.json"), str(model / "config.json"), "--format", "json")
    findings = json.loads(out)
    assert code == 1 and {f["path"] for f in findings} == {str(model / "config.json")}
    assert [f["code"] for f in findings].count("R001") == 1


def test_generation_config_without_config_is_an_error(tmp_path, capsys):
    (tmp_path / "generation_config.json").write_text("{}")
    code, _, err = run(capsys, "check", str(tmp_path / "generation_config.json"))
    assert code == 2 and "no config.json beside it" in err


def test_a_config_that_is_a_pipe_is_an_error_not_a_hang(tmp_path, capsys):
    import os

    model = tmp_path / "model"
    model.mkdir()
    os.mkfifo(model / "config.json")  # reading it would wait for a writer forever
    code, _, err = run(capsys, "check", str(model))
    assert code == 2 and f"{model / 'config.json'}: not a regular file" in err


def test_a_multimodal_file_is_checked_and_fixed_in_its_text_config(tmp_path, capsys):
    from tests.families import multimodal, resaved, variants

    model = tmp_path / "gemma3"
    model.mkdir()
    (model / "config.json").write_text(json.dumps(resaved(multimodal(variants("gemma3_text")["linear"])), indent=2) + "\n")
    code, out, _ = run(capsys, "check", str(model), "--format", "json")
    found = {(f["code"], f["pointer"]) for f in json.loads(out)}
    assert ("R002", "/text_config/rope_parameters/full_attention/rope_type") in found
    assert ("R001", "/text_config/rope_parameters/sliding_attention/rope_theta") in found
    [lacking] = [f for f in json.loads(out) if f["code"] == "M002"]
    assert "mistral.rs 0.9 has no gemma3 loader" in lacking["message"]
    assert main(["fix", "--write", str(model)]) == 0
    fixed = json.loads((model / "config.json").read_text())
    assert fixed["text_config"]["rope_scaling"] == {"rope_type": "linear", "factor": 2.0}
    assert "rope_scaling" not in fixed and fixed["text_config"]["rope_local_base_freq"] == 20000.0


@pytest.mark.parametrize("command", ["check", "fix", "view", "rules", "explain", "sampling", "schema"])
def test_a_run_builds_only_its_command_and_reads_the_same(command, capsys):
    """`cfglint CMD ...` builds the app with CMD alone; its help and its usage errors are the full app's."""
    from typer.testing import CliRunner

    from cfglint import cli

    assert [c.callback.__name__ for c in cli._app_for([command, "--help"]).registered_commands] == [command]
    runner = CliRunner()
    for argv in ([command, "--help"], [command, "--no-such-option"]):
        alone = runner.invoke(cli._app_for(argv), argv, prog_name="cfglint")
        full = runner.invoke(cli.app, argv, prog_name="cfglint")
        assert (alone.exit_code, alone.output) == (full.exit_code, full.output)
    assert cli._app_for(["--version"]) is cli.app and cli._app_for(["chek"]) is cli.app


@pytest.mark.parametrize(("rope_type", "shown"), [("linear", "RoPE scaling linear(factor=2.0)"), ("", 'RoPE scaling ""(factor=2.0)')])
def test_r002_names_the_scaling_a_llama_class_runs_not_a_layer_types(tmp_path, capsys, rope_type, shown):
    """LlamaConfig declares no layer types: it keeps a full_attention dict beside the type it runs."""
    model = tmp_path / "model"
    model.mkdir()
    nested = {"rope_type": rope_type, "factor": 2.0, "rope_theta": 5e5, "full_attention": {"rope_type": "default", "rope_theta": 5e5}}
    config = {"model_type": "llama", "architectures": ["LlamaForCausalLM"], "hidden_size": 64, "intermediate_size": 128,
              "num_attention_heads": 4, "num_key_value_heads": 2, "num_hidden_layers": 2, "vocab_size": 1000,
              "rms_norm_eps": 1e-6, "hidden_act": "silu", "rope_parameters": nested}
    (model / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    code, out, _ = run(capsys, "check", str(model), "--format", "json", "--select", "R002")
    [finding] = json.loads(out)
    assert finding["message"].startswith(f"{shown} is only in rope_parameters: ")
