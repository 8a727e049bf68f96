"""Configuration: discovery, rule selection, severities, consumers, suppressions with C001, and bad input."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from cfglint.cli import main
from tests.conftest import ROOT

TF5 = ROOT / "samples" / "smollm2-135m-instruct-tf5"  # D001 at /dtype, R001 at /rope_parameters/rope_theta
LLAMA_TF5 = ROOT / "samples" / "llama-3.2-1b-tf5"  # D001, R001, R002


class Project:
    """A scratch project folder (the working directory) with model folders copied from samples."""

    def __init__(self, root: Path):
        self.root = root

    def __truediv__(self, part: str) -> Path:
        return self.root / part

    def add_model(self, sample: Path, where: str) -> Path:
        target = self.root / where
        target.mkdir(parents=True)
        shutil.copy(sample / "config.json", target / "config.json")
        return Path(where)  # relative to the working directory, as a user types it


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    return Project(tmp_path)


def check(capsys, *argv) -> tuple[int, list[dict], str]:
    code = main(["check", *map(str, argv), "--format", "json"])
    out, err = capsys.readouterr()
    return code, json.loads(out) if out.strip() else [], err


def codes(findings) -> list[str]:
    return [f["code"] for f in findings]


def test_pyproject_in_a_parent_folder_applies(project, capsys):
    model = project.add_model(TF5, "models/smol")
    (project / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.cfglint]\nignore = ["D001"]\n')
    code, findings, _ = check(capsys, model)
    assert code == 1 and codes(findings) == ["R001"]


def test_pyproject_without_the_table_is_skipped_and_search_goes_on_upwards(project, capsys):
    model = project.add_model(TF5, "repo/models/smol")
    (project / "repo" / "pyproject.toml").write_text('[project]\nname = "x"\n')
    (project / ".cfglint.toml").write_text('ignore = ["R001"]\n')
    _, findings, _ = check(capsys, model)
    assert codes(findings) == ["D001"]


APPLIES = [
    '[tool.cfglint]\nignore = ["R001"]\n',
    '[ tool . "cfglint" ]\nignore = ["R001"]\n',
    '[project]\nname = "x"\n\n[tool]\ncfglint = {ignore = ["R001"]}\n',
    '[tool]\n"cfglint".ignore = ["R001"]\n',
    'tool.cfglint.ignore = ["R001"]\n',
    "tool = { cfglint = { ignore = ['R001'] } }\n",
]
SKIPPED = [
    '[project]\nname = "x"\n[tool.ruff\n',  # broken, and not cfglint's
    '[project]\nname = "hf-cfglint"  # cfglint = x\n[project.scripts]\ncfglint = "cfglint.cli:run"\n[tool.x\n',
]


@pytest.mark.parametrize("text", APPLIES + SKIPPED)
def test_a_pyproject_is_parsed_only_when_it_may_hold_the_table(project, capsys, text):
    """A project's own pyproject.toml, even a broken one, is none of cfglint's business unless it can hold
    tool.cfglint (each TOML spelling of the table is read)."""
    model = project.add_model(TF5, "repo/models/smol")
    (project / "repo" / "pyproject.toml").write_text(text)
    code, findings, err = check(capsys, model)
    assert err == "" and sorted(codes(findings)) == (["D001"] if text in APPLIES else ["D001", "R001"])


def test_dedicated_file_wins_over_pyproject_in_the_same_folder(project, capsys):
    model = project.add_model(TF5, "m")
    (project / "pyproject.toml").write_text('[tool.cfglint]\nignore = ["R001"]\n')
    (project / ".cfglint.toml").write_text('ignore = ["D001"]\n')
    _, findings, _ = check(capsys, model)
    assert codes(findings) == ["R001"]


def test_nearest_configuration_wins_per_file(project, capsys):
    near = project.add_model(TF5, "a/m")
    far = project.add_model(TF5, "b/m")
    (project / ".cfglint.toml").write_text('ignore = ["R"]\n')
    (project / "a" / ".cfglint.toml").write_text('ignore = ["D"]\n')
    _, findings, _ = check(capsys, near, far)
    assert [(Path(f["path"]).parts[0], f["code"]) for f in findings] == [("a", "R001"), ("b", "D001")]


def test_isolated_and_explicit_config(project, capsys, tmp_path_factory):
    model = project.add_model(TF5, "m")
    (project / ".cfglint.toml").write_text('ignore = ["R001", "D001"]\n')
    assert codes(check(capsys, model)[1]) == []
    assert codes(check(capsys, model, "--isolated")[1]) == ["D001", "R001"]
    elsewhere = tmp_path_factory.mktemp("elsewhere") / "pyproject.toml"
    elsewhere.write_text('[tool.cfglint]\nselect = ["D"]\n')
    assert codes(check(capsys, model, "--config", elsewhere)[1]) == ["D001"]
    code, _, err = check(capsys, model, "--config", elsewhere, "--isolated")
    assert code == 2 and "--config and --isolated" in err


@pytest.mark.parametrize(
    "table, expected",
    [
        ({"select": ["R"]}, ["R001", "R002"]),
        ({"select": ["R001"], "ignore": ["R"]}, ["R001"]),  # the more specific entry wins
        ({"select": ["R"], "ignore": ["R002"]}, ["R001"]),
        ({"select": ["D"], "extend-select": ["R002"]}, ["D001", "R002"]),
        ({"ignore": ["ALL"], "extend-select": ["R00"]}, ["R001", "R002"]),
        ({"select": ["R", "D"], "ignore": ["R"]}, ["D001"]),  # a tie goes to ignore
        ({"ignore": ["R", "D"]}, []),
    ],
)
def test_select_ignore_and_extend_select(table, expected, project, capsys):
    model = project.add_model(LLAMA_TF5, "m")
    lines = [f"{key} = {json.dumps(value)}" for key, value in table.items()]
    (project / ".cfglint.toml").write_text("\n".join(lines) + "\n")
    code, findings, _ = check(capsys, model)
    assert codes(findings) == expected
    assert code == (1 if expected else 0)


def test_severity_override_by_prefix_and_code(project, capsys):
    model = project.add_model(LLAMA_TF5, "m")
    (project / ".cfglint.toml").write_text('[severity]\nR = "warning"\nR002 = "info"\nD001 = "info"\n')
    code, findings, _ = check(capsys, model)
    assert [(f["code"], f["severity"]) for f in findings] == [("D001", "info"), ("R001", "warning"), ("R002", "info")]
    assert code == 1  # a warning still fails the run
    (project / ".cfglint.toml").write_text('[severity]\nALL = "info"\n')
    code, findings, _ = check(capsys, model)
    assert code == 0 and {f["severity"] for f in findings} == {"info"}


def test_consumers_setting_and_the_command_line_override(project, capsys):
    model = project.add_model(TF5, "m")
    (project / ".cfglint.toml").write_text('consumers = ["candle"]\n')
    main(["view", str(model), "--format", "json"])
    assert list(json.loads(capsys.readouterr().out)[0]["consumers"]) == ["candle"]
    (project / ".cfglint.toml").write_text('consumers = ["nope"]\n')
    code, _, err = check(capsys, model, "--consumer", "candle")
    assert code == 2 and "unknown consumer 'nope'" in err  # a bad file is reported even when overridden


def test_runtimes_is_the_setting_and_the_flag_consumers_their_older_names(project, capsys):
    model = project.add_model(TF5, "m")
    (project / ".cfglint.toml").write_text('runtimes = ["candle", "mlx-lm"]\n')
    main(["view", str(model), "--format", "json"])
    assert list(json.loads(capsys.readouterr().out)[0]["consumers"]) == ["candle", "mlx-lm"]
    main(["view", str(model), "--format", "json", "--runtime", "mlx-lm"])
    assert list(json.loads(capsys.readouterr().out)[0]["consumers"]) == ["mlx-lm"]
    main(["view", str(model), "--format", "json", "-r", "candle"])
    assert list(json.loads(capsys.readouterr().out)[0]["consumers"]) == ["candle"]
    (project / ".cfglint.toml").write_text('runtimes = ["candle"]\nconsumers = ["candle"]\n')
    code, _, err = check(capsys, model)
    assert code == 2 and "runtimes and consumers are one key under two names" in err


def test_suppression_by_glob_pointer_and_code(project, capsys):
    legacy = project.add_model(TF5, "legacy-1/m")
    current = project.add_model(TF5, "current/m")
    (project / ".cfglint.toml").write_text(
        '[[suppress]]\npath = "legacy-*/**"\npointer = "/rope_parameters"\ncodes = ["R001"]\n'
        'reason = "served by transformers 5 only"\n'
    )
    _, findings, _ = check(capsys, legacy, current)
    assert [(Path(f["path"]).parts[0], f["code"]) for f in findings] == [
        ("legacy-1", "D001"), ("current", "D001"), ("current", "R001"),
    ]


@pytest.mark.parametrize(
    "entry, suppressed",
    [
        ('path = "m"', True),  # the model folder
        ('path = "m/config.json"', True),
        ('path = "*/config.json"', True),
        ('path = "other/config.json"', False),
        ('path = "m"\npointer = "/rope_parameters/rope_theta"', True),
        ('path = "m"\npointer = "/rope_theta"', False),
        ('path = "[lm]"', True),
        ('path = "[!m]"', False),
    ],
)
def test_suppression_matching(entry, suppressed, project, capsys):
    model = project.add_model(TF5, "m")
    (project / ".cfglint.toml").write_text(f'[[suppress]]\n{entry}\ncodes = ["R"]\nreason = "why"\n')
    _, findings, _ = check(capsys, model)
    assert ("R001" not in codes(findings)) == suppressed


def test_stale_suppression_is_reported_by_C001(project, capsys):
    model = project.add_model(TF5, "m")
    (project / "pyproject.toml").write_text(
        '[tool.cfglint]\n'
        '[[tool.cfglint.suppress]]\npath = "m"\npointer = "/rope_parameters"\ncodes = ["R001"]\nreason = "used"\n'
        '[[tool.cfglint.suppress]]\npath = "m"\npointer = "/rope_scaling"\ncodes = ["R002"]\nreason = "stale"\n'
    )
    code, findings, _ = check(capsys, model)
    assert code == 1 and codes(findings) == ["C001", "D001"]
    stale = findings[0]
    assert "pyproject.toml suppress #2" in stale["message"] and "R002" in stale["message"]
    assert "/rope_scaling is not in this file" in stale["message"]


def test_C001_is_quiet_when_the_suppression_is_used_or_its_codes_are_off(project, capsys):
    model = project.add_model(TF5, "m")
    config = project / ".cfglint.toml"
    config.write_text('[[suppress]]\npath = "m"\ncodes = ["R002"]\nreason = "r"\n')
    assert "C001" in codes(check(capsys, model)[1])
    config.write_text('ignore = ["R002"]\n[[suppress]]\npath = "m"\ncodes = ["R002"]\nreason = "r"\n')
    assert "C001" not in codes(check(capsys, model)[1])
    config.write_text('ignore = ["C001"]\n[[suppress]]\npath = "m"\ncodes = ["R002"]\nreason = "r"\n')
    assert "C001" not in codes(check(capsys, model)[1])
    config.write_text('[[suppress]]\npath = "elsewhere"\ncodes = ["R002"]\nreason = "r"\n')
    assert "C001" not in codes(check(capsys, model)[1])  # the entry does not cover this file


def test_C001_is_quiet_on_an_unparseable_file(project, capsys):
    model = project / "m"
    model.mkdir()
    (model / "config.json").write_text('{"a": 1,}')
    (project / ".cfglint.toml").write_text('[[suppress]]\npath = "m"\ncodes = ["R001"]\nreason = "r"\n')
    assert codes(check(capsys, model)[1]) == ["J001"]


def test_fix_leaves_suppressed_findings_alone(project, capsys):
    model = project.add_model(TF5, "m")
    (project / ".cfglint.toml").write_text('[[suppress]]\npath = "m"\ncodes = ["R001"]\nreason = "kept nested on purpose"\n')
    assert main(["fix", str(model), "--write"]) == 0
    capsys.readouterr()
    fixed = json.loads((model / "config.json").read_text())
    assert fixed["torch_dtype"] == "bfloat16" and "rope_theta" not in fixed  # D001 fixed, R001 not
    assert main(["fix", str(model), "--write", "--isolated"]) == 0
    assert json.loads((model / "config.json").read_text())["rope_theta"] == 100000


@pytest.mark.parametrize(
    "text, message",
    [
        ('selct = ["R"]\n', "unknown key 'selct'"),
        ('select = ["R999", "Q"]\nignore = ["r001"]\n', "unknown rule codes 'R999' in select, 'Q' in select, 'r001' in ignore"),
        ('[severity]\nZ1 = "error"\n', "'Z1' in severity"),
        ('[severity]\nR001 = "fatal"\n', "severity must be a table"),
        ('consumers = ["candle", "vllm"]\n', "unknown consumer 'vllm'"),
        ('consumers = []\n', "consumers must name at least one runtime"),
        ('runtimes = []\n', "runtimes must name at least one runtime"),
        ('select = "R"\n', "select must be a list of strings"),
        ('plugins = "yes"\n', "plugins must be true, false or a list"),
        ('plugins = ["not-installed"]\n', "unknown plugin 'not-installed'"),
        ('[[suppress]]\npath = "m"\ncodes = ["R001"]\n', "suppress #1 needs a reason"),
        ('[[suppress]]\npath = "m"\ncodes = ["R001"]\nreason = "  "\n', "suppress #1 needs a reason"),
        ('[[suppress]]\ncodes = ["R001"]\nreason = "r"\n', "suppress #1 needs a path"),
        ('[[suppress]]\npath = "m"\ncodes = []\nreason = "r"\n', "suppress #1 needs codes"),
        ('[[suppress]]\npath = "m"\ncodes = ["R001"]\nreason = "r"\npointer = "rope_theta"\n', "pointer must be a JSON Pointer"),
        ('[[suppress]]\npath = "m"\ncodes = ["X9"]\nreason = "r"\n', "'X9' in suppress"),
        ('[[suppress]]\npath = "m"\ncodes = ["R001"]\nreason = "r"\nwhy = "x"\n', "unknown key 'why' in suppress #1"),
        ('select = ["R"\n', "invalid TOML"),
    ],
)
def test_bad_configuration_is_one_line_and_exit_2(text, message, project, capsys):
    model = project.add_model(TF5, "m")
    (project / ".cfglint.toml").write_text(text)
    code, findings, err = check(capsys, model)
    assert code == 2 and findings == []
    assert err.startswith("cfglint: error: ") and err.count("\n") == 1
    assert message in err and ".cfglint.toml" in err


def test_malformed_pyproject_and_missing_config_file(project, capsys):
    model = project.add_model(TF5, "m")
    (project / "pyproject.toml").write_bytes(b"[tool.cfglint\n")
    code, _, err = check(capsys, model)
    assert code == 2 and "pyproject.toml: invalid TOML" in err and err.count("\n") == 1
    code, _, err = check(capsys, model, "--config", project / "absent.toml")
    assert code == 2 and "absent.toml" in err and err.count("\n") == 1


def test_the_readme_example_is_a_valid_configuration(project, capsys):
    readme = (ROOT / "README.md").read_text()
    [example] = re.findall(r"```toml\n(\[tool\.cfglint\].*?)```", readme, flags=re.S)
    (project / "pyproject.toml").write_text(example)
    legacy = project.add_model(TF5, "legacy-smol")
    code, findings, err = check(capsys, legacy)
    assert err == "" and codes(findings) == []  # S001 and D ignored, R001 suppressed under /rope_parameters
