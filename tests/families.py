"""Generated configs for every non-Llama family cfglint models: both layouts and the cases runtimes split on.

Each family has a tiny base (the dimensions of a test checkpoint, every family key kept) and variants in the
transformers 4 layout; `resaved()` turns a variant into what real transformers 5 writes for it. Shared by the
intent, fix and conformance tests so that each claim is checked on the same inputs.
"""

from __future__ import annotations

import copy
import json
import tempfile
from pathlib import Path

from cfglint.compat import FAMILY_BASES as BASES  # the README's family table is built from the same configs

# phi3's longrope factors: one per rotary frequency (head_dim 16 / 2).
_LONGROPE = {"type": "longrope", "short_factor": [1.0] * 8, "long_factor": [2.0] * 8}
SCALINGS = {
    "linear": {"rope_type": "linear", "factor": 2.0},
    "yarn": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 64},
    "dynamic": {"rope_type": "dynamic", "factor": 2.0},
}


CLASS_DEFAULTED = ("max_position_embeddings", "rms_norm_eps", "num_key_value_heads")


def variants(family: str) -> dict[str, dict]:
    """The family's variants in the transformers 4 layout (top-level rope_theta / rope_scaling)."""
    base = BASES[family]
    out = {"base": copy.deepcopy(base)}
    no_theta = copy.deepcopy(base)
    no_theta.pop("rope_theta")
    out["theta-absent"] = no_theta
    if family == "phi3":
        out["longrope"] = dict(copy.deepcopy(base), rope_scaling=copy.deepcopy(_LONGROPE), max_position_embeddings=512)
    elif family == "gemma3_text":
        out["linear"] = dict(copy.deepcopy(base), rope_scaling=copy.deepcopy(SCALINGS["linear"]))
        # the legacy key alone: Gemma3TextConfig keeps its default rope_type over it, transformers 4 runs it
        out["linear-legacy-type"] = dict(copy.deepcopy(base), rope_scaling={"type": "linear", "factor": 2.0})
    else:
        out.update({kind: dict(copy.deepcopy(base), rope_scaling=copy.deepcopy(s)) for kind, s in SCALINGS.items()})
    if family in ("qwen2", "qwen3", "qwen2_moe"):
        out["sliding-on"] = dict(copy.deepcopy(base), use_sliding_window=True, sliding_window=32)
    if family in ("mistral", "mixtral", "phi3"):
        out["sliding-window"] = dict(copy.deepcopy(base), sliding_window=32)
    if family == "gemma":
        out["gelu"] = dict(copy.deepcopy(base), hidden_act="gelu")
    if family == "gpt_oss":
        out["unscaled"] = {k: v for k, v in copy.deepcopy(base).items() if k != "rope_scaling"}
        out["layer-types-absent"] = {k: v for k, v in copy.deepcopy(base).items() if k != "layer_types"}
    if family.startswith("deepseek"):
        out["unscaled"] = {k: v for k, v in copy.deepcopy(base).items() if k != "rope_scaling"}
        out["q-lora-bias"] = dict(copy.deepcopy(base), q_lora_rank=24, attention_bias=True)
        out["moe-every-second"] = dict(copy.deepcopy(base), first_k_dense_replace=0, moe_layer_freq=2)
    if family == "mistral":
        out["head-dim-null"] = dict(copy.deepcopy(base), head_dim=None)
        # AutoConfig builds these as Ministral: a window per layer, or on every layer for a null list
        out["layer-types"] = dict(copy.deepcopy(base), sliding_window=32, layer_types=["full_attention", "sliding_attention"] * 2)
        out["layer-types-null"] = dict(copy.deepcopy(base), sliding_window=32, layer_types=None)
    if family == "ministral":
        out["head-dim-absent"] = {k: v for k, v in copy.deepcopy(base).items() if k != "head_dim"}
        out["layer-types-null"] = dict(copy.deepcopy(base), layer_types=None)
    tie_absent = copy.deepcopy(base)
    tie_absent.pop("tie_word_embeddings")
    out["tie-absent"] = tie_absent
    # Keys the config class defaults (AutoConfig fills them; the Rust and dataclass readers may not).
    out["defaults-absent"] = {k: v for k, v in copy.deepcopy(base).items() if k not in CLASS_DEFAULTED}
    return out


def without_rope(family: str) -> tuple[dict, object]:
    """The family's base (Llama's too) without its RoPE keys and head_dim, and the theta it had."""
    from cfglint.compat import BASE

    base = copy.deepcopy(BASE if family == "llama" else BASES[family])
    for key in ("rope_scaling", "rope_parameters", "head_dim"):
        base.pop(key, None)
    return base, base.pop("rope_theta", 10000.0)


def resaved(config: dict) -> dict:
    """What transformers 5 writes for `config`: AutoConfig.from_pretrained, then save_pretrained."""
    from transformers import AutoConfig

    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "config.json").write_text(json.dumps(config))
        AutoConfig.from_pretrained(folder).save_pretrained(folder)
        return json.loads((Path(folder) / "config.json").read_text())


def conflicting(resaved_config: dict) -> dict:
    """A transformers 5 file with a stale top-level rope_theta beside the nested one."""
    out = copy.deepcopy(resaved_config)
    out["rope_theta"] = 12345.0
    return out


# A multimodal Gemma 3 file: the text model's config under text_config, a tiny vision tower beside it.
VISION = {"model_type": "siglip_vision_model", "hidden_size": 16, "intermediate_size": 32, "num_hidden_layers": 1,
          "num_attention_heads": 2, "image_size": 28, "patch_size": 14, "vision_use_head": False}


def multimodal(text_config: dict) -> dict:
    text = {k: v for k, v in text_config.items() if k not in ("architectures", "bos_token_id", "eos_token_id")}
    return {"architectures": ["Gemma3ForConditionalGeneration"], "model_type": "gemma3", "mm_tokens_per_image": 4,
            "boi_token_index": 3, "eoi_token_index": 4, "image_token_index": 5, "eos_token_id": [1, 2],
            "text_config": text, "vision_config": dict(VISION)}


def all_cases(with_resaved: bool = True) -> dict[str, dict]:
    out: dict[str, dict] = {}
    text_untied = dict(variants("gemma3_text")["base"], tie_word_embeddings=False)
    for name, text in (*((n, variants("gemma3_text")[n]) for n in ("base", "linear", "theta-absent")),
                       ("text-untied", text_untied)):  # the wrapper ties by its own default (true) all the same
        config = multimodal(text)
        out[f"gemma3/tf4-{name}"] = config
        if with_resaved:
            out[f"gemma3/tf5-{name}"] = resaved(config)
    for family in BASES:
        for name, config in variants(family).items():
            out[f"{family}/tf4-{name}"] = config
            if with_resaved:
                saved = resaved(config)
                out[f"{family}/tf5-{name}"] = saved
                if name == "base":
                    out[f"{family}/tf5-conflicting-theta"] = conflicting(saved)
    return out
