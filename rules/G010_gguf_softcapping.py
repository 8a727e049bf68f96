"""llama.cpp soft-caps a GGUF's logits otherwise than its source config means, or the file relies on its defaults.

## What it does
Compares `{arch}.attn_logit_softcapping` and `{arch}.final_logit_softcapping` (what llama.cpp runs: gemma2 defaults 50 and 30 when absent, gemma3 no attention cap and final cap 0, off) with the config's `attn_logit_softcapping` and `final_logit_softcapping`. Without a config, a warning when gemma2's keys are absent.

## Why it matters
Gemma 2 GGUFs from before ggml-org/llama.cpp#8197 had no soft-capping keys and ran uncapped: wrong output, worst at long context. Current llama.cpp fills the defaults, older builds and other readers do not.

## Example
A Gemma 2 GGUF with `gemma2.final_logit_softcapping` 30 for a config with `final_logit_softcapping: null`.

## Fix safety
No automatic fix: reconvert, or `gguf_set_metadata` with the key and value in the finding.
"""

from cfglint.gguf import checker
from cfglint.rule import GGUF

CODE = "G010"
NAME = "gguf-softcapping"
SEVERITY = "error"
TARGETS = (GGUF,)


check = checker("softcapping")
