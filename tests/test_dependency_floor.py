"""cfglint at the oldest typer and pydantic its dependency ranges accept behaves as in the test environment.

The floor is read from pyproject.toml (`typer>=0.20,<0.29` -> typer 0.20.*), installed into a venv of its
own, and cfglint runs there from this checkout's sources. Every config the serde conformance suite uses
(samples, the generated family, serde's edge cases) must be read and reported identically: the profiles'
error texts come from pydantic's error types, which is where an older pydantic would differ.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib

import pytest

from tests.conftest import ROOT

FLOOR_OF = ("pydantic", "typer")  # in pyproject.toml's order


def floor_requirements() -> list[str]:
    """`name==X.Y.*` for each lower bound `name>=X.Y` in the project's dependencies."""
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    out = []
    for spec in dependencies:
        match = re.fullmatch(r"(typer|pydantic)>=(\d+\.\d+)\S*", spec.replace(" ", ""))
        if match:
            out.append(f"{match[1]}=={match[2]}.*")
    assert [r.split("==")[0] for r in out] == list(FLOOR_OF), dependencies
    return out


@pytest.fixture(scope="module")
def floor_python():
    from tests.conformance.venvs import runtime_python

    return runtime_python("cfglint-dependency-floor", floor_requirements())


def cfglint(python, *args: str, cwd=None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    return subprocess.run([str(python), "-m", "cfglint", *args], capture_output=True, text=True, cwd=cwd or ROOT, env=env)


def test_the_floor_is_what_gets_installed(floor_python):
    probe = "import typer, pydantic; print(typer.__version__, pydantic.VERSION)"
    typer_version, pydantic_version = subprocess.run([str(floor_python), "-c", probe], capture_output=True, text=True, check=True).stdout.split()
    wanted = dict(r.split("==") for r in floor_requirements())
    assert typer_version.startswith(wanted["typer"][:-1]) and pydantic_version.startswith(wanted["pydantic"][:-1])


def test_every_config_reads_the_same_at_the_floor(floor_python, tmp_path):
    from tests.conformance.test_serde_profiles import write_variants

    paths = write_variants(tmp_path)
    for command in (["view", "--format", "json"], ["check", "--format", "json", "--isolated"]):
        floor = cfglint(floor_python, *command, *paths, cwd=tmp_path)
        here = cfglint(sys.executable, *command, *paths, cwd=tmp_path)
        assert floor.returncode == here.returncode, floor.stderr[-2000:]
        assert json.loads(floor.stdout) == json.loads(here.stdout)
    assert len(paths) >= 60


def test_usage_errors_and_version_at_the_floor(floor_python):
    bad = cfglint(floor_python, "check", "--no-such-option", "samples/llama-3.2-1b")
    assert bad.returncode == 2 and "--no-such-option" in bad.stderr and "Traceback" not in bad.stderr
    assert cfglint(floor_python, "explain", "Z999").stderr == "cfglint: error: unknown rule 'Z999' (see `cfglint rules`)\n"
    from cfglint import __version__

    assert cfglint(floor_python, "--version").stdout == f"cfglint {__version__}\n"
