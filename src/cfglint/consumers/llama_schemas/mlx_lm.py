"""mlx-lm 0.32's Llama `ModelArgs`, as a pydantic schema (see cfglint.consumers.mlx_lm for its source)."""

from __future__ import annotations

from typing import Any, Optional

from pydantic import BaseModel, ConfigDict


class ModelArgs(BaseModel):
    """`ModelArgs` fields in declaration order; the dataclass accepts any type."""

    model_config = ConfigDict(extra="ignore", defer_build=True)  # a schema only (`cfglint schema`): the reader is plain Python
    model_type: Any
    hidden_size: Any
    num_hidden_layers: Any
    intermediate_size: Any
    num_attention_heads: Any
    rms_norm_eps: Any
    vocab_size: Any
    head_dim: Optional[Any] = None
    max_position_embeddings: Optional[Any] = None
    num_key_value_heads: Optional[Any] = None
    attention_bias: Any = False
    mlp_bias: Any = False
    rope_theta: Any = 10000
    rope_traditional: Any = False
    rope_scaling: Optional[dict] = None
    tie_word_embeddings: Any = True
    layer_types: Optional[Any] = None
    sliding_window: Optional[Any] = None
