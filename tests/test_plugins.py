"""Third-party rules: a tiny plugin package, installed with cfglint into a fresh venv, runs only when the
configuration enables it."""

from __future__ import annotations

import json
import subprocess
import textwrap
import venv
from pathlib import Path

import pytest

from tests.conftest import ROOT

PLUGIN_RULE = '''
"""_name_or_path holds a path on the machine that saved the model.

## What it does
Reports an absolute `_name_or_path`.

## Why it matters
It leaks a local folder name into a published config.

## Example
```json
{"_name_or_path": "/home/me/checkpoints/run-7"}
```

## Fix safety
No automatic fix.
"""

from cfglint.diagnostics import Finding

CODE = "X100"
NAME = "local-name-or-path"
SEVERITY = "warning"


def check(ctx):
    value = ctx.config.get("_name_or_path")
    if isinstance(value, str) and value.startswith("/"):
        yield Finding(f"_name_or_path is a local path ({value})", "/_name_or_path")
'''

PLUGIN_PYPROJECT = """
[build-system]
requires = ["hatchling>=1.24"]
build-backend = "hatchling.build"

[project]
name = "cfglint-local-path-rule"
version = "0.1.0"

[project.entry-points."cfglint.rules"]
local-path = "cfglint_local_path_rule.local_path"

[tool.hatch.build.targets.wheel]
packages = ["cfglint_local_path_rule"]
"""


@pytest.fixture(scope="module")
def cfglint_with_plugin(tmp_path_factory) -> Path:
    """The `cfglint` command of a fresh venv holding this checkout and the plugin package."""
    work = tmp_path_factory.mktemp("plugin")
    package = work / "plugin"
    (package / "cfglint_local_path_rule").mkdir(parents=True)
    (package / "pyproject.toml").write_text(PLUGIN_PYPROJECT)
    (package / "cfglint_local_path_rule" / "__init__.py").write_text("")
    (package / "cfglint_local_path_rule" / "local_path.py").write_text(PLUGIN_RULE)
    env_dir = work / "venv"
    venv.create(env_dir, with_pip=True)
    subprocess.run(
        [str(env_dir / "bin" / "python"), "-m", "pip", "install", "-q", str(ROOT), str(package)],
        check=True, capture_output=True,
    )
    return env_dir / "bin" / "cfglint"


@pytest.fixture
def model(tmp_path) -> Path:
    """A clean Llama config with a local _name_or_path, in a project folder."""
    config = json.loads((ROOT / "samples" / "smollm2-135m-instruct" / "config.json").read_text())
    config["_name_or_path"] = "/home/me/checkpoints/run-7"
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    return tmp_path


def check(cfglint: Path, project: Path, settings: str | None) -> subprocess.CompletedProcess:
    if settings is not None:
        (project / ".cfglint.toml").write_text(textwrap.dedent(settings))
    return subprocess.run(
        [str(cfglint), "check", "model", "--format", "json"],
        cwd=project, capture_output=True, text=True, env={"PATH": "/usr/bin:/bin", "NO_COLOR": "1"},
    )


def test_plugin_rules_are_off_unless_the_configuration_enables_them(cfglint_with_plugin, model):
    proc = check(cfglint_with_plugin, model, None)
    assert proc.returncode == 0 and json.loads(proc.stdout) == []
    proc = check(cfglint_with_plugin, model, "plugins = false\n")
    assert proc.returncode == 0 and json.loads(proc.stdout) == []


@pytest.mark.parametrize("settings", ["plugins = true\n", 'plugins = ["local-path"]\n'])
def test_enabled_plugin_rule_fires(settings, cfglint_with_plugin, model):
    proc = check(cfglint_with_plugin, model, settings)
    assert proc.returncode == 1, proc.stderr
    [finding] = json.loads(proc.stdout)
    assert (finding["code"], finding["name"], finding["pointer"]) == ("X100", "local-name-or-path", "/_name_or_path")
    assert finding["message"] == "_name_or_path is a local path (/home/me/checkpoints/run-7)"


def test_plugin_codes_obey_selection_and_severity(cfglint_with_plugin, model):
    proc = check(cfglint_with_plugin, model, 'plugins = true\nignore = ["X"]\n')
    assert proc.returncode == 0 and json.loads(proc.stdout) == []
    proc = check(cfglint_with_plugin, model, 'plugins = true\n[severity]\nX100 = "info"\n')
    assert proc.returncode == 0 and json.loads(proc.stdout)[0]["severity"] == "info"


@pytest.mark.parametrize("settings, message", [
    ('plugins = ["other"]\n', "unknown plugin 'other' (installed: local-path)"),
    ('select = ["X100"]\n', "unknown rule code 'X100' in select"),  # not known while plugins are off
])
def test_bad_plugin_settings_exit_2(settings, message, cfglint_with_plugin, model):
    proc = check(cfglint_with_plugin, model, settings)
    assert proc.returncode == 2 and message in proc.stderr and proc.stderr.count("\n") == 1
