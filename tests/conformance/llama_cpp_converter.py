"""llama.cpp's HF -> GGUF converter, taken from the llama-cpp-python sdist without building it.

llama-cpp-python ships only as an sdist (a native build takes minutes), but the sdist vendors
llama.cpp's pure-Python converter. This module downloads the sdist once with pip and extracts just
the converter into the test cache:

    converter = ensure_converter()                 # .../convert_hf_to_gguf.py
    python = converter_python("5.24.0")            # a venv with the converter's requirements
    run_probe(python, "llama_cpp_probe.py", str(model_dir), "--converter", str(converter))

The converter reads hparams through the *installed* transformers first, so the venv's transformers
version is part of what is being tested.
"""

from __future__ import annotations

import contextlib
import fcntl
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from .venvs import cache_root, runtime_python

LLAMA_CPP_PYTHON_VERSION = "0.3.36"
_SDIST_PREFIX = PurePosixPath(f"llama_cpp_python-{LLAMA_CPP_PYTHON_VERSION}", "vendor", "llama.cpp")
# The script, the package it imports its model classes from, the gguf library it puts on sys.path
# (rather than an installed `gguf`), and the license that covers them.
_CONVERTER_FILES = ("convert_hf_to_gguf.py", "LICENSE")
_CONVERTER_PACKAGES = ("conversion", "gguf-py")
_READY_MARKER = ".cfglint-ready"
_PIP_TIMEOUT_S = 1800
_PIP_TAIL_LINES = 40


class ConverterUnavailable(RuntimeError):
    """The converter could not be downloaded or extracted."""


def converter_requirements(transformers_version: str) -> list[str]:
    """What convert_hf_to_gguf.py imports for a Llama model, with transformers pinned.

    torch is left to the repository's constraints file, which pins the CPU build.
    """
    return [
        "torch",
        f"transformers=={transformers_version}",
        "safetensors",
        "numpy",
        "sentencepiece",
        # gguf-py's own dependencies (it is used from source, not installed).
        "pyyaml",
        "tqdm",
    ]


def converter_python(transformers_version: str) -> Path:
    """A cached venv able to run the converter (and the llama.cpp probe) with that transformers."""
    return runtime_python(
        f"llama-cpp-convert-transformers-{transformers_version}",
        converter_requirements(transformers_version),
    )


def ensure_converter() -> Path:
    """Return the path of convert_hf_to_gguf.py, downloading and extracting it on first use.

    The extraction goes to a temporary folder renamed into place when complete, under a file lock,
    so concurrent or interrupted callers never see half a converter.
    Raises ConverterUnavailable with pip's output or the missing files when that fails.
    """
    target = cache_root() / f"llama-cpp-converter-{LLAMA_CPP_PYTHON_VERSION}"
    script = target / "convert_hf_to_gguf.py"
    if (target / _READY_MARKER).is_file():
        return script
    target.parent.mkdir(parents=True, exist_ok=True)
    with _exclusive_lock(target.with_name(target.name + ".lock")):
        if not (target / _READY_MARKER).is_file():
            _download_and_extract(target)
    return script


def _download_and_extract(target: Path) -> None:
    if target.exists():
        # A folder without the ready marker is the leftover of an extraction that died.
        shutil.rmtree(target)
    work = Path(tempfile.mkdtemp(prefix=f".build-{target.name}-", dir=target.parent))
    try:
        sdist = _download_sdist(work / "download")
        extracted = work / "converter"
        _extract_converter(sdist, extracted)
        (extracted / _READY_MARKER).write_text(f"{sdist.name}\n", encoding="utf-8")
        extracted.rename(target)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _download_sdist(into: Path) -> Path:
    # --no-binary: the sdist is what vendors llama.cpp. pip still prepares the sdist's metadata,
    # which fetches its build backend but compiles nothing.
    command = [
        sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
        "--disable-pip-version-check", "--no-input", "--dest", str(into),
        f"llama-cpp-python=={LLAMA_CPP_PYTHON_VERSION}",
    ]  # fmt: skip
    try:
        completed = subprocess.run(
            command, capture_output=True, text=True, timeout=_PIP_TIMEOUT_S, check=False
        )
    except subprocess.TimeoutExpired as exc:
        raise ConverterUnavailable(f"pip download timed out after {exc.timeout} s") from None
    if completed.returncode != 0:
        tail = "\n".join((completed.stdout + completed.stderr).splitlines()[-_PIP_TAIL_LINES:])
        raise ConverterUnavailable(
            f"pip could not download the llama-cpp-python {LLAMA_CPP_PYTHON_VERSION} sdist "
            f"(exit status {completed.returncode}):\n{tail}"
        )
    archives = sorted(into.glob("llama_cpp_python-*.tar.gz"))
    if len(archives) != 1:
        found = sorted(path.name for path in into.iterdir())
        raise ConverterUnavailable(f"expected one llama-cpp-python sdist from pip, found {found}")
    return archives[0]


def _extract_converter(sdist: Path, destination: Path) -> None:
    """Copy the converter's files out of the sdist, as regular files only."""
    wanted_files = {_SDIST_PREFIX / name for name in _CONVERTER_FILES}
    wanted_packages = [_SDIST_PREFIX / name for name in _CONVERTER_PACKAGES]
    seen_files: set[PurePosixPath] = set()
    seen_packages: set[PurePosixPath] = set()
    with tarfile.open(sdist, "r:gz") as archive:
        for member in archive:
            path = PurePosixPath(member.name)
            package = next((p for p in wanted_packages if p in path.parents), None)
            if not member.isfile() or (path not in wanted_files and package is None):
                continue
            relative = path.relative_to(_SDIST_PREFIX)
            if ".." in relative.parts:
                raise ConverterUnavailable(f"refusing unsafe path {member.name!r} in {sdist.name}")
            output = destination.joinpath(*relative.parts)
            output.parent.mkdir(parents=True, exist_ok=True)
            source = archive.extractfile(member)
            assert source is not None  # regular files always have content
            with source, open(output, "wb") as sink:
                shutil.copyfileobj(source, sink)
            (seen_packages if package else seen_files).add(package or path)
    missing = sorted(
        str(path.relative_to(_SDIST_PREFIX))
        for path in (wanted_files - seen_files) | (set(wanted_packages) - seen_packages)
    )
    if missing:
        raise ConverterUnavailable(f"{sdist.name} lacks {missing} under {_SDIST_PREFIX}")


@contextlib.contextmanager
def _exclusive_lock(lock_path: Path) -> Iterator[None]:
    with open(lock_path, "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
