"""transformers 5's `LlamaConfig`, as a pydantic schema (see cfglint.consumers.transformers5 for its source)."""

from __future__ import annotations

from typing import Annotated, Any, Optional, Union

from pydantic import BaseModel, BeforeValidator, ConfigDict, StrictBool, StrictFloat, StrictInt, StrictStr


def _not_an_integer(value: object) -> object:
    if type(value) is int:  # the strict dataclass compares types: 1 is no float (pydantic's strict float takes it)
        raise ValueError("an int is not a float")
    return value


Float = Annotated[StrictFloat, BeforeValidator(_not_an_integer)]

# The strict types the family entries declare (cfglint.consumers.transformers5), as pydantic annotations.
_STRICT_ANNOTATIONS: dict[str, Any] = {
    "int": StrictInt, "float": Float, "number": Union[StrictFloat, StrictInt], "str": StrictStr, "bool": StrictBool,
    "dict": dict, "rope": dict, "list": list[StrictStr], "ids": Optional[Union[StrictInt, list[StrictInt]]],
}


def strict_annotation(type_name: str) -> Any:
    """A family field's annotation ("int?": Optional[StrictInt]); Any for a key the class does not check."""
    annotation = _STRICT_ANNOTATIONS.get(type_name.rstrip("?"), Any)
    return Optional[annotation] if type_name.endswith("?") and annotation is not Any else annotation


class LlamaConfig(BaseModel):
    """The typed fields of the 5.x dataclass (huggingface_hub strict validation)."""

    model_config = ConfigDict(extra="allow", defer_build=True)  # built on the first Llama file, not at start
    vocab_size: StrictInt = 32000
    hidden_size: StrictInt = 4096
    intermediate_size: StrictInt = 11008
    num_hidden_layers: StrictInt = 32
    num_attention_heads: StrictInt = 32
    num_key_value_heads: Optional[StrictInt] = None
    hidden_act: str = "silu"
    max_position_embeddings: StrictInt = 2048
    rms_norm_eps: Float = 1e-6
    bos_token_id: Optional[StrictInt] = 1
    eos_token_id: Optional[Union[StrictInt, list[StrictInt]]] = 2
    tie_word_embeddings: StrictBool = False
    rope_parameters: Optional[dict] = None
    attention_bias: StrictBool = False
    mlp_bias: StrictBool = False
    head_dim: Optional[StrictInt] = None
