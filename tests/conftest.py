from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples"


@pytest.fixture
def in_repo(monkeypatch):
    """Run from the repository root so display paths are samples/..."""
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("NO_COLOR", "1")
    return ROOT


@pytest.fixture
def write_config(tmp_path):
    """Write a config (dict or raw text/bytes) into its own model directory; return the directory."""
    counter = iter(range(10_000))

    def write(content, name: str | None = None) -> Path:
        directory = tmp_path / (name or f"model{next(counter)}")
        directory.mkdir()
        if isinstance(content, dict):
            content = json.dumps(content, indent=2) + "\n"
        if isinstance(content, str):
            content = content.encode("utf-8")
        (directory / "config.json").write_bytes(content)
        return directory

    return write


# The property tests state how many examples a full run draws. The fast loop's profile
# (`--hypothesis-profile=quick`) draws a tenth of that, so each still runs, on fewer inputs.
settings.register_profile("quick", max_examples=10)


def examples(full: int) -> int:
    """A property test's example count under the loaded profile: `full` under hypothesis' default of 100."""
    return max(5, full * settings.default.max_examples // 100)


def sample_dirs() -> list[Path]:
    return sorted(p for p in SAMPLES.iterdir() if (p / "config.json").is_file())


def pytest_configure(config):
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


# Tests that install into a fresh venv (a runtime, a plugin, cfglint's own wheel), run a converter or load real
# weights: the marker `runtimes`.
RUNTIME_TESTS = (
    "tests/conformance/", "tests/logits/", "tests/hub/", "tests/knowledge/test_mlx_lm_entries.py",
    "tests/knowledge/test_mistralrs_entries.py", "tests/knowledge/test_transformers4_entries.py", "tests/knowledge/test_layouts.py",
    "tests/test_weights_runtimes.py", "tests/test_dependency_floor.py", "tests/test_precommit.py",
    "tests/sampling/test_smollm2.py", "tests/test_fix.py", "tests/test_plugins.py",
    "tests/gguf/test_smollm2_header.py", "tests/gguf/test_smollm2.py", "tests/gguf/test_converter_outputs.py",
)


# Property-based runs over every input cfglint reads (minutes, by design): the marker `fuzz`.
FUZZ_TESTS = ("tests/fuzz/",)


def pytest_collection_modifyitems(config, items):
    for item in items:
        where = Path(str(item.fspath)).relative_to(ROOT).as_posix()
        if where.startswith(RUNTIME_TESTS):
            item.add_marker(pytest.mark.runtimes)
        if where.startswith(FUZZ_TESTS):
            item.add_marker(pytest.mark.fuzz)


# Real llama.cpp is compiled on a machine's first run (minutes, tests/conformance/llama_cpp_runtime.py). When
# its tests are collected, the build starts in the background at once and they run last, so the compiler
# works beside the rest of the suite; the tests themselves wait for it under the build's file lock.
LLAMA_CPP_TESTS = "tests/conformance/test_llama_cpp_real.py"


def pytest_collection_finish(session):
    """After deselection (`-m "not runtimes"` builds nothing)."""
    items = session.items
    last = [item for item in items if _where(item) == LLAMA_CPP_TESTS]
    if not last:
        return
    items[:] = [item for item in items if _where(item) != LLAMA_CPP_TESTS] + last
    import threading

    from tests.conformance.llama_cpp_runtime import ensure_wheel

    def build() -> None:
        try:
            ensure_wheel()
        except Exception:  # noqa: BLE001 - the tests call ensure_wheel again and report the failure themselves
            pass

    threading.Thread(target=build, name="llama.cpp build", daemon=True).start()


def _where(item) -> str:
    return Path(str(item.fspath)).relative_to(ROOT).as_posix()
