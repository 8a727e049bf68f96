"""A GGUF normalises with another epsilon than its source config, or lacks the key llama.cpp requires.

## What it does
Compares `{arch}.attention.layer_norm_rms_epsilon` with the config's `rms_norm_eps` (to float32 precision); an absent key is an error, since llama.cpp reads it as required and refuses the file.

## Why it matters
A different epsilon changes every normalised activation slightly; the logits drift, most for small models.

## Example
`llama.attention.layer_norm_rms_epsilon` 1e-6 for a config with `rms_norm_eps: 1e-5`.

## Fix safety
No automatic fix: reconvert, or `gguf_set_metadata` with the key and value in the finding.
"""

from cfglint.gguf import checker
from cfglint.rule import GGUF

CODE = "G007"
NAME = "gguf-norm-eps"
SEVERITY = "warning"
TARGETS = (GGUF,)


check = checker("norm-eps")
