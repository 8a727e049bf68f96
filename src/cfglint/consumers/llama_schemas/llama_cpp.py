"""The llama.cpp converter's Llama hparams, as a pydantic schema (see cfglint.consumers.llama_cpp for its source)."""

from __future__ import annotations

from typing import Any, Optional

from pydantic import BaseModel, ConfigDict


class Hparams(BaseModel):
    """The hparams the converter reads for a Llama model."""

    model_config = ConfigDict(extra="allow", defer_build=True)  # a schema only (`cfglint schema`): the reader is plain Python
    rope_parameters: Optional[dict] = None
    rope_scaling: Optional[dict] = None
    rope_theta: Optional[Any] = None
    original_max_position_embeddings: Optional[int] = None
    head_dim: Optional[int] = None
    num_key_value_heads: Optional[int] = None
    max_position_embeddings: Optional[int] = None
    rms_norm_eps: Optional[float] = None
