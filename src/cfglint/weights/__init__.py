"""The config against the weights it describes, from safetensors headers alone (no tensor data is read).

`find(directory)` reads a model directory's checkpoint headers into `Weights`; `loading.plan(ctx)`
predicts each consumer's load of it. Standard library only: `cfglint check` must stay light.
"""

from cfglint.weights.checkpoint import Problem, Tensor, Weights, find

__all__ = ["Problem", "Tensor", "Weights", "find"]
