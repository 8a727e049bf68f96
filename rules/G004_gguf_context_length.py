"""A GGUF's context length differs from its source config's, or lies below its own original context.

## What it does
Compares `{arch}.context_length` with the config's `max_position_embeddings`; without a config, reports a context length below `{arch}.rope.scaling.original_context_length`.

## Why it matters
llama.cpp, Ollama and LM Studio size their default context window, and YaRN its range, from this key: a wrong value silently truncates long inputs or runs past what the model was trained on (early Llama 3.1 and CodeLlama GGUFs, ggml-org/llama.cpp#8330).

## Example
`llama.context_length` 4096 for a config whose `max_position_embeddings` is 131072.

## Fix safety
No automatic fix: reconvert, or `gguf_set_metadata` with the key and value in the finding.
"""

from cfglint.gguf import checker
from cfglint.rule import GGUF

CODE = "G004"
NAME = "gguf-context-length"
SEVERITY = "warning"
TARGETS = (GGUF,)


check = checker("context-length")
