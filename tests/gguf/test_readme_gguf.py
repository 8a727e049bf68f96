"""The README's GGUF example is what `check` prints on the shipped sample."""

from __future__ import annotations

from cfglint.cli import main
from tests.conftest import ROOT


def gguf_section() -> str:
    return (ROOT / "README.md").read_text().split("\n## GGUF files\n", 1)[1].split("\n## ", 1)[0]


def test_the_gguf_example_is_what_check_prints(in_repo, capsys):
    command, *lines = gguf_section().split("```console\n", 1)[1].split("```", 1)[0].splitlines()
    assert main(command.removeprefix("$ cfglint ").split()) == 1
    assert capsys.readouterr().out.splitlines() == lines
