"""The bounded GGUF header parse: the same reading as gguf.GGUFReader, prefixes, and what llama.cpp refuses."""

from __future__ import annotations

import struct

import gguf
import numpy as np
import pytest

from cfglint.gguf.header import GgufArray, GgufError, HeaderIncomplete, parse_header, read_header
from tests.gguf.files import SMALL_LLAMA, write_gguf
from tests.gguf.reader_equivalence import header_view, reader_view

T = gguf.GGUFValueType
EVERY_TYPE = {
    "t.u8": (200, T.UINT8), "t.i8": (-100, T.INT8), "t.u16": (60000, T.UINT16), "t.i16": (-30000, T.INT16),
    "t.u32": (4_000_000_000, T.UINT32), "t.i32": (-2_000_000_000, T.INT32), "t.f32": (0.1, T.FLOAT32),
    "t.bool": (True, T.BOOL), "t.str": ("héllo", T.STRING), "t.u64": (2**63 + 5, T.UINT64),
    "t.i64": (-(2**62), T.INT64), "t.f64": (1e-300, T.FLOAT64),
    "t.strings": ["a", "", "ünï", "x" * 300], "t.ints": [1, -2, 3], "t.floats": [0.5, 1.5], "t.bools": [True, False],
}  # fmt: skip


def small_file(tmp_path, **extra):
    kv = {f"llama.{k}" if not k.startswith("head") else f"llama.attention.{k}": v for k, v in SMALL_LLAMA.items()}
    tensors = {"token_embd.weight": np.ones((10, 64), np.float32), "blk.0.attn_q.weight": np.zeros((64, 64), np.float16),
               "output_norm.weight": np.ones(64, np.float32)}
    return write_gguf(tmp_path / "small.gguf", kv={**kv, **EVERY_TYPE, **extra}, tensors=tensors)


def test_same_reading_as_gguf_reader(tmp_path):
    path = small_file(tmp_path)
    header = read_header(path)
    assert header_view(header) == reader_view(path)
    assert header.architecture == "llama"
    assert header.value_types["t.strings"] is T.STRING and isinstance(header.metadata["t.strings"], GgufArray)
    assert header.tensors["token_embd.weight"].shape == (64, 10)


def test_every_prefix_is_incomplete_or_the_whole_header(tmp_path):
    path = small_file(tmp_path)
    data = path.read_bytes()
    whole = header_view(parse_header(data, file_size=len(data)))
    header_size = parse_header(data, file_size=len(data)).header_size
    for cut in range(0, header_size + 2):
        try:
            header = parse_header(data[:cut], file_size=len(data))
        except HeaderIncomplete as short:
            assert cut < short.needed_bytes <= header_size, cut
        else:
            assert cut >= header_size and header_view(header) == whole


def test_read_header_grows_its_first_read(tmp_path):
    path = small_file(tmp_path, **{"t.big": ["token"] * 5000})
    assert header_view(read_header(path, first_read=64)) == reader_view(path)


def _raw(version=3, n_tensors=0, kvs=b"", n_kv=None, magic=b"GGUF", tail=b""):
    return magic + struct.pack("<IQQ", version, n_tensors, len(kvs and [1]) if n_kv is None else n_kv) + kvs + tail


def _key(name: str) -> bytes:
    return struct.pack("<Q", len(name)) + name.encode()


REFUSED = {
    "wrong magic": (_raw(magic=b"GGML"), "not a GGUF file"),
    "version 1": (_raw(version=1), "version 1"),
    "version 4": (_raw(version=4), "version 4"),
    "big-endian": (b"GGUF" + struct.pack(">I", 3) + bytes(16), "big-endian"),
    "huge kv count": (_raw(n_kv=2**62), "claims 4,611,686,018,427,387,904 key-values"),
    "huge tensor count": (_raw(n_tensors=2**40), "tensor infos"),
    "truncated string": (_raw(kvs=_key("a") + struct.pack("<IQ", 8, 10**6) + b"abc", n_kv=1), "past the end of the file"),
    "truncated key": (_raw(kvs=struct.pack("<Q", 50) + bytes(20), n_kv=1), "key 0 needs bytes up to 82"),
    "unknown value type": (_raw(kvs=_key("a") + struct.pack("<I", 13) + bytes(8), n_kv=1), "unknown value type 13"),
    "nested array": (_raw(kvs=_key("a") + struct.pack("<IIQ", 9, 9, 1) + bytes(16), n_kv=1), "array of arrays"),
    "huge array": (_raw(kvs=_key("a") + struct.pack("<IIQ", 9, 4, 2**40), n_kv=1), "over the 16,777,216 limit"),
    "array past the end": (_raw(kvs=_key("a") + struct.pack("<IIQ", 9, 4, 1000), n_kv=1), "past the end of the file"),
    "empty key": (_raw(kvs=_key("") + struct.pack("<IB", 0, 1), n_kv=1), "key 0 is empty"),
    "duplicate key": (_raw(kvs=(_key("a") + struct.pack("<IB", 0, 1)) * 2, n_kv=2), "duplicate key 'a'"),
    "alignment not a power of 2": (_raw(kvs=_key("general.alignment") + struct.pack("<II", 4, 24), n_kv=1), "not a power of 2"),
    "alignment of another type": (_raw(kvs=_key("general.alignment") + struct.pack("<IQ", 10, 32), n_kv=1), "must be a uint32"),
}  # fmt: skip


def _tensor(name: str, dims: tuple[int, ...], ggml_type: int, offset: int) -> bytes:
    return _key(name) + struct.pack("<I", len(dims)) + struct.pack(f"<{len(dims)}Q", *dims) + struct.pack("<IQ", ggml_type, offset)


TENSOR_REFUSED = {
    "offset past the end": ([_tensor("a", (8,), 0, 0)], 0, "the tensor data ends at byte"),
    "offset out of sequence": ([_tensor("a", (8,), 0, 64)], 64 + 32, "expected 0"),
    "five dimensions": ([_tensor("a", (1,) * 5, 0, 0)], 64, "5 dimensions"),
    "unknown ggml type": ([_tensor("a", (8,), 4, 0)], 64, "unknown ggml type 4"),
    "row not a block multiple": ([_tensor("a", (33,), 2, 0)], 64, "not a multiple of its block size 32"),
    "long name": ([_tensor("n" * 64, (8,), 0, 0)], 64, "over llama.cpp's 63"),
    "duplicate tensor": ([_tensor("a", (8,), 0, 0), _tensor("a", (8,), 0, 32)], 128, "duplicate tensor 'a'"),
    "element count overflow": ([_tensor("a", (2**32, 2**32), 0, 0)], 64, "int64 element count"),
}  # fmt: skip


@pytest.mark.parametrize("case", list(REFUSED))
def test_refused_headers(case):
    data, message = REFUSED[case]
    with pytest.raises(GgufError, match=message.replace("(", r"\(")) as refused:
        parse_header(data, file_size=len(data))
    assert "\n" not in str(refused.value)


@pytest.mark.parametrize("case", list(TENSOR_REFUSED))
def test_refused_tensor_infos(case):
    infos, data_bytes, message = TENSOR_REFUSED[case]
    head = _raw(n_tensors=len(infos), n_kv=0, tail=b"".join(infos))
    data = head + bytes(-len(head) % 32) + bytes(data_bytes)
    with pytest.raises(GgufError, match=message):
        parse_header(data, file_size=len(data))


def test_a_tensor_may_lack_its_final_padding(tmp_path):
    head = _raw(n_tensors=1, n_kv=0, tail=_tensor("a", (3,), 0, 0))
    data = head + bytes(-len(head) % 32) + bytes(12)
    assert parse_header(data, file_size=len(data)).tensors["a"].nbytes == 12


def test_unreadable_file_is_one_line(tmp_path):
    with pytest.raises(GgufError, match="cannot read"):
        read_header(tmp_path / "missing.gguf")
