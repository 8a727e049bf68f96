"""Real llama.cpp converter outputs (the converter vendored in llama-cpp-python 0.3.36) against the configs
they were converted from.

Every family case of tests/conformance/test_families.py (tiny random checkpoints, both config layouts) is
converted with the vocabulary step stubbed as in llama_cpp_family_probe.py (so the files carry no tokenizer
and G011, special tokens, is left out for them). Reading the GGUF must report exactly what cfglint's
llama-cpp profile predicts from the config alone (its values, verified against the same converter by
tests/conformance/test_families.py): where the profile agrees with transformers 5, no GGUF finding; where it
does not (the converter writes no RoPE base for Gemma), the GGUF rule of that value. Llama checkpoints
converted whole by the converter's command line, tokenizer included, are held to the same prediction under
every rule (clean, but for candle's head size where the config's head_dim is not hidden/heads). Every
file's header reads the same with cfglint's parse as with gguf.GGUFReader.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from cfglint import consumers, document
from cfglint.cli import main
from cfglint.engine import context_of
from cfglint.knowledge.gguf_loaders import LOADERS
from cfglint.gguf.compare import ARCH_OF_FAMILY
from cfglint.gguf.header import read_header
from cfglint.reading import same
from tests.conformance.llama_cpp_converter import converter_python, ensure_converter
from tests.conformance.test_families import CASES, write_family_checkpoint
from tests.conformance.tiny_checkpoint import write_tiny_checkpoint
from tests.conformance.venvs import run_probe
from tests.gguf.reader_equivalence import header_view, reader_view

LLAMA = {
    "model_type": "llama", "architectures": ["LlamaForCausalLM"], "hidden_size": 64, "num_attention_heads": 4,
    "num_key_value_heads": 2, "num_hidden_layers": 2, "vocab_size": 128, "intermediate_size": 128,
    "max_position_embeddings": 4096, "rms_norm_eps": 1e-5, "tie_word_embeddings": False, "bos_token_id": 1, "eos_token_id": 2,
}  # fmt: skip
LLAMA_CASES = {
    "tf5-theta": {**LLAMA, "rope_parameters": {"rope_theta": 100000.0, "rope_type": "default"}},
    "tf4-theta": {**LLAMA, "rope_theta": 500000.0},
    "tf5-llama3": {**LLAMA, "rope_parameters": {"rope_theta": 500000.0, "rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                                                 "high_freq_factor": 4.0, "original_max_position_embeddings": 1024}},
    "tf5-linear": {**LLAMA, "rope_parameters": {"rope_theta": 10000.0, "rope_type": "linear", "factor": 2.0}},
    "tf4-tied-head-dim": {**LLAMA, "tie_word_embeddings": True, "head_dim": 32, "rope_theta": 10000.0},
}  # fmt: skip


# The GGUF rule that speaks for each value the llama-cpp profile reads.
RULE_OF_VALUE = {
    "rope_theta": "G002", "rope_local_base_freq": "G002", "rope_scaling": "G003", "max_position_embeddings": "G004",
    "head_dim": "G006", "num_key_value_heads": "G006", "rms_norm_eps": "G007", "tie_word_embeddings": "G008",
    "sliding_window": "G009", "attn_logit_softcapping": "G010", "final_logit_softcapping": "G010",
}  # fmt: skip


def predicted_rules(folder: Path) -> set[str]:
    """The llama-cpp profile's differences from transformers 5, as GGUF rules; and G013 where candle's
    quantized loaders whose head size `fails` (the loader data) would derive another one than the converter writes."""
    ctx = context_of(document.load(folder / "config.json"), [consumers.get("llama-cpp")])
    view, intent = ctx.views["llama-cpp"], ctx.intent
    rules = {code for key, code in RULE_OF_VALUE.items()
             if key in view.values and key in intent.values and not same(key, view.values[key], intent.values[key])}
    dims = intent.dims
    derives = {arch for (runtime, arch), loader in LOADERS.items() if runtime == "candle" and "head_dim" in loader.fails}
    if ARCH_OF_FAMILY.get(intent.family or "") in derives and intent.values["head_dim"] != dims["hidden_size"] // dims["num_attention_heads"]:
        rules.add("G013")
    return rules


def g_findings(gguf: Path, against: Path, capsys, *ignored: str) -> list[tuple[str, str]]:
    main(["check", str(gguf), "--against", str(against), "--isolated", "--format", "json", "--select", "G"])
    found = json.loads(capsys.readouterr().out or "[]")
    return [(f["code"], f["message"]) for f in found if f["code"] not in ignored]


@pytest.fixture(scope="module")
def family_ggufs(tmp_path_factory) -> dict[str, tuple[Path | None, Path, str]]:
    root = tmp_path_factory.mktemp("gguf-families")
    dirs: dict[str, Path] = {}
    for case_id, config in CASES.items():
        try:
            dirs[case_id] = write_family_checkpoint(config, root / case_id.replace("/", "__"))
        except Exception:  # noqa: BLE001 - a config transformers 5 cannot build has no GGUF either
            continue
    pairs = [str(a) for d in dirs.values() for a in (d, d.with_suffix(".gguf"))]
    report = run_probe(converter_python("5.24.0"), "gguf_write_probe.py", "--converter", str(ensure_converter()), *pairs, timeout=1200)
    out: dict[str, tuple[Path | None, Path, str]] = {}
    for case_id, folder in dirs.items():
        result = report["results"][str(folder)]
        written = result["outcome"] == "written"
        out[case_id] = (folder.with_suffix(".gguf") if written else None, folder, result["message"])
    return out


@pytest.mark.parametrize("case", sorted(CASES))
def test_family_conversion_checks_clean(case, family_ggufs, capsys):
    if case not in family_ggufs:
        pytest.skip("transformers 5 cannot build the checkpoint")
    gguf, folder, refusal = family_ggufs[case]
    if gguf is None:  # the converter refused the checkpoint: cfglint's llama-cpp reading says it does not load
        view = context_of(document.load(folder / "config.json"), [consumers.get("llama-cpp")]).views["llama-cpp"]
        assert view.outcome != "loads", refusal
        return
    assert header_view(read_header(gguf)) == reader_view(gguf)
    found = g_findings(gguf, folder, capsys, "G011", "G014")
    assert {code for code, _ in found} == predicted_rules(folder), found


@pytest.mark.parametrize("case", sorted(LLAMA_CASES))
def test_llama_conversion_with_its_tokenizer_checks_clean(case, tmp_path, capsys):
    folder = write_tiny_checkpoint(LLAMA_CASES[case], tmp_path / "model")
    gguf = tmp_path / "model.gguf"
    env = {k: v for k, v in os.environ.items() if k != "NO_LOCAL_GGUF"} | {"HF_HUB_OFFLINE": "1"}
    proc = subprocess.run([str(converter_python("5.24.0")), str(ensure_converter()), str(folder), "--outfile", str(gguf), "--outtype", "f32"],
                          capture_output=True, text=True, timeout=900, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert header_view(read_header(gguf)) == reader_view(gguf)
    # G014 speaks for candle's and mistral.rs's loaders (tests/gguf/test_loaders_rule.py), not llama.cpp's profile
    assert {code for code, _ in g_findings(gguf, folder, capsys, "G014")} == predicted_rules(folder)
