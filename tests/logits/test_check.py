"""The logits check on tiny random checkpoints: each kind of misreading shows up as the runtimes' views predict.

Every case writes a real checkpoint with transformers 5, edits its config.json the way configs are found in
the wild, and runs the whole path a `cfglint check --logits` takes: the consumer profiles read the file,
readings.plan() turns their views into forwards, check.compare() runs them against transformers 5.
"""

from __future__ import annotations

import pytest

from cfglint import consumers, document
from cfglint.engine import context_of
from cfglint.logits import check, readings
from cfglint.logits.check import AGREES, DIVERGES, FAILS

TOLERANCE = 1e-4
TOKENS = 8
LLAMA3 = {
    "rope_type": "llama3",
    "rope_theta": 500000.0,
    "factor": 8.0,
    "low_freq_factor": 1.0,
    "high_freq_factor": 4.0,
    "original_max_position_embeddings": 16,
}


def flat_theta(config: dict) -> None:
    """Add the legacy top-level twin of the nested theta, so every runtime finds the same value."""
    config["rope_theta"] = config["rope_parameters"]["rope_theta"]


def drop_tie(config: dict) -> None:
    flat_theta(config)
    del config["tie_word_embeddings"]


def biases_off(config: dict) -> None:
    flat_theta(config)
    config["attention_bias"] = False


def tie_on(config: dict) -> None:
    flat_theta(config)
    config["tie_word_embeddings"] = True


def sliding_first_layer(config: dict) -> None:
    flat_theta(config)
    config.update(layer_types=["sliding_attention", "full_attention"], sliding_window=4)


def verdicts(agree: str = "", diverge: str = "", fail: str = "") -> dict[str, str]:
    table = {name: AGREES for name in consumers.names()}
    table.update({name: DIVERGES for name in diverge.split()})
    table.update({name: FAILS for name in fail.split()})
    return table


# name -> (checkpoint overrides, config edit, what each runtime's reading does)
CASES = {
    "every_runtime_reads_it_right": ({}, flat_theta, verdicts()),
    "theta_only_nested": (
        {"rope_parameters": {"rope_type": "default", "rope_theta": 100000.0}},
        None,
        verdicts(diverge="candle transformers-4 mlx-lm", fail="mistralrs"),
    ),
    "llama3_scaling_only_nested": (
        {"rope_parameters": LLAMA3},
        flat_theta,
        verdicts(diverge="candle transformers-4 mlx-lm mistralrs"),
    ),
    "biases_dropped": (
        {"attention_bias": True, "mlp_bias": True},
        flat_theta,
        verdicts(diverge="candle mistralrs"),
    ),
    "stored_biases_the_flags_turn_off": (
        {"attention_bias": True},
        biases_off,
        verdicts(diverge="llama-cpp", fail="mlx-lm"),
    ),
    "activation_ignored": ({"hidden_act": "gelu"}, flat_theta, verdicts(diverge="candle mlx-lm llama-cpp")),
    "head_dim_ignored": ({"head_dim": 32}, flat_theta, verdicts(fail="candle mistralrs")),
    "tie_default_differs": ({"tie_word_embeddings": False}, drop_tie, verdicts(diverge="mlx-lm")),
    "sliding_layer_only_mlx_lm_applies": ({}, sliding_first_layer, verdicts(diverge="mlx-lm")),
    "tied_but_head_stored": (
        {"tie_word_embeddings": False},
        tie_on,
        verdicts(diverge="candle transformers-4 mlx-lm mistralrs"),
    ),
}


def plans_for(model_dir):
    ctx = context_of(document.load(model_dir / "config.json"), [consumers.get(n) for n in consumers.names()])
    return readings.plan(ctx)


@pytest.fixture(scope="module")
def compared(tiny_llama, tmp_path_factory, prompt_ids):
    """compared(case) -> (reference ids, comparisons), computed once per case."""
    import json

    done: dict[str, tuple] = {}

    def run(case: str):
        if case not in done:
            overrides, edit, _ = CASES[case]
            source = tiny_llama(case, **overrides)
            directory = tmp_path_factory.mktemp(case)
            (directory / "model.safetensors").symlink_to(source / "model.safetensors")
            config = json.loads((source / "config.json").read_text())
            if edit is not None:
                edit(config)
            (directory / "config.json").write_text(json.dumps(config, indent=2))
            reference = check.TransformersReference(directory)
            ids, _, comparisons = check.compare(reference, plans_for(directory), prompt_ids, TOKENS, TOLERANCE)
            done[case] = (ids, comparisons)
        return done[case]

    return run


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_runtime_gets_the_verdict_its_view_predicts(compared, case):
    _, comparisons = compared(case)
    assert {name: c.verdict for name, c in comparisons.items()} == CASES[case][2]


@pytest.mark.parametrize("case", sorted(CASES))
def test_agreement_is_within_tolerance_and_divergence_far_beyond_it(compared, case):
    reference_ids, comparisons = compared(case)
    for c in comparisons.values():
        if c.verdict == AGREES:
            assert c.all_positions <= TOLERANCE and c.last_position <= TOLERANCE
            assert list(c.greedy_ids) == reference_ids and c.first_divergent_step is None
        elif c.verdict == DIVERGES:
            # Random tiny weights make every misreading large; 0.1 is a thousand times the tolerance.
            assert c.all_positions > 0.1
            assert c.all_positions >= c.last_position
        else:
            assert c.message and c.all_positions is None and c.greedy_ids == ()


def test_first_divergent_step_is_where_the_tokens_part(compared):
    reference_ids, comparisons = compared("theta_only_nested")
    mlx = comparisons["mlx-lm"]
    step = mlx.first_divergent_step
    assert step is not None, "theta 10000 vs 100000 should change some of the 8 tokens on random weights"
    assert list(mlx.greedy_ids[: step - 1]) == reference_ids[: step - 1]
    assert mlx.greedy_ids[step - 1] != reference_ids[step - 1]
    assert mlx.matching_tokens(TOKENS) == step - 1


def test_failures_carry_the_runtime_s_own_words(compared):
    _, comparisons = compared("theta_only_nested")
    assert comparisons["mistralrs"].message == "missing field `rope_theta`"
    _, comparisons = compared("head_dim_ignored")
    assert "shape mismatch for model.layers.0.self_attn.q_proj.weight" in comparisons["candle"].message


def test_runtimes_with_the_same_reading_share_one_forward(tiny_llama, prompt_ids, monkeypatch):
    """candle, transformers 4 and mlx-lm make the same mistake here: one forward serves the three."""
    source = tiny_llama("theta_only_nested", **CASES["theta_only_nested"][0])
    reference = check.TransformersReference(source)
    built = []
    original = reference.reading
    monkeypatch.setattr(reference, "reading", lambda values: built.append(values) or original(values))
    _, _, comparisons = check.compare(reference, plans_for(source), prompt_ids, 2, TOLERANCE)
    assert len(built) == 2  # the reference's values (transformers-5, llama-cpp) and theta 10000
    assert sorted(v["rope_theta"] for v in built) == [10000.0, 100000.0]
    assert comparisons["candle"].greedy_ids == comparisons["mlx-lm"].greedy_ids


def test_a_tolerance_above_the_difference_turns_divergence_into_agreement_only_if_tokens_match(compared, prompt_ids):
    _, comparisons = compared("activation_ignored")
    candle = comparisons["candle"]
    loose = check._verdict(candle, tolerance=candle.all_positions)
    assert loose.verdict == (AGREES if candle.first_divergent_step is None else DIVERGES)
    assert check._verdict(candle, tolerance=candle.all_positions / 2).verdict == DIVERGES
