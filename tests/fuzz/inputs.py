"""Generated model folders: configs of every family cfglint models, in both layouts, mutated, with the other files
cfglint reads beside them (generation_config.json, safetensors headers and index, `[tool.cfglint]`, a baseline).

A folder is plain data, `{relative file name: bytes}`, so a failing one can be saved and replayed
(tests/fuzz/regressions/). Mutations: any JSON value in any position, dropped and duplicated keys, huge and tiny
numbers (also as raw text Python's json cannot round-trip), deep nesting, unicode, and bytes truncated or corrupted.
"""

from __future__ import annotations

import base64
import copy
import json
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from cfglint.compat import FAMILY_BASES, tf5_layout
from cfglint.generation import SAMPLER_KEYS
from cfglint.settings import KEYS as SETTINGS_KEYS
from tests.families import variants
from tests.family import family as llama_family

ROOT = Path(__file__).resolve().parents[2]

Folder = dict[str, bytes]


@dataclass(frozen=True)
class Raw:
    """A number written as this text: what json.dumps cannot produce (5000 digits, 1e400, -0, 1E+2)."""

    text: str


@dataclass(frozen=True)
class Pairs:
    """An object written with these members in this order, a key possibly twice."""

    members: tuple[tuple[str, Any], ...]


# ----------------------------------------------------------------------------------------------------------------
# The configs mutations start from: every family's variants in both layouts, the Llama family, the samples.


def _tf5(config: dict) -> dict:
    """The transformers 5 layout of a transformers 4 config: RoPE into rope_parameters (compat.tf5_layout), its
    scaling too."""
    if "rope_theta" not in config:
        return copy.deepcopy(config)
    scaling = config.get("rope_scaling")
    out = tf5_layout(config)
    if isinstance(scaling, dict) and scaling:
        moved = {("rope_type" if k == "type" else k): v for k, v in scaling.items()}
        if isinstance(out["rope_parameters"].get("full_attention"), dict):
            out["rope_parameters"]["full_attention"].update(moved)
        else:
            out["rope_parameters"].update(moved)
    return out


def _starts() -> list[dict]:
    out: list[dict] = []
    for family in FAMILY_BASES:
        for config in variants(family).values():
            out += [config, _tf5(config)]
    out += list(llama_family().values())
    for folder in sorted((ROOT / "samples").iterdir()):
        path = folder / "config.json"
        if path.is_file():
            out.append(json.loads(path.read_text()))
    return out


STARTS = _starts()

# Keys some reader looks at, so that a mutation often lands where it matters.
KEYS = sorted({k for config in STARTS for k in config} | {
    "rope_parameters", "rope_scaling", "rope_type", "type", "factor", "full_attention", "sliding_attention",
    "low_freq_factor", "high_freq_factor", "original_max_position_embeddings", "short_factor", "long_factor",
    "attention_factor", "beta_fast", "beta_slow", "layer_types", "text_config", "quantization_config", "dtype",
    "torch_dtype", "head_dim", "partial_rotary_factor", "auto_map",
})

ODD_NUMBERS = [0, -1, 1, 2, 2**31, 2**53 + 1, 2**63, 2**64, -(2**63), 10**30, 1e308, -1e308, 5e-324, 1e-7, 1e-8,
               0.5, -0.0, 1.0, 1e16, float("nan"), float("inf"), float("-inf")]
RAW_NUMBERS = [Raw("1" + "0" * 5000), Raw("1" + "0" * 400), Raw("-" + "9" * 400), Raw("1e400"), Raw("-1e400"), Raw("1e-400"), Raw("-0"), Raw("1E+2"),
               Raw("0.0000000000000000000000000001"), Raw("123456789012345678901234567890.5")]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from(ODD_NUMBERS),
    st.sampled_from(RAW_NUMBERS),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(["", "default", "llama3", "linear", "yarn", "dynamic", "longrope", "silu", "gelu", "bfloat16",
                     "float32", "sliding_attention", "full_attention", "\u0000", "\ud7ff\ue000", "𝔘𝔫𝔦"]),
)
keys = st.one_of(st.sampled_from(KEYS), st.text(max_size=8))
json_values = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(keys, children, max_size=4),
    max_leaves=8,
)


def _containers(value: Any, path: tuple = ()) -> list[tuple]:
    """The paths of every object and array in value."""
    out = []
    if isinstance(value, dict):
        out.append(path)
        for k, v in value.items():
            out += _containers(v, path + (k,))
    elif isinstance(value, list):
        out.append(path)
        for i, v in enumerate(value):
            out += _containers(v, path + (i,))
    return out


def _at(value: Any, path: tuple) -> Any:
    for part in path:
        value = value[part]
    return value


@st.composite
def mutated_values(draw: st.DrawFn, value: Any, most: int = 5) -> Any:
    """value with up to `most` mutations, each anywhere in it."""
    value = copy.deepcopy(value)
    for _ in range(draw(st.integers(0, most))):
        paths = _containers(value)
        if not paths:
            return draw(json_values)
        target = _at(value, draw(st.sampled_from(paths)))
        action = draw(st.sampled_from(["set", "set", "set", "drop", "nest", "duplicate"]))
        if isinstance(target, list):
            if target and action != "drop":
                index = draw(st.integers(0, len(target) - 1))
                target[index] = draw(json_values)
            elif target:
                target.pop()
            else:
                target.append(draw(json_values))
            continue
        existing = sorted(target, key=str)
        key = draw(st.sampled_from(existing)) if draw(st.booleans()) and existing else draw(keys)
        if action == "drop":
            target.pop(key, None)
        elif action == "nest":
            # As text: values this deep would exhaust the recursion of the code that builds and writes them.
            depth = draw(st.sampled_from([1, 3, 40, 510, 511, 512, 513, 5000]))
            opening, closing = ("[", "]") if draw(st.booleans()) else ('{"a": ', "}")
            target[key] = Raw(opening * depth + dump(target.get(key), None, "") + closing * depth)
        elif action == "duplicate" and key in target:
            members = list(target.items()) + [(key, draw(json_values))]
            order = draw(st.permutations(range(len(members))))
            target.clear()
            target["\x00pairs"] = Pairs(tuple(members[i] for i in order))
        else:
            target[key] = draw(json_values)
    return value


# ----------------------------------------------------------------------------------------------------------------
# Writing JSON the way files are written: any indentation or none, CRLF, duplicates, raw numbers.


def dump(value: Any, indent: int | None = 2, newline: str = "\n", ensure_ascii: bool = False) -> str:
    def write(v: Any, depth: int) -> str:
        if isinstance(v, Raw):
            return v.text
        if isinstance(v, dict) and "\x00pairs" in v:
            return write(v["\x00pairs"], depth)
        if isinstance(v, (dict, Pairs)):
            members = v.members if isinstance(v, Pairs) else tuple(v.items())
            parts = [f"{json.dumps(str(k), ensure_ascii=ensure_ascii)}: {write(x, depth + 1)}" for k, x in members]
            return _join("{", "}", parts, depth, indent, newline)
        if isinstance(v, list):
            return _join("[", "]", [write(x, depth + 1) for x in v], depth, indent, newline)
        return json.dumps(v, ensure_ascii=ensure_ascii)

    return write(value, 0) + newline


def _join(open_: str, close: str, parts: list[str], depth: int, indent: int | None, newline: str) -> str:
    if not parts:
        return open_ + close
    if indent is None or depth > 50:  # deep nesting on one line: no file is indented 2000 levels deep
        return open_ + ", ".join(parts) + close
    pad, inner = " " * (indent * depth), " " * (indent * (depth + 1))
    return open_ + newline + ("," + newline).join(inner + p for p in parts) + newline + pad + close


@st.composite
def json_bytes(draw: st.DrawFn, value: Any) -> bytes:
    """value as a file's bytes: formatted some way, sometimes truncated or corrupted."""
    text = dump(value, draw(st.sampled_from([2, 4, None, 1])), draw(st.sampled_from(["\n", "\n", "\r\n"])),
                ensure_ascii=draw(st.booleans()))
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate from st.text(): written escaped, as json.dumps would
        data = text.encode("utf-8", "backslashreplace")
    return draw(corrupted(data))


@st.composite
def corrupted(draw: st.DrawFn, data: bytes) -> bytes:
    kind = draw(st.sampled_from(["none"] * 12 + ["truncate", "flip", "bom", "utf16", "invalid", "empty", "garbage"]))
    if kind == "truncate" and data:
        return data[: draw(st.integers(0, len(data) - 1))]
    if kind == "flip" and data:
        at = draw(st.integers(0, len(data) - 1))
        return data[:at] + bytes([data[at] ^ draw(st.integers(1, 255))]) + data[at + 1:]
    if kind == "bom":
        return b"\xef\xbb\xbf" + data
    if kind == "utf16":
        return data.decode("utf-8", "replace").encode("utf-16")
    if kind == "invalid" and data:
        at = draw(st.integers(0, len(data)))
        return data[:at] + draw(st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x00"])) + data[at:]
    if kind == "empty":
        return b""
    if kind == "garbage":
        return draw(st.binary(max_size=64))
    return data


# ----------------------------------------------------------------------------------------------------------------
# The files beside config.json.

GENERATION_KEYS = list(SAMPLER_KEYS) + ["eos_token_id", "bos_token_id", "pad_token_id", "max_new_tokens", "transformers_version"]
plausible_generation = st.fixed_dictionaries({}, optional={
    "do_sample": st.booleans(),
    "temperature": st.sampled_from([0.0, 1e-8, 0.6, 1.0, 1.5, -1.0]),
    "top_k": st.sampled_from([0, 1, 20, 50, 10**6]),
    "top_p": st.sampled_from([0.0, 0.5, 0.95, 1.0, 1.5]),
    "min_p": st.sampled_from([0.0, 0.05, 1.0]),
    "repetition_penalty": st.sampled_from([1.0, 1.1, 0.0]),
    "eos_token_id": st.sampled_from([2, [1, 2], 0, 10**9]),
})


@st.composite
def generation_configs(draw: st.DrawFn) -> bytes:
    settings = draw(plausible_generation)
    for key in draw(st.lists(st.sampled_from(GENERATION_KEYS), max_size=3)):
        settings[key] = draw(json_values)
    return draw(json_bytes(draw(mutated_values(settings, most=2)) if draw(st.booleans()) else settings))


@st.composite
def logits_files(draw: st.DrawFn) -> bytes:
    """`cfglint sampling --logits-json FILE`: a vector of logits (odd numbers among them), or any JSON."""
    numbers = st.one_of(st.floats(-30, 30), st.sampled_from(ODD_NUMBERS + RAW_NUMBERS[:4]), st.integers(-5, 5))
    value = draw(st.one_of(st.lists(numbers, max_size=40), st.lists(st.lists(numbers, min_size=2, max_size=2), max_size=3), json_values))
    return draw(json_bytes(value))


TENSORS = ["model.embed_tokens.weight", "lm_head.weight", "model.norm.weight",
           "model.layers.0.self_attn.q_proj.weight", "model.layers.0.self_attn.k_proj.weight",
           "model.layers.0.self_attn.q_proj.bias", "model.layers.0.mlp.gate_proj.weight",
           "model.layers.1.input_layernorm.weight", "model.layers.0.self_attn.rotary_emb.inv_freq",
           "model.layers.9.mlp.down_proj.weight"]
DTYPES = {"F32": 4, "BF16": 2, "F16": 2, "I64": 8, "U8": 1, "BOOL": 1, "F8_E4M3": 1}


@st.composite
def safetensors_files(draw: st.DrawFn, names: list[str]) -> bytes:
    """A safetensors file: the 8-byte header length, the JSON header, the data; any part of it may be off."""
    header: dict[str, Any] = {"__metadata__": {"format": "pt"}} if draw(st.booleans()) else {}
    offset = 0
    for name in names:
        dtype = draw(st.sampled_from(sorted(DTYPES)))
        shape = draw(st.lists(st.integers(1, 8), max_size=3))
        size = DTYPES[dtype] * _product(shape)
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + size]}
        offset += size
    raw = draw(json_bytes(draw(mutated_values(header, most=3)) if draw(st.booleans()) else header))
    length = draw(st.sampled_from([len(raw)] * 6 + [0, 7, len(raw) + 1, 2**27, 2**64 - 1]))
    data = struct.pack("<Q", length) + raw + b"\0" * offset
    return draw(corrupted(data)) if draw(st.integers(0, 5)) == 0 else data


def _product(shape: list[int]) -> int:
    out = 1
    for n in shape:
        out *= n
    return out


@st.composite
def weights(draw: st.DrawFn) -> Folder:
    kind = draw(st.sampled_from(["single", "sharded", "pickle"]))
    names = draw(st.lists(st.sampled_from(TENSORS), unique=True, max_size=6))
    if kind == "pickle":
        return {"pytorch_model.bin": draw(st.binary(max_size=32))}
    if kind == "single":
        return {"model.safetensors": draw(safetensors_files(names))}
    shards = [f"model-0000{i}-of-00002.safetensors" for i in (1, 2)]
    halves = {shards[0]: names[::2], shards[1]: names[1::2]}
    index = {"metadata": {"total_size": 0}, "weight_map": {n: s for s, ns in halves.items() for n in ns}}
    out = {s: draw(safetensors_files(ns)) for s, ns in halves.items() if draw(st.integers(0, 4))}  # a shard may be missing
    out["model.safetensors.index.json"] = draw(json_bytes(draw(mutated_values(index, most=2)) if draw(st.booleans()) else index))
    return out


TOKENS = st.sampled_from(["</s>", "<|im_end|>", "<|endoftext|>", "<eos>", "", "\u0000", "<s>"])
token_values = st.one_of(TOKENS, st.builds(lambda c, s: {"content": c, "special": s}, TOKENS, st.booleans()), json_values)
TEMPLATES = ["{{ eos_token }}", "{% for m in messages %}{{ m['content'] }}{{ eos_token }}{% endfor %}", "{{ bos_token }}{{",
             "{{ raise_exception('no system role') }}", "{% for i in range(100) %}{{ i }}{% endfor %}<|im_end|>",
             "{{ ''.__class__.__mro__ }}", "{{ messages[0]['content'] | upper }}<|endoftext|>", "{% set x = 1 %}"]


@st.composite
def tokenizer_files(draw: st.DrawFn) -> Folder:
    """The files stop tokens come from: tokenizer_config.json, special_tokens_map.json, tokenizer.json's added
    tokens and a chat template (in tokenizer_config.json, chat_template.jinja or chat_template.json)."""
    out: Folder = {}
    config: dict[str, Any] = draw(st.fixed_dictionaries({}, optional={"eos_token": token_values, "bos_token": token_values,
                                                                     "pad_token": token_values}))
    if draw(st.integers(0, 3)) == 0:
        config["chat_template"] = draw(st.one_of(st.sampled_from(TEMPLATES), json_values,
                                                 st.lists(st.fixed_dictionaries({"name": st.sampled_from(["default", "tool_use"]),
                                                                                 "template": st.sampled_from(TEMPLATES)}), max_size=2)))
    out["tokenizer_config.json"] = draw(json_bytes(draw(mutated_values(config, most=2))))
    if draw(st.booleans()):
        out["special_tokens_map.json"] = draw(json_bytes(draw(mutated_values({"eos_token": draw(token_values)}, most=1))))
    if draw(st.booleans()):
        added = [{"id": draw(st.sampled_from([0, 1, 2, 128, 10**6])), "content": draw(TOKENS), "special": draw(st.booleans())}
                 for _ in range(draw(st.integers(0, 3)))]
        out["tokenizer.json"] = draw(json_bytes(draw(mutated_values({"version": "1.0", "added_tokens": added, "model": {}}, most=2))))
    if draw(st.integers(0, 5)) == 0:
        out["chat_template.jinja"] = draw(corrupted(draw(st.sampled_from(TEMPLATES)).encode()))
    return out


# Where the ids a turn ends with can be: config.json's eos, generation_config.json's (or no such file), the
# tokenizer's eos, for families whose transformers 5 model reads config.eos_token_id itself (t5) and not.
STOP_EOS = st.sampled_from([2, [2], 3, [2, 3], [3, 2], None, 1, []])
STOP_MODEL_TYPES = st.sampled_from(["llama", "llama", "qwen2", "mistral", "t5"])


@st.composite
def stop_folders(draw: st.DrawFn) -> Folder:
    """A chat model whose template ends turns with <|eot_id|> (3), the ids a runtime stops on spread over the
    files in every way: the folders T001's fix is offered for."""
    config = dict(llama_family()["tf4-default"], model_type=draw(STOP_MODEL_TYPES), vocab_size=128)
    config["eos_token_id"] = draw(STOP_EOS)
    out: Folder = {"config.json": dump(config).encode()}
    if draw(st.booleans()):
        out["generation_config.json"] = dump({"eos_token_id": draw(STOP_EOS)}).encode()
    eos = draw(st.sampled_from(["</s>", "<|eot_id|>", None]))
    tokenizer = {"bos_token": "<s>", "chat_template": "{% for m in messages %}{{ m['content'] }}<|eot_id|>{% endfor %}"}
    out["tokenizer_config.json"] = dump(tokenizer if eos is None else dict(tokenizer, eos_token=eos)).encode()
    added = [{"id": 1, "content": "<s>"}, {"id": 2, "content": "</s>"}, {"id": 3, "content": "<|eot_id|>"}]
    out["tokenizer.json"] = dump({"version": "1.0", "added_tokens": added}).encode()
    return out


SELECTORS = ["ALL", "R", "R001", "S", "D001", "W", "J002", "X999", "r001", "", "C001", "L001"]
CONSUMER_NAMES = ["candle", "mlx-lm", "mistralrs", "llama.cpp", "transformers-4", "nope", ""]
toml_scalars = st.one_of(st.sampled_from(SELECTORS + CONSUMER_NAMES + ["error", "warning", "info", "*", "**/config.json",
                                                                       "/rope_parameters", "reason"]),
                         st.booleans(), st.integers(-5, 5), st.text(max_size=8))
toml_values = st.recursive(toml_scalars, lambda children: st.lists(children, max_size=3), max_leaves=5)


@st.composite
def settings_files(draw: st.DrawFn) -> Folder:
    """`[tool.cfglint]` in pyproject.toml or the same keys in .cfglint.toml: plausible values, then any."""
    table: dict[str, Any] = draw(st.fixed_dictionaries({}, optional={
        "consumers": st.lists(st.sampled_from(CONSUMER_NAMES), max_size=3),
        "select": st.lists(st.sampled_from(SELECTORS), max_size=3),
        "extend-select": st.lists(st.sampled_from(SELECTORS), max_size=2),
        "ignore": st.lists(st.sampled_from(SELECTORS), max_size=3),
        "plugins": st.sampled_from([False, True, [], ["x"]]),
    }))
    for key in draw(st.lists(st.sampled_from(list(SETTINGS_KEYS) + ["unknown", "Select"]), max_size=2)):
        table[key] = draw(toml_values)
    lines = [f"{_toml_key(k)} = {_toml(v)}" for k, v in table.items()]
    if draw(st.integers(0, 9)) == 0:
        depth = draw(st.sampled_from([10, 5000]))
        lines.append(f"{draw(st.sampled_from(['select', 'nested']))} = " + draw(st.sampled_from(["[" * depth + "]" * depth, "{a = " * depth + "}" * depth])))
    severity = draw(st.dictionaries(st.sampled_from(SELECTORS), toml_scalars, max_size=3))
    if severity:
        lines += ["", "[tool.cfglint.severity]" if draw(st.booleans()) else "[severity]"]
        lines += [f"{_toml_key(k)} = {_toml(v)}" for k, v in severity.items()]
    for _ in range(draw(st.integers(0, 2))):
        entry: dict[str, Any] = draw(st.fixed_dictionaries({}, optional={
            "path": st.sampled_from(["*", "config.json", "**", "m*/config.json", "[", "/abs", ""]),
            "pointer": st.sampled_from(["/rope_parameters", "", "rope", "/~2"]),
            "codes": st.lists(st.sampled_from(SELECTORS), max_size=2),
            "reason": st.sampled_from(["served by transformers 5 only", ""]),
        }))
        for key in draw(st.lists(st.sampled_from(["path", "pointer", "codes", "reason", "other"]), max_size=1)):
            entry[key] = draw(toml_values)
        lines += ["", "[[tool.cfglint.suppress]]"] + [f"{_toml_key(k)} = {_toml(v)}" for k, v in entry.items()]
    body = "\n".join(lines) + "\n"
    if draw(st.booleans()):
        name, text = "pyproject.toml", "[tool.cfglint]\n" + body.replace("[severity]", "[tool.cfglint.severity]")
    else:
        name, text = ".cfglint.toml", body.replace("[tool.cfglint.", "[").replace("[[tool.cfglint.suppress]]", "[[suppress]]")
    return {name: draw(corrupted(text.encode("utf-8", "backslashreplace")))}


def _toml_key(key: str) -> str:
    return key if key and all(c.isalnum() or c in "-_" for c in key) and key.isascii() else json.dumps(key)


def _toml(value: Any) -> str:
    """TOML for strings, booleans, integers and arrays of them (a JSON string is a TOML basic string)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, int):
        return str(value)
    return json.dumps(value)


@st.composite
def baselines(draw: st.DrawFn) -> bytes:
    entry = st.fixed_dictionaries({"path": st.sampled_from(["config.json", "../x/config.json", ""]),
                                   "code": st.sampled_from(["R001", "D001", "J001", "X"]),
                                   "pointer": st.sampled_from(["/rope_theta", "", "/dtype"]),
                                   "count": st.sampled_from([1, 2, 0])})
    value = {"cfglint-baseline": 1, "findings": draw(st.lists(entry, max_size=3))}
    return draw(json_bytes(draw(mutated_values(value, most=3)) if draw(st.booleans()) else value))


# ----------------------------------------------------------------------------------------------------------------
# A whole folder.


@st.composite
def configs(draw: st.DrawFn, most: int = 5) -> bytes:
    start = draw(st.sampled_from(STARTS))
    return draw(json_bytes(draw(mutated_values(start, most=most))))


@st.composite
def folders(draw: st.DrawFn, most: int = 5) -> Folder:
    folder: Folder = {"config.json": draw(configs(most))}
    if draw(st.integers(0, 2)) == 0:
        folder["generation_config.json"] = draw(generation_configs())
    if draw(st.integers(0, 3)) == 0:
        folder.update(draw(weights()))
    if draw(st.integers(0, 4)) == 0:
        folder.update(draw(settings_files()))
    if draw(st.integers(0, 4)) == 0:
        folder["baseline.json"] = draw(baselines())
    return folder


def write(folder: Folder, directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    for name, data in folder.items():
        (directory / name).write_bytes(data)
    return directory


def to_json(folder: Folder) -> dict:
    """A regression case's file: each file as text when it is UTF-8, else base64."""
    out = {}
    for name, data in sorted(folder.items()):
        try:
            out[name] = {"text": data.decode("utf-8")}
        except UnicodeDecodeError:
            out[name] = {"base64": base64.b64encode(data).decode("ascii")}
    return out


def from_json(saved: dict) -> Folder:
    return {name: f["text"].encode("utf-8") if "text" in f else base64.b64decode(f["base64"]) for name, f in saved.items()}
