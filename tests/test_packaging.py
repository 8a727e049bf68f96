"""The check path stays light, and an installed wheel works on its own (rules included)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from tests.conftest import ROOT

HEAVY = ("transformers", "torch", "jsonschema", "huggingface_hub", "numpy", "safetensors", "requests", "httpx", "gguf")

PROBE = """
import json, sys
from cfglint.cli import main
code = main(["check", "samples/llama-3.2-1b-tf5", "--format", "json"])
heavy = sorted({m.split(".")[0] for m in sys.modules} & set(json.loads(sys.argv[1])))
print(json.dumps({"code": code, "heavy": heavy}))
"""


def test_check_imports_no_heavy_module():
    proc = subprocess.run([sys.executable, "-c", PROBE, json.dumps(HEAVY)], cwd=ROOT, capture_output=True, text=True)
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result == {"code": 1, "heavy": []}


LOADED = """
import json, sys
from cfglint.cli import main
code = main(["check", *sys.argv[2:], "--format", "json"])
schemas = sys.modules.get("cfglint.consumers.llama_schemas.mlx_lm")
print(json.dumps({
    "loaded": sorted(m for m in json.loads(sys.argv[1]) if m in sys.modules),
    "schema_built": schemas is not None and bool(schemas.ModelArgs.__pydantic_complete__),
    "families": sorted({m for m in sys.modules if m.startswith(("cfglint.consumers.llama_schemas.", "cfglint.stops"))}),
    "pydantic": "pydantic" in sys.modules,
}))
"""
# Imported only when a file needs them: the safetensors header reader and the loading model (weights
# beside config.json), the sampler models (generation settings written), baselines (--baseline), the tree search
# and its gitignore matcher (a folder without config.json), and typer's pydantic coercion (typer 0.29 and later,
# which the dependency range excludes).
DEFERRED = ["cfglint.weights.checkpoint", "cfglint.weights.loading", "cfglint.sampling.samplers", "cfglint.baseline",
            "cfglint.discovery", "cfglint.gitignore", "typer._adapters"]


def _loaded(*args: str) -> dict:
    proc = subprocess.run([sys.executable, "-c", LOADED, json.dumps(DEFERRED), *args], cwd=ROOT, capture_output=True, text=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_check_defers_what_a_plain_config_does_not_need():
    llama = _loaded("samples/llama-3.2-1b-tf5")
    assert llama["loaded"] == [] and llama["schema_built"] is False
    # The Llama profiles' schemas are for Llama files, the stop-token analysis for directories with tokenizer files.
    qwen = _loaded("samples/qwen2.5-0.5b-instruct-tf5")
    assert qwen["families"] == []
    # serde's readings are plain Python (candle refuses Qwen's null sliding window, mistral.rs misses its
    # rope_theta), and so are the Llama readings, llama3 rope_scaling included: no pydantic model is built,
    # so pydantic is not even imported.
    assert qwen["pydantic"] is False and llama["pydantic"] is False
    assert _loaded("samples/smollm2-135m-instruct-tf5")["pydantic"] is False
    assert _loaded("samples/llama-3.2-1b")["pydantic"] is False
    assert "cfglint.stops" in _loaded("samples/stops-qwen2.5-0.5b-instruct")["families"]


def test_check_loads_what_a_model_directory_needs(tmp_path):
    baseline = tmp_path / "baseline.json"
    loaded = _loaded("samples/weights-consistent", "--write-baseline", str(baseline))["loaded"]
    assert loaded == ["cfglint.baseline", "cfglint.weights.checkpoint", "cfglint.weights.loading"]
    (tmp_path / "config.json").write_bytes((ROOT / "samples/smollm2-135m-instruct/config.json").read_bytes())
    (tmp_path / "generation_config.json").write_text('{"do_sample": true, "temperature": 0.7}')
    assert _loaded(str(tmp_path))["loaded"] == ["cfglint.sampling.samplers"]
    tree = tmp_path / "tree"
    (tree / "model").mkdir(parents=True)
    (tree / "model" / "config.json").write_bytes((ROOT / "samples/llama-3.2-1b/config.json").read_bytes())
    assert _loaded(str(tree))["loaded"] == ["cfglint.discovery", "cfglint.gitignore"]


API_PROBE = """
import json, sys
import cfglint
imported = sorted(m for m in sys.modules if m.startswith("cfglint"))
report = cfglint.check("samples/llama-3.2-1b-tf5")
unwanted = {m.split(".")[0] for m in sys.modules} | set(sys.modules)
print(json.dumps({"imported": imported, "code": report.exit_code, "loaded": sorted(unwanted & set(json.loads(sys.argv[1])))}))
"""


def test_the_api_is_as_light_as_the_check_path():
    """`import cfglint` imports the error class only; `cfglint.check` what a plain check needs, not even the CLI."""
    unwanted = [*HEAVY, *DEFERRED, "typer", "click", "cfglint.cli"]
    proc = subprocess.run([sys.executable, "-c", API_PROBE, json.dumps(unwanted)], cwd=ROOT, capture_output=True, text=True)
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == {"imported": ["cfglint", "cfglint.errors"], "code": 1, "loaded": []}, proc.stderr


@pytest.mark.runtimes  # builds the wheel and installs it into a fresh venv
def test_wheel_installs_and_checks_a_sample(tmp_path):
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "build", "--wheel", "--outdir", str(dist), str(ROOT)], check=True, capture_output=True)
    [wheel] = dist.glob("hf_cfglint-*.whl")
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", str(wheel)], check=True, capture_output=True)
    # Run from an unrelated folder, without a PYTHONPATH, so nothing from the checkout can be imported.
    work = tmp_path / "elsewhere"
    work.mkdir()
    alone = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run(
        [str(env_dir / "bin" / "cfglint"), "check", str(ROOT / "samples" / "llama-3.2-1b-tf5"), "--format", "json"],
        cwd=work, capture_output=True, text=True, env=alone,
    )
    assert proc.returncode == 1, proc.stderr
    assert [f["code"] for f in json.loads(proc.stdout)] == ["D001", "R001", "R002"]
    rules = subprocess.run([str(env_dir / "bin" / "cfglint"), "rules", "--format", "json"], cwd=work, capture_output=True, text=True, env=alone)
    listed = json.loads(rules.stdout)
    assert len(listed) == len(list((ROOT / "rules").glob("[A-Z]*.py")))
    location = subprocess.run([str(python), "-c", "import cfglint.rule as r; print(r.builtin_rules_dir())"], cwd=work, capture_output=True, text=True, env=alone)
    assert Path(location.stdout.strip()).is_relative_to(env_dir)
