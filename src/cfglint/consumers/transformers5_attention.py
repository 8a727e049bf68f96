"""What building transformers 5's attention refuses of a head size its config class takes.

A family whose class declares no head_dim (Qwen2, Phi-3, OLMo 2, ...) keeps the file's as an attribute, and
its attention takes it as it is (knowledge.transformers5.ATTENTION_HEAD_DIM): a null or 0 head_dim is read by
cfglint's derivation like an absent one, where the model's `head_dim**-0.5` fails, and a negative one makes
a projection of negative size. The arithmetic is Python's own, run on the file's value, so its errors are
worded as the model's are; what torch refuses of a projection's size is worded as torch 2.13 does.
Runs after the config class accepted the file and before the rotary embedding is built (the layers come
first in every family's model). generation_refusal is what the built model then cannot generate with.
"""

from __future__ import annotations

from typing import Any

from cfglint.consumers.transformers5_rope import class_head_dim, hidden_per_head
from cfglint.knowledge.transformers5 import ATTENTION_HEAD_DIM
from cfglint.knowledge.transformers5_fields import DEFAULTS as FIELD_DEFAULTS


def attention_refusal(data: dict, family: str) -> tuple[str, str] | None:
    """(message, pointer) of the first thing the attention of the first layer cannot build from head_dim."""
    if family not in ATTENTION_HEAD_DIM:
        return None
    head_dim = class_head_dim(data, family)  # the file's, or the class's own for Llama and Mistral
    if "head_dim" not in data and head_dim is not None:
        return None  # the class default or hidden // heads: a size the family builds (Ministral's is null)
    return head_size_refusal(data, family, head_dim)


def head_size_refusal(data: dict, family: str, head_dim: Any, table: dict = ATTENTION_HEAD_DIM) -> tuple[str, str] | None:
    """attention_refusal for the config's head_dim attribute as given, the attention built as `table` says
    (transformers 4.57's: knowledge.transformers4.ATTENTION_HEAD_DIM)."""
    taken, steps = table[family]
    if taken == "or-derived" and not head_dim:
        head_dim = hidden_per_head(data, family)
    if isinstance(head_dim, dict):
        return None  # transformers 5's validate_rope compares it first (odd_rotary_dimension); 4.57's not followed
    heads = data.get("num_attention_heads", FIELD_DEFAULTS[family].get("num_attention_heads"))
    hidden = data.get("hidden_size", FIELD_DEFAULTS[family].get("hidden_size"))
    for step in steps:
        message = _refused(step, head_dim, heads, hidden)
        if message:
            return message, "/head_dim"
    return None


def _refused(step: str, head_dim: Any, heads: Any, hidden: Any) -> str | None:
    """One step's error, Python's own where it is Python arithmetic. A string or a list head_dim (which
    transformers 5's validate_rope refuses first, and 4.57 takes) times the heads is a repetition: its type,
    not its value, is what the steps after see, so it is not made."""
    sequence = isinstance(head_dim, (str, list))
    try:
        if step == "scale":
            head_dim ** -0.5
            return None
        if step == "divides-hidden":  # `(self.head_dim * self.num_heads) != self.hidden_size` (Qwen2-MoE in 4.57)
            if sequence or head_dim * heads != hidden:
                return (f"ValueError: hidden_size must be divisible by num_heads (got `hidden_size`: {hidden} and "
                        f"`num_heads`: {heads}).")
            return None
        if step == "q_norm":
            return "TypeError: ones(): argument 'size' (position 1) must be tuple of ints, not bool" if isinstance(head_dim, bool) else None
        width = head_dim if sequence else heads * head_dim  # nn.Linear's features (a repetition keeps the type)
    except (TypeError, ZeroDivisionError, OverflowError) as err:
        return f"{type(err).__name__}: {err}"
    if not isinstance(heads, int) or not isinstance(hidden, int):
        return None  # the class refuses those
    shape = [width, hidden] if step == "q_proj" else [hidden, width]
    return _empty_refusal(shape)


def _empty_refusal(shape: list) -> str | None:
    """torch.empty(shape), as nn.Linear allocates its weight (torch 2.13's words)."""
    for position, size in enumerate(shape):
        if not isinstance(size, int):
            kind = type(size).__name__
            if position == 0:
                return f"TypeError: empty(): argument 'size' (position 1) must be tuple of ints, but found element of type {kind} at pos 0"
            return ("TypeError: empty(): argument 'size' failed to unpack the object at pos 2 with error "
                    f'"type must be tuple of ints,but got {kind}"')
    negative = next((size for size in shape if size < 0), None)
    if negative is not None:
        return f"RuntimeError: Trying to create tensor with negative dimension {negative}: [{', '.join(map(str, shape))}]"
    return None


# generate()'s sliding-window cache keeps `sliding_window - 1` tokens of a sliding layer (cache_utils.py
# DynamicSlidingWindowLayer @ v5.24.0), so a window of 0 leaves the attention's shapes one short, and a
# negative one is refused by the mask's arange; a window of 1 or more generates.
_SHORT_CACHE = ("at generation: its sliding-window cache keeps sliding_window - 1 tokens (RuntimeError: The size of "
                "tensor a (n) must match the size of tensor b (n - 1) at non-singleton dimension 3)")
_NEGATIVE_WINDOW = "at generation: RuntimeError: upper bound and lower bound inconsistent with step sign"


def generation_refusal(values: dict, sources: dict) -> tuple[str, str] | None:
    """(message, pointer) of what generating with the built model refuses: a sliding window of 0 or less on a
    layer that slides (the intent's values and sources)."""
    window, layers = values.get("sliding_window"), values.get("layer_types")
    if type(window) is not int or window > 0 or not isinstance(layers, list) or "sliding_attention" not in layers:
        return None
    at = sources.get("sliding_window", "")
    return (_SHORT_CACHE if window == 0 else _NEGATIVE_WINDOW), at if at.startswith("/") else "/sliding_window"
