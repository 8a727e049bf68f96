"""A float field written as an integer (`"rms_norm_eps": 1`, `"final_logit_softcapping": 30`), against the
real runtimes: transformers 5's strict config class refuses it, and with it mlx-lm, whose AutoTokenizer
reads the config with transformers 5; transformers 4, mistral.rs and the llama.cpp converter (which falls
back to config.json when transformers refuses it) load it. cfglint predicts each outcome, and quotes the
refusal as the runtime words it.

The checkpoint is built by transformers 5 from the float, then config.json is written with the integer.
`cfglint fix --write` writes the float back (L001), and both load it with the same number.
"""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

import pytest

from cfglint.cli import main
from tests.conformance.test_families import predicted, probe_reports, write_family_checkpoint
from tests.families import BASES

# (family, key, the integer written): one field of each strict float kind the families have
CASES = {
    "qwen2-rms_norm_eps": ("qwen2", "rms_norm_eps", 1),
    "gemma2-final_logit_softcapping": ("gemma2", "final_logit_softcapping", 30),
    "mistral-rms_norm_eps": ("mistral", "rms_norm_eps", 1),
}
RUNTIMES = ("transformers-4", "mlx-lm", "mistralrs", "llama-cpp")


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("integer-floats")
    out = {}
    for case, (family, key, integer) in CASES.items():
        config = copy.deepcopy(BASES[family])
        config[key] = float(integer)
        directory = write_family_checkpoint(config, root / case)
        config[key] = integer
        (directory / "config.json").write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
        out[case] = directory
    return out


@pytest.fixture(scope="module")
def observed(checkpoints):
    return probe_reports(checkpoints)


@pytest.mark.parametrize("case", sorted(CASES))
def test_transformers5_refuses_it_as_cfglint_says(case, checkpoints):
    from huggingface_hub.errors import StrictDataclassFieldValidationError
    from transformers import AutoConfig

    with pytest.raises(StrictDataclassFieldValidationError) as raised:
        AutoConfig.from_pretrained(checkpoints[case])
    view = predicted(checkpoints[case], "transformers-5")
    assert view.outcome == "error"
    assert view.message == "StrictDataclassFieldValidationError: " + " ".join(line.strip() for line in str(raised.value).splitlines())


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize("case", sorted(CASES))
def test_each_runtime_does_what_cfglint_predicts(case, runtime, checkpoints, observed):
    actual = observed(runtime)[case]
    view = predicted(checkpoints[case], runtime)
    assert (view.outcome, view.outcome == "loads" or actual["message"] in view.message) == (actual["outcome"], True), (
        view.message, actual["message"])
    if runtime == "mlx-lm":
        assert actual["outcome"] == "error"  # the case is worth its run: a runtime that refuses it


@pytest.fixture(scope="module")
def fixed(checkpoints, tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("integer-floats-fixed")
    out = {}
    for case, directory in checkpoints.items():
        out[case] = Path(shutil.copytree(directory, root / case))
        assert main(["fix", str(out[case]), "--write"]) in (0, 1)
    return out


def test_after_the_fix_transformers5_and_mlx_lm_load_the_same_number(fixed):
    from transformers import AutoConfig

    for case, (_, key, integer) in CASES.items():
        written = json.loads((fixed[case] / "config.json").read_text(encoding="utf-8"))
        assert type(written[key]) is float and written[key] == integer
        assert getattr(AutoConfig.from_pretrained(fixed[case]), key) == float(integer)
    assert {case: r["outcome"] for case, r in probe_reports(fixed)("mlx-lm").items()} == {case: "loads" for case in fixed}
