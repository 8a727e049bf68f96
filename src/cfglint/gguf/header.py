"""A GGUF header: magic, version, key-values and tensor infos; never the tensor data.

The layout (ggml's gguf.cpp, version 2 and 3): "GGUF", a uint32 version, uint64 tensor and key-value
counts, the key-values (a string key, a uint32 value type, the value; an array is an item type, a uint64
count and the items), the tensor infos (a name, uint32 dimension count, uint64 dimensions, a uint32 ggml
type, a uint64 offset into the data area), padding to `general.alignment`, then the data.

Why our own parse and not `gguf.GGUFReader`: the reader memory-maps the whole file and builds numpy views
for every item of every array: on SmolLM2-135M's 98 MB GGUF (49,152 tokens, 48,900 merges) it took 7.7 s
and 190 MB peak RSS, this parse 41 ms and 35 MB (scripts/bench_gguf_header.py, 2-core EPYC, load 5). This
reads only the header prefix and keeps arrays as (offset, count, type), decoded when a rule asks. The `gguf` package stays the source
of truth for what the bytes mean: its value types, ggml types and block sizes; tests check this parse
against GGUFReader's on real files.

Bounded on hostile input: every count and length is checked against the bytes the file holds before
anything is built from it, the header may not exceed MAX_HEADER, and arrays MAX_ARRAY items. What
llama.cpp refuses (gguf.cpp: bad magic or version, a duplicate or empty key, an unknown value type, nested
arrays, a bad alignment, tensor names of 64 bytes or more, over 4 dimensions, an unknown ggml type, a row
not a multiple of the block size, offsets out of sequence, data past the end) is a GgufError here.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, overload

from gguf import GGML_QUANT_SIZES, GGUF_DEFAULT_ALIGNMENT, GGUF_MAGIC, GGMLQuantizationType, GGUFValueType, Keys

MAX_HEADER = 256 * 2**20  # real headers are kilobytes to ~30 MiB (a 262k-token vocabulary with its merges)
MAX_ARRAY = 2**24  # items in one array; the largest vocabularies hold about 2**18 tokens
SUPPORTED_VERSIONS = (2, 3)  # llama.cpp refuses version 1 ("no longer supported") and any newer than 3
MAX_NAME = 64  # GGML_MAX_NAME: llama.cpp refuses a tensor name of this many bytes or more
MAX_DIMS = 4  # GGML_MAX_DIMS
_INT64_MAX = 2**63 - 1

# struct codes of the fixed-size value types (little-endian, the byte order llama.cpp reads).
_SCALAR = {
    GGUFValueType.UINT8: "B", GGUFValueType.INT8: "b", GGUFValueType.UINT16: "H", GGUFValueType.INT16: "h",
    GGUFValueType.UINT32: "I", GGUFValueType.INT32: "i", GGUFValueType.FLOAT32: "f", GGUFValueType.BOOL: "B",
    GGUFValueType.UINT64: "Q", GGUFValueType.INT64: "q", GGUFValueType.FLOAT64: "d",
}  # fmt: skip
_SIZE = {kind: struct.calcsize("<" + code) for kind, code in _SCALAR.items()}
_MIN_KV = 8 + 4 + 1  # an empty key (refused later, with its own message), its type, the smallest value
_MIN_TENSOR = 8 + 4 + 4 + 8  # an empty name, no dimensions, the type, the offset


class GgufError(Exception):
    """A malformed GGUF file (llama.cpp would refuse it); the message is one line."""


class HeaderIncomplete(Exception):
    """The bytes given end inside the header: at least `needed_bytes` from the start of the file are needed."""

    def __init__(self, needed_bytes: int):
        super().__init__(f"the header needs at least {needed_bytes:,} bytes")
        self.needed_bytes = needed_bytes


class GgufArray(Sequence):
    """An array value, kept as where it lies in the header; its items are decoded on first use."""

    def __init__(self, item_type: GGUFValueType, count: int, data: bytes | memoryview, offset: int):
        self.item_type = item_type
        self.length = count
        self._data = data
        self._offset = offset
        self._items: list | None = None

    def __len__(self) -> int:
        return self.length

    @overload
    def __getitem__(self, index: int) -> Any: ...
    @overload
    def __getitem__(self, index: slice) -> list: ...
    def __getitem__(self, index):
        return self.to_list()[index]

    def __iter__(self) -> Iterator[Any]:
        return iter(self.to_list())

    def __repr__(self) -> str:
        return f"GgufArray({self.item_type.name}, {self.length})"

    def to_list(self) -> list:
        if self._items is None:
            self._items = _decode_items(self._data, self._offset, self.item_type, self.length)
        return self._items


@dataclass(frozen=True)
class TensorInfo:
    name: str
    shape: tuple[int, ...]  # ggml order: the row length (ne[0]) first, as GGUFReader reports it
    type: GGMLQuantizationType
    offset: int  # into the data area
    nbytes: int


@dataclass
class GgufHeader:
    version: int
    metadata: dict[str, Any]  # key -> int | float | bool | str | GgufArray
    value_types: dict[str, GGUFValueType]  # key -> its declared type (an array's is its item type)
    tensors: dict[str, TensorInfo]
    header_size: int  # bytes from the start of the file to the end of the tensor infos
    alignment: int = GGUF_DEFAULT_ALIGNMENT
    data_offset: int = 0  # where the data area starts
    file_size: int = 0
    array_keys: frozenset[str] = field(default_factory=frozenset)

    @property
    def architecture(self) -> str | None:
        arch = self.metadata.get(Keys.General.ARCHITECTURE)
        return arch if isinstance(arch, str) else None


def read_header(path: str | Path, *, first_read: int = 4 << 20) -> GgufHeader:
    """Read a GGUF file's header, growing the prefix read until it holds the whole header."""
    path = Path(path)
    try:
        with open(path, "rb") as handle:
            file_size = handle.seek(0, 2)
            want = min(first_read, file_size)
            while True:
                handle.seek(0)
                data = handle.read(want)
                try:
                    return parse_header(data, file_size=file_size)
                except HeaderIncomplete as short:
                    if want >= file_size or short.needed_bytes <= len(data):  # cannot happen: the parse saw all
                        raise GgufError(f"the header ends past the file's {file_size:,} bytes (truncated?)") from None
                    want = min(file_size, max(short.needed_bytes, 2 * want))
    except OSError as err:
        raise GgufError(f"cannot read: {err.strerror or err}") from None


def parse_header(data: bytes | memoryview, *, file_size: int) -> GgufHeader:
    """Parse the header from `data`, the first bytes of a file of `file_size` bytes.

    Raises HeaderIncomplete when `data` ends before the header does, GgufError when the file is malformed.
    """
    return _Parser(memoryview(data), file_size).header()


class _Parser:
    def __init__(self, data: memoryview, file_size: int):
        self.data = data
        self.file_size = file_size
        self.pos = 0

    def need(self, n: int, what: str) -> None:
        end = self.pos + n
        if end > self.file_size:
            raise GgufError(f"{what} needs bytes up to {end:,}, past the end of the file ({self.file_size:,} bytes): truncated, or a corrupt length")
        if end > MAX_HEADER:
            raise GgufError(f"{what} reaches byte {end:,}, past the {MAX_HEADER >> 20} MiB header limit; not read")
        if end > len(self.data):
            raise HeaderIncomplete(end)

    def scalar(self, kind: GGUFValueType, what: str):
        size = _SIZE[kind]
        self.need(size, what)
        (value,) = struct.unpack_from("<" + _SCALAR[kind], self.data, self.pos)
        self.pos += size
        return bool(value) if kind is GGUFValueType.BOOL else value

    def u32(self, what: str) -> int:
        return self.scalar(GGUFValueType.UINT32, what)

    def u64(self, what: str) -> int:
        return self.scalar(GGUFValueType.UINT64, what)

    def string(self, what: str) -> str:
        length = self.u64(f"the length of {what}")
        self.need(length, what)
        text = bytes(self.data[self.pos : self.pos + length]).decode("utf-8", errors="replace")
        self.pos += length
        return text

    def header(self) -> GgufHeader:
        self.need(4, "the magic")
        magic = bytes(self.data[:4])
        if struct.unpack("<I", magic)[0] != GGUF_MAGIC:
            raise GgufError(f"not a GGUF file: starts with {magic!r}, not b'GGUF'")
        self.pos = 4
        version = self.u32("the version")
        if version not in SUPPORTED_VERSIONS:
            if version & 0xFFFF == 0:
                raise GgufError(f"version {version:#x} reads as big-endian; llama.cpp reads little-endian GGUF files only")
            if version == 1:
                raise GgufError("GGUF version 1, which llama.cpp no longer reads (reconvert the model)")
            raise GgufError(f"GGUF version {version}; llama.cpp reads versions 2 and 3")
        n_tensors = self.u64("the tensor count")
        n_kv = self.u64("the key-value count")
        self.check_count(n_tensors, _MIN_TENSOR, "tensor infos")
        self.check_count(n_kv, _MIN_KV, "key-values")
        metadata: dict[str, Any] = {}
        value_types: dict[str, GGUFValueType] = {}
        arrays = set()
        for index in range(n_kv):
            key = self.string(f"key {index}")
            if not key:
                raise GgufError(f"key {index} is empty")
            if key in metadata:
                raise GgufError(f"duplicate key {key!r}")
            kind = self.value_type(key)
            if kind is GGUFValueType.ARRAY:
                item_type = self.value_type(key, in_array=True)
                metadata[key] = self.array(key, item_type)
                value_types[key] = item_type
                arrays.add(key)
            else:
                metadata[key] = self.value(kind, key)
                value_types[key] = kind
        alignment = self.alignment(metadata, value_types, arrays)
        tensors = self.tensor_infos(n_tensors, alignment)
        header_size = self.pos
        data_offset = _padded(header_size, alignment) if n_tensors else header_size
        if tensors:
            last = next(reversed(tensors.values()))  # offsets are in sequence: the last tensor ends the data
            data_end = data_offset + last.offset + last.nbytes
            if data_end > self.file_size:
                raise GgufError(f"truncated: the tensor data ends at byte {data_end:,}, but the file holds {self.file_size:,} bytes")
        return GgufHeader(version, metadata, value_types, tensors, header_size, alignment, data_offset, self.file_size, frozenset(arrays))

    def check_count(self, count: int, smallest: int, what: str) -> None:
        if count > (self.file_size - self.pos) // smallest:
            raise GgufError(f"the header claims {count:,} {what}, more than the file's {self.file_size:,} bytes can hold")

    def value_type(self, key: str, *, in_array: bool = False) -> GGUFValueType:
        raw = self.u32(f"the type of {key!r}")
        try:
            kind = GGUFValueType(raw)
        except ValueError:
            raise GgufError(f"key {key!r} has unknown value type {raw}") from None
        if in_array and kind is GGUFValueType.ARRAY:
            raise GgufError(f"key {key!r} is an array of arrays, which llama.cpp refuses")
        return kind

    def value(self, kind: GGUFValueType, key: str):
        if kind is GGUFValueType.STRING:
            return self.string(f"the value of {key!r}")
        return self.scalar(kind, f"the value of {key!r}")

    def array(self, key: str, item_type: GGUFValueType) -> GgufArray:
        count = self.u64(f"the length of {key!r}")
        if count > MAX_ARRAY:
            raise GgufError(f"key {key!r} claims {count:,} items, over the {MAX_ARRAY:,} limit")
        start = self.pos
        if item_type is GGUFValueType.STRING:
            self.check_count(count, 8, f"strings in {key!r}")
            self.skip_strings(key, count)
        else:
            self.need(count * _SIZE[item_type], f"the {count:,} items of {key!r}")
            self.pos += count * _SIZE[item_type]
        return GgufArray(item_type, count, self.data, start)

    def skip_strings(self, key: str, count: int) -> None:
        """Walk past `count` strings reading only their lengths (the hot loop of a vocabulary: no message
        is built unless a length runs past the bytes at hand)."""
        data, pos, limit = self.data, self.pos, min(len(self.data), self.file_size, MAX_HEADER)
        unpack = struct.Struct("<Q").unpack_from
        for index in range(count):
            if pos + 8 <= limit:
                (length,) = unpack(data, pos)
                if pos + 8 + length <= limit:
                    pos += 8 + length
                    continue
            self.pos = pos  # past what is at hand: need() raises, with the message
            self.need(8, f"the length of item {index} of {key!r}")
            self.pos += 8
            self.need(unpack(data, pos)[0], f"item {index} of {key!r}")
        self.pos = pos

    def alignment(self, metadata: dict[str, Any], value_types: dict[str, GGUFValueType], arrays: set[str]) -> int:
        key = Keys.General.ALIGNMENT
        if key not in metadata:
            return GGUF_DEFAULT_ALIGNMENT
        value = metadata[key]
        if value_types[key] is not GGUFValueType.UINT32 or key in arrays:
            raise GgufError(f"{key} must be a uint32, not {'an array of ' if key in arrays else ''}{value_types[key].name.lower()}")
        if value == 0 or value & (value - 1):
            raise GgufError(f"{key} {value} is not a power of 2")
        return value

    def tensor_infos(self, count: int, alignment: int) -> dict[str, TensorInfo]:
        tensors: dict[str, TensorInfo] = {}
        expected_offset = 0
        for index in range(count):
            name = self.string(f"the name of tensor {index}")
            if len(name.encode()) >= MAX_NAME:
                raise GgufError(f"tensor {index}'s name is {len(name.encode())} bytes, over llama.cpp's {MAX_NAME - 1}")
            if name in tensors:
                raise GgufError(f"duplicate tensor {name!r}")
            n_dims = self.u32(f"the dimension count of {name!r}")
            if n_dims > MAX_DIMS:
                raise GgufError(f"tensor {name!r} has {n_dims} dimensions, over ggml's {MAX_DIMS}")
            shape = tuple(self.u64(f"a dimension of {name!r}") for _ in range(n_dims))
            numel = 1
            for dim in shape:
                numel *= dim
            if any(dim > _INT64_MAX for dim in shape) or numel > _INT64_MAX:
                raise GgufError(f"tensor {name!r} has shape {list(shape)}, over ggml's int64 element count")
            raw_type = self.u32(f"the type of {name!r}")
            try:
                ggml_type = GGMLQuantizationType(raw_type)
                block, type_size = GGML_QUANT_SIZES[ggml_type]
            except (ValueError, KeyError):
                raise GgufError(f"tensor {name!r} has unknown ggml type {raw_type}") from None
            if shape and shape[0] % block:
                raise GgufError(f"tensor {name!r} ({ggml_type.name}) has rows of {shape[0]} elements, not a multiple of its block size {block}")
            offset = self.u64(f"the offset of {name!r}")
            if offset != expected_offset:
                raise GgufError(f"tensor {name!r} has data offset {offset:,}, expected {expected_offset:,}")
            nbytes = numel // block * type_size
            tensors[name] = TensorInfo(name, shape, ggml_type, offset, nbytes)
            expected_offset += _padded(nbytes, alignment)
        return tensors


def _padded(size: int, alignment: int) -> int:
    return size + (-size % alignment)


def _decode_items(data: bytes | memoryview, offset: int, item_type: GGUFValueType, count: int) -> list:
    if item_type is GGUFValueType.STRING:
        items = []
        for _ in range(count):
            (length,) = struct.unpack_from("<Q", data, offset)
            offset += 8
            items.append(bytes(data[offset : offset + length]).decode("utf-8", errors="replace"))
            offset += length
        return items
    values = list(struct.unpack_from(f"<{count}{_SCALAR[item_type]}", data, offset))
    return [bool(v) for v in values] if item_type is GGUFValueType.BOOL else values
