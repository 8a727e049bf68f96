"""mistral.rs 0.9's Llama struct as a pydantic schema, built from the fields cfglint.consumers.mistralrs declares
(its source is in that module's docstring): what `cfglint schema mistralrs` exports and what words serde's refusals
where the plain-Python path leaves them to it."""

from __future__ import annotations

from cfglint.consumers.mistralrs import LLAMA, LLAMA3_ROPE
from cfglint.readers.serde_model import model_of

Llama3RopeConfig = model_of(LLAMA3_ROPE)
LlamaConfig = model_of(LLAMA)
