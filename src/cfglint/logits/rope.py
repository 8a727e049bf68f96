"""Rotary position embeddings, written to give the same float32 numbers as transformers 5.

Each scaling type computes its inverse frequencies with the same operations, in the same order and
dtype, as transformers' modeling_rope_utils, so a reading whose values equal the reference's reproduces
the reference's logits to float32 rounding. Pairing is half-split (dimension i rotates with i + d/2).
"""

from __future__ import annotations

import math

import torch

from .spec import ReadingError, RopeSpec


def _base_inv_freq(theta: float, dim: int) -> torch.Tensor:
    return 1.0 / (theta ** (torch.arange(0, dim, 2, dtype=torch.int64).to(dtype=torch.float) / dim))


def _original_context(spec: RopeSpec, max_positions: int | None) -> int:
    # transformers falls back to max_position_embeddings when the scaling omits the pre-training length.
    original = spec.params.get("original_max_position_embeddings", max_positions)
    if original is None:
        raise ReadingError(f"{spec.rope_type} RoPE needs original_max_position_embeddings or max_position_embeddings")
    return int(original)


def _factor(spec: RopeSpec) -> float:
    factor = spec.params.get("factor")
    if factor is None:
        raise ReadingError(f"{spec.rope_type} RoPE needs a factor")
    return factor


def _llama3_inv_freq(spec: RopeSpec, dim: int, max_positions: int | None) -> torch.Tensor:
    inv_freq = _base_inv_freq(spec.theta, dim)
    factor = _factor(spec)
    try:
        low_freq_factor = spec.params["low_freq_factor"]
        high_freq_factor = spec.params["high_freq_factor"]
    except KeyError as missing:
        raise ReadingError(f"llama3 RoPE needs {missing.args[0]}") from None
    old_context_len = _original_context(spec, max_positions)

    low_freq_wavelen = old_context_len / low_freq_factor
    high_freq_wavelen = old_context_len / high_freq_factor
    wavelen = 2 * math.pi / inv_freq
    # Long wavelengths are divided by factor, short ones kept, the band between interpolated smoothly.
    inv_freq_llama = torch.where(wavelen > low_freq_wavelen, inv_freq / factor, inv_freq)
    smooth_factor = (old_context_len / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
    smoothed_inv_freq = (1 - smooth_factor) * inv_freq_llama / factor + smooth_factor * inv_freq_llama
    is_medium_freq = ~(wavelen < high_freq_wavelen) * ~(wavelen > low_freq_wavelen)
    return torch.where(is_medium_freq, smoothed_inv_freq, inv_freq_llama)


def _dynamic_inv_freq(spec: RopeSpec, dim: int, max_positions: int | None, seq_len: int) -> torch.Tensor:
    if max_positions is None:
        raise ReadingError("dynamic RoPE needs max_position_embeddings")
    factor = _factor(spec)
    if seq_len <= max_positions:
        # Within the trained length transformers keeps the frequencies it computed at construction,
        # where the sequence length defaults to max_position_embeddings (plain Python floats).
        base = spec.theta * ((factor * max_positions / max_positions) - (factor - 1)) ** (dim / (dim - 2))
        return _base_inv_freq(base, dim)
    # Beyond it, a fresh prefill recomputes the base from the sequence length, as float32 tensors.
    length = torch.tensor(seq_len, dtype=torch.int64)
    base = spec.theta * ((factor * length / max_positions) - (factor - 1)) ** (dim / (dim - 2))
    return 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).to(dtype=torch.float) / dim))


def _yarn_inv_freq(spec: RopeSpec, dim: int, max_positions: int | None) -> tuple[torch.Tensor, float]:
    params = spec.params
    base = spec.theta
    original = _original_context(spec, max_positions)
    factor = params.get("factor")
    if factor is None:
        if max_positions is None:
            raise ReadingError("yarn RoPE needs a factor or max_position_embeddings")
        factor = max_positions / original

    def get_mscale(scale: float, mscale: float = 1) -> float:
        return 1.0 if scale <= 1 else 0.1 * mscale * math.log(scale) + 1.0

    attention_factor = params.get("attention_factor")
    if attention_factor is None:
        mscale, mscale_all_dim = params.get("mscale"), params.get("mscale_all_dim")
        if mscale and mscale_all_dim:
            attention_factor = float(get_mscale(factor, mscale) / get_mscale(factor, mscale_all_dim))
        else:
            attention_factor = get_mscale(factor)
    beta_fast = params.get("beta_fast") or 32
    beta_slow = params.get("beta_slow") or 1

    def correction_dim(num_rotations: float) -> float:
        return (dim * math.log(original / (num_rotations * 2 * math.pi))) / (2 * math.log(base))

    low, high = correction_dim(beta_fast), correction_dim(beta_slow)
    if params.get("truncate", True):
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, dim - 1)
    if low == high:
        high += 0.001  # transformers' guard against a zero-width ramp

    pos_freqs = base ** (torch.arange(0, dim, 2).to(dtype=torch.float) / dim)
    inv_freq_extrapolation = 1.0 / pos_freqs
    inv_freq_interpolation = 1.0 / (factor * pos_freqs)
    ramp = torch.clamp((torch.arange(dim // 2, dtype=torch.float32) - low) / (high - low), 0, 1)
    extrapolation_weight = 1 - ramp
    inv_freq = inv_freq_interpolation * (1 - extrapolation_weight) + inv_freq_extrapolation * extrapolation_weight
    return inv_freq, float(attention_factor)


def inverse_frequencies(
    spec: RopeSpec, dim: int, max_positions: int | None, seq_len: int
) -> tuple[torch.Tensor, float]:
    """Return (inv_freq of length dim/2, factor applied to cos and sin) for a prefill of seq_len tokens."""
    if spec.rope_type == "default":
        return 1.0 / (spec.theta ** (torch.arange(0, dim, 2, dtype=torch.float) / dim)), 1.0
    if spec.rope_type == "linear":
        return _base_inv_freq(spec.theta, dim) / _factor(spec), 1.0
    if spec.rope_type == "llama3":
        return _llama3_inv_freq(spec, dim, max_positions), 1.0
    if spec.rope_type == "dynamic":
        return _dynamic_inv_freq(spec, dim, max_positions, seq_len), 1.0
    if spec.rope_type == "yarn":
        return _yarn_inv_freq(spec, dim, max_positions)
    raise ReadingError(f"unsupported rope_type {spec.rope_type!r}")


def cos_sin(
    spec: RopeSpec, dim: int, max_positions: int | None, seq_len: int, dtype: torch.dtype
) -> tuple[torch.Tensor, torch.Tensor]:
    """cos and sin tables of shape [1, seq_len, dim] for positions 0..seq_len-1."""
    inv_freq, attention_scaling = inverse_frequencies(spec, dim, max_positions, seq_len)
    positions = torch.arange(seq_len).unsqueeze(0)
    freqs = positions[..., None].float() * inv_freq.to(dtype=torch.float)
    emb = torch.cat((freqs, freqs), dim=-1)
    return (emb.cos() * attention_scaling).to(dtype), (emb.sin() * attention_scaling).to(dtype)


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def apply_rotary(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """Rotate x of shape [1, heads, seq, dim] by the [1, seq, dim] tables."""
    cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
    return (x * cos) + (rotate_half(x) * sin)
