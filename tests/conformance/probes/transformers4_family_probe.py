"""Probe: what transformers 4.x reads of model directories of any family, and whether their model builds its RoPE.

Usage: python transformers4_family_probe.py [--generate] MODEL_DIR [MODEL_DIR ...]

Every value is an attribute of the config object `AutoConfig.from_pretrained` returns, never one computed
from expectation. RoPE is read the way 4.x modeling reads it (`rope_theta`, `rope_scaling`; a 5.x
`rope_parameters` is inert), as in transformers_config.py. `hidden_act` is the attribute named in the
installed modeling file's `ACT2FN[config.<name>]` (gemma2/gemma3 read `hidden_activation`). `head_dim` is
the `head_dim` attribute of the first layer's attention, built from that config (torch is installed beside
transformers) as the model builds it, and what building it raises is the outcome (a null or 0 head_dim that
its scale divides by, a negative one no projection has); a family whose attention keeps no head_dim (DeepSeek's
latent attention) reports `getattr(config, "head_dim", None) or hidden // heads`.
Then the family's RotaryEmbedding is built from that config, as its base model's `__init__` builds it after
the layers (the class its `<Family>ForCausalLM` names): the type's init function runs, and what it raises
is the outcome (an unbuilt rope type, a key the config class did not require, a None head_dim).
With --generate, a model that builds is then built whole (seeded weights), what building a later layer raises
being the outcome, and made to generate two greedy tokens after a three-token prompt, whatever they are;
what that raises is the outcome, its message led by "at generation: ".
Not observed (they live in the modeling code, not the config object): the attention biases of families
without an `attention_bias` attribute, `attn_logit_softcapping` (the default sdpa attention ignores it),
and the attention scale of families without `query_pre_attn_scalar`.
Prints one JSON object {"results": {MODEL_DIR: {outcome, message, values}}} and exits 0.
"""

from __future__ import annotations

import importlib
import inspect
import json
import re
import sys
from pathlib import Path

from probe_io import one_line, reserve_stdout_for_json

_ATTRIBUTES = (
    "num_key_value_heads", "tie_word_embeddings", "max_position_embeddings", "rms_norm_eps", "eos_token_id",
    "rope_local_base_freq", "partial_rotary_factor", "sliding_window", "layer_types", "query_pre_attn_scalar",
    "final_logit_softcapping", "attention_bias", "mlp_bias",
)  # fmt: skip
_BIASES = ("attention_bias", "mlp_bias")


def main(argv: list[str]) -> int:
    json_out = reserve_stdout_for_json()
    import transformers
    from transformers_config import _scaling_or_none

    generating = "--generate" in argv
    results = {}
    for model_dir in [a for a in argv if a != "--generate"]:
        result = {"outcome": "loads", "message": None, "values": {}}
        try:
            # a multimodal file's text model: its language model is built from it, and 4.57 ties by its tie
            config = transformers.AutoConfig.from_pretrained(model_dir, local_files_only=True).get_text_config(decoder=True)
        except Exception as exc:  # the failure to load is the observation, not a probe bug
            result["outcome"] = "error"
            result["message"] = one_line(exc)
        else:
            # 4.x rotary embeddings: a dict `rope_scaling` when the class has it (hasattr check), else default.
            held = getattr(config, "rope_scaling", None)
            scaling = dict(held) if isinstance(held, dict) else {}
            scaling.pop("rope_theta", None)
            theta = config.rope_theta  # a number as a float; another type as the config holds it
            theta = float(theta) if isinstance(theta, (int, float)) and not isinstance(theta, bool) else theta
            values = {"rope_theta": theta, "rope_scaling": _scaling_or_none(scaling)}
            attention = _built(config, "Attention", layer_idx=0)
            head_dim = getattr(attention, "head_dim", None) if not isinstance(attention, str) else None
            values["head_dim"] = head_dim if head_dim is not None else getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
            declared = inspect.signature(type(config).__init__).parameters
            for name in _ATTRIBUTES:
                # A bias flag the class does not declare is a kwarg it keeps and its model never reads.
                if hasattr(config, name) and (name not in _BIASES or name in declared):
                    values[name] = getattr(config, name)
            act = _activation_attribute(config)
            if act is not None and hasattr(config, act):
                values["hidden_act"] = getattr(config, act)
                values["hidden_act_attribute"] = act
            result["values"] = values
            refused = attention if isinstance(attention, str) else _built(config, "RotaryEmbedding")
            if not isinstance(refused, str) and generating:
                refused = _generation_refusal(config)
            if isinstance(refused, str):
                result.update(outcome="error", message=refused, values={})
        results[model_dir] = result
    payload = {"runtime": "transformers4", "version": transformers.__version__, "results": results}
    json_out.write(json.dumps(payload, default=str) + "\n")
    json_out.flush()
    return 0


def _generation_refusal(config) -> str | None:
    import torch
    import transformers

    torch.manual_seed(0)
    try:
        model = transformers.AutoModelForCausalLM.from_config(config)
    except Exception as exc:  # building a layer after the first: the failure is the observation
        return one_line(exc)
    try:
        with torch.no_grad():
            model.generate(torch.tensor([[1, 2, 3]]), max_new_tokens=2, min_new_tokens=2, do_sample=False)
    except Exception as exc:  # the failure is the observation, not a probe bug
        return "at generation: " + one_line(exc)
    return None


def build_refusal(config) -> str | None:
    """What building the first layer's attention, then the RotaryEmbedding, raises, as a line; None when both
    build (what a model of this config meets first)."""
    for part, kwargs in (("Attention", {"layer_idx": 0}), ("RotaryEmbedding", {})):
        built = _built(config, part, **kwargs)
        if isinstance(built, str):
            return built
    return None


def _built(config, part: str, **kwargs):
    """The family's `<Family><part>` (its Attention, its RotaryEmbedding) built from the text config, or what
    building it raised, as a line (the class its `<Family>ForCausalLM` names)."""
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES

    text = config.get_text_config()
    modeling = importlib.import_module(type(text).__module__.replace(".configuration_", ".modeling_"))
    built = getattr(modeling, MODEL_FOR_CAUSAL_LM_MAPPING_NAMES[text.model_type].removesuffix("ForCausalLM") + part)
    try:
        return built(config=text, **kwargs)
    except Exception as exc:  # the failure to build is the observation, not a probe bug
        return one_line(exc)


def _activation_attribute(config) -> str | None:
    # transformers.models.<module>.configuration_<module> -> that package's modeling_<module>.py
    package = sys.modules[type(config).__module__.rsplit(".", 1)[0]]
    module = type(config).__module__.rsplit(".", 1)[1].removeprefix("configuration_")
    modeling = Path(package.__file__).parent / f"modeling_{module}.py"
    if not modeling.is_file():
        return None
    names = set(re.findall(r"ACT2FN\[config\.(\w+)\]", modeling.read_text(encoding="utf-8")))
    return names.pop() if len(names) == 1 else None


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
