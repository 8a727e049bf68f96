"""A reading of any family transformers 5 has: its own modeling code, run with the config a runtime ends up with.

A runtime's reading is expressed as (1) a transformed config: the reference's config with the reading's
values written into it, (2) patches for what a family's config cannot say (an activation it rewrites on
load, an attention scale it derives), and (3) a tensor filter: biases the runtime does not load are
zeros, a tied head is the embedding. The model is built with its parameters on the meta device and then
given the reference's own tensors, so every reading shares the reference's single copy of the weights.

Before it runs, the built config is read back through cfglint's transformers 5 profile: a value the
modeling code would not compute with (a window the family has no slot for, a RoPE form it rewrites) makes
the reading NotReproducible, named in the report, never silently run as something else.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import torch
from torch import nn

from cfglint.reading import ALL_KEYS, FAMILY_KEYS, same

from .spec import NotReproducible, ReadingError

# Computed from the tensors (the filter) or applied as patches, not read back from the config.
_BY_TENSORS = ("attention_bias", "mlp_bias", "tie_word_embeddings")
_PATCHED = ("hidden_act", "query_pre_attn_scalar")
_INERT = ("eos_token_id",)
# Written into the config as they are, under the same key.
_DIRECT = (
    "head_dim",
    "num_key_value_heads",
    "tie_word_embeddings",
    "rms_norm_eps",
    "sliding_window",
    "layer_types",
    "query_pre_attn_scalar",
    "attn_logit_softcapping",
    "final_logit_softcapping",
    "max_position_embeddings",
    "embedding_multiplier",
    "residual_multiplier",
    "logits_scaling",
    "num_experts_per_tok",
    "qk_rope_head_dim",
    "v_head_dim",
    "kv_lora_rank",
    "q_lora_rank",
    "n_routed_experts",
    "n_shared_experts",
    "topk_method",
    "n_group",
    "topk_group",
    "routed_scaling_factor",
)
# Read by the modeling code straight from the config (MixtralSparseMoeBlock, Qwen2MoeSparseMoeBlock, ...: the
# router's top_k), where the transformers 5 profile states no value of its own.
_FROM_CONFIG = ("num_experts_per_tok",)
# What "the runtime has no such feature" is worth for a key a profile may leave out.
_NEUTRAL = {"partial_rotary_factor": 1.0, "topk_method": "greedy"}  # greedy: experts chosen without groups
# RoPE types whose frequencies depend on the trained context length; YaRN only for what its dict leaves out
# (transformers 5 takes factor from max_position_embeddings / original, and the original context from
# max_position_embeddings, when they are absent).
_NEEDS_CONTEXT = ("dynamic", "longrope")
_YARN_FROM_CONTEXT = ("factor", "original_max_position_embeddings")
# Gemma 3 keeps one RoPE per layer type; its local layers read rope_local_base_freq without scaling.
_FULL, _SLIDING = "full_attention", "sliding_attention"


# What transformers' config validation and modeling code raise on values they do not take: its configs
# validate through huggingface_hub's strict dataclasses, whose errors derive from Exception alone.
_MODEL_ERRORS = (Exception,)


def one_line(err: BaseException) -> str:
    text = " ".join(line.strip() for line in str(err).splitlines() if line.strip())
    return text or type(err).__name__


def _rope_parameters(old: Mapping[str, Any] | None, values: Mapping[str, Any]) -> dict[str, Any]:
    scaling = dict(values.get("rope_scaling") or {})
    rope_type = scaling.pop("rope_type", scaling.pop("type", "default"))
    scaling.pop("rope_theta", None)
    rope = {"rope_type": rope_type, "rope_theta": values["rope_theta"], **scaling}
    old = dict(old or {})
    if _FULL in old or _SLIDING in old:
        return {_FULL: rope, _SLIDING: {"rope_type": "default", "rope_theta": values.get("rope_local_base_freq")}}
    partial = values.get("partial_rotary_factor")
    if "partial_rotary_factor" in old or (partial is not None and partial != 1.0):
        rope["partial_rotary_factor"] = partial if partial is not None else 1.0
    return rope


def transformed_config(reference: Mapping[str, Any], values: Mapping[str, Any]) -> dict[str, Any]:
    """The reference's config dict (transformers 5 layout) with a reading's values written in."""
    from cfglint.knowledge.transformers5 import RETYPED

    out = copy.deepcopy(dict(reference))
    out["rope_parameters"] = _rope_parameters(out.get("rope_parameters"), values)
    # A key whose presence makes AutoConfig build another family (layer_types in a Mistral file) is left out
    # where the reference has none: the window then says the layer types, read back and compared below.
    retyping = RETYPED[out["model_type"]][1] if out.get("model_type") in RETYPED else None
    for key in _DIRECT:
        if key in values and not (key == retyping and key not in out):
            out[key] = values[key]
    if values.get("qk_head_dim") is not None and values.get("qk_rope_head_dim") is not None:
        # The modeling code builds queries and keys qk_nope_head_dim + qk_rope_head_dim wide.
        out["qk_nope_head_dim"] = values["qk_head_dim"] - values["qk_rope_head_dim"]
        out["qk_head_dim"] = values["qk_head_dim"]
    out["hidden_act"] = values["hidden_act"]
    if "hidden_activation" in out:
        out["hidden_activation"] = values["hidden_act"]
    for key in ("attention_bias", "mlp_bias"):
        if key in out and key in values:
            out[key] = bool(values[key])
    return out


def _read_back(config: Mapping[str, Any]) -> dict[str, Any]:
    """What transformers 5 computes with for this config dict, as cfglint's transformers 5 profile reads it."""
    from cfglint import consumers, document
    from cfglint.engine import context_of

    doc = document.parse(Path("config.json"), json.dumps(config, default=str).encode())
    view = context_of(doc, [consumers.get("transformers-5")]).views["transformers-5"]
    if view.message:
        raise NotReproducible(f"transformers 5 cannot load the reading's config: {view.message}")
    return view.values


def _no_sliding_layer(built: Mapping[str, Any]) -> bool:
    return _SLIDING not in (built.get("layer_types") or ())


def _config_for(reference: Mapping[str, Any], values: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The transformed config and what transformers 5 computes with for it."""
    config = transformed_config(reference, values)
    built = _read_back(config)
    for key in _FROM_CONFIG:
        if built.get(key) is None and key in config:
            built[key] = config[key]
    window = reference.get("sliding_window")
    if config.get("sliding_window") is None and window is not None and _no_sliding_layer(built):
        # Gemma 2 builds a sliding mask even when no layer uses it, and needs a window to build it with: the
        # reference's, unused, is only kept when transformers 5 still says no layer slides.
        kept = dict(config, sliding_window=window)
        kept_built = _read_back(kept)
        if _no_sliding_layer(kept_built):
            return kept, {**kept_built, "sliding_window": None}
    return config, built


def _absent_means_none(key: str, value: Any, built: Mapping[str, Any]) -> bool:
    """Whether a profile leaving key out (the runtime has no such feature) computes as `value` does."""
    if key == "layer_types":
        return _no_sliding_layer(built)
    if key == "query_pre_attn_scalar":
        return value is None or same(key, value, built.get("head_dim"))
    return value is None or value == _NEUTRAL.get(key)


def _unsaid(values: Mapping[str, Any], built: Mapping[str, Any]) -> list[str]:
    """Keys a profile leaves out whose value the reference computes with: the reading would be a guess."""
    # A _FROM_CONFIG key a profile leaves out is the file's own value, which the reference config carries.
    out = [key for key in FAMILY_KEYS
           if key not in values and key not in _FROM_CONFIG and not _absent_means_none(key, built.get(key), built)]
    scaling = values.get("rope_scaling") or {}
    kind = scaling.get("rope_type", scaling.get("type"))
    needs_context = kind in _NEEDS_CONTEXT or (kind == "yarn" and any(scaling.get(k) is None for k in _YARN_FROM_CONTEXT))
    if "max_position_embeddings" not in values and needs_context:
        out.append("max_position_embeddings")
    return out


def _unreproduced(values: Mapping[str, Any], built: Mapping[str, Any]) -> list[str]:
    out = []
    for key in ALL_KEYS:
        if key in _BY_TENSORS + _PATCHED + _INERT or key not in values:
            continue
        want, got = values[key], built.get(key)
        if want is None and key in _NEUTRAL:
            want = _NEUTRAL[key]
        if got is None and key in _NEUTRAL:
            got = _NEUTRAL[key]
        if not same(key, want, got):
            out.append(f"{key} {json.dumps(want, default=str)} (the modeling code computes with {json.dumps(got, default=str)})")
    return out


@contextmanager
def _parameters_on_meta() -> Iterator[None]:
    """Build a model whose parameters take no memory while its buffers (RoPE tables, scales) are computed."""
    original = nn.Module.register_parameter

    def register(module: nn.Module, name: str, param: nn.Parameter | None) -> None:
        if param is not None and param.device.type != "meta":
            param = nn.Parameter(param.to("meta"), requires_grad=False)
        original(module, name, param)

    nn.Module.register_parameter = register
    try:
        yield
    finally:
        nn.Module.register_parameter = original


def _bias_source(name: str, values: Mapping[str, Any]) -> str:
    """'load' or 'zeros' for a bias parameter of the built model, by what the reading applies."""
    if ".self_attn." in name:
        applied = values.get("attention_bias", False)
        if applied == "q/k/v":
            return "zeros" if ".o_proj." in name else "load"
        return "load" if applied else "zeros"
    if ".mlp." in name:
        return "load" if values.get("mlp_bias", False) else "zeros"
    return "load"


class ModelLogits:
    """Logits of a transformers model held as self.model, one prompt at a time, without a cache."""

    model: nn.Module

    @torch.inference_mode()
    def logits(self, input_ids: Sequence[int] | torch.Tensor) -> torch.Tensor:
        """Logits of shape [seq, vocab] for one prompt, every position."""
        return run_logits(self.model, input_ids)

    @torch.inference_mode()
    def next_token_logits(self, input_ids: Sequence[int] | torch.Tensor) -> torch.Tensor:
        """Logits of shape [vocab] for the last position only."""
        return run_logits(self.model, input_ids, last_only=True)


class FamilyReading(ModelLogits):
    """transformers 5's model class for the family, computing with a runtime's values over shared tensors."""

    def __init__(self, model_class: Any, reference_config: Mapping[str, Any], values: Mapping[str, Any],
                 tensors: Mapping[str, torch.Tensor], stored: frozenset[str]):
        config_dict, built = _config_for(reference_config, values)
        unsaid = _unsaid(values, built)
        if unsaid:
            raise NotReproducible(f"the runtime's profile does not say which {', '.join(unsaid)} it uses")
        wrong = _unreproduced(values, built)
        if wrong:
            raise NotReproducible(f"{model_class.__name__} cannot compute with {'; '.join(wrong)}")
        try:
            config = model_class.config_class.from_dict(config_dict)
            config._attn_implementation = "eager"
            with _parameters_on_meta():
                self.model = model_class(config).eval()
        except _MODEL_ERRORS as err:
            raise NotReproducible(f"{model_class.__name__} cannot be built with these values: {one_line(err)}") from None
        self._assign(values, tensors, stored)
        self._patch(values, built)

    @torch.inference_mode()
    def logits(self, input_ids: Sequence[int] | torch.Tensor) -> torch.Tensor:
        try:
            return super().logits(input_ids)
        except _MODEL_ERRORS as err:
            # transformers' code refuses the values where the runtime's own may not: not run, with why.
            raise NotReproducible(f"{type(self.model).__name__} fails with these values: {one_line(err)}") from None

    def _assign(self, values: Mapping[str, Any], tensors: Mapping[str, torch.Tensor], stored: frozenset[str]) -> None:
        tie = bool(values["tie_word_embeddings"])
        embed = self.model.get_input_embeddings().weight
        embed_name = next(name for name, p in self.model.named_parameters() if p is embed)
        for module_name, module in self.model.named_modules():
            for leaf, param in list(module._parameters.items()):
                if param is None:
                    continue
                name = f"{module_name}.{leaf}" if module_name else leaf
                if module is self.model.get_output_embeddings() and leaf == "weight" and tie:
                    name = embed_name
                if leaf == "bias" and _bias_source(name, values) == "zeros":
                    tensor = torch.zeros(param.shape, dtype=torch.float32)
                else:
                    tensor = tensors.get(name)
                if tensor is None:
                    raise ReadingError(f"missing tensor {name}")
                if tuple(tensor.shape) != tuple(param.shape):
                    raise ReadingError(f"tensor {name} has shape {tuple(tensor.shape)}, the values imply {tuple(param.shape)}")
                module._parameters[leaf] = nn.Parameter(tensor, requires_grad=False)
        built = {name for name, _ in self.model.named_parameters(remove_duplicate=False)}
        unused = sorted(n for n in stored if n.endswith(".bias") and _bias_source(n, values) == "load" and n not in built)
        if unused:
            raise NotReproducible(f"{type(self.model).__name__} has no place for the stored {unused[0]}, which this runtime applies")

    def _patch(self, values: Mapping[str, Any], built: Mapping[str, Any]) -> None:
        """Set what the config could not say on the modules that compute with it."""
        from transformers.activations import ACT2FN

        changes = {key: values[key] for key in _PATCHED if key in values and not same(key, values[key], built.get(key))}
        if "hidden_act" in changes:
            mlps = [m for m in self.model.modules() if hasattr(m, "act_fn")]
            if not mlps or changes["hidden_act"] not in ACT2FN:
                raise NotReproducible(f"{type(self.model).__name__} cannot apply hidden_act {changes['hidden_act']!r}")
            for mlp in mlps:
                mlp.act_fn = ACT2FN[changes["hidden_act"]]
        if "query_pre_attn_scalar" in changes:
            attentions = [m for m in self.model.modules() if hasattr(m, "scaling") and hasattr(m, "q_proj")]
            if not attentions:
                raise NotReproducible(f"{type(self.model).__name__} has no attention scale to set")
            for attention in attentions:
                attention.scaling = float(changes["query_pre_attn_scalar"]) ** -0.5

    def tensors_in_use(self) -> list[torch.Tensor]:
        return list(self.model.parameters())


def reset_dynamic_rope(model: nn.Module) -> None:
    """Dynamic RoPE keeps the frequencies of the longest sequence seen so far; reset them so every call is
    computed as the prefill of a freshly loaded model."""
    for module in model.modules():
        if "dynamic" in str(getattr(module, "rope_type", "")) and hasattr(module, "original_inv_freq"):
            module.register_buffer("inv_freq", module.original_inv_freq.clone(), persistent=False)
            module.max_seq_len_cached = module.original_max_seq_len


def run_logits(model: nn.Module, input_ids: Sequence[int] | torch.Tensor, last_only: bool = False) -> torch.Tensor:
    """[seq, vocab] logits of one prompt without a cache, or [vocab] for its last position."""
    ids = torch.as_tensor(input_ids, dtype=torch.long).reshape(1, -1)
    reset_dynamic_rope(model)
    if last_only:
        return model(input_ids=ids, use_cache=False, logits_to_keep=1).logits[0, -1]
    return model(input_ids=ids, use_cache=False).logits[0]
