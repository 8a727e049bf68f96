"""A safetensors header, read and checked with the standard library alone.

The format: 8 bytes holding the header length N (unsigned, little-endian), N bytes of UTF-8 JSON mapping
tensor names to {dtype, shape, data_offsets} (plus an optional `__metadata__` of strings), then the data.
Offsets are relative to the data area. Only the first 8 + N bytes are ever read, and N is capped, so
a hostile or broken file cannot make cfglint allocate memory sized by what it claims.

The checks mirror what the safetensors library (used by transformers and candle) refuses: a header that
is not JSON, a tensor whose byte count does not match its shape and dtype, offsets past the end of the file
(a truncated download), tensors that overlap, and data that does not exactly fill the rest of the file.
"""

from __future__ import annotations

import json
import math
import struct
from dataclasses import dataclass, field
from typing import BinaryIO

MAX_HEADER = 100 * 2**20  # real headers are kilobytes to a few MiB; more means a broken or hostile file

# Bits per element of every dtype the safetensors format defines (F4/F6 are packed sub-byte types).
DTYPE_BITS = {
    "BOOL": 8, "U8": 8, "I8": 8, "F8_E5M2": 8, "F8_E4M3": 8, "F8_E4M3FNUZ": 8, "F8_E5M2FNUZ": 8,
    "F8_E8M0": 8, "I16": 16, "U16": 16, "F16": 16, "BF16": 16, "I32": 32, "U32": 32, "F32": 32,
    "I64": 64, "U64": 64, "F64": 64, "C64": 64, "F4": 4, "F6_E2M3": 6, "F6_E3M2": 6,
}
FLOAT_DTYPES = frozenset(d for d in DTYPE_BITS if d.startswith(("F", "BF")))


@dataclass(frozen=True)
class TensorInfo:
    name: str
    dtype: str
    shape: tuple[int, ...]
    begin: int  # offsets into the data area
    end: int

    @property
    def numel(self) -> int:
        return math.prod(self.shape)


@dataclass
class Header:
    """One file's header: its tensors, and what is wrong with it (empty when a loader would accept it)."""

    tensors: dict[str, TensorInfo] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    readable: bool = True  # False when no tensor list could be read at all


def read_header(stream: BinaryIO, size: int) -> Header:
    """Read the header of a safetensors file of `size` bytes from a stream positioned at its start."""
    if size < 8:
        return _unreadable(f"file is {size} bytes, too short to hold the 8-byte header length (truncated?)")
    prefix = stream.read(8)
    if len(prefix) < 8:
        return _unreadable("file ended inside the 8-byte header length (truncated?)")
    (length,) = struct.unpack("<Q", prefix)
    if length > size - 8:
        return _unreadable(f"header length {length:,} bytes is larger than the rest of the file ({size - 8:,} bytes): truncated, or not a safetensors file")
    if length > MAX_HEADER:
        return _unreadable(f"header length {length:,} bytes is over the {MAX_HEADER >> 20} MiB limit; not read")
    raw = stream.read(length)
    if len(raw) < length:
        return _unreadable("file ended inside the header (truncated?)")
    return parse_header(raw, size - 8 - length)


def parse_header(raw: bytes, data_size: int) -> Header:
    """Check a header's JSON text against a data area of data_size bytes."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        return _unreadable(f"header is not UTF-8 (byte {err.start})")
    try:
        entries = json.loads(text)
    except (ValueError, RecursionError) as err:
        where = f" at byte {err.pos}" if isinstance(err, json.JSONDecodeError) else ""
        return _unreadable(f"header is not JSON{where}: {json_problem(err)}")
    if not isinstance(entries, dict):
        return _unreadable(f"header is a JSON {type(entries).__name__}, not an object")
    # A name written twice keeps its last entry, as serde (and so the safetensors library) does.
    header = Header()
    for name, entry in entries.items():
        if name == "__metadata__":
            if not isinstance(entry, dict) or not all(isinstance(v, str) for v in entry.values()):
                header.problems.append("__metadata__ is not an object of strings")
            continue
        tensor = _tensor(name, entry, header.problems)
        if tensor is not None:
            header.tensors[name] = tensor
    if not header.problems:  # with an entry unreadable, where the others should lie is unknowable
        _check_layout(header, data_size)
    return header


def json_problem(err: ValueError | RecursionError) -> str:
    """Why json.loads refused a text: the syntax error, the nesting, or an integer over Python's digit limit."""
    if isinstance(err, json.JSONDecodeError):
        return err.msg
    if isinstance(err, RecursionError):
        return "nested too deeply"
    return str(err)  # an integer longer than sys.get_int_max_str_digits()


def _unreadable(message: str) -> Header:
    return Header(problems=[message], readable=False)


def _is_count(value) -> bool:
    return type(value) is int and value >= 0  # bool is an int subclass and never a count


def _tensor(name: str, entry, problems: list[str]) -> TensorInfo | None:
    if not isinstance(entry, dict):
        problems.append(f"tensor {name!r}: entry is not an object")
        return None
    dtype, shape, offsets = entry.get("dtype"), entry.get("shape"), entry.get("data_offsets")
    if not isinstance(dtype, str) or dtype not in DTYPE_BITS:  # a list or object is not even hashable
        problems.append(f"tensor {name!r}: unknown dtype {dtype!r}")
        return None
    if not isinstance(shape, list) or not all(_is_count(d) for d in shape):
        problems.append(f"tensor {name!r}: shape {shape!r} is not a list of non-negative integers")
        return None
    if not (isinstance(offsets, list) and len(offsets) == 2 and all(_is_count(o) for o in offsets) and offsets[0] <= offsets[1]):
        problems.append(f"tensor {name!r}: data_offsets {offsets!r} are not [begin, end] with begin <= end")
        return None
    tensor = TensorInfo(name, dtype, tuple(shape), offsets[0], offsets[1])
    bits = tensor.numel * DTYPE_BITS[dtype]
    if bits % 8 or bits // 8 != tensor.end - tensor.begin:
        problems.append(f"tensor {name!r}: {dtype} {list(shape)} needs {bits / 8:g} bytes, but its offsets span {tensor.end - tensor.begin}")
    return tensor


def _check_layout(header: Header, data_size: int) -> None:
    """Offsets must tile the data area exactly, in order, as the safetensors library requires."""
    spans = sorted(header.tensors.values(), key=lambda t: (t.begin, t.end))
    past = [t for t in spans if t.end > data_size]
    if past:
        last = max(past, key=lambda t: t.end)
        more = f"; {len(past)} tensors reach past the end" if len(past) > 1 else ""
        header.problems.append(f"truncated: tensor {last.name!r} ends at data byte {last.end:,}, but the file holds {data_size:,} bytes of data{more}")
    position = 0
    for tensor in spans:
        if tensor.begin < position:
            header.problems.append(f"tensors overlap: {tensor.name!r} starts at data byte {tensor.begin:,}, inside an earlier tensor ending at {position:,}")
            return
        if tensor.begin > position:
            header.problems.append(f"gap in the data: no tensor covers data bytes {position:,}-{tensor.begin:,} (the safetensors library refuses the file)")
            return
        position = tensor.end
    if not past and position != data_size:
        header.problems.append(f"{data_size - position:,} bytes after the last tensor that no tensor covers (the safetensors library refuses the file)")
