"""The Python runtimes' refusals in CPython's own words."""

from __future__ import annotations

import dataclasses
import re

import pytest

import cfglint
from cfglint.consumers.python_reader import missing_arguments


@pytest.mark.parametrize("count", [1, 2, 3, 7])
def test_missing_arguments_are_worded_as_cpython_words_them(count):
    names = [f"key_{i}" for i in range(count)]
    model_args = dataclasses.make_dataclass("ModelArgs", [(name, int) for name in names])
    with pytest.raises(TypeError) as raised:
        model_args()
    assert missing_arguments("ModelArgs", names) == f"TypeError: {raised.value}"


@pytest.mark.parametrize("model_type", ["llama", "qwen2"])  # the hand-written Llama reading and a family entry's
def test_mlx_lm_names_every_missing_key_as_its_dataclass_does(model_type, write_config):
    directory = write_config({"model_type": model_type, "rope_theta": 10000.0})
    [finding] = [d for d in cfglint.check([directory]).findings if d.code == "L001" and "mlx-lm" in d.message]
    assert re.search(r"missing \d+ required positional arguments: 'hidden_size', ('\w+', )+and '\w+'\)$", finding.message), finding.message
