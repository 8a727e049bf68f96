"""A GGUF's layer count, head counts, head size, vocabulary or expert counts differ from its source config's or from its own tensors, or its token list holds a text twice.

## What it does
Compares `{arch}.block_count`, `.embedding_length`, `.attention.head_count`, `.attention.head_count_kv`, `.attention.key_length`/`.value_length` (llama.cpp derives embedding/heads when absent), the tokenizer's token count, `.expert_count` and `.expert_used_count` with the config. Without a config, checks them against the tensors: `blk.0.attn_q.weight` must have heads x key length outputs, `blk.0.attn_k.weight` KV heads x key length, and `token_embd.weight` one row per token. Always: the token list must hold each text once (llama.cpp's vocabulary loader asserts it and aborts, `llama-vocab.cpp`; an empty text counts as `[EMPTY_<id>]`).

## Why it matters
A head size the file does not state is derived as hidden/heads, which is wrong for Gemma, Qwen 3 and Mistral Nemo-style models (candle's quantized loaders make the same assumption, huggingface/candle#3917); against the tensors, llama.cpp refuses the file with a shape error.

## Example
A GGUF without `llama.attention.key_length` for a config with `head_dim: 128`, `hidden_size: 5120`, `num_attention_heads: 32`: llama.cpp derives 160.

## Fix safety
No automatic fix: reconvert.
"""

from cfglint.gguf import checker
from cfglint.rule import GGUF

CODE = "G006"
NAME = "gguf-dimensions"
SEVERITY = "error"
TARGETS = (GGUF,)


check = checker("dimensions")
