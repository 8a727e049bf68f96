"""Hostile GGUF headers: a valid tiny GGUF with bytes overwritten (huge counts and lengths, unknown value types,
offsets past the end), cut short, or with bytes inserted. The parse gives a header or a one-line GgufError,
in bounded time and memory; `cfglint check` gives a finding or a one-line error, never a traceback."""

from __future__ import annotations

import json
import struct
import tracemalloc

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cfglint.cli import main
from cfglint.gguf.header import GgufError, parse_header
from tests.fuzz.test_fuzz import SCALE
from tests.gguf.files import TINY_CONFIG, tiny_gguf

MEMORY_LIMIT = 32 * 2**20  # the tiny file's header is a few kB; a parse allocating more trusted a length


@pytest.fixture(scope="module")
def seed_file(tmp_path_factory):
    return tiny_gguf(tmp_path_factory.mktemp("gguf-seed") / "seed.gguf").read_bytes()


HOSTILE_WORDS = st.sampled_from([0, 1, 2**31, 2**32 - 1, 2**40, 2**63, 2**64 - 1, 13, 9, 8])
EDIT = st.one_of(
    st.tuples(st.just("u64"), st.integers(0, 4095), HOSTILE_WORDS),
    st.tuples(st.just("u32"), st.integers(0, 4095), HOSTILE_WORDS.map(lambda w: w % 2**32)),
    st.tuples(st.just("byte"), st.integers(0, 4095), st.integers(0, 255)),
    st.tuples(st.just("cut"), st.integers(0, 4095), st.just(0)),
    st.tuples(st.just("insert"), st.integers(0, 4095), st.integers(0, 255)),
)


def mutate(data: bytes, edits) -> bytes:
    buffer = bytearray(data)
    for kind, at, value in edits:
        at = at % max(len(buffer), 1)
        if kind == "u64" and at + 8 <= len(buffer):
            struct.pack_into("<Q", buffer, at, value)
        elif kind == "u32" and at + 4 <= len(buffer):
            struct.pack_into("<I", buffer, at, value)
        elif kind == "byte" and at < len(buffer):
            buffer[at] = value
        elif kind == "cut":
            del buffer[at:]
        elif kind == "insert":
            buffer[at:at] = bytes([value]) * 8
    return bytes(buffer)


BUDGET = settings(max_examples=max(1, int(300 * SCALE)), derandomize=True, database=None, deadline=2000,
                  suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


@BUDGET
@given(edits=st.lists(EDIT, min_size=1, max_size=4))
def test_parse_is_bounded_and_one_line(seed_file, edits):
    data = mutate(seed_file, edits)
    tracemalloc.start()
    try:
        header = parse_header(data, file_size=len(data))
        for value in header.metadata.values():  # materialising a lazy array is bounded by the bytes too
            list(value) if hasattr(value, "to_list") else None
    except GgufError as err:
        assert "\n" not in str(err) and str(err)
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert peak < MEMORY_LIMIT


@settings(BUDGET, max_examples=max(1, int(60 * SCALE)))
@given(edits=st.lists(EDIT, min_size=1, max_size=3))
def test_check_reports_a_finding_or_one_line(seed_file, edits, tmp_path_factory, capsys):
    folder = tmp_path_factory.mktemp("hostile")
    (folder / "config.json").write_text(json.dumps(TINY_CONFIG))
    (folder / "model.gguf").write_bytes(mutate(seed_file, edits))
    code = main(["check", str(folder / "model.gguf"), "--isolated", "--format", "json", "--select", "G"])
    out = capsys.readouterr()
    assert code in (0, 1) and isinstance(json.loads(out.out), list)
    assert "Traceback" not in out.err and out.err == ""


@pytest.mark.parametrize("value", ["text", [1, 2], -1, 1e30, True])
def test_every_key_of_another_type_or_value(value, tmp_path, capsys):
    """Each key the rules read, written with a value of another type (or a hostile number)."""
    from tests.gguf.files import tiny_kv

    (tmp_path / "config.json").write_text(json.dumps(TINY_CONFIG))
    for key in tiny_kv():
        name = key.removeprefix("llama.").replace(".", "__")
        tiny_gguf(tmp_path / "model.gguf", **{name: value})
        code = main(["check", str(tmp_path), "--isolated", "--format", "json", "--select", "G"])
        out = capsys.readouterr()
        assert code in (0, 1) and out.err == "", (key, out.err)
