"""llama.cpp runs a GGUF with another sliding window than its source config means.

## What it does
Compares the window llama.cpp runs with the config's `sliding_window` (as transformers 5 applies it). The architectures whose graph reads `{arch}.attention.sliding_window` use it (gemma2, default 4096; gemma3 and olmo2, none when absent); every other one (llama, which Mistral and Mixtral convert to, qwen2, ...) attends to the whole context whatever the file says.

## Why it matters
Past the window, attention sees other tokens than the model was trained to: long-context output changes.

## Example
A Gemma 2 GGUF with `gemma2.attention.sliding_window` 8192 for a config with `sliding_window: 4096`.

## Fix safety
No automatic fix: reconvert, or `gguf_set_metadata` with the key and value in the finding.
"""

from cfglint.gguf import checker
from cfglint.rule import GGUF

CODE = "G009"
NAME = "gguf-sliding-window"
SEVERITY = "error"
TARGETS = (GGUF,)


check = checker("sliding-window")
