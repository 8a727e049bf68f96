"""transformers 4's `LlamaConfig`, as a pydantic schema (see cfglint.consumers.transformers4 for its source)."""

from __future__ import annotations

from typing import Any, Optional

from pydantic import BaseModel, ConfigDict


class LlamaConfig(BaseModel):
    """The keyword arguments of 4.x `LlamaConfig.__init__` and their defaults; any type is accepted."""

    model_config = ConfigDict(extra="allow", defer_build=True)  # a schema only (`cfglint schema`): the reader is plain Python
    vocab_size: Any = 32000
    hidden_size: Any = 4096
    intermediate_size: Any = 11008
    num_hidden_layers: Any = 32
    num_attention_heads: Any = 32
    num_key_value_heads: Any = None
    hidden_act: Any = "silu"
    max_position_embeddings: Any = 2048
    rms_norm_eps: Any = 1e-6
    bos_token_id: Any = 1
    eos_token_id: Any = 2
    tie_word_embeddings: Any = False
    rope_theta: Any = 10000.0
    rope_scaling: Optional[Any] = None
    attention_bias: Any = False
    mlp_bias: Any = False
    head_dim: Any = None
