"""The reference: transformers 5's own model class for the family (eager attention, float32) on a directory.

Its parameters are the only copy of the weights. transformers 5 loads safetensors memory-mapped, and
checkpoint_tensors() hands out the very tensors the model computes with (state_dict() detaches without
copying), so every reading built from them shares that single mapping. A Llama reading is the
from-scratch LlamaReading; any other family's is a FamilyReading, the family's own modeling code.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch

from .family import FamilyReading, ModelLogits
from .forward import LlamaReading
from .spec import LlamaDims
from .weights import map_checkpoint, stored_tensor_names


def _values_from_config(config: Any) -> dict[str, Any]:
    """The values (contract keys) transformers 5 computes with, taken from its loaded config object."""
    rope_parameters = dict(config.rope_parameters or {})
    rope_theta = rope_parameters.pop("rope_theta", None)
    rope_type = rope_parameters.get("rope_type", "default")
    return {
        "rope_theta": float(rope_theta if rope_theta is not None else config.default_theta),
        "rope_scaling": None if rope_type == "default" else rope_parameters,
        "head_dim": config.head_dim or config.hidden_size // config.num_attention_heads,
        "num_key_value_heads": config.num_key_value_heads,
        "tie_word_embeddings": bool(config.tie_word_embeddings),
        "hidden_act": config.hidden_act,
        "attention_bias": bool(config.attention_bias),
        "mlp_bias": bool(config.mlp_bias),
        "max_position_embeddings": config.max_position_embeddings,
        "rms_norm_eps": config.rms_norm_eps,
        "eos_token_id": config.eos_token_id,
    }


def _is_llama(model_dir: Path) -> bool:
    """Llama as cfglint's intent means it: model_type llama, or none beside a Llama architecture."""
    config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    return config.get("model_type") in (None, "llama")


class TransformersReference(ModelLogits):
    """transformers 5 on model_dir, plus the shared tensors that readings are built from."""

    def __init__(self, model_dir: Path | str):
        from transformers import AutoModelForCausalLM, LlamaForCausalLM

        self.model_dir = Path(model_dir)
        self.is_llama = _is_llama(self.model_dir)
        model_class = LlamaForCausalLM if self.is_llama else AutoModelForCausalLM
        self.model = model_class.from_pretrained(
            self.model_dir, dtype=torch.float32, attn_implementation="eager", local_files_only=True
        ).eval()
        config = self.model.config
        self.stored_names = stored_tensor_names(self.model_dir)
        if self.is_llama:
            self.values = _values_from_config(config)
            self.dims = LlamaDims.from_config(config.to_dict())
        self._state = self.model.state_dict()
        self._unheld: dict[str, torch.Tensor] | None = None

    def checkpoint_tensors(self) -> dict[str, torch.Tensor]:
        """Every stored tensor: the model's own parameters, then the ones transformers left unused.

        transformers adds lm_head.weight as an alias of the embedding when it ties them; leaving such
        aliases out lets a reading that expects an untied head fail the way a runtime would. Tensors the
        reference does not build (biases its config turns off) are mapped from the files on first use,
        since some runtimes load them all the same.
        """
        held = {name: tensor for name, tensor in self._state.items() if name in self.stored_names}
        if not self.is_llama:
            # Families whose loading renames or fuses tensors (Mixtral's experts) hold them under the
            # model's names; only a tied head's alias is left out.
            head = self.model.get_output_embeddings()
            alias = {name for name, p in self.model.named_parameters(remove_duplicate=False) if p is head.weight}
            held = {name: t for name, t in self._state.items() if name in self.stored_names or name not in alias}
        if self._unheld is None:
            unheld = set(self.stored_names - held.keys())
            if not self.is_llama:
                unheld = {name for name in unheld if name.endswith(".bias")}
            mapped = map_checkpoint(self.model_dir, unheld) if unheld else {}
            # Only these few leftovers are cast (a copy) when the checkpoint is not stored in float32.
            self._unheld = {name: tensor.to(torch.float32) for name, tensor in mapped.items()}
        return {**held, **self._unheld}

    def reading(self, values: dict[str, Any]) -> LlamaReading | FamilyReading:
        """A forward with the given values over the reference's tensors (no copy)."""
        if self.is_llama:
            return LlamaReading(values, self.dims, self.checkpoint_tensors())
        return FamilyReading(type(self.model), self.model.config.to_dict(), values, self.checkpoint_tensors(), self.stored_names)

    def greedy(self, input_ids: Sequence[int] | torch.Tensor, n: int, stop_at_eos: bool = False) -> list[int]:
        """Greedy decoding by full recompute, the same procedure LlamaReading.greedy uses."""
        eos = self.model.generation_config.eos_token_id
        eos_ids = set() if eos is None else set(eos if isinstance(eos, list) else [eos])
        tokens = [int(t) for t in torch.as_tensor(input_ids).reshape(-1).tolist()]
        generated: list[int] = []
        for _ in range(n):
            nxt = int(self.next_token_logits(tokens + generated).argmax())
            generated.append(nxt)
            if stop_at_eos and nxt in eos_ids:
                break
        return generated
