"""The transformers 4.57.6 entries against the installed package (config classes only, no torch).

One subprocess in the shared transformers4 venv prints, for every family, the `inspect.signature` defaults
of its config class and the attributes of a config built from a small per-family dict. Every entry field
must be an argument of the class with the same default, and every reading key the entry takes as a plain
attribute read (or that the config itself computes, see COMPUTED_BY_CONFIG) must equal the built config's.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess

import pytest

from cfglint.knowledge.entry import REQUIRED
from cfglint.knowledge.expr import evaluate
from cfglint.knowledge.transformers4 import ENTRIES
from tests.conformance.venvs import runtime_python

# Small configs that move the keys the expressions name away from their defaults.
SAMPLES = {
    "qwen2": {"hidden_size": 64, "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2,
              "use_sliding_window": True, "sliding_window": 16, "max_window_layers": 2, "eos_token_id": 7,
              "rms_norm_eps": 1e-5, "max_position_embeddings": 1024, "tie_word_embeddings": True},
    "qwen3": {"hidden_size": 64, "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2,
              "head_dim": 32, "attention_bias": True, "use_sliding_window": True, "sliding_window": 16,
              "max_window_layers": 3, "eos_token_id": [5, 6]},
    "mistral": {"hidden_size": 64, "num_hidden_layers": 3, "num_attention_heads": 4, "num_key_value_heads": 1,
                "head_dim": 8, "sliding_window": 32, "eos_token_id": 9, "rope_theta": 5e5},
    "ministral": {"hidden_size": 64, "num_hidden_layers": 3, "num_attention_heads": 4, "num_key_value_heads": 1,
                  "head_dim": 8, "sliding_window": 32, "layer_types": ["full_attention", "sliding_attention", "full_attention"],
                  "eos_token_id": 9},
    "gemma2": {"hidden_size": 64, "num_hidden_layers": 5, "num_attention_heads": 4, "num_key_value_heads": 2,
               "head_dim": 16, "hidden_activation": "gelu", "query_pre_attn_scalar": 144, "sliding_window": 64,
               "final_logit_softcapping": 20.0, "attn_logit_softcapping": 40.0},
    "gemma": {"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 1,
              "head_dim": 32, "hidden_act": "gelu", "hidden_activation": "gelu_pytorch_tanh", "attention_bias": True},
    "gemma3_text": {"hidden_size": 64, "num_hidden_layers": 7, "num_attention_heads": 4, "num_key_value_heads": 2,
                    "head_dim": 16, "sliding_window": 10, "sliding_window_pattern": 3,
                    "use_bidirectional_attention": True, "rope_local_base_freq": 20000.0, "query_pre_attn_scalar": 16},
    "phi3": {"hidden_size": 96, "num_hidden_layers": 2, "num_attention_heads": 4, "partial_rotary_factor": 0.5,
             "original_max_position_embeddings": 2048, "sliding_window": 512,
             "rope_scaling": {"type": "su", "short_factor": [1.0] * 6, "long_factor": [2.0] * 6}},
    "mixtral": {"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
                "sliding_window": 4096},
    "qwen2_moe": {"hidden_size": 64, "num_hidden_layers": 3, "num_attention_heads": 4, "qkv_bias": False,
                  "use_sliding_window": True, "sliding_window": 8, "eos_token_id": 3},
    "qwen3_moe": {"hidden_size": 64, "num_hidden_layers": 3, "num_attention_heads": 4, "head_dim": 32,
                  "attention_bias": True, "rope_scaling": {"type": "yarn", "factor": 4.0}},
    "olmo2": {"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "attention_bias": True,
              "rope_scaling": {"type": "linear", "factor": 2.0}},
    "granite": {"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
                "attention_multiplier": 0.0078125, "mlp_bias": True, "rope_scaling": {"rope_type": "linear", "factor": 2.0}},
    "deepseek_v2": {"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "qk_rope_head_dim": 16,
                    "qk_nope_head_dim": 32, "head_dim": 999, "rope_scaling": {"type": "yarn", "factor": 40.0},
                    "num_key_value_heads": 2, "q_lora_rank": None, "kv_lora_rank": 24, "v_head_dim": 8, "n_routed_experts": 6,
                    "n_shared_experts": None, "num_experts_per_tok": 3, "n_group": 2, "topk_group": 1,
                    "topk_method": "group_limited_greedy", "routed_scaling_factor": 2.5, "first_k_dense_replace": 1},
    "deepseek_v3": {"hidden_size": 64, "num_hidden_layers": 3, "num_attention_heads": 4, "num_key_value_heads": None,
                    "qk_rope_head_dim": 8, "qk_nope_head_dim": 16, "v_head_dim": 16, "kv_lora_rank": 24, "q_lora_rank": 12,
                    "n_routed_experts": 8, "n_shared_experts": 2, "num_experts_per_tok": 3, "n_group": 4, "topk_group": 2,
                    "routed_scaling_factor": 1.5, "first_k_dense_replace": 2, "rope_scaling": {"type": "yarn", "factor": 4.0}},
    "gpt_oss": {"hidden_size": 64, "num_hidden_layers": 5, "num_attention_heads": 4, "num_key_value_heads": 2,
                "head_dim": None, "sliding_window": 8, "eos_token_id": 4},
}

# Reading keys whose derive expression is not a plain read but whose value the config object holds after
# __init__ for the sample above (the modeling code reads that attribute directly).
COMPUTED_BY_CONFIG = {
    "qwen2": ("layer_types", "num_key_value_heads"),
    "qwen3": ("layer_types", "sliding_window"),
    "gemma2": ("layer_types", "sliding_window"),
    "gemma3_text": ("layer_types", "sliding_window"),
    "qwen2_moe": ("sliding_window",),
    "qwen3_moe": ("sliding_window",),
    "phi3": ("num_key_value_heads",),
    "olmo2": ("num_key_value_heads",),
    "gpt_oss": ("head_dim", "layer_types", "sliding_window", "attention_bias"),
}

SCRIPT = r'''
import importlib.util, inspect, json, sys
from transformers import CONFIG_MAPPING

def jsonable(value):
    try:
        json.dumps(value)
        return value
    except TypeError:
        return repr(value)

out = {}
for family, spec in json.load(sys.stdin).items():
    cls = CONFIG_MAPPING[family]
    signature = {
        name: ("<required>" if p.default is inspect.Parameter.empty else jsonable(p.default))
        for name, p in inspect.signature(cls.__init__).parameters.items()
        if p.kind is p.KEYWORD_ONLY or p.kind is p.POSITIONAL_OR_KEYWORD
    }
    signature.pop("self", None)
    config = cls(**json.loads(json.dumps(spec["sample"])))
    absent = "<absent>"
    attributes = {name: jsonable(getattr(config, name, absent)) for name in spec["names"]}
    nested = cls(rope_parameters={"rope_theta": 123.0, "rope_type": "linear", "factor": 2.0})
    ignored = {"rope_theta": nested.rope_theta, "rope_scaling": getattr(nested, "rope_scaling", None),
               "rope_parameters": nested.rope_parameters}
    init = inspect.getsource(cls.__init__)
    validates, rope = init.find("layer_type_validation("), init.find("rope_config_validation(")
    modeling = open(importlib.util.find_spec(cls.__module__.replace(".configuration_", ".modeling_")).origin).read()  # no torch here
    out[family] = {"class": cls.__name__, "signature": signature, "attributes": attributes, "nested": ignored,
                   "has_layer_types": hasattr(cls(), "layer_types"), "validates_layer_types": validates >= 0,
                   "layer_types_before_rope": validates >= 0 and (rope < 0 or validates < rope),
                   "indexes_layer_types": "config.layer_types[layer_idx]" in modeling}
from transformers import configuration_utils
out["<allowed layer types>"] = list(configuration_utils.ALLOWED_LAYER_TYPES)
print(json.dumps(out))
'''

ABSENT = "<absent>"


def names_of(entry) -> set[str]:
    """Every name the entry's expressions read, plus its fields and the reading keys it derives."""
    names = set(entry.fields) | set(entry.derive)
    for text in entry.derive.values():
        names |= {n.id for n in ast.walk(ast.parse(text, mode="eval")) if isinstance(n, ast.Name)}
    return names


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> dict:
    python = runtime_python("transformers4", ["transformers==4.57.6"])
    script = tmp_path_factory.mktemp("tf4") / "signatures.py"
    script.write_text(SCRIPT)
    request = {e.family: {"sample": SAMPLES.get(e.family, {}), "names": sorted(names_of(e))} for e in ENTRIES}
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env.update({"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "PYTHONNOUSERSITE": "1"})
    done = subprocess.run([str(python), str(script)], input=json.dumps(request), capture_output=True, text=True,
                          env=env, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def env_of(entry) -> dict:
    """What the kwargs reader parses from the sample: the fields' defaults, then every key of the file."""
    env = {name: f.default for name, f in entry.fields.items() if f.default is not REQUIRED}
    env.update(json.loads(json.dumps(SAMPLES.get(entry.family, {}))))
    return env


def test_every_family_has_a_sample():
    assert {e.family for e in ENTRIES} <= set(SAMPLES)


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.family)
def test_fields_are_arguments_with_the_class_defaults(entry, installed):
    assert entry.runtime == "transformers-4" and entry.reader == "kwargs"
    signature = installed[entry.family]["signature"]
    order = [name for name in signature if name in entry.fields]
    assert order == list(entry.fields), f"{entry.family}: fields are not in signature order"
    for name, spec in entry.fields.items():
        assert name in signature, f"{entry.family}: {name} is not an argument of {installed[entry.family]['class']}"
        assert spec.default == signature[name], (entry.family, name, spec.default, signature[name])


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.family)
def test_plain_reads_match_the_built_config(entry, installed):
    attributes = installed[entry.family]["attributes"]
    env = env_of(entry)
    keys = {k for k, text in entry.derive.items() if isinstance(ast.parse(text, mode="eval").body, ast.Name)}
    keys |= {k for k in entry.fields if k not in entry.derive}
    keys |= set(COMPUTED_BY_CONFIG.get(entry.family, ()))
    for key in sorted(keys):
        text = entry.derive.get(key, key)
        if key == "num_key_value_heads" and key not in entry.derive:
            text = "num_key_value_heads if num_key_value_heads is not None else num_attention_heads"
        node = ast.parse(text, mode="eval").body
        # a plain read is checked on the attribute it reads; a computed key on the attribute of its own name
        attribute = attributes.get(node.id if isinstance(node, ast.Name) else key, ABSENT)
        if attribute == ABSENT:  # e.g. eos_token_id is kept only when given; the expression then reads None
            attribute = None
        predicted = evaluate(text, env)
        if key == "rope_scaling" and isinstance(attribute, dict):
            continue  # the named RoPE reading owns it; __init__ rewrites the dict (type -> rope_type)
        assert predicted == attribute, (entry.family, key, text, predicted, attribute)


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.family)
def test_rope_parameters_is_ignored(entry, installed):
    """family-facts 1.1: 4.57.6 keeps rope_parameters as an inert attribute; theta stays the class default."""
    nested = installed[entry.family]["nested"]
    assert "rope_parameters" not in installed[entry.family]["signature"]
    assert nested["rope_parameters"] == {"rope_theta": 123.0, "rope_type": "linear", "factor": 2.0}
    assert nested["rope_theta"] == entry.fields["rope_theta"].default
    assert nested["rope_scaling"] == (entry.fields["rope_scaling"].default if "rope_scaling" in entry.fields else None)


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.family)
def test_the_classes_holding_layer_types_are_the_ones_known(entry, installed):
    """generate()'s cache takes a config's layer_types where the class holds them (CONFIG_LAYER_TYPES)."""
    from cfglint.knowledge.transformers4 import CONFIG_LAYER_TYPES

    assert installed[entry.family]["has_layer_types"] == (entry.family in CONFIG_LAYER_TYPES)


def test_the_layer_types_4_57_validates_and_when(installed):
    """layer_type_validation: the classes whose __init__ runs it, the ones that run it before
    rope_config_validation, and the types it takes (configuration_utils.ALLOWED_LAYER_TYPES); and the classes
    whose modeling indexes layer_types per layer without it."""
    from cfglint.knowledge.transformers4 import ALLOWED_LAYER_TYPES, INDEXES_LAYER_TYPES, LAYER_TYPES_BEFORE_ROPE, VALIDATES_LAYER_TYPES

    families = {name: found for name, found in installed.items() if not name.startswith("<")}
    assert {f for f, found in families.items() if found["validates_layer_types"]} == VALIDATES_LAYER_TYPES
    assert {f for f, found in families.items() if found["layer_types_before_rope"]} == LAYER_TYPES_BEFORE_ROPE
    assert tuple(installed["<allowed layer types>"]) == ALLOWED_LAYER_TYPES
    unvalidated = {f for f, found in families.items() if found["indexes_layer_types"] and not found["validates_layer_types"]}
    assert unvalidated == INDEXES_LAYER_TYPES
