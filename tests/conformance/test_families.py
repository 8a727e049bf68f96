"""Per family, cfglint's predictions against the real runtimes, on tiny random checkpoints built by transformers 5.

For a sampled set of (runtime, family, variant) cases, each checkpoint is written in this process by real
transformers 5 (`AutoModelForCausalLM.from_config(AutoConfig.from_pretrained(dir))` + `save_pretrained`, with
weights re-drawn at unit scale so RoPE differences show in the log-probs), then config.json is overwritten with
the exact config under test, byte for byte the case's (transformers 5 layout and nulls included), and the
project's tiny tokenizer is added. Each runtime's probe runs once over all checkpoints (interpreter start of
mlx / torch costs seconds) and reports only what it observed; the predicted outcome must equal the observed one,
and every key both report must be `same`.

Sample per family: the base in the transformers 4 layout (`tf4-base`), its transformers 5 re-save
(`tf5-base`), and family-specific variants in both layouts (FAMILY_VARIANT). candle is not runnable here.
A prediction known to be wrong is listed in KNOWN_WRONG and asserted to be still wrong, so a fix flips it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Callable

import pytest

from cfglint import consumers, document
from cfglint.engine import context_of
from cfglint.reading import ALL_KEYS, same
from tests.conformance.llama_cpp_converter import converter_python, ensure_converter
from tests.conformance.tiny_checkpoint import _tokenizer_config, tokenizer_json
from tests.conformance.venvs import TRANSFORMERS4_WITH_TORCH, run_probe, runtime_python
from tests.families import BASES, resaved, variants

# The variants per family that exercise what the family's readers split on.
FAMILY_VARIANT: dict[str, str | tuple[str, ...]] = {
    "qwen2": "sliding-on",
    "qwen2_moe": "linear",
    "qwen3": "theta-absent",
    "qwen3_moe": "theta-absent",
    "mistral": ("head-dim-null", "layer-types"),  # AutoConfig builds the second as Ministral, saves it as one
    "ministral": "layer-types-null",
    "mixtral": "sliding-window",
    "gemma": "gelu",
    "gemma2": "tie-absent",
    "gemma3_text": "linear",
    "phi3": "longrope",
    "olmo2": "linear",
    "granite": "linear",
    "deepseek_v2": "unscaled",  # no rope_scaling: mlx-lm refuses, the others run plain RoPE
    "deepseek_v3": "theta-absent",
    "gpt_oss": "unscaled",  # no rope_scaling: transformers 5 runs its own YaRN x32, the others plain RoPE
}
RUNTIMES = ("transformers-4", "mlx-lm", "mistralrs", "llama-cpp")

# case id -> why the prediction is wrong. Each listed case must still disagree with the runtime.
KNOWN_WRONG: dict[str, str] = {
    "mistralrs/gemma2/tf4-tie-absent": (
        "no tie_word_embeddings and no lm_head.weight (transformers 5 ties by default): mistral.rs Gemma2 "
        "defaults to untied and fails with 'Missing required tensor(s) for replicated_linear at prefix "
        "`lm_head`: lm_head.weight. ...'; predicted loads"
    ),
    # gpt-oss as transformers 5 saves it unquantized (experts.gate_up_proj, no .weight suffix): both loaders
    # expect the MXFP4 release's names (gate_up_proj_blocks / _scales), which the config does not show.
    **{f"mlx-lm/gpt_oss/{case}": (
        "mlx-lm 0.32.2 models/gpt_oss.py sanitize renames experts.gate_up_proj to experts.gate_proj without "
        "'.weight' and refuses: 'Received 12 parameters not in model: model.layers.0.mlp.experts.down_proj, ...'; "
        "predicted loads (a config-only prediction)"
    ) for case in ("tf4-base", "tf5-base", "tf4-unscaled", "tf5-unscaled", "tf4-defaults-absent")},
    "transformers-4/deepseek_v3/tf4-defaults-absent": (
        "no num_key_value_heads: DeepseekV3Config's default is 128, and with fewer attention heads the "
        "attention's num_key_value_groups (heads // 128) is 0 in transformers 4 and 5 alike; latent attention "
        "is read with one KV head per attention head, and that broken split is not modelled"
    ),
    "mlx-lm/gemma3_text/tf4-defaults-absent": (
        "no num_key_value_heads: mlx-lm's gemma3_text ModelArgs defaults it to 1 where transformers 5 builds 4, "
        "and loading refuses the k_proj/v_proj shapes ('Expected shape (16, 64) but received shape (64, 64) ...'); "
        "predicted loads (a config-only prediction: W004 reports those shapes from the weights)"
    ),
    **{f"mistralrs/gpt_oss/{case}": (
        "mistral.rs 0.9.5 gpt_oss.rs: 'cannot find tensor model.layers.0.mlp.experts.gate_proj.weight'; "
        "predicted loads (a config-only prediction)"
    ) for case in ("tf4-base", "tf4-unscaled")},
}


def cases() -> dict[str, dict]:
    """`family/tf4-<variant>` and `family/tf5-<variant>` for the sampled variants of every family, and the keys
    the config class defaults left out (only as written: transformers 5 writes them back when it saves)."""
    out: dict[str, dict] = {}
    for family in BASES:
        family_variants = variants(family)
        sampled = FAMILY_VARIANT[family]
        for name in ("base", *((sampled,) if isinstance(sampled, str) else sampled)):
            out[f"{family}/tf4-{name}"] = family_variants[name]
            out[f"{family}/tf5-{name}"] = resaved(family_variants[name])
        out[f"{family}/tf4-defaults-absent"] = family_variants["defaults-absent"]
    return out


CASES = cases()


def write_family_checkpoint(config: dict, out_dir: Path, *, seed: int = 0) -> Path:
    """A tiny random checkpoint of `config`'s family, in the exact layout real transformers 5 saves."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    out_dir.mkdir(parents=True, exist_ok=True)
    config_path = out_dir / "config.json"
    config_path.write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    model = AutoModelForCausalLM.from_config(AutoConfig.from_pretrained(out_dir))
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, parameter in model.named_parameters():
            noise = torch.randn(parameter.shape, generator=generator)
            if parameter.ndim >= 2:
                parameter.copy_(noise if "embed" in name else noise / parameter.shape[-1] ** 0.5)
            elif "norm" in name:
                parameter.copy_(1.0 + 0.1 * noise)
            else:
                parameter.copy_(0.1 * noise)
    model.save_pretrained(out_dir)
    # save_pretrained rewrote config.json in its own layout: put the case's bytes back.
    config_path.write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    (out_dir / "tokenizer.json").write_text(json.dumps(tokenizer_json(int(config["vocab_size"]))), encoding="utf-8")
    (out_dir / "tokenizer_config.json").write_text(json.dumps(_tokenizer_config()), encoding="utf-8")
    return out_dir


def checkpoint_for(config: dict, out_dir: Path, built_without: tuple[str, ...]) -> Path:
    """A checkpoint transformers 5 builds from `config` without the keys it would refuse or scale by
    (`built_without`), with config.json then written as the case's."""
    directory = write_family_checkpoint({k: v for k, v in config.items() if k not in built_without}, out_dir)
    (directory / "config.json").write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    return directory


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory) -> dict[str, Path | str]:
    """case id -> checkpoint dir, or the reason transformers 5 could not build one."""
    root = tmp_path_factory.mktemp("family-checkpoints")
    out: dict[str, Path | str] = {}
    for case_id, config in CASES.items():
        try:
            out[case_id] = write_family_checkpoint(config, root / case_id.replace("/", "__"))
        except Exception as exc:  # noqa: BLE001 - a config transformers 5 cannot build is reported as a skip
            out[case_id] = f"transformers 5 cannot build it: {type(exc).__name__}: {exc}"
    return out


_PROBES = {
    "transformers-4": lambda: (runtime_python(*TRANSFORMERS4_WITH_TORCH), "transformers4_family_probe.py", ()),
    "mlx-lm": lambda: (runtime_python("mlx-lm", ["mlx[cpu]", "mlx-lm"]), "mlx_lm_family_probe.py", ()),
    "mistralrs": lambda: (runtime_python("mistralrs", ["mistralrs==0.9.5"]), "mistralrs_family_probe.py", ("--fingerprint",)),
    "llama-cpp": lambda: (converter_python("5.24.0"), "llama_cpp_family_probe.py", ("--converter", str(ensure_converter()))),
}


def probe_reports(checkpoints: dict) -> Callable[[str], dict[str, dict]]:
    """runtime -> case id -> the probe's report, one probe process per runtime for all checkpoints (a case
    transformers 5 could not build, named by its reason instead of a directory, is left out)."""
    cache: dict[str, dict[str, dict]] = {}

    def get(runtime: str) -> dict[str, dict]:
        if runtime not in cache:
            python, probe, extra = _PROBES[runtime]()
            dirs = {str(path): case_id for case_id, path in checkpoints.items() if isinstance(path, Path)}
            report = run_probe(python, probe, *extra, *dirs, timeout=900)
            cache[runtime] = {dirs[d]: result for d, result in report["results"].items()}
        return cache[runtime]

    return get


def predicted(model_dir: Path, runtime: str):
    ctx = context_of(document.load(model_dir / "config.json"), [consumers.get(runtime)])
    return ctx.views[runtime]


def same_words(ours: str, theirs: str) -> bool:
    """Whether cfglint's message says what the runtime's did: the probe cuts a long one short ("..."),
    cfglint may follow the runtime's words with where they come from, and Python prints a set of strings in
    hash order, which differs between processes. The probes name struct's exception by its class alone
    ("error: ..."), cfglint as "struct.error"."""
    theirs = "struct." + theirs if theirs.startswith("error: ") else theirs
    ours, theirs = _sets_sorted(ours), _sets_sorted(theirs.removesuffix("..."))
    return ours.startswith(theirs) or theirs.startswith(ours)


def _sets_sorted(message: str) -> str:
    return re.sub(r"\{('[^{}]*')\}", lambda m: "{" + ", ".join(sorted(m.group(1).split(", "))) + "}", message)


def mismatches(view, actual: dict) -> list:
    """What differs between the prediction and the observation: the outcome, then each key both report."""
    if view.outcome != actual["outcome"]:
        return [("outcome", (view.outcome, view.message), (actual["outcome"], actual["message"]))]
    out = []
    for key in ALL_KEYS:
        if key not in actual["values"] or key not in view.values:
            continue
        ours, theirs = view.values[key], actual["values"][key]
        if key == "rope_scaling" and isinstance(ours, dict) and isinstance(theirs, dict):
            # A probe reports the scaling parameters it can observe; the rest are checked against the source.
            ours = {k: v for k, v in ours.items() if k in theirs}
        if not same(key, ours, theirs):
            out.append((key, ours, theirs))
    return out


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize("case", sorted(CASES))
def test_family_prediction_matches_runtime(case, runtime, checkpoints, observed):
    model_dir = checkpoints[case]
    if not isinstance(model_dir, Path):
        pytest.skip(model_dir)
    view = predicted(model_dir, runtime)
    actual = observed(runtime)[case]
    if view.outcome == "not-applicable" and actual["outcome"] != "not-applicable":
        if " has no " in (view.message or ""):  # a family it has no loader for: the runtime must stop on it
            assert actual["outcome"] == "error", (view.message, actual)
            return
        pytest.skip(f"cfglint does not model it ({view.message}); {runtime} observed {actual['outcome']}")
    case_id = f"{runtime}/{case}"
    found = mismatches(view, actual)
    if case_id in KNOWN_WRONG:
        assert found, f"{case_id} now matches the runtime: remove it from KNOWN_WRONG ({KNOWN_WRONG[case_id]})"
        return
    assert not found, found
    if view.outcome == "loads":
        assert any(k in actual["values"] and k in view.values for k in ALL_KEYS), f"{runtime} reported nothing to compare"
