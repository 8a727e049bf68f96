"""What gguf.GGUFReader, the gguf package's own reader, reads from a file, in the shape of a GgufHeader."""

from __future__ import annotations

from pathlib import Path

import gguf

_PSEUDO = ("GGUF.version", "GGUF.tensor_count", "GGUF.kv_count")


def reader_view(path: Path) -> dict:
    reader = gguf.GGUFReader(str(path))
    metadata = {}
    for key, field in reader.fields.items():
        if key in _PSEUDO:
            continue
        value = field.contents()
        metadata[key] = value
    tensors = {t.name: (tuple(int(d) for d in t.shape), int(t.tensor_type), int(t.data_offset), int(t.n_bytes)) for t in reader.tensors}
    return {"version": int(reader.fields["GGUF.version"].contents()), "metadata": metadata, "tensors": tensors,
            "data_offset": int(reader.data_offset)}


def header_view(header) -> dict:
    metadata = {k: (v.to_list() if hasattr(v, "to_list") else v) for k, v in header.metadata.items()}
    tensors = {t.name: (t.shape, int(t.type), header.data_offset + t.offset, t.nbytes) for t in header.tensors.values()}
    return {"version": header.version, "metadata": metadata, "tensors": tensors, "data_offset": header.data_offset}
