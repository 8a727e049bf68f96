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
        ("qwen3-0.6b", ["M001"]),
        ("gemma-2-2b", ["M001"]),
    ],
)
def test_sample_findings(sample, codes, in_repo, capsys):
    import json

    main(["check", f"samples/{sample}", "--format", "json", "--consumer", "candle-llama"])
    assert [f["code"] for f in json.loads(capsys.readouterr().out)] == codes
