"""The family RoPE readings (cfglint.readers.rope_families): Phi-3's longrope in transformers 4, mlx-lm, candle
and mistral.rs, through the public path (document -> context -> each consumer's view), and against the real
transformers 4.57.6 and mlx-lm where they are installable.

`same("rope_scaling", view, intent)` must hold exactly when the runtime computes transformers 5's RoPE for
every sequence up to max_position_embeddings.
"""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import pytest

from cfglint import consumers, document
from cfglint.compat import edited
from cfglint.consumers.mlx_lm import TOKENIZER_READS_IT
from cfglint.engine import context_of
from cfglint.reading import same
from tests.families import BASES
from tests.conformance.venvs import run_probe, runtime_python

PHI3 = BASES["phi3"]  # head_dim 16: 8 frequencies; max 256, original 64
SHORT, LONG = [1.0] * 8, [2.0] + [3.0] * 7
RUNTIMES = ("transformers-4", "mlx-lm", "candle", "mistralrs")


def phi3(**changes) -> dict:
    scaling = {"type": "longrope", "short_factor": list(SHORT), "long_factor": list(LONG)}
    return edited(dict(PHI3, rope_scaling=scaling), **changes)


def views(config: dict):
    ctx = context_of(document.parse(Path("config.json"), json.dumps(config).encode()), [consumers.get(n) for n in RUNTIMES])
    return ctx.intent, ctx.views


def matches(config: dict) -> dict[str, bool | str]:
    """Per runtime: whether its rope_scaling is transformers 5's, or its failure message."""
    intent, found = views(config)
    out = {}
    for name, view in found.items():
        out[name] = view.message if view.failure else same("rope_scaling", view.values["rope_scaling"], intent.values["rope_scaling"])
    return out


def default_attention(max_positions, original):
    factor = max_positions / original
    return 1.0 if factor <= 1 else math.sqrt(1 + math.log(factor) / math.log(original))


# ------------------------------------------------------------------ expected readings
def test_extended_context_only_transformers4_matches():
    intent, found = views(phi3())
    assert intent.values["rope_scaling"]["original_max_position_embeddings"] == 64
    assert same("rope_scaling", found["transformers-4"].values["rope_scaling"], intent.values["rope_scaling"])
    mlx = found["mlx-lm"].values["rope_scaling"]
    assert mlx["short_factor"] == LONG and mlx["long_factor"] == LONG  # SuScaledRoPE ignores short_factor
    assert "attention_factor" not in mlx  # sqrt(1 + ln 4 / ln 64), transformers' default
    candle = found["candle"].values["rope_scaling"]
    assert candle["rope_type"] == "longrope-by-position" and candle["attention_factor"] == 1.0
    mistral = found["mistralrs"].values["rope_scaling"]
    # long factors from L = 64 on (transformers: from 65), attention factor still based on 64
    assert mistral["original_max_position_embeddings"] == 63
    assert mistral["attention_factor"] == pytest.approx(default_attention(256, 64))
    for name in ("mlx-lm", "candle", "mistralrs"):
        assert not same("rope_scaling", found[name].values["rope_scaling"], intent.values["rope_scaling"]), name
    for name in RUNTIMES:
        assert found[name].values["partial_rotary_factor"] == 1.0
        assert found[name].values["rope_theta"] == 500000.0


def test_no_extension():
    # max == original: only the short factors, attention factor 1 (mistral.rs still switches at L = 64)
    assert matches(phi3(max_position_embeddings=64)) == {
        "transformers-4": True, "mlx-lm": False, "candle": True, "mistralrs": False}
    assert matches(phi3(max_position_embeddings=63)) == {
        "transformers-4": True, "mlx-lm": False, "candle": True, "mistralrs": True}
    one = phi3(max_position_embeddings=64)
    one["rope_scaling"]["short_factor"] = list(LONG)
    assert matches(one) == {"transformers-4": True, "mlx-lm": True, "candle": True, "mistralrs": True}


def test_one_factor_list_extended():
    # short == long: the switch does not matter; candle lacks the attention factor
    config = phi3()
    config["rope_scaling"]["short_factor"] = list(LONG)
    assert matches(config) == {"transformers-4": True, "mlx-lm": True, "candle": False, "mistralrs": True}


def test_top_level_original_absent():
    config = phi3(original_max_position_embeddings=None)  # transformers 4 and 5, mlx-lm: the class's 4096; candle: none
    intent, found = views(config)
    assert intent.values["rope_scaling"]["original_max_position_embeddings"] == 4096
    # 4096 > max: transformers 4 never switches either, attention factor 1 in both
    assert same("rope_scaling", found["transformers-4"].values["rope_scaling"], intent.values["rope_scaling"])
    assert same("rope_scaling", found["candle"].values["rope_scaling"], intent.values["rope_scaling"])  # short only
    assert found["mistralrs"].message == "missing field `original_max_position_embeddings`"


def test_partial_rotary_factor():
    config = phi3(partial_rotary_factor=0.5)
    config["rope_scaling"]["short_factor"] = SHORT[:4]
    config["rope_scaling"]["long_factor"] = LONG[:4]
    intent, found = views(config)
    for name in RUNTIMES:
        assert found[name].outcome == "loads", name
        assert found[name].values["partial_rotary_factor"] == 0.5
    assert same("rope_scaling", found["transformers-4"].values["rope_scaling"], intent.values["rope_scaling"])


@pytest.mark.parametrize(
    ("scaling", "expected"),
    [
        ({"type": "longrope", "rope_type": "longrope", "short_factor": SHORT, "long_factor": LONG},
         {"transformers-4": "ValueError: `rope_scaling` must be a dictionary with three fields, `type`, `short_factor` and "
                            "`long_factor`, got {'type': 'longrope', 'rope_type': 'longrope', 'short_factor': "
                            f"{SHORT}, 'long_factor': {LONG}}}", "mlx-lm": False, "candle": False, "mistralrs": False}),
        ({"type": "linear", "short_factor": SHORT, "long_factor": LONG},
         {"transformers-4": "ValueError: `rope_scaling`'s type field must be one of ['longrope'], got linear",
          "mlx-lm": "KeyError: 'factor'", "candle": "unknown variant `linear`, expected `longrope`",
          "mistralrs": "Expected either `su` or `yarn` RoPE"}),
        ({"type": "longrope", "short_factor": SHORT[:7], "long_factor": LONG},
         {"transformers-4": "ValueError: `rope_scaling`'s short_factor field must have length 8, got 7",
          "mlx-lm": "StrictDataclassClassValidationError: Class validation error for validator 'validate_rope': ValueError: "
                    "`rope_parameters`'s short_factor field must have length 8, got 7" + TOKENIZER_READS_IT,
          "candle": "inconsistent last dim size in rope: 7 frequencies for a rotary width of 16",
          "mistralrs": "index out of bounds: the len is 7 but the index is 7"}),
        ({"type": "longrope", "short_factor": SHORT, "long_factor": "x"},
         {"transformers-4": "ValueError: `rope_scaling`'s long_factor field must be a list of numbers, got x",
          "mlx-lm": "ValueError: Invalid type str received in array initialization.", "candle": False,
          "mistralrs": "data did not match any variant of untagged enum PhiRopeScalingConfig"}),
        ({"rope_type": "longrope", "short_factor": SHORT, "long_factor": LONG},
         {"transformers-4": "ValueError: `rope_scaling`'s type field must be one of ['longrope'], got None",
          "mlx-lm": "ValueError: rope_scaling must contain keys {'long_factor', 'type'}", "candle": "missing field `type`",
          "mistralrs": "data did not match any variant of untagged enum PhiRopeScalingConfig"}),
        ({"type": "yarn", "short_factor": SHORT, "long_factor": LONG}, None),
        ({"type": "longrope", "short_factor": SHORT}, None),
    ],
    ids=["rope_type-too", "linear", "short-too-short", "long-not-a-list", "rope_type-only", "yarn", "no-long"],
)
def test_refusals_and_variants(scaling, expected):
    config = phi3(rope_scaling=copy.deepcopy(scaling))
    got = matches(config)
    if expected is not None:
        # candle's "x" would be a serde type error; cfglint reads the json and candle's zip sees no floats
        if scaling.get("long_factor") == "x":
            got.pop("candle"), expected.pop("candle")
        assert got == expected
    intent, found = views(config)
    if scaling.get("type") == "yarn":
        assert found["transformers-4"].outcome == "loads"  # yarn is renamed longrope
        assert found["mlx-lm"].values["rope_scaling"] is None  # dropped with a warning
        assert found["candle"].message == "unknown variant `yarn`, expected `longrope`"
        assert found["mistralrs"].values["rope_scaling"]["attention_factor"] == pytest.approx(0.1 * math.log(4) + 1)
    if "long_factor" not in scaling:
        assert found["transformers-4"].message == "ValueError: `rope_scaling` must be a dictionary with three fields, " \
            f"`type`, `short_factor` and `long_factor`, got {scaling}"
        assert found["mlx-lm"].message == "ValueError: rope_scaling must contain keys {'long_factor', 'type'}"
        assert found["candle"].message == "missing field `long_factor`"
        assert found["mistralrs"].message == "data did not match any variant of untagged enum PhiRopeScalingConfig"


def test_mistralrs_mscales_are_ignored():
    config = phi3()
    config["rope_scaling"].update(long_mscale=5.0, short_mscale=5.0)
    plain = views(phi3())[1]["mistralrs"].values["rope_scaling"]
    assert views(config)[1]["mistralrs"].values["rope_scaling"] == plain  # Classic matches first


def test_mlx_linear_and_unknown_types():
    found = views(phi3(rope_scaling={"type": "linear", "factor": 2.0, "long_factor": LONG}))[1]
    assert found["mlx-lm"].values["rope_scaling"] == {"rope_type": "linear", "factor": 2.0}
    found = views(phi3(rope_scaling={"type": "linear", "factor": 2, "long_factor": LONG}))[1]
    assert found["mlx-lm"].message == "AssertionError"
    found = views(phi3(rope_scaling={"type": "dynamic", "factor": 2.0, "long_factor": LONG}))[1]
    assert found["mlx-lm"].values["rope_scaling"] is None


# ------------------------------------------------------------------ against the real runtimes
REAL_CASES = {
    "extended": phi3(),
    "no-extension": phi3(max_position_embeddings=64),
    "one-list": phi3(rope_scaling={"type": "su", "short_factor": LONG, "long_factor": LONG}),
    "original-absent": phi3(original_max_position_embeddings=None),
    "partial": phi3(partial_rotary_factor=0.5, rope_scaling={"type": "longrope", "short_factor": SHORT[:4], "long_factor": LONG[:4]}),
    "four-keys": phi3(rope_scaling={"type": "longrope", "rope_type": "longrope", "short_factor": SHORT, "long_factor": LONG}),
    "linear": phi3(rope_scaling={"type": "linear", "factor": 2.0, "short_factor": SHORT, "long_factor": LONG}),
    "short-too-short": phi3(rope_scaling={"type": "longrope", "short_factor": SHORT[:7], "long_factor": LONG}),
    "long-too-short": phi3(rope_scaling={"type": "longrope", "short_factor": SHORT, "long_factor": LONG[:3]}),
    "long-not-numbers": phi3(rope_scaling={"type": "longrope", "short_factor": SHORT, "long_factor": ["a"] * 8}),
    "rope_type-only": phi3(rope_scaling={"rope_type": "longrope", "short_factor": SHORT, "long_factor": LONG}),
    "no-short": phi3(rope_scaling={"type": "longrope", "long_factor": LONG}),
    "yarn": phi3(rope_scaling={"type": "yarn", "short_factor": SHORT, "long_factor": LONG}),
    "dynamic": phi3(rope_scaling={"type": "dynamic", "factor": 2.0, "long_factor": LONG}),
    "none": phi3(rope_scaling=None),
}

TF4_PROBE = r'''
import json, os, sys
json_out = os.fdopen(os.dup(1), "w"); os.dup2(2, 1); sys.stdout = sys.stderr
import numpy as np
from transformers import AutoConfig
from transformers import modeling_rope_utils


class T(np.ndarray):  # just enough torch for _compute_longrope_parameters' last lines
    def float(self):
        return self.astype(np.float32).view(T)


class FakeTorch:
    float32, int64 = np.float32, np.int64

    @staticmethod
    def tensor(data, dtype=None, device=None):
        return np.asarray(data, dtype=dtype).view(T)

    @staticmethod
    def arange(*args, dtype=None, device=None):
        return np.arange(*args, dtype=dtype).view(T)


modeling_rope_utils.torch = FakeTorch
results = {}
for folder in sys.argv[1:]:
    try:
        config = AutoConfig.from_pretrained(folder)
    except Exception as exc:
        results[folder] = {"error": f"{type(exc).__name__}: {exc}"}
        continue
    out = {"rope_scaling": config.rope_scaling, "partial_rotary_factor": config.partial_rotary_factor}
    if isinstance(config.rope_scaling, dict):
        try:
            short, attention = modeling_rope_utils._compute_longrope_parameters(config, None)
            original = config.original_max_position_embeddings
            long, _ = modeling_rope_utils._compute_longrope_parameters(config, None, seq_len=(original or 0) + 1)
            out.update(short_inv_freq=short.tolist(), long_inv_freq=long.tolist(), attention=attention, switch=original)
        except Exception as exc:
            out["rope_error"] = f"{type(exc).__name__}: {exc}"
    results[folder] = out
json_out.write(json.dumps(results) + "\n"); json_out.flush()
'''

MLX_PROBE = r'''
import json, os, sys
json_out = os.fdopen(os.dup(1), "w"); os.dup2(2, 1); sys.stdout = sys.stderr
from pathlib import Path
import mlx.core as mx
import mlx_lm
from mlx.utils import tree_flatten
from mlx_lm.models import phi3

results = {}
for folder in sys.argv[1:]:
    config = json.loads((Path(folder) / "config.json").read_text())
    try:  # what load_model does before it reads weights; a refusal here is load's own
        model = phi3.Model(phi3.ModelArgs.from_dict(config))
    except BaseException as exc:
        results[folder] = {"error": f"{type(exc).__name__}: {exc}".rstrip(": ")}
        continue
    mx.save_safetensors(str(Path(folder) / "model.safetensors"), dict(tree_flatten(model.parameters())))
    out = {}
    try:
        model, _ = mlx_lm.load(folder)
    except Exception as exc:  # the tokenizer half runs transformers 5's AutoConfig, which may refuse the file
        out["tokenizer_error"] = f"{type(exc).__name__}: {exc}"
        model, _ = mlx_lm.utils.load_model(Path(folder))
    rope = model.model.layers[0].self_attn.rope
    out.update({"class": type(rope).__name__, "dims": rope.dims if hasattr(rope, "dims") else rope.dim})
    if hasattr(rope, "_freqs"):
        out.update(freqs=rope._freqs.tolist(), scale=rope._scale)
    else:
        out.update(scale=rope.scale, base=rope.base)
    results[folder] = out
json_out.write(json.dumps(results) + "\n"); json_out.flush()
'''


def write_cases(root: Path, tokenizer: bool = False) -> dict[str, str]:
    from tests.conformance.tiny_checkpoint import _tokenizer_config, tokenizer_json

    folders = {}
    for name, config in REAL_CASES.items():
        folder = root / name
        folder.mkdir(parents=True)
        (folder / "config.json").write_text(json.dumps(config))
        if tokenizer:
            (folder / "tokenizer.json").write_text(json.dumps(tokenizer_json(config["vocab_size"])))
            (folder / "tokenizer_config.json").write_text(json.dumps(_tokenizer_config()))
        folders[name] = str(folder)
    return folders


def expected_inv_freq(factors, theta, dim):
    return [1.0 / (f * theta ** (i / dim)) for f, i in zip(factors, range(0, dim, 2))]


@pytest.fixture(scope="module")
def transformers4(tmp_path_factory):
    python = runtime_python("transformers4", ["transformers==4.57.6"])
    root = tmp_path_factory.mktemp("tf4_phi3")
    script = root / "tf4_phi3_probe.py"
    script.write_text(TF4_PROBE, encoding="utf-8")
    folders = write_cases(root / "cases")
    result = run_probe(python, str(script), *folders.values())
    return {name: result[folder] for name, folder in folders.items()}


@pytest.mark.parametrize("case", list(REAL_CASES))
def test_transformers4_against_4_57_6(case, transformers4):
    real = transformers4[case]
    view = views(REAL_CASES[case])[1]["transformers-4"]
    if "error" in real or "rope_error" in real:
        assert view.message == real.get("error", real.get("rope_error"))
        return
    assert view.outcome == "loads", view.message
    assert view.values["partial_rotary_factor"] == real["partial_rotary_factor"]
    scaling = view.values["rope_scaling"]
    if real["rope_scaling"] is None:
        assert scaling is None
        return
    config = REAL_CASES[case]
    dim = int(config["hidden_size"] // config["num_attention_heads"] * config["partial_rotary_factor"])
    # the reading's dict, run as transformers runs it, must give 4.57.6's frequencies and attention factor
    # the reading's dict, run as transformers runs it, must give 4.57.6's frequencies and attention factor for
    # every length up to max_position_embeddings
    horizon, switch = config["max_position_embeddings"], scaling["original_max_position_embeddings"]
    assert real["short_inv_freq"] == pytest.approx(expected_inv_freq(scaling["short_factor"], config["rope_theta"], dim), rel=1e-6)
    if min(real["switch"], switch) < horizon:
        assert real["switch"] == switch
        assert real["long_inv_freq"] == pytest.approx(expected_inv_freq(scaling["long_factor"], config["rope_theta"], dim), rel=1e-6)
    attention = scaling.get("attention_factor", default_attention(horizon, switch))
    assert real["attention"] == pytest.approx(attention)


@pytest.fixture(scope="module")
def mlx(tmp_path_factory):
    python = runtime_python("mlx-lm", ["mlx[cpu]", "mlx-lm"])
    root = tmp_path_factory.mktemp("mlx_phi3")
    script = root / "mlx_phi3_probe.py"
    script.write_text(MLX_PROBE, encoding="utf-8")
    folders = write_cases(root / "cases", tokenizer=True)
    result = run_probe(python, str(script), *folders.values())
    return {name: result[folder] for name, folder in folders.items()}


@pytest.mark.parametrize("case", list(REAL_CASES))
def test_mlx_lm_against_the_built_model(case, mlx):
    real = mlx[case]
    view = views(REAL_CASES[case])[1]["mlx-lm"]
    if "error" in real:
        # the set's order is the process's string hashing; cfglint prints it sorted
        if real["error"].startswith("ValueError: rope_scaling must contain keys"):
            assert view.message == "ValueError: rope_scaling must contain keys {'long_factor', 'type'}"
        else:
            assert view.message == real["error"]
        return
    if "tokenizer_error" in real:  # mlx_lm.load stops where transformers 5's Phi3Config refuses the file
        assert view.message == " ".join(line.strip() for line in real["tokenizer_error"].splitlines()) + TOKENIZER_READS_IT
        return
    assert view.outcome == "loads", view.message
    config = REAL_CASES[case]
    scaling = view.values["rope_scaling"]
    assert real["dims"] == int(16 * view.values["partial_rotary_factor"])
    if real["class"] != "SuScaledRoPE":
        assert real["base"] == config["rope_theta"]
        assert real["scale"] == (1.0 if scaling is None else 1 / scaling["factor"])
        assert scaling is None or scaling["rope_type"] == "linear"
        return
    # SuScaledRoPE keeps periods: factor * theta ** (i / dim), the long factors at every length
    dims = real["dims"]
    assert scaling["short_factor"] == scaling["long_factor"] or same("rope_scaling", scaling, views(config)[0].values["rope_scaling"])
    periods = [1 / f for f in expected_inv_freq(scaling["long_factor"], config["rope_theta"], dims)]
    assert real["freqs"] == pytest.approx(periods, rel=1e-5)
    attention = scaling.get("attention_factor", default_attention(config["max_position_embeddings"],
                                                                   scaling["original_max_position_embeddings"]))
    assert real["scale"] == pytest.approx(attention)
