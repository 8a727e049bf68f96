"""Every sample's check and view output, against golden files reviewed by hand.

Regenerate after an intended change with CFGLINT_UPDATE_GOLDEN=1 and review the diff.
"""

from __future__ import annotations

import os

import pytest

from cfglint.cli import main
from tests.conftest import ROOT, sample_dirs

GOLDEN = ROOT / "tests" / "golden"


@pytest.mark.parametrize("sample", [p.name for p in sample_dirs()])
@pytest.mark.parametrize("command", [("check", "--format", "json"), ("check", "--format", "concise"), ("view", "--format", "json")])
def test_sample_output_matches_golden(sample, command, in_repo, capsys):
    main([command[0], f"samples/{sample}", *command[1:]])
    out = capsys.readouterr().out
    suffix = {"json": "json", "concise": "txt"}[command[2]]
    golden = GOLDEN / f"{sample}.{command[0]}.{suffix}"
    if os.environ.get("CFGLINT_UPDATE_GOLDEN"):
        golden.write_text(out)
    assert out == golden.read_text()


@pytest.mark.parametrize(
    "sample, codes",
    [
        ("smollm2-135m-instruct", []),
        ("smollm2-135m-instruct-tf5", ["D001", "R001"]),
        ("llama-3.2-1b", []),
        ("llama-3.2-1b-tf5", ["D001", "R001", "R002"]),
        ("llama-bias", ["A002"]),
        ("kanana-1.5-2.1b", ["A001"]),
        ("qwen3-0.6b", []),
        ("qwen3-0.6b-tf5", ["D001", "R001"]),
        ("gemma-2-2b", ["A005"]),
        ("gemma-2-2b-tf5", ["D001", "R001"]),
        # candle's reading of each family: the transformers 5 re-saves lose rope_theta (R001), Qwen2's and
        # Mixtral's null sliding_window is a serde type error (L001), Gemma's legacy "gelu" is exact GELU in
        # candle while transformers 5 runs the tanh form (A003), candle slides Gemma 2's window on every layer
        # and none of Phi-3's (A005).
        ("qwen2.5-0.5b-instruct", []),
        ("qwen2.5-0.5b-instruct-tf5", ["D001", "L001"]),
        ("qwen3-30b-a3b-tf5", ["D001", "R001"]),
        ("qwen1.5-moe-a2.7b-tf5", ["D001", "R001"]),
        ("mistral-7b-v0.3", []),
        ("mistral-7b-v0.3-tf5", ["D001", "R001"]),
        ("mixtral-8x7b-v0.1", ["L001"]),
        ("gemma-2b", ["A003"]),
        ("gemma-2b-tf5", ["D001", "R001"]),
        ("gemma-3-1b-it", []),
        ("gemma-3-1b-it-tf5", ["D001", "R001"]),
        ("phi-3-mini-4k-instruct", ["A005"]),
        # stop tokens, with the tokenizer files: candle's Llama example stops on config.json's eos only and its
        # Phi example on <|endoftext|> only, while both templates end turns with another token (T001).
        # Qwen's and Gemma's examples stop on <|im_end|> and <end_of_turn> by name, so S008 does not speak for candle.
        ("stops-llama-3-8b-instruct", ["T004", "S008", "T001"]),
        ("stops-phi-3-mini-4k-instruct", ["T004", "S008", "T001", "A005"]),
        ("stops-qwen2.5-0.5b-instruct", ["S003", "S006", "S007"]),
        ("stops-gemma-2-2b-it", ["A005"]),
        ("stops-gemma-3-1b-it", ["S003", "S006", "S007"]),
        ("stops-mistral-7b-instruct-v0.1", []),
    ],
)
def test_sample_findings(sample, codes, in_repo, capsys):
    import json

    main(["check", f"samples/{sample}", "--format", "json", "--consumer", "candle"])
    assert [f["code"] for f in json.loads(capsys.readouterr().out)] == codes
