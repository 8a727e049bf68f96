"""A written value of a type gguf-py cannot pack (a string, a list or 1.5 for a uint32, a negative count, a
string for a float32), against the real llama.cpp converter.

GGUFWriter packs each metadata value with struct only when it writes the file, after the vocabulary: the
conversion stops there with struct's words, where cfglint once predicted a load. Where transformers 5
refuses the value first, the conversion stops earlier, in the vocabulary step, for the families whose
vocabulary reads the config (Gemma 2 and Phi-3 read SentencePiece's and go on to the packing); a null
that no add_* call writes is no error, and llama.cpp then runs its own default (rope_theta 10000); true
is packed, and read back, as 1.

The counts (feed-forward length, head counts) are added as a uint32 or as an array: a float or a null
stops the converter as it adds them, before the vocabulary, and an array's items are packed by their
first's type; where Llama permutes q/k and Phi-3 computes its RoPE dimensions, the arithmetic on the count
comes first. The experts' counts are added after the RoPE base, and merged first, as the tensors are
prepared, where the family merges its experts; Granite adds its multipliers when truthy, Olmo2 its window
when the file has one (null included), and then iterates the file's layer_types for the window's pattern;
DeepSeek adds its leading dense block count, q LoRA rank, shared experts' count and routed scaling factor.
"""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from cfglint.compat import BASE as LLAMA_BASE
from tests.conformance.test_families import checkpoint_for, mismatches, predicted, same_words
from tests.families import BASES

# family -> the written keys to spoil (the families' add_* calls: knowledge.llama_cpp.WRITES)
KEYS = {
    "llama": ("max_position_embeddings", "rope_theta", "rms_norm_eps"),
    "qwen2": ("max_position_embeddings", "rope_theta"),
    "gemma2": ("max_position_embeddings", "rms_norm_eps", "sliding_window"),
    "gemma3_text": ("max_position_embeddings", "rope_theta", "sliding_window"),
    "phi3": ("max_position_embeddings", "rope_theta", "rms_norm_eps", "sliding_window"),
}
VALUES = {"negative": -1, "half": 1.5, "string": "x", "null": None, "true": True}
# family -> the counts to spoil, each with COUNT_VALUES (gguf-py's `int | Sequence[int]` adders and
# embedding_length): Gemma 2 reads no config in its vocabulary step, Qwen2 does, after the adding.
COUNT_KEYS = {
    "gemma2": ("hidden_size", "intermediate_size", "num_attention_heads", "num_key_value_heads"),
    "qwen2": ("intermediate_size", "num_key_value_heads"),
    "phi3": ("hidden_size", "num_attention_heads"),
    "llama": ("num_attention_heads", "num_key_value_heads"),
}
COUNT_VALUES = {"negative": -1, "whole": 4.0, "string": "x", "mixed": [4, "x"], "nulls": [None], "true": True}
# family -> the experts' counts (the count merged by, and the count used), each with EXPERT_VALUES
EXPERT_KEYS = {
    "mixtral": ("num_local_experts", "num_experts_per_tok"), "qwen2_moe": ("num_experts", "num_experts_per_tok"),
    "deepseek_v2": ("n_routed_experts", "num_experts_per_tok"), "gpt_oss": ("num_local_experts", "num_experts_per_tok"),
}  # fmt: skip
EXPERT_VALUES = {"negative": -1, "half": 1.5, "string": "x"}
MULTIPLIERS = ("attention_multiplier", "embedding_multiplier", "residual_multiplier", "logits_scaling")
MULTIPLIER_VALUES = {"huge": 1e39, "zero": 0}


def _cases() -> dict[str, dict]:
    out = {}
    for family, keys in KEYS.items():
        base = copy.deepcopy(LLAMA_BASE if family == "llama" else BASES[family])
        for key in keys:
            for name, value in VALUES.items():
                if name == "half" and key in ("rope_theta", "rms_norm_eps"):
                    continue  # 1.5 is a float32's value; the floats' kind is checked with a string
                if (family, key, name) == ("phi3", "sliding_window", "true"):
                    continue  # written as 1, which Phi-3's runtime discards (phi3.cpp) and the probe cannot see
                out[f"{family}-{key}-{name}"] = dict(base, **{key: value})
    for family, keys in COUNT_KEYS.items():
        base = copy.deepcopy(LLAMA_BASE if family == "llama" else BASES[family])
        for key in keys:
            for name, value in COUNT_VALUES.items():
                if (family, name) == ("llama", "negative"):
                    continue  # torch refuses the permutation's shape, in words that depend on the tensor's rows
                if (family, name) == ("phi3", "true"):
                    continue  # written as 1, from which the runtime derives a head size cfglint does not
                out[f"{family}-{key}-{name}"] = dict(base, **{key: value})
    for family, keys in EXPERT_KEYS.items():
        for key in keys:
            for name, value in EXPERT_VALUES.items():
                out[f"{family}-{key}-{name}"] = dict(copy.deepcopy(BASES[family]), **{key: value})
    for key in MULTIPLIERS:
        for name, value in MULTIPLIER_VALUES.items():
            if (key, name) == ("logits_scaling", "zero"):
                continue  # not written, and refused by llama.cpp's runtime (a RUN check), which this probe does not run
            out[f"granite-{key}-{name}"] = dict(copy.deepcopy(BASES["granite"]), **{key: value})
    for name, value in {**VALUES, "whole": 8}.items():
        out[f"olmo2-sliding_window-{name}"] = dict(copy.deepcopy(BASES["olmo2"]), sliding_window=value)
    # DeepSeek's MLA and experts' values, added after the base's
    for family in ("deepseek_v2", "deepseek_v3"):
        for key in ("first_k_dense_replace", "q_lora_rank", "n_shared_experts"):
            out[f"{family}-{key}-negative"] = dict(copy.deepcopy(BASES[family]), **{key: -1})
        out[f"{family}-routed_scaling_factor-huge"] = dict(copy.deepcopy(BASES[family]), routed_scaling_factor=1e39)
    # Olmo2 iterates layer_types for the window's pattern, once the file has a window
    for name, value in {"null": None, "whole": 8, "true": True, "string": "ab"}.items():
        out[f"olmo2-layer_types-{name}"] = dict(copy.deepcopy(BASES["olmo2"]), sliding_window=4, layer_types=value)
    out["olmo2-layer_types-null-no-window"] = dict(copy.deepcopy(BASES["olmo2"]), layer_types=None)
    # Two refusals in one file, which come first: the experts' merging before any adding; the RoPE type
    # (lowered in set_gguf_parameters) after the head counts' adding and before the experts' counts'.
    rope_type = {"rope_type": 3, "factor": 2.0}
    out["mixtral-num_local_experts-before-adding"] = dict(copy.deepcopy(BASES["mixtral"]), num_local_experts=0, num_experts_per_tok=1.5)
    out["qwen2_moe-num_experts_per_tok-after-rope-type"] = dict(copy.deepcopy(BASES["qwen2_moe"]), num_experts_per_tok=1.5, rope_scaling=rope_type)
    out["qwen2_moe-num_key_value_heads-before-rope-type"] = dict(copy.deepcopy(BASES["qwen2_moe"]), num_key_value_heads=1.5, rope_scaling=rope_type)
    return out


CASES = _cases()


def _built_without(case: str) -> tuple[str, ...]:
    """The keys transformers 5 builds the checkpoint without: the spoilt one, and those of a two-refusal case."""
    key = case.split("-")[1]
    return (key, "rope_scaling", "num_experts_per_tok") if case.count("-") > 2 and "window" not in case else (key,)


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("gguf-packing")
    return {case: checkpoint_for(config, root / case, built_without=_built_without(case)) for case, config in CASES.items()}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_converter_does_what_cfglint_predicts(case, checkpoints, observed):
    actual, view = observed("llama-cpp")[case], predicted(checkpoints[case], "llama-cpp")
    assert mismatches(view, actual) == [], (view.message, actual["message"])
    if actual["outcome"] != "loads":
        assert same_words(view.message, actual["message"]), (view.message, actual["message"])


def test_the_cases_reach_the_packing_and_pass_it(observed):
    """The converter really met struct's refusals here, and a null it never writes."""
    reports = observed("llama-cpp")
    assert reports["gemma2-sliding_window-string"]["message"].startswith("error: required argument is not an integer")
    assert reports["phi3-rms_norm_eps-string"]["message"].startswith("error: required argument is not a float")
    assert reports["llama-rope_theta-null"]["outcome"] == "loads"
    assert reports["gemma2-rms_norm_eps-true"]["values"]["rms_norm_eps"] == 1.0
    assert reports["gemma2-intermediate_size-whole"]["message"].startswith("TypeError: object of type 'float' has no len()")
    assert reports["qwen2-num_key_value_heads-whole"]["message"].startswith("TypeError: object of type 'float' has no len()")
    assert reports["gemma2-num_attention_heads-mixed"]["message"].startswith("ValueError: All items in a GGUF array")
    assert reports["llama-num_attention_heads-string"]["message"].startswith("TypeError: unsupported operand type(s) for //")
    assert reports["mixtral-num_local_experts-negative"]["message"].startswith("RuntimeError: stack expects a non-empty TensorList")
    assert reports["gpt_oss-num_local_experts-negative"]["message"].startswith("error: argument out of range")
    assert reports["qwen2_moe-num_experts_per_tok-half"]["message"].startswith("TypeError: object of type 'float' has no len()")
    assert reports["granite-embedding_multiplier-huge"]["message"].startswith("OverflowError: float too large to pack")
    assert reports["olmo2-sliding_window-null"]["message"].startswith("error: required argument is not an integer")
    assert reports["olmo2-sliding_window-true"]["values"]["sliding_window"] == 1
    assert reports["deepseek_v2-n_shared_experts-negative"]["message"].startswith("error: argument out of range")
    assert reports["deepseek_v3-routed_scaling_factor-huge"]["message"].startswith("OverflowError: float too large to pack")
    assert reports["olmo2-layer_types-null"]["message"].startswith("TypeError: 'NoneType' object is not iterable")
    assert reports["olmo2-layer_types-null-no-window"]["outcome"] == "loads"
    assert reports["mixtral-num_local_experts-before-adding"]["message"].startswith("RuntimeError: stack expects")
    assert reports["qwen2_moe-num_experts_per_tok-after-rope-type"]["message"].startswith("AttributeError: 'int' object has no attribute 'lower'")
    assert reports["qwen2_moe-num_key_value_heads-before-rope-type"]["message"].startswith("TypeError: object of type 'float' has no len()")
