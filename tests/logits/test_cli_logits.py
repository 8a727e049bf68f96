"""`cfglint check --logits` from the command line, on tiny random checkpoints with a word-level tokenizer."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from cfglint.cli import main
from cfglint.logits.check import Comparison, LogitsCheck
from cfglint.logits.command import MISSING_EXTRA, LogitsRun
from tests.conftest import ROOT

from .tables import table_rows

NESTED_THETA = {"rope_parameters": {"rope_type": "default", "rope_theta": 100000.0}}
CONFIG_ONLY_SAMPLE = ROOT / "samples" / "llama-3.2-1b-tf5"  # a config.json with no weights beside it


@pytest.fixture
def nested_theta_dir(tiny_model_dir):
    """transformers 5's own save of a tiny model with theta 1e5: the layout older runtimes misread."""
    return tiny_model_dir("cli_nested_theta", **NESTED_THETA)


def run(capsys, *args: str) -> tuple[int, str, str]:
    capsys.readouterr()  # drop what fixtures printed (transformers' save progress bar)
    code = main(["check", *args])
    out, err = capsys.readouterr()
    return code, out, err


SHIM = "import sys; sys.modules['torch'] = None; from cfglint.cli import main; sys.exit(main(sys.argv[1:]))"


def test_without_torch_logits_says_how_to_install_it_in_one_line():
    """A Python whose torch import fails (None in sys.modules makes `import torch` raise ImportError)."""
    proc = subprocess.run(
        [sys.executable, "-c", SHIM, "check", str(CONFIG_ONLY_SAMPLE), "--logits"], capture_output=True, text=True, cwd=ROOT
    )
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [f"cfglint: error: {MISSING_EXTRA}"]
    assert "pip install 'hf-cfglint[logits]'" in MISSING_EXTRA
    assert proc.stdout == ""


def test_without_torch_a_plain_check_still_works():
    proc = subprocess.run(
        [sys.executable, "-c", SHIM, "check", str(CONFIG_ONLY_SAMPLE), "--format", "concise"], capture_output=True, text=True, cwd=ROOT
    )
    assert proc.returncode == 1 and "R001" in proc.stdout, proc.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--prompt", "Hello"], "--prompt only makes sense with --logits"),
        (["--tokens", "3", "--tolerance", "0.1"], "--tokens, --tolerance only make sense with --logits"),
        (["--logits", "--tokens", "0"], "--tokens must be at least 1, got 0"),
        (["--logits", "--tolerance", "-1"], "--tolerance must be a number >= 0, got -1.0"),
        (["--logits", "--tolerance", "nan"], "--tolerance must be a number >= 0, got nan"),
        (["--logits", "--prompt", ""], "--prompt must not be empty"),
    ],
)
def test_bad_logits_options_are_usage_errors(capsys, args, message):
    code, out, err = run(capsys, str(CONFIG_ONLY_SAMPLE), *args)
    assert (code, out, err) == (2, "", f"cfglint: error: {message}\n")


def test_a_config_without_weights_cannot_be_measured(capsys):
    code, out, err = run(capsys, str(CONFIG_ONLY_SAMPLE), "--logits", "--format", "concise")
    assert code == 2
    assert f"{CONFIG_ONLY_SAMPLE / 'config.json'}: --logits: no safetensors weights beside config.json" in err
    assert "R001" in out  # the findings are still reported


def test_json_findings_carry_the_figures_of_the_runtimes_they_name(capsys, nested_theta_dir):
    code, out, err = run(capsys, str(nested_theta_dir), "--logits", "--format", "json", "--tokens", "4")
    assert code == 1
    assert err == ""  # stderr is not a terminal: no progress display
    findings = {f["code"]: f for f in json.loads(out)}
    r001 = findings["R001"]
    assert set(r001["logits"]["consumers"]) == set(r001["consumers"]) == {"candle", "transformers-4", "mlx-lm", "mistralrs"}
    logits = r001["logits"]
    assert (logits["prompt"], logits["tokens"], logits["tolerance"]) == ("The capital of France is", 4, 1e-4)
    assert logits["prompt_ids"] == [3, 4, 5, 6, 7]  # the tiny tokenizer's ids for the default prompt
    assert len(logits["reference"]["greedy_ids"]) == 4 and logits["reference"]["text"]
    for name in ("candle", "transformers-4", "mlx-lm"):
        figures = logits["consumers"][name]
        assert figures["verdict"] == "diverges"
        assert figures["max_abs_diff_all"] >= figures["max_abs_diff_last"] > 0.01
        assert len(figures["greedy_ids"]) == 4
    mistralrs = logits["consumers"]["mistralrs"]
    assert mistralrs["verdict"] == "fails to load" and mistralrs["message"] == "missing field `rope_theta`"
    assert mistralrs["max_abs_diff_last"] is None and mistralrs["greedy_ids"] is None
    measured = {"candle", "transformers-5", "transformers-4", "mlx-lm", "mistralrs", "llama-cpp"}
    for finding in findings.values():
        named = set(finding["consumers"]) & measured
        # Only the runtimes a finding names get figures; a finding naming none is left as it was.
        assert set(finding.get("logits", {}).get("consumers", {})) == named


def test_fix_then_check_shows_every_runtime_agreeing(capsys, nested_theta_dir):
    code, before, _ = run(capsys, str(nested_theta_dir), "--logits", "--tokens", "4", "--format", "concise")
    assert code == 1
    rows = table_rows(before)
    assert rows["mistralrs"][3].startswith("fails to load: missing field `rope_theta`")
    assert {name for name, cells in rows.items() if cells[3].startswith("diverges")} == {"candle", "transformers-4", "mlx-lm"}

    assert main(["fix", "--write", str(nested_theta_dir)]) == 0
    capsys.readouterr()
    code, after, err = run(capsys, str(nested_theta_dir), "--logits", "--tokens", "4", "--format", "concise")
    assert (code, err) == (0, "")
    rows = table_rows(after)
    assert set(rows) == {"candle", "transformers-5", "transformers-4", "mlx-lm", "mistralrs", "llama-cpp"}
    for name, (last, every, greedy, verdict) in rows.items():
        assert verdict == "agrees" and greedy == "4/4", (name, verdict)
        assert float(last) <= 1e-4 and float(every) <= 1e-4


def test_the_table_quotes_the_texts_and_names_the_first_divergent_token(capsys, nested_theta_dir):
    code, out, _ = run(capsys, str(nested_theta_dir), "--logits", "--tokens", "8", "--format", "full")
    assert code == 1
    assert f"logits: {nested_theta_dir / 'config.json'}" in out
    assert '  prompt "The capital of France is" (5 tokens), 8 greedy tokens, tolerance 0.0001' in out
    reference_line = next(line for line in out.splitlines() if "transformers 5 (reference): " in line)
    assert len(json.loads(reference_line.split("(reference): ", 1)[1]).split()) == 8  # word-level: 8 words
    verdict = table_rows(out)["mlx-lm"][3]
    assert verdict.startswith("diverges from token ")
    assert len(json.loads(verdict.split(": ", 1)[1]).split()) == 8


def test_a_divergence_no_finding_explains_fails_the_run(capsys, tiny_model_dir):
    """With R001 turned off, nothing accounts for the theta the older runtimes use: --logits still tells."""
    directory = tiny_model_dir("cli_nested_theta", **NESTED_THETA)
    (directory / ".cfglint.toml").write_text('ignore = ["R001", "D001"]\n')
    code, out, err = run(capsys, str(directory), "--logits", "--tokens", "2", "--format", "json", "--consumer", "mlx-lm")
    assert code == 1
    assert json.loads(out) == []
    assert err.splitlines() == [
        f"cfglint: --logits: {directory / 'config.json'}: mlx-lm diverges (max |logit diff| {line_figure(err)}) and no finding names it"
    ]


def line_figure(err: str) -> str:
    return err.split("max |logit diff| ", 1)[1].split(")", 1)[0]


def test_unexplained_divergence_is_counted_only_for_runtimes_no_finding_names():
    measured = LogitsCheck(
        "p", (1,), 1, 1e-4, (2,), None,
        {
            "candle": Comparison("candle", "diverges", last_position=0.5, all_positions=0.5, greedy_ids=(3,), first_divergent_step=1),
            "transformers-5": Comparison("transformers-5", "agrees", last_position=0.0, all_positions=0.0, greedy_ids=(2,)),
            "mistralrs": Comparison("mistralrs", "fails to load", "missing field `rope_theta`"),
        },
    )  # fmt: skip
    run_ = LogitsRun("p", 1, 1e-4, checks={"m/config.json": measured})
    assert run_.annotate([]) == []
    assert run_.unexplained == [
        "m/config.json: candle diverges (max |logit diff| 0.5) and no finding names it",
        "m/config.json: mistralrs fails to load (missing field `rope_theta`) and no finding names it",
    ]
    assert (run_.exit_code(0), run_.exit_code(2)) == (1, 2)
