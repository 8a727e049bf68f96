"""llama.cpp ties (or unties) a GGUF's output layer otherwise than its source config means.

## What it does
llama.cpp reuses the token embedding as the output layer when `output.weight` is absent (most architectures; Gemma and Gemma 2 always), and refuses architectures that require it (qwen2moe, olmo2). Compares that with the config's `tie_word_embeddings`.

## Why it matters
An untied model converted without its `lm_head` runs with the embedding as output projection: fluent-looking, wrong text.

## Example
A GGUF without `output.weight` for a config with `tie_word_embeddings: false`.

## Fix safety
No automatic fix: reconvert.
"""

from cfglint.gguf import checker
from cfglint.rule import GGUF

CODE = "G008"
NAME = "gguf-tied-output"
SEVERITY = "error"
TARGETS = (GGUF,)


check = checker("tied-output")
