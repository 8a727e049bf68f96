"""The reference: transformers 5's own LlamaForCausalLM (eager attention, float32) on a model directory.

Its parameters are the only copy of the weights. transformers 5 loads safetensors memory-mapped, and
checkpoint_tensors() hands out the very tensors the model computes with (state_dict() detaches without
copying), so every LlamaReading built from them shares that single mapping.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch

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


class TransformersReference:
    """transformers 5 on model_dir, plus the shared tensors that readings are built from."""

    def __init__(self, model_dir: Path | str):
        from transformers import LlamaForCausalLM

        self.model_dir = Path(model_dir)
        self.model = LlamaForCausalLM.from_pretrained(
            self.model_dir, dtype=torch.float32, attn_implementation="eager", local_files_only=True
        ).eval()
        config = self.model.config
        self.values = _values_from_config(config)
        self.dims = LlamaDims.from_config(config.to_dict())
        self.stored_names = stored_tensor_names(self.model_dir)
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
        if self._unheld is None:
            unheld = self.stored_names - held.keys()
            mapped = map_checkpoint(self.model_dir, unheld) if unheld else {}
            # Only these few leftovers are cast (a copy) when the checkpoint is not stored in float32.
            self._unheld = {name: tensor.to(torch.float32) for name, tensor in mapped.items()}
        return {**held, **self._unheld}

    def reading(self, values: dict[str, Any]) -> LlamaReading:
        """A from-scratch forward with the given values over the reference's tensors (no copy)."""
        return LlamaReading(values, self.dims, self.checkpoint_tensors())

    def _reset_dynamic_rope(self) -> None:
        # Dynamic RoPE keeps the frequencies of the longest sequence seen so far; reset them so every call
        # is computed as the prefill of a freshly loaded model.
        rotary = self.model.model.rotary_emb
        if "dynamic" in str(rotary.rope_type):
            rotary.register_buffer("inv_freq", rotary.original_inv_freq.clone(), persistent=False)
            rotary.max_seq_len_cached = rotary.original_max_seq_len

    @torch.inference_mode()
    def logits(self, input_ids: Sequence[int] | torch.Tensor) -> torch.Tensor:
        """Logits of shape [seq, vocab] for one prompt, every position, computed without a cache."""
        ids = torch.as_tensor(input_ids, dtype=torch.long).reshape(1, -1)
        self._reset_dynamic_rope()
        return self.model(input_ids=ids, use_cache=False).logits[0]

    @torch.inference_mode()
    def next_token_logits(self, input_ids: Sequence[int] | torch.Tensor) -> torch.Tensor:
        """Logits of shape [vocab] for the last position only."""
        ids = torch.as_tensor(input_ids, dtype=torch.long).reshape(1, -1)
        self._reset_dynamic_rope()
        return self.model(input_ids=ids, use_cache=False, logits_to_keep=1).logits[0, -1]

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
