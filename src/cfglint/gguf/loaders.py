"""Where another runtime's GGUF loader runs a header differently from llama.cpp, as differences.

The loaders' reads are data (cfglint.knowledge.gguf_loaders: candle 0.11's quantized_* modules and
mistral.rs's GGUF loaders, each with its source); this turns what a loader reads otherwise into differences,
in one pass over the loaders of the file's architecture. A value the loader derives where the file states
another, and on which it then fails (the loader's `fails`: the head size of candle's quantized_llama,
quantized_qwen2 and quantized_phi3), is its own topic (`<runtime>-<quantity>`, G013's candle-head-dim);
the rest is loader-differs (G014). Left out: the context RoPE tables are sized for (candle's
quantized_llama: 4096), a limit on prompt length rather than a value read differently.
"""

from __future__ import annotations

from typing import Any, Iterator

from cfglint.gguf.compare import Difference, shown
from cfglint.gguf.header import GgufArray, GgufHeader
from cfglint.knowledge.gguf_loaders import (LLAMA_CPP_READS, FirstOf, GgufLoader, Key, Missing, Quotient, disagreement,
                                            llama_cpp_values, loaders_for, refusal)

RUNTIME_NAMES = {"candle": "candle", "mistralrs": "mistral.rs"}
NOT_REPORTED = {("candle", "context_length")}
NOUNS = {"head_dim": "head size"}


def differences(header: GgufHeader) -> Iterator[Difference]:
    arch = header.architecture
    if arch is None:
        return
    metadata = {k: v for k, v in header.metadata.items() if not isinstance(v, GgufArray)}
    tensors = set(header.tensors)
    ours = llama_cpp_values(metadata, tensors, arch)
    for loader in loaders_for(arch):
        module = loader.source.path.rsplit("/", 1)[-1]
        who = f"{RUNTIME_NAMES.get(loader.runtime, loader.runtime)} ({module} at {loader.source.ref[:12]})"
        refused = refusal(loader, metadata)
        if refused:
            yield Difference("loader-differs", f"{who} refuses the file: it {refused}; llama.cpp loads it", "general.name",
                             runtime=loader.runtime)
            continue
        differing = disagreement(loader, metadata, tensors, ours)
        for quantity in sorted(loader.fails.keys() & differing.keys()):
            yield from _failure(loader, quantity, *differing[quantity], metadata, arch)
        found = {q: v for q, v in differing.items() if q not in loader.fails and (loader.runtime, q) not in NOT_REPORTED}
        missing = [(q, theirs.key) for q, (theirs, _) in found.items() if isinstance(theirs, Missing)]
        if missing:
            keys = ", ".join(sorted({key for _, key in missing}))
            yield Difference("loader-differs", f"{who} refuses the file: it requires {keys}, which llama.cpp does without", missing[0][1],
                             runtime=loader.runtime)
            continue
        for quantity, (theirs, ours_value) in sorted(found.items()):
            yield Difference("loader-differs", f"{who} runs {quantity.replace('_', ' ')} {shown(theirs)} where llama.cpp runs {shown(ours_value)}",
                             f"{arch}.{quantity}", "", "run the file with llama.cpp, or with a version of that loader that reads the key",
                             error=False, runtime=loader.runtime)


def _failure(loader: GgufLoader, quantity: str, theirs: Any, stated: Any, metadata: dict, arch: str) -> Iterator[Difference]:
    """The loader derives `theirs` where the file states `stated` (llama.cpp's value, read from its key)."""
    read, key = loader.reads[quantity], _stated_key(quantity, metadata, arch)
    if key is None or not isinstance(read, Quotient) or not _positive(stated):
        return
    numerator, denominator = f"{arch}.{read.numerator}", f"{arch}.{read.denominator}"
    n, d = metadata.get(numerator), metadata.get(denominator)
    if not (_positive(n) and _positive(d)):
        return
    name, module = RUNTIME_NAMES.get(loader.runtime, loader.runtime), loader.source.path.rsplit("/", 1)[-1].removesuffix(".rs")
    noun = NOUNS.get(quantity, quantity.replace("_", " "))
    yield Difference(f"{loader.runtime}-{quantity.replace('_', '-')}",
                     f"{name}'s {module} ignores {key} {stated} and derives the {noun} as {numerator} / {denominator} = {n} / {d} = {theirs}: {loader.fails[quantity]}; llama.cpp runs {stated}",
                     key, "", f"no GGUF edit helps: run the file with llama.cpp, or with a {name} loader that reads {key}",
                     runtime=loader.runtime)


def _stated_key(quantity: str, metadata: dict, arch: str) -> str | None:
    """The key llama.cpp takes the quantity from, when the file has it (None: llama.cpp derives it too)."""
    read = LLAMA_CPP_READS[quantity]
    options = read.options if isinstance(read, FirstOf) else (read,)
    return next((f"{arch}.{o.name}" for o in options if isinstance(o, Key) and f"{arch}.{o.name}" in metadata), None)


def _positive(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0
