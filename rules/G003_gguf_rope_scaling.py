"""llama.cpp runs a GGUF with other RoPE scaling than its source config means.

## What it does
Compares the scaling llama.cpp runs (`{arch}.rope.scaling.type` and `.factor`, no scaling when the factor is absent or 0; `.original_context_length`; YaRN's `yarn_beta_fast`/`yarn_beta_slow`; the `rope_freqs.weight` tensor that carries Llama 3's per-dimension factors; Phi-3's `rope_factors_long/short.weight`) with the config's `rope_parameters` (or `rope_scaling`). A YaRN config with `truncate: false` (gpt-oss) is reported too: no GGUF key holds it, and llama.cpp always floors and ceils the correction range.

## Why it matters
Llama 3.1 GGUFs made before ggml-org/llama.cpp#8676 had no `rope_freqs`: llama.cpp ran unscaled RoPE and long prompts fell apart; DeepSeek V4's YaRN was lost again under transformers 5 (#26673). The model loads and is wrong past its original context.

## Example
A Llama 3.1 config with `rope_type: llama3, factor: 8` and a GGUF without `rope_freqs.weight`.

## Fix safety
No automatic fix: reconvert with a current converter.
"""

from cfglint.gguf import checker
from cfglint.rule import GGUF

CODE = "G003"
NAME = "gguf-rope-scaling"
SEVERITY = "error"
TARGETS = (GGUF,)


check = checker("rope-scaling")
