"""The intent for every family against real transformers 5: its config class's defaults, and the model it
builds from each generated variant (head size, attention scale, window per layer, biases, activation, tie,
RoPE), observed on the built modules rather than assumed."""

from __future__ import annotations

import dataclasses
import json
import re

import pytest

from cfglint.intent import intent_of
from cfglint.knowledge.transformers5 import CAUSAL_LM, ENTRIES, FAMILIES, RETYPED
from cfglint.reading import same
from tests.families import BASES, all_cases

CASES = all_cases()
# Gemma 3 merges a legacy rope_scaling into full attention's parameters with dict.update, which takes a list of
# key-value pairs as well as a dict (its own rope_type stays over a legacy `type` either way).
CASES.update({
    f"gemma3_text/tf4-{name}-as-pairs": dict(BASES["gemma3_text"], rope_scaling=pairs) for name, pairs in (
        ("linear", [["rope_type", "linear"], ["factor", 2.0]]),
        ("legacy-type", [["type", "linear"], ["factor", 2.0]]),
        ("factor-only", [["factor", 2.0]]),
    )
})

# transformers' activation classes, by the name a config gives them
ACTIVATIONS = {"SiLUActivation": "silu", "SiLU": "silu", "GELUActivation": "gelu", "GELUTanh": "gelu_pytorch_tanh",
               "PytorchGELUTanh": "gelu_pytorch_tanh", "GELUPytorchTanh": "gelu_pytorch_tanh"}


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.family)
def test_defaults_are_the_config_class_defaults(entry):
    from transformers import CONFIG_MAPPING

    cls = CONFIG_MAPPING[entry.family]
    declared = {f.name: f.default for f in dataclasses.fields(cls)}
    for key, spec in entry.fields.items():
        if key in ("rope_theta", "rope_local_base_freq"):  # the class's default_theta, not a field
            theta = cls.default_theta if hasattr(cls, "default_theta") else 10000.0
            want = theta.get("global" if key == "rope_theta" else "local") if isinstance(theta, dict) else theta
            assert spec.default == want, (key, spec.default, want)
            continue
        if key == "sliding_window_pattern":  # read from kwargs in __post_init__
            continue
        if key == "rope_parameters":  # None in the class; __post_init__ puts the family's own in
            assert spec.default == {k: v for k, v in cls().rope_parameters.items() if k != "rope_theta"}
            continue
        assert key in declared, f"{entry.family}: {key} is not a field of {cls.__name__}"
        assert spec.default == declared[key], (key, spec.default, declared[key])


def observed(config: dict, tmp_path) -> dict:
    """What transformers 5 builds: read off the model's modules and the config object it used."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    (tmp_path / "config.json").write_text(json.dumps(config))
    whole = AutoConfig.from_pretrained(tmp_path)
    cfg = getattr(whole, "text_config", None) or whole  # a multimodal file: its text model
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_config(cfg)
    layers = model.model.layers
    attention = layers[0].self_attn
    q = getattr(attention, "q_proj", None) or getattr(attention, "q_a_proj", None) or attention.qkv_proj
    bias_qkv, bias_o = q.bias is not None, attention.o_proj.bias is not None
    mlp = layers[0].mlp
    act = getattr(mlp, "act_fn", None) or getattr(mlp, "activation_fn", None)
    if act is None and hasattr(mlp.experts, "alpha"):  # gpt-oss: its clamped GLU, by its constants
        act = "swiglu_oai" if (mlp.experts.alpha, mlp.experts.limit) == (1.702, 7.0) else None
    elif act is None:  # a mixture of experts: the experts' activation
        experts = mlp.experts
        act = getattr(experts, "act_fn", None) or experts[0].act_fn
    window = getattr(cfg, "sliding_window", None)
    if getattr(cfg, "layer_types", None) is not None:  # the masks are built per layer type
        windows = [window if kind == "sliding_attention" else None for kind in cfg.layer_types]
    else:  # one mask for every layer
        windows = [window] * len(layers)
    if all(w is None for w in windows):
        window = None
    params = cfg.rope_parameters
    full = params.get("full_attention", params)
    out = {
        "rope_theta": full["rope_theta"],
        "rope_scaling": None if full.get("rope_type", "default") == "default" else {k: v for k, v in full.items() if k != "type"},
        "head_dim": getattr(attention, "head_dim", None),
        "num_key_value_heads": cfg.num_key_value_heads,
        "tie_word_embeddings": model.lm_head.weight.data_ptr() == model.model.embed_tokens.weight.data_ptr(),
        "hidden_act": act if isinstance(act, str) or act is None else ACTIVATIONS[type(act).__name__],
        "attention_bias": True if bias_o else ("q/k/v" if bias_qkv else False),
        "max_position_embeddings": cfg.max_position_embeddings,
        "rms_norm_eps": cfg.rms_norm_eps,
        "eos_token_id": cfg.eos_token_id,
        "sliding_window": window,
        "layer_types": ["sliding_attention" if w is not None else "full_attention" for w in windows],
        "query_pre_attn_scalar": attention.scaling ** -2,
    }
    if hasattr(attention, "kv_b_proj"):  # multi-head latent attention: the head sizes off the projections
        out.update(mla_observed(attention))
        del out["head_dim"]
        out.update(moe_observed(cfg, layers))
    elif any(hasattr(layer.mlp, "experts") for layer in layers) and not hasattr(mlp, "router"):
        # Qwen-MoE and Mixtral: the experts per token, off the first router (a layer may be a dense MLP)
        out["num_experts_per_tok"] = next(layer.mlp.gate.top_k for layer in layers if hasattr(layer.mlp, "experts"))
    if hasattr(mlp, "router"):  # gpt-oss: every layer's experts, off the router
        out.update({"n_routed_experts": mlp.router.num_experts, "num_experts_per_tok": mlp.router.top_k,
                    "mlp_layers": ["moe" if hasattr(layer.mlp, "experts") else "dense" for layer in layers],
                    "mlp_bias": mlp.router.bias is not None and mlp.experts.gate_up_proj_bias is not None})
    if whole is not cfg:  # a multimodal model ties by its own config: built whole
        from transformers import AutoModelForImageTextToText

        wrapper = AutoModelForImageTextToText.from_config(whole)
        out["tie_word_embeddings"] = wrapper.get_output_embeddings().weight.data_ptr() == wrapper.get_input_embeddings().weight.data_ptr()
    if "sliding_attention" in params:
        out["rope_local_base_freq"] = params["sliding_attention"]["rope_theta"]
    if "partial_rotary_factor" in full:
        out["partial_rotary_factor"] = full["partial_rotary_factor"]
    for key in ("attn_logit_softcapping", "final_logit_softcapping"):
        if hasattr(cfg, key):
            out[key] = getattr(cfg, key)
    # Granite's scales, off the modules that apply them
    if hasattr(model.model, "embedding_multiplier"):
        out["embedding_multiplier"] = model.model.embedding_multiplier
        out["residual_multiplier"] = layers[0].residual_multiplier
        out["logits_scaling"] = cfg.logits_scaling
    return out


def mla_observed(attention) -> dict:
    """DeepSeek's MLA: every size read off a projection's shape."""
    heads = attention.o_proj.in_features // attention.v_head_dim
    q_out = (getattr(attention, "q_b_proj", None) or attention.q_proj).out_features
    rope = attention.kv_a_proj_with_mqa.out_features - attention.kv_a_layernorm.weight.shape[0]
    kv_b = attention.kv_b_proj.out_features // heads  # qk_nope + v per head
    return {
        "qk_head_dim": q_out // heads,
        "qk_rope_head_dim": rope,
        "v_head_dim": attention.o_proj.in_features // heads,
        "kv_lora_rank": attention.kv_b_proj.in_features,
        "q_lora_rank": attention.q_b_proj.in_features if getattr(attention, "q_b_proj", None) is not None else None,
        "num_key_value_heads": attention.kv_b_proj.out_features // kv_b,
    }


def moe_observed(cfg, layers) -> dict:
    """Which layers hold experts, and how the first of them routes (off its router and expert modules)."""
    kinds = ["moe" if hasattr(layer.mlp, "experts") else "dense" for layer in layers]
    out: dict = {"mlp_layers": kinds}
    if "moe" in kinds:
        mlp = layers[kinds.index("moe")].mlp
        gate = mlp.gate
        shared = getattr(mlp, "shared_experts", None)
        out.update({
            "n_routed_experts": mlp.experts.num_experts,
            "n_shared_experts": shared.down_proj.in_features // cfg.moe_intermediate_size if shared is not None else None,
            "num_experts_per_tok": gate.top_k,
            # DeepSeek-V3's router has no method: sigmoid scores with a correction bias ("noaux_tc")
            "topk_method": "noaux_tc" if hasattr(gate, "e_score_correction_bias") else gate.topk_method,
            "n_group": getattr(gate, "num_group", getattr(gate, "n_group", None)),
            "topk_group": gate.topk_group,
            "routed_scaling_factor": gate.routed_scaling_factor,
        })
    return out


# transformers 5.24 cannot build these: Mixtral's head_dim defaults to None, and the dynamic and YaRN RoPE
# initialisers multiply it (`int(head_dim * partial_rotary_factor)` in modeling_rope_utils.py).
BUILD_FAILURES = {f"mixtral/tf{v}-{kind}": "unsupported operand type(s) for *: 'NoneType' and 'float'" for v in (4, 5) for kind in ("dynamic", "yarn")}
# MinistralConfig keeps a null head_dim, and its attention's scale is `head_dim**-0.5`.
BUILD_FAILURES.update({f"ministral/tf{v}-head-dim-absent": "unsupported operand type(s) for ** or pow(): 'NoneType' and 'float'" for v in (4, 5)})


def built_family(config: dict) -> str:
    """The family AutoConfig builds: a "mistral" file with layer_types is a Ministral (RETYPED)."""
    return "ministral" if config["model_type"] == "mistral" and "layer_types" in config else config["model_type"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_intent_is_what_transformers5_builds(name, tmp_path):
    config = CASES[name]
    intent = intent_of(config)
    assert intent.family == built_family(config) or intent.root == "/text_config"
    if name in BUILD_FAILURES:
        with pytest.raises(TypeError, match=re.escape(BUILD_FAILURES[name])):
            observed(config, tmp_path)
        return
    actual = observed(config, tmp_path)
    for key, theirs in actual.items():
        assert key in intent.values, f"the intent has no {key}"
        ours = intent.values[key]
        if key == "rope_scaling" and isinstance(ours, dict) and isinstance(theirs, dict):
            theirs = {k: v for k, v in theirs.items() if k not in ("rope_theta", "type", "partial_rotary_factor")}
        assert same(key, ours, theirs), (key, ours, theirs)


def test_a_wrapper_ties_by_its_own_fields_default():
    """WRAPPER_TIE is the wrapper config class's own default (the multimodal tie cases build the model)."""
    from transformers import CONFIG_MAPPING

    from cfglint.knowledge.transformers5 import MULTIMODAL, WRAPPER_TIE

    assert set(WRAPPER_TIE) == set(MULTIMODAL)
    for kind, tie in WRAPPER_TIE.items():
        assert {f.name: f.default for f in dataclasses.fields(CONFIG_MAPPING[kind])}["tie_word_embeddings"] is tie


def test_every_family_has_variants():
    from cfglint.knowledge.transformers5 import MULTIMODAL

    assert {name.split("/")[0] for name in CASES} == set(FAMILIES) | set(MULTIMODAL)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_the_readme_tables_transformers5_layout_is_what_transformers5_writes(family):
    from cfglint.compat import FAMILY_BASES, tf5_layout
    from tests.families import resaved

    ours, real = tf5_layout(FAMILY_BASES[family]), resaved(FAMILY_BASES[family])
    for key in ("rope_theta", "rope_local_base_freq", "rope_scaling"):
        assert (key in ours) == (key in real), key
    assert ours["rope_parameters"] == real["rope_parameters"]
    assert ours.get("sliding_window") == real.get("sliding_window")


@pytest.mark.parametrize("top_level", [None, 128], ids=["absent", "128"])
@pytest.mark.parametrize("family", sorted(set(FAMILIES) | {"llama"}))
def test_the_original_context_is_where_transformers5_takes_it(family, top_level, tmp_path):
    """A top-level original_max_position_embeddings beside nested YaRN (longrope for Phi-3) parameters: the
    config class reads it only where it declares the field, so the nested 64 or max_position_embeddings wins
    elsewhere."""
    from transformers import AutoConfig

    from tests.families import BASES
    from tests.family import BASE

    config = {k: v for k, v in (BASES.get(family) or dict(BASE, model_type="llama")).items() if k not in ("rope_scaling", "original_max_position_embeddings")}
    kind = "longrope" if family == "phi3" else "yarn"
    half = config.get("head_dim") or config.get("qk_rope_head_dim") or config["hidden_size"] // config["num_attention_heads"]
    extra = {"short_factor": [1.0] * (half // 2), "long_factor": [2.0] * (half // 2)} if kind == "longrope" else {"factor": 4.0}
    scaling = {"rope_type": kind, "original_max_position_embeddings": 64, "rope_theta": 10000.0, **extra}
    for nested in (scaling, {k: v for k, v in scaling.items() if k != "original_max_position_embeddings"}):
        params = {"full_attention": nested, "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0}} if family == "gemma3_text" else nested
        written = dict(config, rope_parameters=params) | ({} if top_level is None else {"original_max_position_embeddings": top_level})
        (tmp_path / "config.json").write_text(json.dumps(written))
        params = AutoConfig.from_pretrained(tmp_path).rope_parameters
        theirs = params.get("full_attention", params)["original_max_position_embeddings"]
        assert intent_of(written).values["rope_scaling"]["original_max_position_embeddings"] == theirs, (nested, theirs)


@pytest.mark.parametrize("kind", sorted(RETYPED))
def test_autoconfig_builds_a_retyped_file_as_another_family(kind, tmp_path):
    """RETYPED: the installed AutoConfig builds the family it names once the file holds the key (null too), and
    saves it back as that family; the intent is that family's, the runtimes that read model_type themselves
    keep the one the file names."""
    from transformers import AutoConfig

    other, key = RETYPED[kind]
    base = {k: v for k, v in BASES[kind].items() if k != key}
    for config, expected in ((base, kind), (dict(base, **{key: None}), other), (dict(base, **{key: ["full_attention"] * 4}), other)):
        (tmp_path / "config.json").write_text(json.dumps(config))
        built = AutoConfig.from_pretrained(tmp_path)
        assert built.model_type == expected
        built.save_pretrained(tmp_path / "saved")
        assert json.loads((tmp_path / "saved" / "config.json").read_text())["model_type"] == expected
        intent = intent_of(config)
        assert (intent.family, intent.named_family, intent.model_type) == (expected, kind, kind)


def test_the_causal_lm_classes_are_transformers5s():
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES

    assert set(CAUSAL_LM) == {family for kind, (built, _) in RETYPED.items() for family in (kind, built)}
    assert CAUSAL_LM == {family: MODEL_FOR_CAUSAL_LM_MAPPING_NAMES[family] for family in CAUSAL_LM}
