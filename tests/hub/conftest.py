"""Fixtures: a fake Hub on 127.0.0.1 and a cfglint process pointed at it, with nothing else reachable."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.hub.fake_hub import FakeHub

# Settings a developer's shell may carry that would change what huggingface_hub does.
_DROPPED = ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_HOME", "HF_HUB_CACHE",
            "HF_ENDPOINT", "HF_HUB_ETAG_TIMEOUT", "HF_HUB_DOWNLOAD_TIMEOUT", "HF_TOKEN_PATH", "HF_HUB_DISABLE_XET")


@pytest.fixture
def hub():
    server = FakeHub().start()
    yield server
    server.stop()


@pytest.fixture
def hf_env(tmp_path, hub) -> dict[str, str]:
    """An environment where huggingface_hub talks only to the fake Hub, with an empty cache and no token."""
    env = {k: v for k, v in os.environ.items() if k not in _DROPPED}
    env.update(
        HF_ENDPOINT=hub.url,
        HF_HOME=str(tmp_path / "hf-home"),
        HF_HUB_OFFLINE="0",
        HF_HUB_ETAG_TIMEOUT="5",
        HF_HUB_DOWNLOAD_TIMEOUT="5",
        HF_HUB_DISABLE_TELEMETRY="1",
        NO_COLOR="1",
        # Any request not meant for 127.0.0.1 goes to a closed port instead of the internet.
        HTTP_PROXY="http://127.0.0.1:9", HTTPS_PROXY="http://127.0.0.1:9", ALL_PROXY="http://127.0.0.1:9",
        NO_PROXY="127.0.0.1,localhost",
    )
    return env


def cache_dir(env: dict[str, str]) -> Path:
    return Path(env.get("HF_HUB_CACHE") or Path(env["HF_HOME"]) / "hub")


def cfglint(env: dict[str, str], *args: str, cwd: Path | None = None, timeout: float = 60, **kwargs) -> subprocess.CompletedProcess:
    """Run `python -m cfglint ARGS` as a user would, in its own process (huggingface_hub reads its
    settings from the environment when it is imported)."""
    return subprocess.run(
        [sys.executable, "-m", "cfglint", *args], env=env, cwd=cwd or Path(env["HF_HOME"]).parent,
        capture_output=True, text=True, timeout=timeout, **kwargs,
    )


def lay_out_snapshot(cache: Path, repo_id: str, files: dict[str, bytes], commit: str, refs: tuple[str, ...] = ("main",), repo_type: str = "model") -> Path:
    """A snapshot as huggingface_hub stores one: content-addressed blobs, a snapshot folder of relative
    symlinks to them, and refs naming the commit."""
    import hashlib

    from tests.hub.fake_hub import LFS_SUFFIXES, git_sha1

    folder = cache / f"{repo_type}s--{repo_id.replace('/', '--')}"
    snapshot = folder / "snapshots" / commit
    snapshot.mkdir(parents=True)
    (folder / "blobs").mkdir(exist_ok=True)
    for name, data in files.items():
        blob = folder / "blobs" / (hashlib.sha256(data).hexdigest() if name.endswith(LFS_SUFFIXES) else git_sha1(data))
        blob.write_bytes(data)
        (snapshot / name).symlink_to(os.path.relpath(blob, snapshot))
    (folder / "refs").mkdir(exist_ok=True)
    for ref in refs:
        (folder / "refs" / ref).write_text(commit)
    return snapshot


def files_of(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir()) if p.is_file()}
