"""Each family's tensor layout against the model real transformers 5 builds and saves.

For every family in weights.layout.LAYOUTS, the family's base config and its variants (dimensions shrunk,
every other key kept) are built by transformers 5 (`AutoModelForCausalLM.from_config`); the names and shapes
of what `save_pretrained` writes (the state dict after its save-time conversions: per-expert MoE tensors,
the tied head left out) must be exactly what `expected` lays out from transformers 5's reading of that
config. The experts' defaults, and which of two expert-count keys wins, are checked against the config classes.
"""

from __future__ import annotations

import json

import pytest

from cfglint import document
from cfglint.engine import context_of
from cfglint.weights import loading
from cfglint.weights.layout import LAYOUTS, expected
from tests.families import variants

CASES = [(family, name) for family in sorted(LAYOUTS) if family != "llama" for name in ("base", "tie-absent", "head-dim-null", "q-lora-bias", "moe-every-second")
         if name in variants(family)]


def saved_shapes(config: dict, tmp_path) -> dict[str, tuple[int, ...]]:
    from safetensors import safe_open
    from transformers import AutoConfig, AutoModelForCausalLM

    (tmp_path / "config.json").write_text(json.dumps(config))
    model = AutoModelForCausalLM.from_config(AutoConfig.from_pretrained(tmp_path))
    model.save_pretrained(tmp_path)
    with safe_open(str(tmp_path / "model.safetensors"), "np") as f:
        return {name: tuple(f.get_slice(name).get_shape()) for name in f.keys()}


@pytest.mark.parametrize("family,variant", CASES)
def test_layout_is_what_transformers5_saves(family, variant, tmp_path):
    pytest.importorskip("torch")
    config = variants(family)[variant]
    saved = saved_shapes(config, tmp_path)
    ctx = context_of(document.load(tmp_path / "config.json"), [])  # save_pretrained rewrote it: the same model
    shape = loading.shape_of(ctx, ctx.intent.values, ctx.intent.sources)
    tie = ctx.intent.values.get("tie_word_embeddings") is True
    laid_out = expected(shape, tie=tie, attention_bias=ctx.intent.values.get("attention_bias"),
                        mlp_bias=ctx.intent.values.get("mlp_bias") is True, layout=LAYOUTS[family])
    assert {n: e.shape for n, e in laid_out.items()} == saved


@pytest.mark.parametrize("family", sorted(f for f, layout in LAYOUTS.items() if layout.experts is not None))
def test_expert_defaults_are_the_config_class_defaults(family):
    from transformers import AutoConfig

    experts = LAYOUTS[family].experts
    defaults = AutoConfig.for_model(family)
    (first, *_), count = experts.count
    assert getattr(defaults, first) == count, first
    for key, default in filter(None, (experts.size, experts.shared)):
        assert getattr(defaults, key) == default, key
    if experts.stepped:
        assert (defaults.decoder_sparse_step, defaults.mlp_only_layers) == (1, [])


@pytest.mark.parametrize("family", sorted(f for f, layout in LAYOUTS.items() if layout.experts and len(layout.experts.count[0]) > 1))
def test_the_expert_count_key_read_first_wins_in_transformers5(family):
    from transformers import AutoConfig

    first = LAYOUTS[family].experts.count[0][0]
    given = {"num_experts": 4, "num_local_experts": 6}
    assert getattr(AutoConfig.for_model(family, **given), first) == given[first]
