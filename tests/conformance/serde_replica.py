"""Build and run `serde-replica`, a Rust program that deserializes a config.json with the
same serde types as candle-transformers 0.11.0 and mistral.rs (tests/conformance/serde/).

The real runtimes cannot be built here (crates.io is unreachable), but serde's behaviour is
the whole story of how they read a config: missing keys, wrong types, unknown enum variants.
Debian ships serde and serde_json as Rust source packages; the crate builds offline against them.

    binary = ensure_built()
    result = run("candle", Path("config.json"))   # the probe-contract dict

Plain Python on purpose (no pytest import), so scripts and fixtures can share it.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
from collections.abc import Iterator, Sequence
from pathlib import Path

CRATE_DIR = Path(__file__).resolve().parent / "serde"
BINARY = CRATE_DIR / "target" / "release" / "serde-replica"
CONSUMERS = ("candle", "mistralrs")

# They unpack crate sources into /usr/share/cargo/registry, which .cargo/config.toml names.
DEBIAN_PACKAGES = ("librust-serde-json-dev", "librust-serde-derive-dev")
# Used only when no cargo is on the machine at all; Debian's toolchain builds the crate too.
DEBIAN_TOOLCHAIN_PACKAGE = "cargo"

_BUILD_INPUTS = ("Cargo.toml", ".cargo/config.toml", "src")
# Hash of the build inputs the current binary was built from; a mismatch means rebuild.
_STAMP = BINARY.with_name("serde-replica.sources-sha256")
_LOCK = CRATE_DIR / "target" / ".serde-replica.lock"
_APT_TIMEOUT_S = 900
_BUILD_TIMEOUT_S = 900
_RUN_TIMEOUT_S = 60
_OUTPUT_TAIL_LINES = 60


def ensure_built() -> Path:
    """Return the path of an up-to-date `serde-replica` binary, installing and building as needed.

    Installs the Debian source packages when the registry lacks them (running `apt-get update`
    only if a first install fails), then `cargo build --release --offline`. Rebuilds only when
    the crate's sources changed. Raises RuntimeError with the failing command's output.
    """
    _LOCK.parent.mkdir(parents=True, exist_ok=True)
    with _exclusive_lock(_LOCK):
        digest = _sources_digest()
        if BINARY.is_file() and _STAMP.is_file() and _STAMP.read_text().strip() == digest:
            return BINARY
        cargo = _find_cargo()
        missing = [pkg for pkg in DEBIAN_PACKAGES if not _deb_installed(pkg)]
        if cargo is None:
            missing.append(DEBIAN_TOOLCHAIN_PACKAGE)
        if missing:
            _apt_install(missing)
            cargo = cargo or _find_cargo()
        if cargo is None:
            raise RuntimeError("cargo not found on PATH or in ~/.cargo/bin, even after installing it")
        _run_checked(
            [cargo, "build", "--release", "--offline", "--quiet"],
            cwd=CRATE_DIR,
            timeout=_BUILD_TIMEOUT_S,
            what="building serde-replica",
        )
        _STAMP.write_text(digest + "\n")
        return BINARY


def run(consumer: str, config_path: Path) -> dict:
    """Deserialize `config_path` as `consumer` ("candle" or "mistralrs") would; return the report.

    The report follows the probe contract: runtime, version, outcome ("loads" | "error" |
    "panic"), message (the runtime's error text, verbatim) and values.
    """
    if consumer not in CONSUMERS:
        raise ValueError(f"unknown consumer {consumer!r}; expected one of {CONSUMERS}")
    binary = ensure_built()
    proc = subprocess.run(
        [str(binary), consumer, str(config_path)],
        capture_output=True,
        text=True,
        timeout=_RUN_TIMEOUT_S,
    )
    if proc.returncode != 0:
        raise RuntimeError(
            f"serde-replica {consumer} {config_path} exited {proc.returncode}:\n{proc.stderr}"
        )
    # json.loads also accepts the NaN/Infinity tokens the replica writes for non-finite floats.
    return json.loads(proc.stdout)


def _sources_digest() -> str:
    digest = hashlib.sha256()
    for name in _BUILD_INPUTS:
        root = CRATE_DIR / name
        files = sorted(root.rglob("*")) if root.is_dir() else [root]
        for path in files:
            if path.is_file():
                digest.update(path.relative_to(CRATE_DIR).as_posix().encode())
                digest.update(b"\0")
                digest.update(path.read_bytes())
                digest.update(b"\0")
    return digest.hexdigest()


def _find_cargo() -> str | None:
    found = shutil.which("cargo")
    if found:
        return found
    rustup_cargo = Path.home() / ".cargo" / "bin" / "cargo"
    return str(rustup_cargo) if rustup_cargo.is_file() else None


def _deb_installed(package: str) -> bool:
    proc = subprocess.run(
        ["dpkg-query", "-W", "-f=${Status}", package], capture_output=True, text=True
    )
    return proc.returncode == 0 and proc.stdout.strip() == "install ok installed"


def _apt_install(packages: Sequence[str]) -> None:
    install = ["apt-get", "install", "-y", "--no-install-recommends", *packages]
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    first = subprocess.run(install, capture_output=True, text=True, env=env, timeout=_APT_TIMEOUT_S)
    if first.returncode == 0:
        return
    # A fresh machine may have no package lists yet; refresh them once and retry.
    _run_checked(["apt-get", "update"], env=env, timeout=_APT_TIMEOUT_S, what="apt-get update")
    _run_checked(install, env=env, timeout=_APT_TIMEOUT_S, what="installing " + " ".join(packages))


def _run_checked(cmd: Sequence[str], *, what: str, timeout: int, **kwargs) -> None:
    proc = subprocess.run(
        list(cmd), capture_output=True, text=True, timeout=timeout, check=False, **kwargs
    )
    if proc.returncode != 0:
        output = (proc.stdout + proc.stderr).splitlines()[-_OUTPUT_TAIL_LINES:]
        raise RuntimeError(
            f"{what} failed: `{' '.join(cmd)}` exited {proc.returncode}\n" + "\n".join(output)
        )


@contextlib.contextmanager
def _exclusive_lock(path: Path) -> Iterator[None]:
    # Parallel test workers must not run apt-get or rebuild the binary at the same time.
    with open(path, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
