"""llama.cpp runs a GGUF with another sliding window than its source config means.

## What it does
For the architectures whose llama.cpp graph reads `{arch}.attention.sliding_window` (gemma2, default 4096; gemma3 and olmo2, none when absent), compares the window it runs with the config's `sliding_window`.

## Why it matters
Past the window, attention sees other tokens than the model was trained to: long-context output changes.

## Example
A Gemma 2 GGUF with `gemma2.attention.sliding_window` 8192 for a config with `sliding_window: 4096`.

## Fix safety
No automatic fix: reconvert, or `gguf_set_metadata` with the key and value in the finding.
"""

from cfglint.gguf.findings import checker

CODE = "G009"
NAME = "gguf-sliding-window"
SEVERITY = "error"


check = checker("sliding-window")
