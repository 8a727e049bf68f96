"""A GGUF's BOS/EOS tokens differ from its source config's, or lie outside its vocabulary.

## What it does
Compares `tokenizer.ggml.bos_token_id` and `tokenizer.ggml.eos_token_id` (llama.cpp's defaults per tokenizer model when absent, `llama-vocab.cpp`) with the config's `bos_token_id` and `eos_token_id` (an EOS is fine when it or the end-of-turn token is among the config's). Without a config: an id outside the token list, which llama.cpp ignores for its default.

## Why it matters
With the wrong EOS, generation runs on past the answer or stops early; with the wrong BOS every prompt starts differently than in training.

## Example
`tokenizer.ggml.eos_token_id` 2 for a config with `eos_token_id: 128009`.

## Fix safety
No automatic fix: `gguf_set_metadata` (or `gguf_new_metadata --special-token`) with the key and id.
"""

from cfglint.gguf import checker
from cfglint.rule import GGUF

CODE = "G011"
NAME = "gguf-special-tokens"
SEVERITY = "warning"
TARGETS = (GGUF,)


check = checker("special-tokens")
