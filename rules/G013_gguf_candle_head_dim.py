"""candle's quantized GGUF loaders derive another head size than the file states.

## What it does
For `llama`, `qwen2` and `phi3` GGUFs, compares `{arch}.attention.key_length` with `embedding_length /
head_count`, the head size candle's `quantized_llama`, `quantized_qwen2` and `quantized_phi3` loaders use
for every layer (they never read the key length: huggingface/candle#3917). Which loaders do this, and how
each then fails, is the loader data's (`cfglint.knowledge.gguf_loaders`, `fails`). Needs no source config.

## Why it matters
Models whose heads are not hidden/heads wide (Qwen 3-style and Mistral Nemo-style configs with an explicit
`head_dim`, converted as llama or qwen2) load in llama.cpp, which reads the key, and fail in candle on the
first forward pass, when the query projection cannot be reshaped into heads of the derived size (phi3: when
the fused QKV output is split, or the output projection applied, at the derived size).

## Example
A GGUF with `llama.embedding_length` 5120, `llama.attention.head_count` 32 and
`llama.attention.key_length` 128: candle derives 160.

## Fix safety
No fix: the file is right; run it with llama.cpp or a candle loader that reads the key length.
"""

from cfglint.gguf import checker
from cfglint.rule import GGUF

CODE = "G013"
NAME = "gguf-candle-head-dim"
SEVERITY = "error"
TARGETS = (GGUF,)


check = checker("candle-head-dim")
