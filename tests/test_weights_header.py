"""Reading safetensors headers and finding a model directory's checkpoint, on hand-built files.

The helpers at the top build exact bytes (broken ones included) and are shared by the other weight tests.
"""

from __future__ import annotations

import io
import json
import math
import struct
from pathlib import Path

import pytest

from cfglint.weights import find
from cfglint.weights.header import DTYPE_BITS, MAX_HEADER, Header, read_header

TINY = {
    "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 16, "intermediate_size": 32,
    "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 4, "vocab_size": 64,
    "max_position_embeddings": 128, "rms_norm_eps": 1e-05, "rope_theta": 10000.0, "tie_word_embeddings": False,
    "torch_dtype": "float16",
}


def llama_shapes(config: dict, *, layers: int | None = None) -> dict[str, tuple[int, ...]]:
    """Tensor name -> shape of the Llama layout the config describes (no biases)."""
    h, i, v = config["hidden_size"], config["intermediate_size"], config["vocab_size"]
    q = config["num_attention_heads"] * config["head_dim"]
    kv = config["num_key_value_heads"] * config["head_dim"]
    out = {"model.embed_tokens.weight": (v, h), "model.norm.weight": (h,)}
    if not config.get("tie_word_embeddings"):
        out["lm_head.weight"] = (v, h)
    for n in range(config["num_hidden_layers"] if layers is None else layers):
        p = f"model.layers.{n}."
        out.update({
            p + "self_attn.q_proj.weight": (q, h), p + "self_attn.k_proj.weight": (kv, h),
            p + "self_attn.v_proj.weight": (kv, h), p + "self_attn.o_proj.weight": (h, q),
            p + "mlp.gate_proj.weight": (i, h), p + "mlp.up_proj.weight": (i, h), p + "mlp.down_proj.weight": (h, i),
            p + "input_layernorm.weight": (h,), p + "post_attention_layernorm.weight": (h,),
        })
    return out


def header_for(shapes: dict[str, tuple[int, ...]], dtype: str = "F16") -> tuple[dict, int]:
    """A header with contiguous offsets, and the size of the data area it describes."""
    header, offset = {"__metadata__": {"format": "pt"}}, 0
    for name, shape in shapes.items():
        size = math.prod(shape) * DTYPE_BITS[dtype] // 8
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [offset, offset + size]}
        offset += size
    return header, offset


def safetensors_bytes(header: dict | bytes, data_size: int) -> bytes:
    raw = header if isinstance(header, bytes) else json.dumps(header).encode()
    return struct.pack("<Q", len(raw)) + raw + b"\0" * data_size


def write_checkpoint(directory: Path, shapes: dict[str, tuple[int, ...]], name: str = "model.safetensors", dtype: str = "F16") -> Path:
    header, size = header_for(shapes, dtype)
    path = directory / name
    path.write_bytes(safetensors_bytes(header, size))
    return path


def write_model(directory: Path, config: dict, shapes: dict[str, tuple[int, ...]] | None = None) -> Path:
    """A model directory: this config beside a checkpoint of these shapes (by default, TINY's)."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    write_checkpoint(directory, llama_shapes(TINY) if shapes is None else shapes)
    return directory


def write_index(directory: Path, weight_map: dict[str, str]) -> None:
    (directory / "model.safetensors.index.json").write_text(json.dumps({"metadata": {}, "weight_map": weight_map}))


# --- reading headers: bad input is a clear problem, never a traceback, never a large allocation --------


class RecordingStream(io.BytesIO):
    """A stream that remembers how much each read asked for."""

    def __init__(self, data: bytes):
        super().__init__(data)
        self.asked: list[int] = []

    def read(self, n: int = -1) -> bytes:
        self.asked.append(n)
        return super().read(n)


def read(data: bytes) -> Header:
    return read_header(io.BytesIO(data), len(data))


def good_file() -> bytes:
    header, size = header_for(llama_shapes(TINY))
    return safetensors_bytes(header, size)


def test_a_well_formed_file_has_no_problems():
    header = read(good_file())
    assert header.readable and header.problems == []
    assert header.tensors["model.layers.1.mlp.down_proj.weight"].shape == (16, 32)
    assert header.tensors["model.embed_tokens.weight"].dtype == "F16"


BAD_FILES = {
    "shorter than the length field": (lambda: b"\x10\x00\x00", "file is 3 bytes, too short to hold the 8-byte header length"),
    "truncated data": (lambda: good_file()[:-1000], "truncated: tensor 'model.layers.1.post_attention_layernorm.weight' ends at data byte"),
    "header length past the file": (lambda: struct.pack("<Q", 5000) + b"{}", "header length 5,000 bytes is larger than the rest of the file (2 bytes)"),
    "absurd header length": (lambda: struct.pack("<Q", 2**63) + b"{}", "header length 9,223,372,036,854,775,808 bytes is larger than the rest of the file"),
    "header not JSON": (lambda: safetensors_bytes(b'{"a": [1, 2', 0), "header is not JSON at byte 11"),
    "header not UTF-8": (lambda: safetensors_bytes(b'{"\xff": 1}', 0), "header is not UTF-8 (byte 2)"),
    "header not an object": (lambda: safetensors_bytes(b"[1, 2]", 0), "header is a JSON list, not an object"),
    "unknown dtype": (lambda: safetensors_bytes({"t": {"dtype": "F12", "shape": [1], "data_offsets": [0, 2]}}, 2), "tensor 't': unknown dtype 'F12'"),
    "negative dimension": (lambda: safetensors_bytes({"t": {"dtype": "F16", "shape": [-1], "data_offsets": [0, 2]}}, 2), "tensor 't': shape [-1] is not a list of non-negative integers"),
    "offsets reversed": (lambda: safetensors_bytes({"t": {"dtype": "F16", "shape": [1], "data_offsets": [2, 0]}}, 2), "tensor 't': data_offsets [2, 0] are not [begin, end] with begin <= end"),
    "byte count off": (lambda: safetensors_bytes({"t": {"dtype": "F32", "shape": [2], "data_offsets": [0, 4]}}, 4), "tensor 't': F32 [2] needs 8 bytes, but its offsets span 4"),
    "offsets outside the file": (lambda: safetensors_bytes({"t": {"dtype": "F16", "shape": [4], "data_offsets": [0, 8]}}, 4), "truncated: tensor 't' ends at data byte 8, but the file holds 4 bytes of data"),
    "overlapping tensors": (lambda: safetensors_bytes({
        "a": {"dtype": "F16", "shape": [2], "data_offsets": [0, 4]},
        "b": {"dtype": "F16", "shape": [2], "data_offsets": [2, 6]}}, 6), "tensors overlap: 'b' starts at data byte 2, inside an earlier tensor ending at 4"),
    "gap between tensors": (lambda: safetensors_bytes({
        "a": {"dtype": "F16", "shape": [1], "data_offsets": [0, 2]},
        "b": {"dtype": "F16", "shape": [1], "data_offsets": [4, 6]}}, 6), "gap in the data: no tensor covers data bytes 2-4"),
    "bytes after the last tensor": (lambda: safetensors_bytes({"a": {"dtype": "F16", "shape": [1], "data_offsets": [0, 2]}}, 6), "4 bytes after the last tensor that no tensor covers"),
    "metadata not strings": (lambda: safetensors_bytes({"__metadata__": {"n": 1}}, 0), "__metadata__ is not an object of strings"),
}


@pytest.mark.parametrize("case", BAD_FILES)
def test_bad_file_is_one_clear_problem(case):
    make, expected = BAD_FILES[case]
    header = read(make())
    assert header.problems and header.problems[0].startswith(expected), header.problems


@pytest.mark.parametrize("case", BAD_FILES)
def test_the_safetensors_library_refuses_every_bad_file_too(case, tmp_path):
    """The problems are real: the library transformers and candle load with rejects each file."""
    from safetensors import safe_open

    path = tmp_path / "model.safetensors"
    path.write_bytes(BAD_FILES[case][0]())
    # The claim is that the library refuses, with whichever error type it picks for each defect.
    with pytest.raises(Exception):  # noqa: B017
        with safe_open(str(path), framework="numpy") as f:
            for key in f.keys():
                f.get_tensor(key)


def test_the_safetensors_library_accepts_the_good_file(tmp_path):
    from safetensors import safe_open

    path = tmp_path / "model.safetensors"
    path.write_bytes(good_file())
    with safe_open(str(path), framework="numpy") as f:
        assert set(f.keys()) == set(llama_shapes(TINY))


def test_a_name_written_twice_keeps_its_last_entry_as_the_library_does(tmp_path):
    from safetensors import safe_open

    data = safetensors_bytes(
        b'{"a": {"dtype": "F16", "shape": [2], "data_offsets": [0, 4]}, "a": {"dtype": "F16", "shape": [1], "data_offsets": [0, 2]}}', 2)
    assert read(data).tensors["a"].shape == (1,) and read(data).problems == []
    (tmp_path / "m.safetensors").write_bytes(data)
    with safe_open(str(tmp_path / "m.safetensors"), framework="numpy") as f:
        assert f.get_slice("a").get_shape() == [1]


def test_a_header_over_the_cap_is_never_read(tmp_path):
    """A sparse file that is 101 MiB of header by its own account: refused without reading it."""
    length = MAX_HEADER + 2**20
    path = tmp_path / "model.safetensors"
    with path.open("wb") as f:
        f.write(struct.pack("<Q", length))
        f.truncate(8 + length + 16)
    stream = RecordingStream(path.read_bytes()[:8])
    header = read_header(stream, path.stat().st_size)
    assert header.problems == [f"header length {length:,} bytes is over the 100 MiB limit; not read"]
    assert stream.asked == [8]


def test_reads_are_bounded_by_the_header_length_not_the_file():
    data = good_file()
    stream = RecordingStream(data)
    read_header(stream, len(data))
    (length,) = struct.unpack("<Q", data[:8])
    assert stream.asked == [8, length]


# --- a model directory: which files count ----------------------------------------------------------------


def test_no_weight_files_means_no_weights(tmp_path):
    (tmp_path / "config.json").write_text("{}")
    (tmp_path / "adapter_model.safetensors").write_bytes(good_file())
    assert find(tmp_path) is None


def test_single_file(tmp_path):
    write_checkpoint(tmp_path, llama_shapes(TINY))
    weights = find(tmp_path)
    assert weights.files == ["model.safetensors"] and weights.problems == [] and weights.complete
    assert len(weights.tensors) == len(llama_shapes(TINY))
    assert weights.dtypes() == {"F16": sum(math.prod(s) for s in llama_shapes(TINY).values())}


def sharded(tmp_path, names=("model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors")):
    shapes = llama_shapes(TINY)
    half = len(shapes) // 2
    parts = [dict(list(shapes.items())[:half]), dict(list(shapes.items())[half:])]
    weight_map = {}
    for name, part in zip(names, parts):
        write_checkpoint(tmp_path, part, name)
        weight_map.update({t: name for t in part})
    return weight_map


def test_sharded_through_the_index(tmp_path):
    write_index(tmp_path, sharded(tmp_path))
    weights = find(tmp_path)
    assert weights.files == ["model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"]
    assert weights.problems == [] and set(weights.tensors) == set(llama_shapes(TINY))


def test_index_naming_a_missing_shard(tmp_path):
    weight_map = sharded(tmp_path)
    (tmp_path / "model-00002-of-00002.safetensors").unlink()
    write_index(tmp_path, weight_map)
    weights = find(tmp_path)
    assert not weights.complete
    assert [(p.kind, p.message) for p in weights.problems] == [
        ("unreadable", "names shard model-00002-of-00002.safetensors, which is not in the model directory")
    ]


def test_index_naming_a_path_outside_the_directory(tmp_path):
    write_index(tmp_path, {"model.norm.weight": "../model.safetensors"})
    weights = find(tmp_path)
    assert [p.message for p in weights.problems] == ["names shard '../model.safetensors', which is not a file name in the model directory; not read"]


@pytest.mark.parametrize("text, message", [
    ("{not json", "is not JSON: Expecting property name enclosed in double quotes"),
    ('{"metadata": {}}', 'has no "weight_map" object of tensor name -> shard file'),
    ('{"weight_map": {"a": 1}}', 'has no "weight_map" object of tensor name -> shard file'),
])
def test_index_that_cannot_be_read(tmp_path, text, message):
    (tmp_path / "model.safetensors.index.json").write_text(text)
    weights = find(tmp_path)
    assert [(p.kind, p.message) for p in weights.problems] == [("unreadable", message)] and not weights.complete


def test_tensor_in_two_shards_keeps_the_copy_the_index_names(tmp_path):
    weight_map = sharded(tmp_path)
    # the second shard also holds the embeddings, which the index places in the first
    extra = {"model.embed_tokens.weight": (8, 16), **{t: s for t, s in llama_shapes(TINY).items() if weight_map[t].startswith("model-00002")}}
    write_checkpoint(tmp_path, extra, "model-00002-of-00002.safetensors")
    write_index(tmp_path, weight_map)
    weights = find(tmp_path)
    assert [(p.kind, p.message) for p in weights.problems] == [
        ("index", "model.embed_tokens.weight is in both model-00001-of-00002.safetensors and model-00002-of-00002.safetensors")
    ]
    assert weights.tensors["model.embed_tokens.weight"].shape == (64, 16)


def test_index_and_shard_disagree(tmp_path):
    weight_map = sharded(tmp_path)
    weight_map["model.extra.weight"] = "model-00001-of-00002.safetensors"
    del weight_map["model.norm.weight"]
    write_index(tmp_path, weight_map)
    messages = [p.message for p in find(tmp_path).problems]
    assert messages == [
        "model.safetensors.index.json lists model.extra.weight in model-00001-of-00002.safetensors, which does not hold it",
        "model-00001-of-00002.safetensors holds 1 tensor(s) that model.safetensors.index.json does not list, e.g. model.norm.weight",
    ]


def test_stray_shard_beside_the_index(tmp_path):
    write_index(tmp_path, sharded(tmp_path))
    write_checkpoint(tmp_path, {"model.norm.weight": (16,)}, "model-00003-of-00003.safetensors")
    weights = find(tmp_path)
    assert weights.stray == {"model-00003-of-00003.safetensors": ["model.norm.weight"]}
    assert [(p.kind, p.file) for p in weights.problems] == [("stray", "model-00003-of-00003.safetensors")]
    assert "model-00003-of-00003.safetensors" not in weights.files


def test_shards_without_an_index(tmp_path):
    sharded(tmp_path)
    weights = find(tmp_path)
    assert len(weights.tensors) == len(llama_shapes(TINY))
    assert [p.message for p in weights.problems] == [
        "2 safetensors shards (model-00001-of-00002.safetensors, model-00002-of-00002.safetensors) and no model.safetensors.index.json: transformers and candle find no weights"
    ]


def test_pickle_only(tmp_path):
    (tmp_path / "pytorch_model.bin").write_bytes(b"not opened")
    weights = find(tmp_path)
    assert weights.pickles == ["pytorch_model.bin"] and not weights.safetensors


def test_an_unreadable_file_is_a_problem_not_an_exception(tmp_path):
    (tmp_path / "model.safetensors").mkdir()  # a directory where the file should be: not a weight file
    assert find(tmp_path) is None
    (tmp_path / "model.safetensors").rmdir()
    (tmp_path / "model.safetensors").symlink_to(tmp_path / "nowhere")
    assert find(tmp_path) is None  # a dangling link is not a file either
