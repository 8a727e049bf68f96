"""Real llama.cpp for the tests: llama-cpp-python built from its sdist into a cached wheel, in a cached venv.

    python = llama_cpp_python()        # a venv whose `import llama_cpp` is libllama built here
    run_probe(python, "llama_cpp_runtime_probe.py", "1,5,9", "model.gguf")

llama-cpp-python ships only as an sdist, so the first run compiles llama.cpp. The build is cut down to
what the probes call: the `llama` target and the ggml libraries it links (scikit-build-core's
build.targets). Not compiled: the multimodal `mtmd` library (LLAVA_BUILD=OFF), tools, tests, examples,
the server, and llama.cpp's `common` library, which the package forces on and would install
(llama_cpp_no_common.cmake turns it off inside llama.cpp's own scope).
GGML_NATIVE tunes the CPU kernels for this machine, so the cache key includes its CPU flags.
Measured with CMAKE_BUILD_PARALLEL_LEVEL=2 on the 2-core test machine: 184 s for the wheel with the machine
otherwise idle (load average ~1), 368 s while other jobs shared it (load ~4); without the last six flags
below, 901 s at load 6-8 (and building `common` as well added more than 10 min). Every later run finds the
wheel and the venv in ~/.cache/cfglint-tests.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from .llama_cpp_converter import LLAMA_CPP_PYTHON_VERSION, ConverterUnavailable, _download_sdist, _exclusive_lock
from .venvs import cache_root, runtime_python

CMAKE_ARGS = (
    "-DLLAVA_BUILD=OFF",
    "-DGGML_NATIVE=ON",
    "-DLLAMA_BUILD_TESTS=OFF",
    "-DLLAMA_BUILD_EXAMPLES=OFF",
    "-DLLAMA_BUILD_TOOLS=OFF",
    "-DLLAMA_BUILD_SERVER=OFF",
    "-DLLAMA_OPENSSL=OFF",
    "-DGGML_OPENMP=OFF",
    "-DLLAMA_ALL_WARNINGS=OFF",
    "-DGGML_ALL_WARNINGS=OFF",
    "-DGGML_CCACHE=OFF",
    # Kernels the tiny float32/float16 test models never reach: weight repacking for quantised types and
    # llamafile's sgemm (ggml's own matrix product serves instead); and -O1, which compiles in about half
    # the time of -O3 and changes no float operation (no -ffast-math either way). NDEBUG stays defined, as in
    # a release build: llama.cpp's C asserts are off for users (a zero RoPE base must give NaNs, not abort).
    "-DGGML_CPU_REPACK=OFF",
    "-DGGML_LLAMAFILE=OFF",
    "-DCMAKE_C_FLAGS_RELEASE=-O1",
    "-DCMAKE_CXX_FLAGS_RELEASE=-O1",
    "-DCMAKE_C_FLAGS=-DNDEBUG",
    "-DCMAKE_CXX_FLAGS=-DNDEBUG",
)
BUILD_TARGETS = "llama"
NO_COMMON = Path(__file__).resolve().parent / "llama_cpp_no_common.cmake"
BUILD_PARALLEL_LEVEL = "2"
_READY_MARKER = ".cfglint-ready"
_BUILD_TIMEOUT_S = 3600
_TAIL_LINES = 60


class LlamaCppUnavailable(RuntimeError):
    """llama-cpp-python could not be downloaded or built."""


def llama_cpp_python() -> Path:
    """The python of a cached venv with the locally built llama-cpp-python wheel installed."""
    wheel = ensure_wheel()
    return runtime_python(f"llama-cpp-python-{LLAMA_CPP_PYTHON_VERSION}", [str(wheel)])


def ensure_wheel() -> Path:
    """The cached llama-cpp-python wheel for this version, these flags and this CPU; built on first use.

    Built in a temporary folder renamed into place when pip succeeded, under a file lock, so an
    interrupted or concurrent build never leaves a wheel that looks ready.
    """
    target = cache_root() / "wheels" / f"llama-cpp-python-{LLAMA_CPP_PYTHON_VERSION}-{_build_key()}"
    if (target / _READY_MARKER).is_file():
        return _the_wheel(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    with _exclusive_lock(target.with_name(target.name + ".lock")):
        if not (target / _READY_MARKER).is_file():
            _build(target)
    return _the_wheel(target)


def _build_key() -> str:
    material = json.dumps(
        {
            "version": LLAMA_CPP_PYTHON_VERSION,
            "cmake_args": CMAKE_ARGS,
            "targets": BUILD_TARGETS,
            "no_common": NO_COMMON.read_text(encoding="utf-8"),
            "machine": platform.machine(),
            "cpu_flags": _cpu_flags(),
            "python": sys.version_info[:2],
        },
        sort_keys=True,
    )
    return hashlib.sha256(material.encode()).hexdigest()[:12]


def _cpu_flags() -> str:
    # GGML_NATIVE compiles for -march=native: a wheel from another CPU could use instructions this one lacks.
    try:
        lines = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return platform.processor()
    return next((line.split(":", 1)[1].strip() for line in lines if line.startswith(("flags", "Features"))), "")


def _build(target: Path) -> None:
    # Under the lock: no live build writes into these leftovers of builds that died.
    for leftover in [target, *target.parent.glob(f".build-{target.name}-*")]:
        shutil.rmtree(leftover, ignore_errors=True)
    work = Path(tempfile.mkdtemp(prefix=f".build-{target.name}-", dir=target.parent))
    try:
        try:
            sdist = _download_sdist(work / "download")
        except ConverterUnavailable as exc:
            raise LlamaCppUnavailable(str(exc)) from None
        built = work / "wheel"
        command = [
            sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-input", "--disable-pip-version-check",
            "--wheel-dir", str(built), "-C", f"build.targets={BUILD_TARGETS}", str(sdist),
        ]  # fmt: skip
        cmake_args = " ".join((*CMAKE_ARGS, f"-DCMAKE_PROJECT_llama.cpp_INCLUDE={NO_COMMON}"))
        env = dict(os.environ, CMAKE_ARGS=cmake_args, CMAKE_BUILD_PARALLEL_LEVEL=BUILD_PARALLEL_LEVEL)
        try:
            completed = subprocess.run(command, capture_output=True, text=True, timeout=_BUILD_TIMEOUT_S, env=env, check=False)
        except subprocess.TimeoutExpired as exc:
            raise LlamaCppUnavailable(f"building llama-cpp-python timed out after {exc.timeout} s") from None
        if completed.returncode != 0:
            tail = "\n".join((completed.stdout + completed.stderr).splitlines()[-_TAIL_LINES:])
            raise LlamaCppUnavailable(f"pip wheel llama-cpp-python failed (exit status {completed.returncode}):\n{tail}")
        _the_wheel(built)
        (built / _READY_MARKER).write_text(json.dumps(list(CMAKE_ARGS)) + "\n", encoding="utf-8")
        built.rename(target)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _the_wheel(folder: Path) -> Path:
    wheels = sorted(folder.glob("llama_cpp_python-*.whl"))
    if len(wheels) != 1:
        raise LlamaCppUnavailable(f"expected one llama-cpp-python wheel in {folder}, found {[w.name for w in wheels]}")
    return wheels[0]
