"""The MLP gate activations transformers knows by name (its ACT2FN table), written with the same formulas."""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
import torch.nn.functional as F

from .spec import ReadingError

Activation = Callable[[torch.Tensor], torch.Tensor]

_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


def _gelu_tanh_formula(x: torch.Tensor) -> torch.Tensor:
    return 0.5 * x * (1.0 + torch.tanh(_SQRT_2_OVER_PI * (x + 0.044715 * torch.pow(x, 3.0))))


def _laplace(x: torch.Tensor, mu: float = 0.707107, sigma: float = 0.282095) -> torch.Tensor:
    return 0.5 * (1.0 + torch.erf((x - mu).div(sigma * math.sqrt(2.0))))


ACTIVATIONS: dict[str, Activation] = {
    "silu": F.silu,
    "swish": F.silu,
    "gelu": F.gelu,
    "gelu_python": lambda x: x * 0.5 * (1.0 + torch.erf(x / math.sqrt(2.0))),
    "gelu_10": lambda x: torch.clip(F.gelu(x), -10, 10),
    "gelu_new": _gelu_tanh_formula,
    "gelu_accurate": _gelu_tanh_formula,
    "gelu_pytorch_tanh": lambda x: F.gelu(x, approximate="tanh"),
    "gelu_python_tanh": lambda x: x * 0.5 * (1.0 + torch.tanh(_SQRT_2_OVER_PI * (x + 0.044715 * torch.pow(x, 3.0)))),
    "gelu_fast": lambda x: 0.5 * x * (1.0 + torch.tanh(x * 0.7978845608 * (1.0 + 0.044715 * x * x))),
    "quick_gelu": lambda x: x * torch.sigmoid(1.702 * x),
    "relu": F.relu,
    "relu2": lambda x: torch.square(F.relu(x)),
    "relu6": F.relu6,
    "leaky_relu": F.leaky_relu,
    "hardswish": F.hardswish,
    "mish": F.mish,
    "sigmoid": torch.sigmoid,
    "tanh": torch.tanh,
    "laplace": _laplace,
    "sqrtsoftplus": lambda x: F.softplus(x).sqrt(),
    "linear": lambda x: x,
}


def activation(name: str) -> Activation:
    try:
        return ACTIVATIONS[name]
    except KeyError:
        raise ReadingError(f"unknown hidden_act {name!r}") from None
