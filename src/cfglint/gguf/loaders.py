"""Where another runtime's GGUF loader runs a header differently from llama.cpp, as differences.

The loaders' reads are data (cfglint.knowledge.gguf_loaders: candle 0.11's quantized_* modules and
mistral.rs's GGUF loaders, each with its source); this turns what `disagreements` finds into one
difference per runtime. Left out: the head size of candle's quantized_llama and quantized_qwen2, which G013
reports with its own fix, and the context RoPE tables are sized for (candle's quantized_llama: 4096), a limit
on prompt length rather than a value read differently.
"""

from __future__ import annotations

from typing import Iterator

from cfglint.gguf.compare import Difference, shown
from cfglint.gguf.header import GgufArray, GgufHeader
from cfglint.knowledge.gguf_loaders import LOADERS, Missing, disagreements, refusal

RUNTIME_NAMES = {"candle": "candle", "mistralrs": "mistral.rs"}
NOT_REPORTED = {("candle", "head_dim"), ("candle", "context_length")}


def differences(header: GgufHeader) -> Iterator[Difference]:
    arch = header.architecture
    if arch is None:
        return
    metadata = {k: v for k, v in header.metadata.items() if not isinstance(v, GgufArray)}
    tensors = set(header.tensors)
    differing = disagreements(metadata, tensors, arch)
    for (runtime, loader_arch), loader in sorted(LOADERS.items()):
        if loader_arch != arch:
            continue
        module = loader.source.path.rsplit("/", 1)[-1]
        who = f"{RUNTIME_NAMES.get(runtime, runtime)} ({module} at {loader.source.ref[:12]})"
        refused = refusal(loader, metadata)
        if refused:
            yield Difference("loader-differs", f"{who} refuses the file: it {refused}; llama.cpp loads it", "general.name")
            continue
        found = {q: v for q, v in differing.get(runtime, {}).items() if (runtime, q) not in NOT_REPORTED}
        missing = [(q, theirs.key) for q, (theirs, _) in found.items() if isinstance(theirs, Missing)]
        if missing:
            keys = ", ".join(sorted({key for _, key in missing}))
            yield Difference("loader-differs", f"{who} refuses the file: it requires {keys}, which llama.cpp does without", missing[0][1])
            continue
        for quantity, (theirs, ours) in sorted(found.items()):
            yield Difference("loader-differs", f"{who} runs {quantity.replace('_', ' ')} {shown(theirs)} where llama.cpp runs {shown(ours)}",
                             f"{arch}.{quantity}", "", "run the file with llama.cpp, or with a version of that loader that reads the key",
                             error=False)
