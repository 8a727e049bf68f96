"""A GGUF's default sampling settings differ from the generation_config.json it was converted with.

## What it does
Compares `general.sampling.temp`, `.top_k`, `.top_p`, `.min_p` and `.penalty_repeat` (which llama.cpp uses as its sampling defaults since ggml-org/llama.cpp#17120) with the settings written in generation_config.json (or config.json, where transformers 5 reads them without that file). The pointer is into the file the settings come from.

## Why it matters
A user of llama.cpp gets other defaults than a user of transformers.

## Example
`general.sampling.temp` 0.8 for a generation_config.json with `temperature: 0.6`.

## Fix safety
No automatic fix: `gguf_set_metadata` with the key and value in the finding.
"""

from cfglint.gguf import checker
from cfglint.rule import GGUF

CODE = "G012"
NAME = "gguf-sampling"
SEVERITY = "warning"
TARGETS = (GGUF,)


check = checker("sampling")
