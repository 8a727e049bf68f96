"""Acceptance on the real SmolLM2-135M-Instruct: `check --logits` before and after `cfglint fix --write`,
and the from-scratch forward's predictions against the real mlx-lm and mistral.rs on the same directories.

Each expensive step runs once: one check of the cache's directory (transformers-5 layout), one of the
repaired copy, one mlx-lm probe, two mistral.rs probes.
"""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout
from pathlib import Path

import pytest
import torch

from cfglint import consumers, document
from cfglint.cli import main
from cfglint.engine import context_of
from cfglint.logits import readings
from tests.conformance.venvs import run_probe, runtime_python

from .tables import table_rows

TOLERANCE = 1e-4
PROMPT_IDS = [504, 3575, 282, 4649, 314]  # "The capital of France is"; SmolLM2's tokenizer adds no BOS
# The real runtimes compute in float32 too, but with their own kernels: mlx's GEMM and fused RMSNorm,
# RoPE and softmax, candle's GEMM under mistral.rs, each summing in its own order. On logits of magnitude
# ~20 that leaves differences of a few 1e-5 (measured: 5.9e-5 for mlx-lm, 4.0e-5 for mistral.rs'
# log-probs). 1e-3 allows for other CPUs and BLAS builds and is still ~800x below the 0.79 that tells
# theta 10000 from 100000 apart, so a match cannot be with the wrong reading.
RUNTIME_TOLERANCE = 1e-3
MLX_REQUIREMENTS = ["mlx[cpu]", "mlx-lm"]
MISTRALRS_REQUIREMENTS = ["mistralrs==0.9.5"]


def check_output(*args: str) -> tuple[int, str]:
    out = io.StringIO()
    with redirect_stdout(out):
        code = main(["check", *args])
    return code, out.getvalue()


@pytest.fixture(scope="module")
def before(smollm2_dir) -> tuple[int, list[dict]]:
    code, out = check_output(str(smollm2_dir), "--logits", "--format", "json")
    return code, json.loads(out)


@pytest.fixture(scope="module")
def after(fixed_smollm2_dir) -> tuple[int, str]:
    return check_output(str(fixed_smollm2_dir), "--logits", "--format", "concise")


def plan_of(model_dir: Path, consumer: str) -> readings.Plan:
    ctx = context_of(document.load(model_dir / "config.json"), [consumers.get(consumer)])
    return readings.plan(ctx)[consumer]


def test_older_runtimes_diverge_on_the_transformers_5_layout(before):
    code, findings = before
    assert code == 1
    [r001] = [f for f in findings if f["code"] == "R001"]
    logits = r001["logits"]
    assert logits["prompt"] == "The capital of France is" and logits["prompt_ids"] == PROMPT_IDS
    assert logits["reference"]["text"].startswith(" Paris")
    for name in ("candle", "transformers-4", "mlx-lm"):
        figures = logits["consumers"][name]
        assert figures["verdict"] == "diverges"
        # Measured 0.787 at the last position, 1.22 over all five (torch 2.13 CPU); theta 10000 vs 100000.
        assert 0.5 < figures["max_abs_diff_last"] < 1.2
        assert figures["max_abs_diff_all"] >= figures["max_abs_diff_last"]
        assert figures["max_abs_diff_all"] > 1000 * TOLERANCE
    mistralrs = logits["consumers"]["mistralrs"]
    assert mistralrs == {
        "verdict": "fails to load",
        "message": "missing field `rope_theta`",
        "max_abs_diff_last": None,
        "max_abs_diff_all": None,
        "greedy_ids": None,
        "first_divergent_step": None,
        "text": None,
    }


def test_after_the_fix_every_reading_agrees_and_every_greedy_token_matches(after, fixed_smollm2_dir):
    code, out = after
    assert code == 0, out
    assert json.loads((fixed_smollm2_dir / "config.json").read_text())["rope_theta"] == 100000.0
    rows = table_rows(out)
    assert set(rows) == set(consumers.names())
    for name, (last, every, greedy, verdict) in rows.items():
        assert (verdict, greedy) == ("agrees", "20/20"), name
        assert float(last) <= TOLERANCE and float(every) <= TOLERANCE, name
    assert '(reference): " Paris.' in out


def test_forward_predicts_real_mlx_lm_on_the_same_directory(smollm2_dir, smollm2_reference):
    probe = run_probe(
        runtime_python("mlx-lm", MLX_REQUIREMENTS),
        "mlx_lm_probe.py",
        str(smollm2_dir),
        "--logits",
        "--prompt-ids",
        ",".join(map(str, PROMPT_IDS)),
    )
    assert probe["outcome"] == "loads", probe["message"]
    real = torch.tensor(probe["values"]["logits"])
    plan = plan_of(smollm2_dir, "mlx-lm")
    assert plan.values["rope_theta"] == 10000.0
    predicted = smollm2_reference.reading(dict(plan.values)).logits(PROMPT_IDS)[-1]
    assert (predicted - real).abs().max().item() < RUNTIME_TOLERANCE
    # ... and real mlx-lm is as far from transformers 5 as the check says.
    assert (smollm2_reference.logits(PROMPT_IDS)[-1] - real).abs().max().item() > 0.5


def test_real_mistralrs_refuses_the_directory_as_the_check_says(smollm2_dir):
    probe = run_probe(runtime_python("mistralrs", MISTRALRS_REQUIREMENTS), "mistralrs_probe.py", str(smollm2_dir))
    assert probe["outcome"] == "error"
    assert probe["message"].startswith(plan_of(smollm2_dir, "mistralrs").message)


def test_forward_predicts_real_mistralrs_after_the_fix(fixed_smollm2_dir, smollm2_reference):
    """The repaired copy's weights are the cache's file (a symlink): the reference's tensors are its tensors."""
    probe = run_probe(
        runtime_python("mistralrs", MISTRALRS_REQUIREMENTS),
        "mistralrs_probe.py",
        str(fixed_smollm2_dir),
        "--prompt-ids",
        ",".join(map(str, PROMPT_IDS)),
        "--logprobs",
        "--greedy",
        "20",
        timeout=900,
    )
    assert probe["outcome"] == "loads", probe["message"]
    plan = plan_of(fixed_smollm2_dir, "mistralrs")
    assert plan.status == readings.RUNS
    reading = smollm2_reference.reading(dict(plan.values))
    predicted = torch.log_softmax(reading.logits(PROMPT_IDS)[-1], dim=-1)
    assert (predicted - torch.tensor(probe["values"]["logprobs"])).abs().max().item() < RUNTIME_TOLERANCE
    assert reading.greedy(PROMPT_IDS, 20) == probe["values"]["greedy_ids"]
