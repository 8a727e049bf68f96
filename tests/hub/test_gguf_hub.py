"""`cfglint check org/name-GGUF` against a Hub on 127.0.0.1: headers by range requests, the source from base_model."""

from __future__ import annotations

import json
import re

import numpy as np

from tests.gguf.files import TINY_CONFIG, tiny_gguf
from tests.hub.conftest import cfglint

CARD = b"---\nbase_model: acme/tiny\nlicense: apache-2.0\n---\n# tiny, quantised\n"
BULK = 6 << 20  # float32s of tensor data behind the header: 24 MiB the check must not read
BIG_FIELD = 3 << 20  # a description that pushes the header past the first read (2 MiB)


def _gguf(tmp_path, name: str, **kwargs) -> bytes:
    extra = {"bulk.weight": np.zeros(BULK, np.float32)}
    return tiny_gguf(tmp_path / name, tensors=extra, **kwargs).read_bytes()


def _repos(hub, tmp_path, card: bytes = CARD) -> dict[str, bytes]:
    hub.add("acme/tiny", {"config.json": json.dumps(TINY_CONFIG).encode()})
    files = {
        "tiny.f32.gguf": _gguf(tmp_path, "good.gguf", general__description="x" * BIG_FIELD),
        "tiny-no-theta.gguf": _gguf(tmp_path, "bad.gguf", drop=("{arch}.rope.freq_base",)),
        "README.md": card,
    }
    hub.add("acme/tiny-GGUF", files)
    return files


def _ranges_read(hub) -> list[tuple[int, int]]:
    """(first, last) byte of every range request the Hub answered for a GGUF file's bytes."""
    out = []
    for method, path, headers in hub.requests:
        asked = {k.lower(): v for k, v in headers.items()}.get("range")
        if method == "GET" and asked and path.startswith("/lfs/"):
            first, last = re.fullmatch(r"bytes=(\d+)-(\d+)", asked).groups()
            out.append((int(first), int(last)))
    return out


def test_each_gguf_is_checked_by_its_header_against_the_model_card_s_base_model(hub, hf_env, tmp_path):
    files = _repos(hub, tmp_path)
    proc = cfglint(hf_env, "check", "acme/tiny-GGUF", "--format", "json")
    assert proc.returncode == 1, proc.stderr
    found = json.loads(proc.stdout)
    by_file = {}
    for finding in found:
        by_file.setdefault(finding["path"], []).append(finding)
    bad, good = "hf://acme/tiny-GGUF@main/tiny-no-theta.gguf", "hf://acme/tiny-GGUF@main/tiny.f32.gguf"
    assert {f["code"] for f in by_file[bad] if f["severity"] != "info"} == {"G002"}
    assert [f["code"] for f in by_file[good] if f["severity"] != "info"] == []
    source = "hf://acme/tiny@main/config.json (the model card's base_model)"
    for path in (bad, good):
        assert f"compared against {source}" in [f["message"] for f in by_file[path] if f["code"] == "H001"]
        assert all(f["repo"] == "acme/tiny-GGUF" for f in by_file[path])
    g002 = next(f for f in by_file[bad] if f["code"] == "G002")
    assert "10000" in g002["message"] and g002["gguf_key"] == "llama.rope.freq_base"

    # Bounded: only prefixes of the files were asked for, the big header in two steps, never the tensors.
    size = len(files["tiny.f32.gguf"])
    ranges = _ranges_read(hub)
    assert ranges and all(first == 0 for first, _ in ranges)
    assert len(ranges) == 3  # 2 MiB of the big header, then what its parse asked for; one read of the small one
    assert max(last for _, last in ranges) < BIG_FIELD + (1 << 20) < size // 4


def test_against_a_hub_repository_overrides_the_card(hub, hf_env, tmp_path):
    _repos(hub, tmp_path)
    other = dict(TINY_CONFIG, rope_parameters={"rope_theta": 500000.0, "rope_type": "default"})
    hub.add("acme/other", {"config.json": json.dumps(other).encode()})
    proc = cfglint(hf_env, "check", "acme/tiny-GGUF", "--against", "acme/other", "--format", "json")
    found = json.loads(proc.stdout)
    theta = {f["path"].rsplit("/", 1)[1] for f in found if f["code"] == "G002"}
    assert theta == {"tiny.f32.gguf", "tiny-no-theta.gguf"}  # 100000 and the default 10000, both not 500000
    assert any(f["message"] == "compared against hf://acme/other@main/config.json (--against)" for f in found)


def test_without_base_model_or_against_only_the_file_itself_is_checked(hub, hf_env, tmp_path):
    _repos(hub, tmp_path, card=b"# no front matter\n")
    proc = cfglint(hf_env, "check", "acme/tiny-GGUF", "--format", "json")
    found = json.loads(proc.stdout)
    notes = {f["message"] for f in found if f["code"] == "H001"}
    assert any(n.startswith("no source config (the model card names no base_model") for n in notes)
    assert {f["code"] for f in found if f["path"].endswith("tiny-no-theta.gguf")} >= {"G002"}  # absent base: own consistency


def test_an_unreadable_source_is_named_and_the_file_still_checked(hub, hf_env, tmp_path):
    _repos(hub, tmp_path, card=b"---\nbase_model: acme/missing\n---\n")
    proc = cfglint(hf_env, "check", "acme/tiny-GGUF", "--format", "json")
    assert proc.returncode == 1, proc.stderr
    errors = [f["message"] for f in json.loads(proc.stdout) if f["code"] == "H001" and f["severity"] == "error"]
    assert errors and all(m.startswith("the source config hf://acme/missing@main/config.json (the model card's base_model) could not be read: acme/missing not found") for m in errors)
