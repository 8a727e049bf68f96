"""Probe: what a transformers 4.x config object holds for model directories of any family (config only).

Usage: python transformers4_family_probe.py MODEL_DIR [MODEL_DIR ...]

The transformers 4 venv has no torch, so no model is built: every value is an attribute of the config
object `AutoConfig.from_pretrained` returns, never one computed from expectation. RoPE is read the way
4.x modeling reads it (`rope_theta`, `rope_scaling`; a 5.x `rope_parameters` is inert), as in
transformers_config.py. `hidden_act` is the attribute named in the installed modeling file's
`ACT2FN[config.<name>]` (gemma2/gemma3 read `hidden_activation`). `head_dim` is
`getattr(config, "head_dim", None) or hidden // heads`, as the modeling code computes it.
Not observed (they live in the modeling code, not the config object): the attention biases of families
without an `attention_bias` attribute, `attn_logit_softcapping` (the default sdpa attention ignores it),
and the attention scale of families without `query_pre_attn_scalar`.
Prints one JSON object {"results": {MODEL_DIR: {outcome, message, values}}} and exits 0.
"""

from __future__ import annotations

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


def main(argv: list[str]) -> int:
    json_out = reserve_stdout_for_json()
    import transformers
    from transformers_config import _scaling_or_none

    results = {}
    for model_dir in argv:
        result = {"outcome": "loads", "message": None, "values": {}}
        try:
            config = transformers.AutoConfig.from_pretrained(model_dir, local_files_only=True)
        except Exception as exc:  # the failure to load is the observation, not a probe bug
            result["outcome"] = "error"
            result["message"] = one_line(exc)
        else:
            # 4.x rotary embeddings: `rope_scaling` when the class has it (hasattr check), else default.
            scaling = dict(getattr(config, "rope_scaling", None) or {})
            scaling.pop("rope_theta", None)
            values = {"rope_theta": float(config.rope_theta), "rope_scaling": _scaling_or_none(scaling)}
            values["head_dim"] = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
            for name in _ATTRIBUTES:
                if hasattr(config, name):
                    values[name] = getattr(config, name)
            act = _activation_attribute(config)
            if act is not None and hasattr(config, act):
                values["hidden_act"] = getattr(config, act)
                values["hidden_act_attribute"] = act
            result["values"] = values
        results[model_dir] = result
    payload = {"runtime": "transformers4", "version": transformers.__version__, "results": results}
    json_out.write(json.dumps(payload, default=str) + "\n")
    json_out.flush()
    return 0


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
