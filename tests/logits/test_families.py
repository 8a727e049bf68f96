"""The logits check on every family beyond Llama: tiny random checkpoints that transformers 5 writes itself.

Each family's checkpoint is built from cfglint's family base config resaved by transformers 5 (the
transformers 5 layout, where RoPE lives in rope_parameters). The readings cfglint's findings call
divergent must diverge, the others agree exactly; after `cfglint fix --write` every reading agrees
within the tolerance with equal greedy tokens, except what no config edit reaches (a runtime's hard-coded
behaviour), which REMAINING lists and a finding on the fixed file must name.
"""

from __future__ import annotations

import json
import shutil

import pytest

from cfglint import consumers, document
from cfglint.cli import main
from cfglint.compat import FAMILY_BASES
from cfglint.engine import context_of
from cfglint.logits import check, readings
from cfglint.logits.check import AGREES, DIVERGES, NOT_RUN
from cfglint.logits.family import NotReproducible
from cfglint.logits.readings import FAILS, RUNS

from ..families import resaved
from .conftest import write_tiny_family

TOLERANCE = 1e-4
TOKENS = 8
FAMILIES = ("qwen2", "qwen3", "mistral", "mixtral", "gemma", "gemma2", "gemma3_text", "phi3", "deepseek_v2", "deepseek_v3",
            "gpt_oss")
# After the fix, the readings that still differ, and whether a finding of the fixed file names them.
REMAINING = {
    "gemma": {"mlx-lm": True, "llama-cpp": True},  # mlx-lm's gelu (A003); llama.cpp's Gemma theta 10000 (R006)
    "gemma2": {"candle": True, "transformers-4": True, "llama-cpp": True},  # windows (A005), scale (A006), capping (A007)
    "deepseek_v2": {"transformers-4": True},  # transformers 4.57 leaves YaRN's mscale out of the attention scale (A006)
    "gpt_oss": {"mlx-lm": True, "llama-cpp": True},  # YaRN truncated where gpt-oss writes truncate false (R005)
}


@pytest.fixture(scope="module")
def family_dirs(tmp_path_factory):
    """family_dirs(family, fixed) -> a tiny checkpoint directory, the fixed one a copy repaired by `cfglint fix --write`."""
    made: dict[tuple[str, bool], object] = {}

    def make(family: str, fixed: bool = False):
        if (family, fixed) not in made:
            if not fixed:
                made[family, fixed] = write_tiny_family(tmp_path_factory.mktemp(family), resaved(FAMILY_BASES[family]))
            else:
                directory = tmp_path_factory.mktemp(f"{family}-fixed")
                shutil.copytree(make(family), directory, dirs_exist_ok=True)
                assert main(["fix", "--write", str(directory)]) == 0
                made[family, fixed] = directory
        return made[family, fixed]

    return make


# Findings about what a runtime computes with (the config's values, its load, its weights), not its dtype or sampling.
_COMPUTATION_RULES = ("A", "R", "L", "W")


def _named_by_findings(directory, capsys) -> set[str]:
    capsys.readouterr()
    main(["check", "--format", "json", str(directory)])
    findings = json.loads(capsys.readouterr().out)
    return {name for f in findings if f["code"].startswith(_COMPUTATION_RULES) for name in f["consumers"]}


@pytest.fixture(scope="module")
def compared(family_dirs, prompt_ids):
    """compared(family, fixed) -> (reference, plans, reference ids, comparisons), computed once each."""
    done: dict[tuple[str, bool], tuple] = {}

    def run(family: str, fixed: bool = False):
        if (family, fixed) not in done:
            directory = family_dirs(family, fixed)
            ctx = context_of(document.load(directory / "config.json"), [consumers.get(n) for n in consumers.names()])
            plans = readings.plan(ctx)
            reference = check.TransformersReference(directory)
            ids, _, comparisons = check.compare(reference, plans, prompt_ids, TOKENS, TOLERANCE)
            done[family, fixed] = (reference, plans, ids, comparisons)
        return done[family, fixed]

    return run


@pytest.mark.parametrize("family", FAMILIES)
def test_readings_the_findings_call_divergent_diverge_and_the_others_agree_exactly(family, family_dirs, compared, capsys):
    named = _named_by_findings(family_dirs(family), capsys)
    _, plans, reference_ids, comparisons = compared(family)
    assert comparisons["transformers-5"].verdict == AGREES and comparisons["transformers-5"].all_positions == 0.0
    for name, c in comparisons.items():
        if plans[name].status != RUNS:
            assert c.message, name
        elif name in named:
            # Random tiny weights make every misreading large: 0.01 is a hundred times the tolerance.
            assert c.verdict == DIVERGES and c.all_positions > 0.01, (name, c)
        else:
            assert c.verdict == AGREES and c.all_positions == 0.0 and list(c.greedy_ids) == reference_ids, (name, c)
    assert any(plans[n].status == RUNS for n in named), "every family's transformers-5 file misleads a runtime that runs"


@pytest.mark.parametrize("family", FAMILIES)
def test_after_the_fix_every_reading_agrees_but_what_no_edit_reaches(family, family_dirs, compared, capsys):
    named = _named_by_findings(family_dirs(family, fixed=True), capsys)
    _, plans, reference_ids, comparisons = compared(family, fixed=True)
    remaining = {}
    for name, c in comparisons.items():
        if plans[name].status != RUNS:
            continue
        if c.verdict == AGREES:
            assert c.all_positions <= TOLERANCE and list(c.greedy_ids) == reference_ids
        else:
            remaining[name] = name in named
    assert remaining == REMAINING.get(family, {})


def test_a_runtime_without_a_loader_or_a_profile_value_is_named_not_run(compared):
    _, _, _, comparisons = compared("gemma3_text")
    assert comparisons["mistralrs"].verdict == NOT_RUN
    assert comparisons["mistralrs"].message == "mistral.rs 0.9 has no gemma3_text loader"
    assert comparisons["mlx-lm"].verdict == NOT_RUN
    assert "tie_word_embeddings" in comparisons["mlx-lm"].message


def test_a_reading_the_family_code_cannot_compute_is_not_run_with_its_reason(compared, prompt_ids):
    reference, plans, _, _ = compared("qwen2")
    values = dict(plans["transformers-5"].values, attn_logit_softcapping=30.0)
    with pytest.raises(NotReproducible, match="attn_logit_softcapping 30.0"):
        reference.reading(values)
    comparison = check._run_reading(
        reference, readings.Plan("x", RUNS, values), prompt_ids, (reference.logits(prompt_ids), []), lambda ids: None, lambda i: None
    )
    assert comparison.verdict == NOT_RUN and "Qwen2ForCausalLM cannot compute with attn_logit_softcapping" in comparison.message


@pytest.mark.parametrize("family", ("mixtral", "gemma2", "qwen2"))
def test_every_reading_computes_with_the_reference_s_own_tensors(family, compared):
    """One copy of the weights: a reading's parameters are the reference's, but for biases it zeroes."""
    reference, plans, _, _ = compared(family)
    held = {p.data_ptr() for p in reference.model.parameters()}
    for values in ({**plans["transformers-5"].values}, {**plans["transformers-5"].values, "attention_bias": False}):
        reading = reference.reading(values)
        for name, parameter in reading.model.named_parameters():
            if values["attention_bias"] is False and name.endswith(".bias"):
                assert not parameter.any(), name
            else:
                assert parameter.data_ptr() in held, name


def test_values_the_config_cannot_say_are_patched_on_the_modules(compared, prompt_ids):
    """Gemma's config rewrites hidden_act "gelu" to the tanh form; a runtime that keeps the exact GELU is still run."""
    import torch

    reference, plans, _, _ = compared("gemma")
    intent = plans["transformers-5"].values
    exact = reference.reading({**intent, "hidden_act": "gelu"}).logits(prompt_ids)
    same = reference.reading(dict(intent)).logits(prompt_ids)
    assert torch.equal(same, reference.logits(prompt_ids))
    assert 0 < (exact - same).abs().max().item() < 0.1  # the two GELUs differ by little, but they differ
    scaled = reference.reading({**intent, "query_pre_attn_scalar": 64}).logits(prompt_ids)
    assert (scaled - same).abs().max().item() > 0.01


# The real runtimes compute in float32 with their own kernels (mlx's GEMM and fused norms, candle's under
# mistral.rs), summing in their own order: on these logits (magnitude below 10) that leaves at most a few
# 1e-5 (measured 3.7e-5 for mlx-lm's Gemma, 2.9e-5 for mistral.rs' Gemma 2 log-probs). 1e-3 allows for other
# CPUs and BLAS builds and stays 100x below every misreading of the transformers 5 layout here (asserted
# below), so a match cannot be a match with the wrong reading. (After the fix, mlx-lm's exact GELU for Gemma
# differs from the tanh form by only 2e-3: there the match is with the prediction, not a proof against it.)
RUNTIME_TOLERANCE = 1e-3
RUNTIME_PROMPT = "The capital of France is"
MLX_REQUIREMENTS = ["mlx[cpu]", "mlx-lm"]
MISTRALRS_REQUIREMENTS = ["mistralrs==0.9.5"]
# mlx-lm 0.32.2's gpt_oss Model.sanitize renames only the MXFP4 expert tensors (gate_up_proj_blocks, ...): the
# unquantized experts.gate_up_proj / down_proj that transformers writes become experts.gate_proj (no .weight),
# which the strict load refuses. The weight checks do not model that sanitize yet, so the check runs the reading.
MLX_REFUSES_WEIGHTS = {"gpt_oss": "parameters not in model: model.layers.0.mlp.experts.down_proj"}
MISTRALRS_FAMILIES = ("qwen2", "qwen3", "mistral", "mixtral", "gemma", "gemma2", "phi3")  # mistral.rs has no gemma3_text


def _runtime_prompt(directory) -> list[int]:
    from tokenizers import Tokenizer

    return Tokenizer.from_file(str(directory / "tokenizer.json")).encode(RUNTIME_PROMPT).ids


def _prediction(compared, family: str, fixed: bool, consumer: str, ids: list[int]):
    reference, plans, _, comparisons = compared(family, fixed)
    plan = plans[consumer]
    assert plan.status == RUNS, plan.message
    return reference, reference.reading(dict(plan.values)), comparisons[consumer].verdict == DIVERGES


def test_the_check_predicts_real_mlx_lm_for_every_family_it_runs(family_dirs, compared):
    import torch

    from tests.conformance.venvs import run_probe, runtime_python

    cases = [(family, fixed) for family in FAMILIES if family != "gemma3_text" for fixed in (False, True)]
    dirs = {case: family_dirs(*case) for case in cases}
    ids = _runtime_prompt(dirs[cases[0]])
    probe = run_probe(runtime_python("mlx-lm", MLX_REQUIREMENTS), "mlx_lm_logits_probe.py", ",".join(map(str, ids)),
                      *(str(d) for d in dirs.values()))
    misread = 0
    for case, directory in dirs.items():
        observed = probe["results"][str(directory)]
        if case[0] in MLX_REFUSES_WEIGHTS:
            assert observed["outcome"] == "error" and MLX_REFUSES_WEIGHTS[case[0]] in observed["message"], (case, observed)
            continue
        plan = compared(*case)[1]["mlx-lm"]
        if plan.status == FAILS:  # the check says mlx-lm refuses it (DeepSeek-V2's transformers-5 layout): it does
            assert observed["outcome"] != "loads" and plan.message in observed["message"], (case, observed)
            continue
        assert observed["outcome"] == "loads", (case, observed["message"])
        real = torch.tensor(observed["values"]["logits"])
        reference, reading, diverges = _prediction(compared, *case, "mlx-lm", ids)
        assert (reading.logits(ids) - real).abs().max().item() < RUNTIME_TOLERANCE, case
        if diverges and not case[1]:  # real mlx-lm is as far from transformers 5 as the check says
            misread += 1
            assert (reference.logits(ids) - real).abs().max().item() > 100 * RUNTIME_TOLERANCE, case
    assert misread >= 6  # the transformers-5 layout misleads mlx-lm's RoPE base in six of the seven


def test_real_mlx_lm_truncates_gpt_oss_yarn_as_its_reading_says(family_dirs, compared):
    """gpt-oss writes truncate false; mlx-lm's YarnRoPE floors and ceils the correction range all the same.
    The RoPE real mlx-lm builds from the fixed file (no weights: it refuses these, above) is transformers'
    YaRN for mlx-lm's reading (truncate true), not transformers 5's for the file: the difference R005 names."""
    import torch

    from tests.conformance.venvs import run_probe, runtime_python

    directory = family_dirs("gpt_oss", fixed=True)
    probe = run_probe(runtime_python("mlx-lm", MLX_REQUIREMENTS), "mlx_lm_rope_probe.py", str(directory))
    observed = probe["results"][str(directory)]
    assert observed["outcome"] == "loads" and observed["values"]["class"] == "YarnRoPE", observed
    real = torch.tensor(observed["values"]["inverse_frequencies"])
    reference, plans, _, _ = compared("gpt_oss", fixed=True)
    assert plans["mlx-lm"].values["rope_scaling"]["truncate"] is True
    predicted = reference.reading(dict(plans["mlx-lm"].values)).model.model.rotary_emb
    intended = reference.model.model.rotary_emb
    assert torch.allclose(real, predicted.inv_freq, rtol=1e-5, atol=0.0)
    assert (real - intended.inv_freq).abs().max().item() > 1e-3
    assert observed["values"]["mscale"] == pytest.approx(predicted.attention_scaling, rel=1e-6)


def test_the_check_predicts_real_mistralrs_for_every_family_it_loads(family_dirs, compared):
    import torch

    from tests.conformance.venvs import run_probe, runtime_python

    greedy = 8
    cases = [(family, True) for family in MISTRALRS_FAMILIES] + [("mistral", False)]  # the others fail unfixed
    dirs = {case: family_dirs(*case) for case in cases}
    ids = _runtime_prompt(dirs[cases[0]])
    probe = run_probe(runtime_python("mistralrs", MISTRALRS_REQUIREMENTS), "mistralrs_logits_probe.py",
                      ",".join(map(str, ids)), str(greedy), *(str(d) for d in dirs.values()), timeout=900)
    for case, directory in dirs.items():
        observed = probe["results"][str(directory)]
        assert observed["outcome"] == "loads", (case, observed["message"])
        _, reading, _ = _prediction(compared, *case, "mistralrs", ids)
        predicted = torch.log_softmax(reading.logits(ids)[-1], dim=-1)
        assert (predicted - torch.tensor(observed["values"]["logprobs"])).abs().max().item() < RUNTIME_TOLERANCE, case
        assert check.greedy(reading, ids, greedy) == observed["values"]["greedy_ids"], case


def test_real_mistralrs_refuses_what_the_check_says_it_refuses(family_dirs, compared):
    from tests.conformance.venvs import run_probe, runtime_python

    dirs = {family: family_dirs(family) for family in MISTRALRS_FAMILIES if family != "mistral"}
    probe = run_probe(runtime_python("mistralrs", MISTRALRS_REQUIREMENTS), "mistralrs_logits_probe.py", "1,2", "1",
                      *(str(d) for d in dirs.values()), timeout=900)
    for family, directory in dirs.items():
        observed = probe["results"][str(directory)]
        _, _, _, comparisons = compared(family)
        assert comparisons["mistralrs"].verdict == check.FAILS
        assert observed["outcome"] == "error" and observed["message"].startswith(comparisons["mistralrs"].message), family


@pytest.mark.parametrize(
    ("change", "verdict", "reason"),
    [
        # one type for four layers: the config class refuses it (validate_layer_type)
        ({"layer_types": ["full_attention"]}, NOT_RUN, "cannot load the reading's config: StrictDataclassClassValidationError"),
        ({"hidden_act": "no-such-activation"}, NOT_RUN, "Gemma2ForCausalLM cannot be built with these values"),
        ({"num_key_value_heads": 3}, check.FAILS, "model.layers.0.self_attn.k_proj.weight has shape (32, 64)"),
    ],
)
def test_values_transformers_does_not_take_are_named_not_a_traceback(compared, prompt_ids, change, verdict, reason):
    reference, plans, _, _ = compared("gemma2")
    plan = readings.Plan("x", RUNS, {**plans["transformers-5"].values, **change})
    comparison = check._run_reading(reference, plan, prompt_ids, (reference.logits(prompt_ids), []), lambda ids: None, lambda i: None)
    assert comparison.verdict == verdict and reason in comparison.message and "\n" not in comparison.message


def test_check_logits_on_a_family_directory_attaches_the_figures_to_its_findings(family_dirs, capsys):
    directory = family_dirs("gemma2")
    capsys.readouterr()
    code = main(["check", str(directory), "--logits", "--tokens", "4", "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 1 and "no finding names it" not in err
    findings = {f["code"]: f for f in json.loads(out)}
    figures = findings["A007"]["logits"]["consumers"]  # transformers 4 drops the attention soft-capping
    assert set(figures) == {"transformers-4"} and figures["transformers-4"]["verdict"] == DIVERGES
    assert findings["R001"]["logits"]["consumers"]["mistralrs"]["verdict"] == check.FAILS


def test_check_logits_names_a_multimodal_file_it_does_not_run(tmp_path, capsys):
    from ..families import multimodal, variants

    (tmp_path / "config.json").write_text(json.dumps(multimodal(variants("gemma3_text")["base"])))
    capsys.readouterr()
    code = main(["check", str(tmp_path), "--logits", "--format", "concise"])
    err = capsys.readouterr().err
    assert code == 2
    assert f"{tmp_path / 'config.json'}: --logits: not run: the multimodal gemma3 (only text models' checkpoints are run)" in err


def test_a_value_the_profile_leaves_out_is_not_guessed_from_the_reference(compared):
    reference, plans, _, _ = compared("gemma2")
    values = {k: v for k, v in plans["transformers-5"].values.items() if k != "attn_logit_softcapping"}
    with pytest.raises(NotReproducible, match="does not say which attn_logit_softcapping it uses"):
        reference.reading(values)
    reference, plans, _, _ = compared("qwen2")  # no soft-capping in the family: leaving it out is saying none
    values = {k: v for k, v in plans["transformers-5"].values.items() if k != "attn_logit_softcapping"}
    assert reference.reading(values).model.config.model_type == "qwen2"


def test_gpt_oss_as_llama_cpp_runs_it_keeps_the_experts_biases(compared, prompt_ids):
    """llama.cpp's gpt-oss graph requires the router's and the experts' bias tensors, which the checkpoint
    stores as one gate_up_proj_bias for all experts. Its reading differs from transformers 5's in YaRN's
    truncate alone (ggml always truncates); with transformers 5's RoPE it computes transformers 5's logits exactly."""
    reference, plans, reference_ids, comparisons = compared("gpt_oss")
    ours, intent = plans["llama-cpp"].values, plans["transformers-5"].values
    assert plans["llama-cpp"].status == RUNS and ours["mlp_bias"] is True
    assert comparisons["llama-cpp"].verdict == DIVERGES
    assert ours["rope_scaling"] == {**intent["rope_scaling"], "truncate": True} and intent["rope_scaling"]["truncate"] is False
    plan = readings.Plan("llama-cpp", RUNS, {**ours, "rope_scaling": intent["rope_scaling"]})
    c = check._run_reading(reference, plan, prompt_ids, (reference.logits(prompt_ids), reference_ids), lambda ids: None, lambda i: None)
    assert c.all_positions == 0.0 and list(c.greedy_ids) == reference_ids
