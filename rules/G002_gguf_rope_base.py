"""llama.cpp runs a GGUF with another RoPE base than its source config means.

## What it does
Compares `{arch}.rope.freq_base` (llama.cpp's default 10000 when absent, `llama_model_base::load_hparams`) with the config's RoPE base as transformers 5 reads it (`rope_parameters.rope_theta`, else `rope_theta`); for Gemma 2 and 3 also the sliding layers' base `{arch}.rope.freq_base_swa` against `rope_local_base_freq`. Without a config: a base that is zero, negative or not finite (an error), or absent (a warning: the default may not be what the model was trained with).

## Why it matters
Converters lost the base several times: llama.cpp's converter read `rope_parameters` only from ggml-org/llama.cpp#18013, so GGUFs made from transformers-5 configs before it carry the default 10000; Ollama's Qwen2 converter writes 0 when `rope_theta` is absent; early CodeLlama GGUFs lacked theta 1e6 (#2768). Positions rotate at the wrong frequency: output degrades after a few thousand tokens.

## Example
A SmolLM2 GGUF without `llama.rope.freq_base`, beside a config with `rope_parameters.rope_theta: 100000`: llama.cpp runs 10000.

## Fix safety
No automatic fix (a GGUF is never rewritten): reconvert with a converter that reads `rope_parameters`, or set the key with the gguf package's `gguf_set_metadata` (the finding gives the key and value).
"""

from cfglint.gguf import checker
from cfglint.rule import GGUF

CODE = "G002"
NAME = "gguf-rope-base"
SEVERITY = "error"
TARGETS = (GGUF,)


check = checker("rope-base")
