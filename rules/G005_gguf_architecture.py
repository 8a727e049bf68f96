"""A GGUF's architecture is not the one its source config converts to.

## What it does
Compares `general.architecture` with the architecture llama.cpp's converter writes for the config's family (Mistral and Mixtral convert as `llama`, Gemma 3's text model as `gemma3`).

## Why it matters
llama.cpp picks the whole model graph from this string: another architecture means other norms, activations, RoPE layout or attention; the file is not the model the config describes (or was compared with the wrong config).

## Example
A `qwen2` GGUF compared with a Llama config.

## Fix safety
No fix: compare with the right config (`--against`), or reconvert.
"""

from cfglint.gguf import checker
from cfglint.rule import GGUF

CODE = "G005"
NAME = "gguf-architecture"
SEVERITY = "error"
TARGETS = (GGUF,)


check = checker("architecture")
