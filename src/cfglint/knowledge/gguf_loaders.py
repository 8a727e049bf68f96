"""How GGUF loaders other than llama.cpp turn a GGUF header into the values they run with, as data.

A GGUF carries the model's hyper-parameters as metadata keys (`<arch>.rope.freq_base`, ...), but each
runtime that loads GGUF files reads them its own way: which key, the default when it is absent, or a
value derived from other keys or hard-coded. For each (runtime, GGUF architecture) that has a loader:

    loader = LOADERS["candle", "qwen2"]
    loader.reads["head_dim"]          # Quotient("embedding_length", "attention.head_count")
    run_values(loader, metadata, tensor_names)  # {"head_dim": 128, ...} or Missing(...) per quantity

`disagreements(metadata, tensor_names, architecture)` lists, per runtime, the quantities it runs with a
value other than llama.cpp's for the same header: e.g. candle's quantized_qwen2 takes head_dim as
embedding_length / head_count, so a header whose `attention.key_length` says otherwise (Qwen3-style
128 with hidden 2048 and 32 heads would be 64) is run with the wrong head size (huggingface/candle#3917).

Quantities (names shared with the llama.cpp prediction): rope_theta, head_dim (of the attention),
rope_dimensions (rotated per head), context_length (what RoPE tables are sized for), rms_norm_eps,
num_key_value_heads, tied_output (no `output.weight`: the output is the token embeddings).
Keys are written without the `<arch>.` prefix the loaders add.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Union

from cfglint.knowledge.entry import Source


@dataclass(frozen=True)
class Key:
    """The value of `<arch>.<name>`; `default` when absent, or the load fails when `required`."""

    name: str
    default: Any = None
    required: bool = False


@dataclass(frozen=True)
class Quotient:
    """`<arch>.<numerator>` // `<arch>.<denominator>` (both required)."""

    numerator: str
    denominator: str


@dataclass(frozen=True)
class Fixed:
    """A value in the loader's code, whatever the header says."""

    value: Any


@dataclass(frozen=True)
class FirstOf:
    """The first of these that the header provides."""

    options: tuple[Union[Key, Quotient, "Same"], ...]


@dataclass(frozen=True)
class Same:
    """The value this loader uses for another quantity."""

    quantity: str


@dataclass(frozen=True)
class NoTensor:
    """True when the file has no tensor of this name."""

    tensor: str


Read = Union[Key, Quotient, Fixed, FirstOf, Same, NoTensor]


@dataclass(frozen=True)
class NamedAs:
    """The loader refuses a file whose name (the first of these keys present) starts with this word."""

    word: str
    keys: tuple[str, ...] = ("general.basename", "general.name")
    reason: str = ""


@dataclass(frozen=True)
class GgufLoader:
    runtime: str
    architecture: str  # general.architecture it loads
    source: Source
    reads: Mapping[str, Read] = field(default_factory=dict)
    refuses: tuple[NamedAs, ...] = ()
    # quantity -> how the loader fails, and where that is known from, when its value is not the one the header
    # states: it loads the file, then fails on the first forward pass
    fails: Mapping[str, str] = field(default_factory=dict)

    @property
    def key(self) -> tuple[str, str]:
        return self.runtime, self.architecture


_CANDLE = "huggingface/candle"
_CANDLE_TAG = "0.11.0"
_CANDLE_MODELS = "candle-transformers/src/models"
_TIED = NoTensor("output.weight")


# What every candle quantized_* loader reads alike (md_get(...)? : required; output.weight or the embeddings).
_CANDLE_COMMON: dict[str, Read] = {
    "context_length": Key("context_length", required=True),
    "rms_norm_eps": Key("attention.layer_norm_rms_epsilon", required=True),
    "num_key_value_heads": Key("attention.head_count_kv", required=True),
    "tied_output": _TIED,
}


def _candle(architecture: str, module: str, fails: Mapping[str, str] | None = None, **reads: Read | None) -> GgufLoader:
    """A candle loader: the common reads, with `reads` replacing them (None: the loader does not read it)."""
    source = Source(_CANDLE, f"{_CANDLE_MODELS}/{module}.rs", _CANDLE_TAG)
    merged = {**_CANDLE_COMMON, **reads}
    return GgufLoader("candle", architecture, source, {k: v for k, v in merged.items() if v is not None}, fails=fails or {})


# The query projection's output (heads x the file's key length) cannot be reshaped into heads of the derived size.
_CANDLE_RESHAPE_FAILS = {"head_dim": "its attention reshape fails on the first token (huggingface/candle#3917)"}


_MISTRALRS = "EricLBuehler/mistral.rs"
# The newest public source (HEAD after v0.9.2); the mistralrs 0.9.5 wheel on PyPI ships no Rust source.
_MISTRALRS_REF = "9e922623f24b32d41f3892b74f0eed18707f4e6c"
_MISTRALRS_PATH = "mistralrs-core/src/gguf/normal_config.rs"


# normal_registry.rs llama_mistral_identity_hint: a `llama` file named "Mistral..." (basename, else name;
# its first alphanumeric word) is refused unless the original Hugging Face model is given (--tok-model-id).
_MISTRAL_NAMED = NamedAs("mistral", reason="appears to be a Mistral model, but the file does not encode whether sliding-window attention is required")


def _mistralrs(architecture: str, *, rope_theta_default: float | None, refuses: tuple[NamedAs, ...] = ()) -> GgufLoader:
    # StandardFields::read_with_intermediate_size; rope_theta(): the architecture's default, or a refusal.
    rope = Key("rope.freq_base", rope_theta_default, required=rope_theta_default is None)
    return GgufLoader(
        "mistralrs", architecture, Source(_MISTRALRS, _MISTRALRS_PATH, _MISTRALRS_REF),
        {
            "rope_theta": rope,
            "head_dim": FirstOf((Key("attention.key_length"), Quotient("embedding_length", "attention.head_count"))),
            "context_length": Key("context_length", required=True),
            "rms_norm_eps": FirstOf((Key("attention.layer_norm_rms_epsilon"), Key("attention.layer_norm_epsilon", required=True))),
            "num_key_value_heads": Key("attention.head_count_kv", required=True),
            "tied_output": _TIED,
        },
        refuses,
    )  # fmt: skip


LOADERS: dict[tuple[str, str], GgufLoader] = {
    loader.key: loader
    for loader in (
        # quantized_llama.rs ModelWeights::from_gguf: attention heads of embedding_length / head_count
        # (LayerWeights.head_dim), RoPE over rope.dimension_count, tables for MAX_SEQ_LEN = 4096 positions.
        _candle(
            "llama", "quantized_llama", _CANDLE_RESHAPE_FAILS,
            rope_theta=Key("rope.freq_base", 10000.0),
            head_dim=Quotient("embedding_length", "attention.head_count"),
            rope_dimensions=Key("rope.dimension_count", required=True),
            context_length=Fixed(4096),
        ),
        # quantized_qwen2.rs: head_dim = embedding_length / head_count, RoPE over all of it.
        _candle(
            "qwen2", "quantized_qwen2", _CANDLE_RESHAPE_FAILS,
            rope_theta=Key("rope.freq_base", 10000.0),
            head_dim=Quotient("embedding_length", "attention.head_count"),
            rope_dimensions=Same("head_dim"),
        ),
        # quantized_qwen3.rs: head_dim from attention.key_length; freq_base required.
        _candle(
            "qwen3", "quantized_qwen3",
            rope_theta=Key("rope.freq_base", required=True),
            head_dim=Key("attention.key_length", required=True),
            rope_dimensions=Same("head_dim"),
        ),
        # quantized_phi3.rs: RoPE base hard-coded to 10000 (phi3.rope.freq_base is never read);
        # output.weight required (QLinear::new "output"); head_dim = embedding_length / head_count, at which
        # forward_attn narrows the fused attn_qkv output and feeds attn_output (read at commit 14d4d925).
        _candle(
            "phi3", "quantized_phi3",
            {"head_dim": "splitting its fused QKV projection, or its output projection, fails on the first token "
                         "(quantized_phi3.rs forward_attn)"},
            rope_theta=Fixed(10000.0),
            head_dim=Quotient("embedding_length", "attention.head_count"),
            rope_dimensions=Key("rope.dimension_count", required=True),
            tied_output=Fixed(False),
        ),
        # quantized_gemma3.rs: DEFAULT_ROPE_FREQUENCY 1e6 when rope.freq_base is absent; no context_length.
        _candle(
            "gemma3", "quantized_gemma3",
            rope_theta=Key("rope.freq_base", 1_000_000.0),
            head_dim=Key("attention.key_length", required=True),
            rope_dimensions=Same("head_dim"),
            context_length=None,
        ),
        # normal_config.rs NORMAL_CONFIG_BUILDERS: build_llama / build_phi3 / build_gemma2 call
        # StandardFields::read(metadata, Some(DEFAULT_ROPE_THETA = 10000)); build_qwen2 and build_qwen3
        # pass None: without rope.freq_base the file is refused.
        _mistralrs("llama", rope_theta_default=10000.0, refuses=(_MISTRAL_NAMED,)),
        _mistralrs("phi3", rope_theta_default=10000.0),
        _mistralrs("gemma2", rope_theta_default=10000.0),
        _mistralrs("qwen2", rope_theta_default=None),
        _mistralrs("qwen3", rope_theta_default=None),
    )
}


# llama.cpp (llama-cpp-python 0.3.36 sdist, src/llama-model.cpp load_hparams) for the same quantities,
# observed with real llama.cpp on files that drop each key (tests/conformance/test_llama_cpp_real.py).
LLAMA_CPP_READS: Mapping[str, Read] = {
    "rope_theta": Key("rope.freq_base", 10000.0),
    "head_dim": FirstOf((Key("attention.key_length"), Quotient("embedding_length", "attention.head_count"))),
    "rope_dimensions": FirstOf((Key("rope.dimension_count"), Same("head_dim"))),
    "context_length": Key("context_length", required=True),
    "rms_norm_eps": Key("attention.layer_norm_rms_epsilon", required=True),
    "num_key_value_heads": FirstOf((Key("attention.head_count_kv"), Key("attention.head_count", required=True))),
    "tied_output": _TIED,
}


def run_values(
    reads: Mapping[str, Read], metadata: Mapping[str, Any], tensor_names: Collection[str], architecture: str
) -> dict[str, Any]:
    """quantity -> the value a loader runs with for this header, or Missing(key) where it refuses it.

    `metadata` maps full GGUF keys (`qwen2.rope.freq_base`) to their values.
    """
    out: dict[str, Any] = {}
    for quantity, read in reads.items():
        out[quantity] = _evaluate(read, reads, out, metadata, tensor_names, architecture)
    return out


_ABSENT = object()


class Missing(NamedTuple):
    """In place of a value: the loader refuses the file, as this key it requires is absent."""

    key: str


def _evaluate(read: Read, reads, done: dict, metadata, tensor_names, architecture: str) -> Any:
    def key(name: str) -> str:
        return f"{architecture}.{name}"

    if isinstance(read, Fixed):
        return read.value
    if isinstance(read, NoTensor):
        return read.tensor not in tensor_names
    if isinstance(read, Same):
        if read.quantity not in done:
            done[read.quantity] = _evaluate(reads[read.quantity], reads, done, metadata, tensor_names, architecture)
        return done[read.quantity]
    if isinstance(read, Key):
        value = metadata.get(key(read.name), _ABSENT)
        if value is not _ABSENT:
            return value
        return Missing(key(read.name)) if read.required else read.default
    if isinstance(read, Quotient):
        numerator, denominator = metadata.get(key(read.numerator)), metadata.get(key(read.denominator))
        if numerator is None:
            return Missing(key(read.numerator))
        if denominator is None:
            return Missing(key(read.denominator))
        if not isinstance(numerator, int) or not isinstance(denominator, int) or denominator <= 0:
            return Missing(key(read.denominator))
        return numerator // denominator
    for option in read.options:  # FirstOf
        value = _evaluate(option, reads, done, metadata, tensor_names, architecture)
        if value is not None and not isinstance(value, Missing):
            return value
    return value


def refusal(loader: GgufLoader, metadata: Mapping[str, Any]) -> str | None:
    """Why the loader refuses this header whatever its values (a NamedAs that matches), or None."""
    for rule in loader.refuses:
        name = next((metadata[k] for k in rule.keys if isinstance(metadata.get(k), str)), "")
        first = next((word for word in re.split(r"[^A-Za-z0-9]+", name) if word), "")
        if first.lower() == rule.word:
            return rule.reason
    return None


def loaders_for(architecture: str) -> list[GgufLoader]:
    """The loaders of this GGUF architecture, by runtime."""
    return [loader for (_, arch), loader in sorted(LOADERS.items()) if arch == architecture]


def llama_cpp_values(metadata: Mapping[str, Any], tensor_names: Collection[str], architecture: str) -> dict[str, Any]:
    return run_values(LLAMA_CPP_READS, metadata, tensor_names, architecture)


def disagreement(loader: GgufLoader, metadata: Mapping[str, Any], tensor_names: Collection[str],
                 ours: Mapping[str, Any]) -> dict[str, tuple[Any, Any]]:
    """quantity -> (the loader's value, llama.cpp's `ours`) wherever they differ (a Missing value: the loader
    refuses the file where llama.cpp loads it)."""
    theirs = run_values(loader.reads, metadata, tensor_names, loader.architecture)
    return {
        quantity: (value, ours[quantity])
        for quantity, value in theirs.items()
        if quantity in ours and not isinstance(ours[quantity], Missing) and value != ours[quantity]
    }


def disagreements(
    metadata: Mapping[str, Any], tensor_names: Collection[str], architecture: str
) -> dict[str, dict[str, tuple[Any, Any]]]:
    """runtime -> `disagreement` for each loader of this architecture that runs the header differently."""
    ours = llama_cpp_values(metadata, tensor_names, architecture)
    found = {loader.runtime: disagreement(loader, metadata, tensor_names, ours) for loader in loaders_for(architecture)}
    return {runtime: differing for runtime, differing in found.items() if differing}
