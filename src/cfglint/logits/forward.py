"""A Llama forward pass written from scratch, driven only by a runtime's values, the dims and the tensors.

LlamaReading never copies a weight: it keeps references to the tensors it is given (memory-mapped
checkpoint tensors or the reference model's own parameters), so any number of readings share one copy.
Activations follow transformers' eager path operation for operation (RMSNorm in float32, softmax in
float32, attention scores scaled after the matmul) so that equal values give equal logits to rounding.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import torch
import torch.nn.functional as F

from . import rope
from .activations import activation
from .spec import LlamaDims, ReadingError, ReadingValues


@dataclass(frozen=True)
class _Linear:
    weight: torch.Tensor
    bias: torch.Tensor | None

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        return F.linear(x, self.weight, self.bias)


@dataclass(frozen=True)
class _Layer:
    input_norm: torch.Tensor
    q_proj: _Linear
    k_proj: _Linear
    v_proj: _Linear
    o_proj: _Linear
    post_attention_norm: torch.Tensor
    gate_proj: _Linear
    up_proj: _Linear
    down_proj: _Linear


class _TensorSource:
    """Looks up checkpoint tensors by name and checks each shape against what the values imply."""

    def __init__(self, tensors: Mapping[str, torch.Tensor]):
        self._tensors = tensors

    def get(self, name: str, shape: tuple[int, ...]) -> torch.Tensor:
        tensor = self._tensors.get(name)
        if tensor is None:
            raise ReadingError(f"missing tensor {name}")
        if tuple(tensor.shape) != shape:
            raise ReadingError(f"tensor {name} has shape {tuple(tensor.shape)}, the values imply {shape}")
        return tensor

    def linear(self, prefix: str, out_features: int, in_features: int, with_bias: bool) -> _Linear:
        weight = self.get(f"{prefix}.weight", (out_features, in_features))
        # Without the flag the bias is never read, even when the checkpoint has one: runtimes do the same.
        bias = self.get(f"{prefix}.bias", (out_features,)) if with_bias else None
        return _Linear(weight, bias)


def _rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    input_dtype = x.dtype
    x = x.to(torch.float32)
    variance = x.pow(2).mean(-1, keepdim=True)
    x = x * torch.rsqrt(variance + eps)
    return weight * x.to(input_dtype)


def _causal_mask(seq: int, window: int | None, dtype: torch.dtype) -> torch.Tensor:
    """Additive mask with the dtype's minimum, as transformers' eager attention builds it: no position sees
    a later one, nor (with a window) one window or more behind it."""
    query, key = torch.arange(seq)[:, None], torch.arange(seq)[None, :]
    hidden = key > query
    if window is not None:
        hidden |= query - key >= window
    return torch.zeros(seq, seq, dtype=dtype).masked_fill(hidden, torch.finfo(dtype).min)


def _repeat_kv(x: torch.Tensor, n_rep: int) -> torch.Tensor:
    """[1, kv_heads, seq, dim] -> [1, kv_heads * n_rep, seq, dim], each KV head serving n_rep query heads."""
    if n_rep == 1:
        return x
    batch, kv_heads, seq, dim = x.shape
    return x[:, :, None, :, :].expand(batch, kv_heads, n_rep, seq, dim).reshape(batch, kv_heads * n_rep, seq, dim)


class LlamaReading:
    """The logits a runtime would compute, given the values it read from the config.

    values: the contract's values dict (rope_theta, rope_scaling, head_dim, num_key_value_heads,
    tie_word_embeddings, hidden_act, rms_norm_eps, attention_bias, mlp_bias, max_position_embeddings,
    eos_token_id, and for mlx-lm's sliding layers layer_types and sliding_window). dims: LlamaDims or a config dict. tensors: name -> tensor in transformers' naming
    (model.layers.N.self_attn.q_proj.weight, ...); only the tensors these values call for are read, and a
    missing or mis-shaped one raises ReadingError, as loading would fail in the runtime.
    """

    def __init__(
        self, values: Mapping[str, Any], dims: LlamaDims | Mapping[str, Any], tensors: Mapping[str, torch.Tensor]
    ):
        self.values = ReadingValues.from_values(values)
        self.dims = LlamaDims.coerce(dims)
        v, d = self.values, self.dims
        if v.num_key_value_heads <= 0 or d.num_attention_heads % v.num_key_value_heads:
            raise ReadingError(
                f"{d.num_attention_heads} attention heads cannot share {v.num_key_value_heads} key/value heads"
            )
        if v.head_dim % 2:
            raise ReadingError(f"head_dim {v.head_dim} is odd; half-split RoPE needs an even one")
        self._act = activation(v.hidden_act)
        source = _TensorSource(tensors)
        self._embed = source.get("model.embed_tokens.weight", (d.vocab_size, d.hidden_size))
        if v.windows is not None and len(v.windows) != d.num_hidden_layers:
            raise ReadingError(f"{len(v.windows)} layer types for a checkpoint of {d.num_hidden_layers} layers")
        self._layers = [self._layer(source, i) for i in range(d.num_hidden_layers)]
        self._final_norm = source.get("model.norm.weight", (d.hidden_size,))
        head_name = "model.embed_tokens.weight" if v.tie_word_embeddings else "lm_head.weight"
        self._lm_head = source.get(head_name, (d.vocab_size, d.hidden_size))
        self.dtype = self._embed.dtype

    def _layer(self, source: _TensorSource, index: int) -> _Layer:
        v, d = self.values, self.dims
        prefix = f"model.layers.{index}"
        q_width = d.num_attention_heads * v.head_dim
        kv_width = v.num_key_value_heads * v.head_dim
        attn, mlp = f"{prefix}.self_attn", f"{prefix}.mlp"
        return _Layer(
            input_norm=source.get(f"{prefix}.input_layernorm.weight", (d.hidden_size,)),
            q_proj=source.linear(f"{attn}.q_proj", q_width, d.hidden_size, v.attention_bias),
            k_proj=source.linear(f"{attn}.k_proj", kv_width, d.hidden_size, v.attention_bias),
            v_proj=source.linear(f"{attn}.v_proj", kv_width, d.hidden_size, v.attention_bias),
            o_proj=source.linear(f"{attn}.o_proj", d.hidden_size, q_width, v.attention_bias),
            post_attention_norm=source.get(f"{prefix}.post_attention_layernorm.weight", (d.hidden_size,)),
            gate_proj=source.linear(f"{mlp}.gate_proj", d.intermediate_size, d.hidden_size, v.mlp_bias),
            up_proj=source.linear(f"{mlp}.up_proj", d.intermediate_size, d.hidden_size, v.mlp_bias),
            down_proj=source.linear(f"{mlp}.down_proj", d.hidden_size, d.intermediate_size, v.mlp_bias),
        )

    def tensors_in_use(self) -> list[torch.Tensor]:
        """Every weight this reading holds (to check that none of them is a copy)."""
        held = [self._embed, self._final_norm, self._lm_head]
        for layer in self._layers:
            held += [layer.input_norm, layer.post_attention_norm]
            for proj in (
                layer.q_proj,
                layer.k_proj,
                layer.v_proj,
                layer.o_proj,
                layer.gate_proj,
                layer.up_proj,
                layer.down_proj,
            ):
                held += [t for t in (proj.weight, proj.bias) if t is not None]
        return held

    def _attention(
        self, layer: _Layer, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, mask: torch.Tensor
    ) -> torch.Tensor:
        v = self.values
        seq = x.shape[1]
        hidden_shape = (1, seq, -1, v.head_dim)
        q = layer.q_proj(x).view(hidden_shape).transpose(1, 2)
        k = layer.k_proj(x).view(hidden_shape).transpose(1, 2)
        val = layer.v_proj(x).view(hidden_shape).transpose(1, 2)
        q, k = rope.apply_rotary(q, cos, sin), rope.apply_rotary(k, cos, sin)
        n_rep = self.dims.num_attention_heads // v.num_key_value_heads
        k, val = _repeat_kv(k, n_rep), _repeat_kv(val, n_rep)
        scores = torch.matmul(q, k.transpose(2, 3)) * v.head_dim**-0.5
        weights = F.softmax(scores + mask, dim=-1, dtype=torch.float32).to(q.dtype)
        out = torch.matmul(weights, val).transpose(1, 2).contiguous()
        return layer.o_proj(out.reshape(1, seq, -1).contiguous())

    def _final_hidden(self, input_ids: Sequence[int] | torch.Tensor) -> torch.Tensor:
        ids = torch.as_tensor(input_ids, dtype=torch.long).reshape(1, -1)
        seq = ids.shape[1]
        if seq == 0:
            raise ValueError("input_ids is empty")
        if int(ids.min()) < 0 or int(ids.max()) >= self.dims.vocab_size:
            raise ValueError(f"token ids must lie in [0, {self.dims.vocab_size})")
        v = self.values
        x = F.embedding(ids, self._embed)
        cos, sin = rope.cos_sin(v.rope, v.head_dim, v.max_position_embeddings, seq, x.dtype)
        windows = v.windows or (None,) * len(self._layers)
        masks = {window: _causal_mask(seq, window, x.dtype) for window in set(windows)}
        for layer, window in zip(self._layers, windows):
            x = x + self._attention(layer, _rms_norm(x, layer.input_norm, v.rms_norm_eps), cos, sin, masks[window])
            h = _rms_norm(x, layer.post_attention_norm, v.rms_norm_eps)
            x = x + layer.down_proj(self._act(layer.gate_proj(h)) * layer.up_proj(h))
        return _rms_norm(x, self._final_norm, v.rms_norm_eps)[0]

    @torch.inference_mode()
    def logits(self, input_ids: Sequence[int] | torch.Tensor) -> torch.Tensor:
        """Logits of shape [seq, vocab] for one prompt, every position, computed without a cache."""
        return F.linear(self._final_hidden(input_ids), self._lm_head)

    @torch.inference_mode()
    def next_token_logits(self, input_ids: Sequence[int] | torch.Tensor) -> torch.Tensor:
        """Logits of shape [vocab] for the last position only (the head is applied to that row alone)."""
        return F.linear(self._final_hidden(input_ids)[-1:], self._lm_head)[0]

    def greedy(self, input_ids: Sequence[int] | torch.Tensor, n: int, stop_at_eos: bool = False) -> list[int]:
        """The n tokens greedy decoding appends (fewer if stop_at_eos and an EOS of these values comes)."""
        tokens = [int(t) for t in torch.as_tensor(input_ids).reshape(-1).tolist()]
        generated: list[int] = []
        for _ in range(n):
            # Full recompute each step: dynamic RoPE then sees the whole sequence, as a fresh prefill does.
            nxt = int(self.next_token_logits(tokens + generated).argmax())
            generated.append(nxt)
            if stop_at_eos and nxt in self.values.eos_token_ids:
                break
        return generated
