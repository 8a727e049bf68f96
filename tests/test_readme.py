"""The README's computed sections (rule table, compatibility table) equal what the code says today."""

import importlib.util

import pytest

from tests.conftest import ROOT

spec = importlib.util.spec_from_file_location("update_readme", ROOT / "scripts" / "update_readme.py")
update_readme = importlib.util.module_from_spec(spec)
spec.loader.exec_module(update_readme)


@pytest.mark.parametrize("section", sorted(update_readme.SECTIONS))
def test_generated_section_is_current(section):
    text = (ROOT / "README.md").read_text()
    assert update_readme.current(text, section) == update_readme.SECTIONS[section](), "run scripts/update_readme.py"


def test_rule_table_lists_every_builtin_rule():
    text = (ROOT / "README.md").read_text()
    codes = {p.name.split("_")[0] for p in (ROOT / "rules").glob("[A-Z]*.py")}
    assert all(f"| `{code}` |" in text for code in codes)


def test_readme_opens_with_the_two_commands_ci_runs():
    text = (ROOT / "README.md").read_text()
    # CI runs the README's install, then the static checks, then the README's test run.
    steps = [line for line in (ROOT / ".ci" / "run").read_text().splitlines() if line and not line.startswith(("#", "set ", "cd "))]
    install, tests = steps[0], steps[-1]
    assert install.startswith("python3 -m venv") and tests.endswith("-m pytest")
    assert f"{install} && {tests}" in text
    assert "cfglint check samples/" in text.split("```")[1]


def test_the_example_finding_is_what_check_prints(in_repo, capsys):
    from cfglint.cli import main

    text = (ROOT / "README.md").read_text()
    block = text.split("```console\n$ cfglint check samples/llama-3.2-1b-tf5\n", 1)[1].split("```", 1)[0]
    main(["check", "samples/llama-3.2-1b-tf5"])
    assert capsys.readouterr().out == block


def test_the_family_example_is_what_check_prints(in_repo, capsys):
    from cfglint.cli import main

    command = "cfglint check samples/qwen2.5-0.5b-instruct-tf5 samples/gemma-2-2b --format concise"
    block = (ROOT / "README.md").read_text().split(f"```console\n$ {command}\n", 1)[1].split("```", 1)[0]
    main(command.split()[1:])
    assert capsys.readouterr().out == block


def test_the_python_api_example_prints_what_the_readme_says(tmp_path, monkeypatch, capsys):
    section = (ROOT / "README.md").read_text().split("\n## Python API\n", 1)[1].split("\n## ", 1)[0]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    printed = section.split("```text\n", 1)[1].split("```", 1)[0]
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "README.md", "exec"), {})
    assert capsys.readouterr().out == printed
    assert (tmp_path / "out" / "config.json").exists()


def test_the_tree_example_is_what_check_prints(tmp_path, monkeypatch, capsys):
    from cfglint.cli import main

    section = (ROOT / "README.md").read_text().split("\n## Checking a tree\n", 1)[1].split("\n## ", 1)[0]
    command, *lines = section.split("```console\n", 1)[1].split("```", 1)[0].splitlines()
    monkeypatch.chdir(tmp_path)
    (tmp_path / "docs").mkdir()
    assert main(command.removeprefix("$ cfglint ").split()) == 2
    out, err = capsys.readouterr()
    assert (err + out).splitlines() == lines
