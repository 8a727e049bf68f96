"""A float field written as an integer (`"rms_norm_eps": 1`, `"final_logit_softcapping": 30`,
`"router_aux_loss_coef": 0`), against the real runtimes: transformers 5's strict config class refuses it, and
with it mlx-lm, whose AutoTokenizer reads the config with transformers 5, and the llama.cpp converter where
its vocabulary step reads the config through AutoTokenizer (no SentencePiece tokenizer.model beside it, or
for Phi-3 a GPT2Tokenizer named by tokenizer_config.json; its hparams fall back to config.json); transformers 4 and mistral.rs load it. cfglint predicts each outcome, and
quotes the refusal as the runtime words it.

The checkpoint is built by transformers 5 from the float, then config.json is written with the integer.
`cfglint fix --write` writes the float back (L001), and both load it with the same number.
"""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from cfglint.cli import main
from cfglint.compat import BASE as LLAMA_BASE
from tests.conformance.llama_cpp_converter import converter_python
from tests.conformance.test_families import predicted, probe_reports, write_family_checkpoint
from tests.families import BASES

# (family, key, the integer written): one field of each strict float kind the families have
CASES = {
    "qwen2-rms_norm_eps": ("qwen2", "rms_norm_eps", 1),
    "gemma2-final_logit_softcapping": ("gemma2", "final_logit_softcapping", 30),
    "mistral-rms_norm_eps": ("mistral", "rms_norm_eps", 1),
    # a field only the config class types (no reading consults it), and a Llama file's (hand-written readings)
    "qwen2_moe-router_aux_loss_coef": ("qwen2_moe", "router_aux_loss_coef", 0),
    "llama-initializer_range": ("llama", "initializer_range", 0),
}
# Cases whose directory also holds a SentencePiece tokenizer.model: the converter reads its vocabulary
# with SentencePiece, which reads no config, instead of AutoTokenizer, which stops on the refusal.
SENTENCEPIECE = {"qwen2-rms_norm_eps-sentencepiece": ("qwen2", "rms_norm_eps", 1), "llama-initializer_range-sentencepiece": ("llama", "initializer_range", 0)}
CASES.update(SENTENCEPIECE)
# Phi-3's converter reads its vocabulary through AutoTokenizer only where tokenizer_config.json names
# GPT2Tokenizer (Phi-4); the generic tokenizer_config the checkpoints carry sends it to SentencePiece.
GPT2_TOKENIZER = {"phi3-rms_norm_eps-gpt2-tokenizer": ("phi3", "rms_norm_eps", 1)}
CASES.update({"phi3-rms_norm_eps": ("phi3", "rms_norm_eps", 1), **GPT2_TOKENIZER})
RUNTIMES = ("transformers-4", "mlx-lm", "mistralrs", "llama-cpp")


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("integer-floats")
    out = {}
    for case, (family, key, integer) in CASES.items():
        config = copy.deepcopy(LLAMA_BASE if family == "llama" else BASES[family])
        config[key] = float(integer)
        directory = write_family_checkpoint(config, root / case)
        config[key] = integer
        (directory / "config.json").write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
        if case in SENTENCEPIECE:
            write_sentencepiece_model(directory / "tokenizer.model")
        if case in GPT2_TOKENIZER:
            tokenizer_config = json.loads((directory / "tokenizer_config.json").read_text(encoding="utf-8"))
            tokenizer_config["tokenizer_class"] = "GPT2Tokenizer"
            (directory / "tokenizer_config.json").write_text(json.dumps(tokenizer_config), encoding="utf-8")
        out[case] = directory
    return out


def write_sentencepiece_model(path: Path) -> None:
    """A small SentencePiece model trained by the sentencepiece the converter runs with."""
    script = (
        "import io, sys, sentencepiece as spm\n"
        "out = io.BytesIO()\n"
        "words = [f'w{i} x{i % 7} y{i % 13}' for i in range(300)]\n"
        "spm.SentencePieceTrainer.train(sentence_iterator=iter(words), model_writer=out, vocab_size=64,"
        " model_type='bpe', hard_vocab_limit=False, minloglevel=2)\n"
        "open(sys.argv[1], 'wb').write(out.getvalue())\n"
    )
    subprocess.run([str(converter_python("5.24.0")), "-c", script, str(path)], check=True, capture_output=True, timeout=300)


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
    agrees = view.outcome in ("loads", "not-applicable") or actual["message"] in view.message
    assert (view.outcome, agrees) == (actual["outcome"], True), (view.message, actual["message"])
    if runtime == "mlx-lm":
        assert actual["outcome"] == "error"  # the case is worth its run: a runtime that refuses it
    if runtime == "llama-cpp":  # its vocabulary step reads the config unless SentencePiece reads the vocabulary
        spared = case in SENTENCEPIECE or CASES[case][0] in ("gemma", "gemma2") or (CASES[case][0] == "phi3" and case not in GPT2_TOKENIZER)
        expected = "loads" if spared else "error"
        assert actual["outcome"] == expected


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


def test_a_lone_tekken_json_spares_the_converter_autotokenizer(tmp_path):
    """LlamaModel reads a tekken.json without a tokenizer.json as Mistral's own vocabulary, which reads no
    config: the converter is not stopped by the refusal (the probe passes over what the tiny tekken.json
    itself makes of the vocabulary step, as over the tiny tokenizers)."""
    config = copy.deepcopy(BASES["mistral"])
    config["rms_norm_eps"] = 1.0
    directory = write_family_checkpoint(config, tmp_path / "tekken")
    config["rms_norm_eps"] = 1
    (directory / "config.json").write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    (directory / "tokenizer.json").unlink()
    (directory / "tekken.json").write_text("{}", encoding="utf-8")
    [actual] = probe_reports({"tekken": directory})("llama-cpp").values()
    assert (actual["outcome"], predicted(directory, "llama-cpp").outcome) == ("loads", "loads"), actual["message"]
