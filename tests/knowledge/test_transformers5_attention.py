"""transformers 5 on spoilt head sizes: what its config class and the model it builds refuse, against what
cfglint's transformers 5 reading says.

A family whose class declares no head_dim keeps the file's, and its attention takes it as it is
(knowledge.transformers5.ATTENTION_HEAD_DIM): a null or 0 head_dim is no absent one there. The table is read
off the installed modeling code; each family is built with each value (in-process, a tiny model a case).
And what generating with the built model refuses: a sliding window of 0 or less on a layer that slides.
"""

from __future__ import annotations

import copy
import functools
import inspect
import json
import re
from pathlib import Path

import pytest

from cfglint import consumers, document
from cfglint.engine import context_of
from cfglint.knowledge.transformers5 import ATTENTION_HEAD_DIM, FAMILIES
from tests.knowledge.test_transformers5_rope_types import _in_order, _observed

# JSON values a head_dim may be written with: each fails somewhere else in some family, or nowhere.
HEAD_DIMS = {
    "null": None, "zero": 0, "negative": -4, "negative-float": -4.0, "float": 16.0, "odd": 5, "odd-float": 5.0,
    "string": "16", "true": True, "false": False, "list": [16], "beyond-a-float": 2**1100 + 1,
}
# With YaRN the rotary embedding has more to refuse: the attention's refusal comes first.
YARN_TOO = ("null", "zero", "negative", "negative-float")


def _cases() -> list[tuple[str, str, dict]]:
    from tests.families import without_rope

    out = []
    for family in ["llama", *FAMILIES]:
        base, theta = without_rope(family)
        for name, value in HEAD_DIMS.items():
            out.append((family, name, dict(base, head_dim=value, rope_parameters={"rope_type": "default", "rope_theta": theta})))
            if name in YARN_TOO:
                yarn = {"rope_type": "yarn", "factor": 2.0, "rope_theta": theta}
                out.append((family, f"{name}-yarn", dict(base, head_dim=value, rope_parameters=yarn)))
    return [(family, case, copy.deepcopy(config)) for family, case, config in out]


@pytest.mark.parametrize(("family", "case", "config"), _cases(), ids=lambda v: v if isinstance(v, str) else "")
def test_transformers5_refuses_the_head_size_where_cfglint_says(family: str, case: str, config: dict, tmp_path: Path) -> None:  # noqa: ARG001  (in the test id)
    (tmp_path / "config.json").write_text(json.dumps(config), encoding="utf-8")
    view = context_of(document.load(tmp_path / "config.json"), [consumers.get("transformers-5")]).views["transformers-5"]
    assert _in_order(view.message if view.outcome == "error" else None) == _in_order(_observed(config))


def _attention_source(family: str) -> str | None:
    """<Family>Attention.__init__ in the installed modeling module (None: the family has no such class)."""
    import importlib

    module_name = "gemma3" if family == "gemma3_text" else family
    module = importlib.import_module(f"transformers.models.{module_name}.modeling_{module_name}")
    classes = [c for name, c in vars(module).items() if inspect.isclass(c) and name.endswith("Attention") and c.__module__ == module.__name__]
    sources = [inspect.getsource(c.__init__) for c in classes if "head_dim" in inspect.getsource(c.__init__)]
    return sources[0] if len(sources) == 1 else None


def _read_off(source: str) -> tuple[str, tuple[str, ...]] | None:
    """(how the attention takes head_dim, what it builds from it in order), as the table writes them."""
    if re.search(r'self\.head_dim = getattr\(config, "head_dim", None\) or', source):
        taken = "or-derived"
    elif re.search(r'self\.head_dim = getattr\(config, "head_dim", config\.hidden_size // config\.num_attention_heads\)', source):
        taken = "as-is"
    else:
        return None
    found = []
    patterns = {
        "scale": r"self\.scaling = self\.head_dim\s*\*\*\s*-0\.5",
        "q_proj": r"nn\.Linear\(\s*config\.hidden_size,\s*config\.num_attention_heads \* self\.head_dim",
        "o_proj": r"nn\.Linear\(\s*config\.num_attention_heads \* self\.head_dim,\s*config\.hidden_size",
        "q_norm": r"self\.q_norm = \w+RMSNorm\((?:self\.head_dim|dim=config\.head_dim)",
    }
    for step, pattern in patterns.items():
        match = re.search(pattern, source)
        if match:
            found.append((match.start(), step))
    projections = [step for _, step in sorted(found) if step.endswith("_proj")]
    steps = [step for _, step in sorted(found) if not step.endswith("_proj") or step == projections[0]]
    return taken, tuple(steps)


@pytest.mark.parametrize("family", ["llama", *sorted(FAMILIES)])
def test_the_attention_table_is_the_installed_modeling_code(family: str) -> None:
    source = _attention_source(family)
    read = _read_off(source) if source is not None else None
    assert ATTENTION_HEAD_DIM.get(family) == read, (family, read)


# generate()'s sliding-window cache keeps sliding_window - 1 tokens of a sliding layer
WINDOWS = {"window-negative": -1, "window-zero": 0, "window-one": 1, "window-four": 4}
_SLIDING_ON = {"use_sliding_window": True, "max_window_layers": 0}  # Qwen's: every layer from the first slides


def _generation_cases() -> list[tuple[str, str, dict]]:
    from tests.families import without_rope

    out = []
    for family in FAMILIES:
        base, theta = without_rope(family)
        base = dict(base, rope_parameters={"rope_type": "default", "rope_theta": theta})
        base.pop("layer_types", None)  # the class's own pattern, or Qwen's from max_window_layers
        for name, window in WINDOWS.items():
            out.append((family, name, dict(base, sliding_window=window, **(_SLIDING_ON if "use_sliding_window" in base else {}))))
    return out


def _generated(config: dict) -> tuple[str, str] | None:
    """(where, the error's type) of what the installed transformers 5 refuses: "build" for the config class or
    the model, "generation" for two greedy tokens after a three-token prompt (seeded weights); None when both
    run."""
    return _generated_from(json.dumps(config))


@functools.lru_cache(maxsize=None)
def _generated_from(text: str) -> tuple[str, str] | None:
    import warnings

    import torch
    from transformers import CONFIG_MAPPING, AutoModelForCausalLM
    from transformers.utils import logging

    logging.set_verbosity_error()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            config = json.loads(text)
            torch.manual_seed(0)
            model = AutoModelForCausalLM.from_config(CONFIG_MAPPING[config["model_type"]].from_dict(config))
        except Exception as err:  # noqa: BLE001  (the refusal, whatever its type, is the observation)
            return "build", type(err).__name__
        try:
            with torch.no_grad():
                # two tokens whatever they are: an end-of-text first would stop before the cache is read back
                model.generate(torch.tensor([[1, 2, 3]]), max_new_tokens=2, min_new_tokens=2, do_sample=False)
        except Exception as err:  # noqa: BLE001
            return "generation", type(err).__name__
    return None


@pytest.mark.parametrize(("family", "case", "config"), _generation_cases(), ids=lambda v: v if isinstance(v, str) else "")
def test_transformers5_generates_where_cfglint_says(family: str, case: str, config: dict, tmp_path: Path) -> None:  # noqa: ARG001  (in the test id)
    (tmp_path / "config.json").write_text(json.dumps(config), encoding="utf-8")
    view = context_of(document.load(tmp_path / "config.json"), [consumers.get("transformers-5")]).views["transformers-5"]
    observed = _generated(config)
    if view.outcome == "loads":
        assert observed is None
        return
    assert observed is not None, view.message
    where, kind = observed
    assert (where == "generation") == view.message.startswith("at generation:"), (view.message, observed)
    assert kind in view.message, (view.message, observed)


def test_the_generation_cases_reach_a_sliding_layer():
    """Every family with a sliding window is built with one here, and some refuse at generation."""
    cases = {(family, case): config for family, case, config in _generation_cases()}
    refused = [key for key, config in cases.items() if (_generated(config) or ("", ""))[0] == "generation"]
    assert {family for family, case in refused if case == "window-zero"} >= {"mistral", "mixtral", "gemma2", "gemma3_text", "phi3", "gpt_oss", "qwen2"}
