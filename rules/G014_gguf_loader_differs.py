"""candle's or mistral.rs's GGUF loader runs the file differently from llama.cpp, or refuses it.

## What it does
Reads the header as candle 0.11's `quantized_llama`, `quantized_qwen2`, `quantized_qwen3`, `quantized_phi3` and `quantized_gemma3` and mistral.rs's GGUF loaders (llama, qwen2, qwen3, phi3, gemma2) do, from what their source reads, defaults and hard-codes (`cfglint.knowledge.gguf_loaders`, each entry with its source), and compares each value with llama.cpp's for the same header: RoPE base, rotated dimensions, norm epsilon, KV heads, tied output. A loader that requires a key llama.cpp does without, or refuses the file by its name, is an error; a value it runs differently is a warning. Needs no source config. A head size a loader derives and then fails on (candle's llama, qwen2 and phi3 loaders) is G013's.

## Why it matters
The same GGUF is run by several runtimes that each read the metadata their own way: candle's `quantized_phi3` never reads `phi3.rope.freq_base` (it runs 10000), mistral.rs refuses a qwen2 or qwen3 file without `rope.freq_base` where llama.cpp defaults it, and refuses a llama file named "Mistral..." because the file does not say whether sliding-window attention is needed.

## Example
A Phi-3 GGUF with `phi3.rope.freq_base` 1000000: candle's `quantized_phi3` runs RoPE base 10000.

## Fix safety
No fix: the file is what llama.cpp needs; run it with llama.cpp, or give mistral.rs the original model (`--tok-model-id`) for the name refusal.
"""

from cfglint.gguf import checker
from cfglint.rule import GGUF

CODE = "G014"
NAME = "gguf-loader-differs"
SEVERITY = "error"
TARGETS = (GGUF,)


check = checker("loader-differs")
