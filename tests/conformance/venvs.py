"""Cached virtualenvs for real runtimes, and a runner for the probe scripts executed inside them.

Each runtime (transformers 4, transformers 5, mlx-lm, ...) gets its own venv so that incompatible
versions can be tested side by side. Venvs are created once and reused across test runs:

    python = runtime_python("transformers4", ["transformers==4.57.6"])
    result = run_probe(python, "transformers_config.py", str(model_dir))

Plain Python on purpose (no pytest import), so scripts and fixtures can share it.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
CONSTRAINTS_FILE = REPO_ROOT / "constraints.txt"
PROBES_DIR = Path(__file__).resolve().parent / "probes"

# The marker is written last, just before the rename; a venv folder without it is never used.
_READY_MARKER = ".cfglint-ready"
_INSTALL_TIMEOUT_S = 1800
_PIP_TAIL_LINES = 60
_DEFAULT_PROBE_TIMEOUT_S = 300
# Probes must never reach a hub, whatever the caller's environment says.
_OFFLINE_ENV = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}


# transformers 4 with torch: the probes that build a model, or its RoPE, share this venv.
TRANSFORMERS4_WITH_TORCH = ("torch-transformers4", ["torch==2.13.0", "transformers==4.57.6", "safetensors"])


class ProbeError(RuntimeError):
    """A probe script crashed or printed something other than one JSON object."""


def cache_root() -> Path:
    """Where venvs are kept: $CFGLINT_TEST_CACHE, else ~/.cache/cfglint-tests."""
    configured = os.environ.get("CFGLINT_TEST_CACHE")
    return Path(configured).expanduser() if configured else Path.home() / ".cache" / "cfglint-tests"


def runtime_python(
    name: str, requirements: Sequence[str], *, extra_pip_args: Sequence[str] = ()
) -> Path:
    """Return the python executable of a venv with exactly `requirements` installed.

    The venv is built on first use, into a temporary folder that is renamed into place only once pip
    has succeeded, so an interrupted install never looks ready. A file lock serialises concurrent
    callers (two pytest processes, xdist workers) asking for the same venv.
    Raises RuntimeError with the tail of pip's output when the install fails.
    """
    venv_dir = _venv_dir(name, requirements, extra_pip_args)
    python = venv_dir / "bin" / "python"
    if (venv_dir / _READY_MARKER).is_file():
        return python
    venv_dir.parent.mkdir(parents=True, exist_ok=True)
    with _exclusive_lock(venv_dir.with_name(venv_dir.name + ".lock")):
        # Another process may have finished the build while this one waited for the lock.
        if not (venv_dir / _READY_MARKER).is_file():
            _build_venv(venv_dir, requirements, extra_pip_args)
    return python


def run_probe(
    python: Path,
    probe: str,
    *args: str,
    env: Mapping[str, str] | None = None,
    timeout: float = _DEFAULT_PROBE_TIMEOUT_S,
) -> dict:
    """Run tests/conformance/probes/<probe> with `python` and return the JSON object it prints.

    Raises ProbeError when the probe exits non-zero or its stdout is not exactly one JSON object
    (a runtime that fails to load is reported inside the JSON, with exit status 0).
    """
    script = PROBES_DIR / probe
    if not script.is_file():
        raise FileNotFoundError(f"no probe script {script}")
    completed = subprocess.run(
        [str(python), str(script), *args],
        env=_probe_env(env),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if completed.returncode != 0:
        raise ProbeError(
            f"probe {probe} exited with status {completed.returncode}\n"
            f"--- stderr ---\n{_tail(completed.stderr)}\n--- stdout ---\n{_tail(completed.stdout)}"
        )
    try:
        result = json.loads(completed.stdout)
    except json.JSONDecodeError as exc:
        raise ProbeError(
            f"probe {probe} printed no single JSON object ({exc})\n"
            f"--- stdout ---\n{_tail(completed.stdout)}\n--- stderr ---\n{_tail(completed.stderr)}"
        ) from None
    if not isinstance(result, dict):
        raise ProbeError(f"probe {probe} printed JSON that is not an object: {completed.stdout!r}")
    return result


def _venv_dir(name: str, requirements: Sequence[str], extra_pip_args: Sequence[str]) -> Path:
    # The key covers everything that changes what gets installed, so editing constraints.txt or
    # moving to another Python version yields a fresh venv instead of a stale one.
    key_material = json.dumps(
        {
            "requirements": list(requirements),
            "extra_pip_args": list(extra_pip_args),
            "constraints": CONSTRAINTS_FILE.read_text(encoding="utf-8"),
            "python": sys.version,
        },
        sort_keys=True,
    )
    digest = hashlib.sha256(key_material.encode("utf-8")).hexdigest()[:12]
    safe_name = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-") or "venv"
    return cache_root() / "venvs" / f"{safe_name}-{digest}"


@contextlib.contextmanager
def _exclusive_lock(lock_path: Path) -> Iterator[None]:
    with open(lock_path, "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _build_venv(
    venv_dir: Path, requirements: Sequence[str], extra_pip_args: Sequence[str]
) -> None:
    _remove_stale_builds(venv_dir)
    if venv_dir.exists():
        # A folder without the ready marker is the leftover of a build that died after the rename.
        shutil.rmtree(venv_dir)
    build_dir = Path(tempfile.mkdtemp(prefix=f".build-{venv_dir.name}-", dir=venv_dir.parent))
    try:
        build_dir.chmod(0o755)  # mkdtemp's 0700 would hide the venv from other users of the cache
        _run_or_raise([sys.executable, "-m", "venv", str(build_dir)], "creating the venv failed")
        constraints = _effective_constraints(requirements, build_dir / "constraints.txt")
        pip_command = [
            str(build_dir / "bin" / "python"), "-m", "pip", "install",
            "--no-input", "--disable-pip-version-check",
            "-c", str(constraints), *extra_pip_args, *requirements,
        ]  # fmt: skip
        _run_or_raise(pip_command, f"pip install {' '.join(requirements)} failed")
        _retarget_scripts(build_dir / "bin", old_prefix=build_dir, new_prefix=venv_dir)
        (build_dir / _READY_MARKER).write_text(json.dumps(list(requirements)) + "\n")
        build_dir.rename(venv_dir)
    except BaseException:
        shutil.rmtree(build_dir, ignore_errors=True)
        raise


def _remove_stale_builds(venv_dir: Path) -> None:
    # Only called under the lock, so no live process is still writing into these.
    for leftover in venv_dir.parent.glob(f".build-{venv_dir.name}-*"):
        shutil.rmtree(leftover, ignore_errors=True)


def _effective_constraints(requirements: Sequence[str], out_file: Path) -> Path:
    """The repo's constraints, minus pins for packages the caller itself pins with `==`.

    constraints.txt pins the reference stack (torch 2.13.0 and transformers 5.x). A venv for an
    older consumer asks for e.g. transformers==4.57.6 explicitly; pip would reject the pair as a
    conflict. Every other pin, torch's above all, still applies.
    """
    explicitly_pinned = {
        _project_name(requirement) for requirement in requirements if "==" in requirement
    }
    kept_lines = [
        line
        for line in CONSTRAINTS_FILE.read_text(encoding="utf-8").splitlines()
        if _project_name(line) not in explicitly_pinned
    ]
    out_file.write_text("\n".join(kept_lines) + "\n", encoding="utf-8")
    return out_file


def _project_name(requirement_line: str) -> str | None:
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement_line.split("#", 1)[0])
    return re.sub(r"[-_.]+", "-", match.group(1)).lower() if match else None


def _retarget_scripts(bin_dir: Path, *, old_prefix: Path, new_prefix: Path) -> None:
    # Console scripts and activate files embed the build folder's path; fix them before the rename
    # so that e.g. `<venv>/bin/pip` keeps working. bin/python itself is a symlink and needs nothing.
    old, new = str(old_prefix).encode(), str(new_prefix).encode()
    for entry in bin_dir.iterdir():
        if entry.is_symlink() or not entry.is_file():
            continue
        content = entry.read_bytes()
        if old in content:
            entry.write_bytes(content.replace(old, new))


def _run_or_raise(command: Sequence[str], failure: str) -> None:
    completed = subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=_INSTALL_TIMEOUT_S,
        check=False,
        env=_install_env(),
    )
    if completed.returncode != 0:
        output = completed.stdout + completed.stderr
        raise RuntimeError(f"{failure} (exit status {completed.returncode}):\n{_tail(output)}")


def _install_env() -> dict[str, str]:
    env = dict(os.environ)
    # A caller's activated venv or PYTHONPATH must not leak into the interpreter being built.
    for variable in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PIP_REQUIRE_VIRTUALENV"):
        env.pop(variable, None)
    return env


def _probe_env(extra: Mapping[str, str] | None) -> dict[str, str]:
    env = _install_env()
    env["PYTHONNOUSERSITE"] = "1"
    env.update(extra or {})
    env.update(_OFFLINE_ENV)
    return env


def _tail(text: str, lines: int = _PIP_TAIL_LINES) -> str:
    return "\n".join(text.rstrip().splitlines()[-lines:])
