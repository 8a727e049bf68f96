"""llama.cpp: how convert_hf_to_gguf.py (+ conversion/) turns a config into GGUF metadata, and what the
llama.cpp runtime then builds from it (defaults for keys the converter does not write).

Taken from the converter and C++ sources vendored in the llama-cpp-python 0.3.36 sdist
(vendor/llama.cpp/conversion/*.py, vendor/llama.cpp/src/llama-model.cpp, src/models/<arch>.cpp,
src/llama-hparams.h). The converter sees `AutoConfig.from_pretrained(dir).to_dict()` of the installed
transformers (raw config.json when transformers refuses), with text_config merged into the root; so a
default below is what the converter falls back to when the key is absent from that dict.
RoPE: rope="converter" (see the report: base.py TextModel.__init__ + set_gguf_parameters);
gemma and gemma2 never read RoPE keys (their set_gguf_parameters does not call the base one), so the
runtime always uses freq_base 10000 with no scaling: rope="converter-none".
"""

from __future__ import annotations

from typing import NamedTuple

from cfglint.knowledge.deepseek import MLA_SCALAR
from cfglint.knowledge.entry import REQUIRED, RUN, Check, Entry, Field, Source

RUNTIME = "llama-cpp"
READER = "converter"
REF = "llama-cpp-python 0.3.36 sdist"
# The converter registers no MinistralForCausalLM (conversion/__init__.py), what transformers 5 saves a Mistral
# model built from a file with layer_types as.
MISSING: tuple[str, ...] = ("ministral",)
# It picks its model by architectures[0] (ModelBase.from_model_architecture), not model_type: a config
# transformers re-saved as "ministral" keeps the file's MistralForCausalLM and converts as Mistral.
ARCHITECTURE_FAMILY = {"MistralForCausalLM": "mistral"}
# ModelBase.load_hparams merges text_config into the top of the hparams (conversion/base.py).
TEXT_CONFIG = {"gemma3": "/text_config"}
# The GGUF architecture the converter writes for each family cfglint models (convert_hf_to_gguf.py,
# conversion/*.py `@ModelBase.register` and `model_arch`): Mistral and Mixtral convert as llama.
ARCH_OF_FAMILY = {
    "llama": "llama", "mistral": "llama", "mixtral": "llama", "qwen2": "qwen2", "qwen3": "qwen3", "gemma": "gemma",
    "gemma2": "gemma2", "gemma3_text": "gemma3", "phi3": "phi3", "qwen2_moe": "qwen2moe", "qwen3_moe": "qwen3moe",
    "granite": "granite", "olmo2": "olmo2", "deepseek_v2": "deepseek2", "deepseek_v3": "deepseek2", "gpt_oss": "gpt-oss",
}  # fmt: skip

# Whether a family's vocabulary step reads the config through transformers' AutoTokenizer, which loads it
# with AutoConfig first and stops the converter on what AutoConfig refuses (its strict dataclass's
# refusals), load_hparams' raw-JSON fallback notwithstanding:
# - ALWAYS: `_set_vocab_gpt2` (base.py get_vocab_base), TextModel's and DeepseekV2Model's vocabulary;
# - UNLESS_SENTENCEPIECE: a tokenizer.model beside config.json is read by SentencePiece, which reads no
#   config; without it Qwen2Model and Gemma3Model take GPT-2's (qwen.py, gemma.py);
# - IF_GPT2_TOKENIZER: Phi3MiniModel takes GPT-2's where tokenizer_config.json names GPT2Tokenizer (Phi-4),
#   and SentencePiece's tokenizer.model otherwise (phi.py; without one it stops for want of it);
# - UNLESS_SENTENCEPIECE_OR_TEKKEN: LlamaModel (llama.py) also reads a tekken.json without a tokenizer.json
#   as Mistral's own vocabulary, and tries LlamaHfVocab (gguf-py vocab.py, AutoTokenizer) before GPT-2's;
# - NEVER: Gemma and Gemma 2, SentencePiece only (gemma.py).
ALWAYS, NEVER = "always", "never"
UNLESS_SENTENCEPIECE, UNLESS_SENTENCEPIECE_OR_TEKKEN = "unless tokenizer.model", "unless tokenizer.model or tekken.json alone"
IF_GPT2_TOKENIZER = "if tokenizer_config.json names GPT2Tokenizer"
VOCAB_READS_CONFIG = {
    "llama": UNLESS_SENTENCEPIECE_OR_TEKKEN, "mistral": UNLESS_SENTENCEPIECE_OR_TEKKEN,
    "mixtral": UNLESS_SENTENCEPIECE_OR_TEKKEN, "granite": UNLESS_SENTENCEPIECE_OR_TEKKEN,
    "qwen2": UNLESS_SENTENCEPIECE, "qwen3": UNLESS_SENTENCEPIECE, "gemma3_text": UNLESS_SENTENCEPIECE,
    "phi3": IF_GPT2_TOKENIZER,
    "qwen2_moe": ALWAYS, "qwen3_moe": ALWAYS, "olmo2": ALWAYS, "gpt_oss": ALWAYS, "deepseek_v2": ALWAYS,
    "deepseek_v3": ALWAYS, "gemma": NEVER, "gemma2": NEVER,
}  # fmt: skip

# Where the converter calls str.lower() on the rope_type of its hparams' RoPE parameters (full attention's),
# an AttributeError for a number, a list or null there:
# - ANY_GIVEN: LlamaModel.generate_extra_tensors (llama.py), on any rope_type given, before anything else is
#   written; then set_gguf_parameters as below;
# - UNNAMED: TextModel.set_gguf_parameters (base.py), on one that is not null and not a name it compares
#   (linear, yarn, su, longrope, dynamic);
# - LONG_FACTORS: Phi3MiniModel.generate_extra_tensors (phi.py), first, where long factors are given: on the
#   type or '' (a KeyError for ''; a NotImplementedError for a type but su, longrope and yarn);
# - GemmaModel and Gemma2Model write no RoPE type (gemma.py): not listed.
ANY_GIVEN, UNNAMED, LONG_FACTORS = "any rope_type given", "a rope_type not null and not compared", "with long factors"
LOWERS_ROPE_TYPE = {
    "phi3": LONG_FACTORS,
    "llama": ANY_GIVEN, "mistral": ANY_GIVEN, "mixtral": ANY_GIVEN, "granite": ANY_GIVEN,
    "qwen2": UNNAMED, "qwen3": UNNAMED, "qwen2_moe": UNNAMED, "qwen3_moe": UNNAMED, "gemma3_text": UNNAMED,
    "olmo2": UNNAMED, "gpt_oss": UNNAMED, "deepseek_v2": UNNAMED, "deepseek_v3": UNNAMED,
}  # fmt: skip

# Where the converter computes with a count before it adds it (Python's own TypeError or ZeroDivisionError,
# torch's TypeError for a shape that is not ints):
# - PERMUTES_Q_K: LlamaModel.modify_tensors (llama.py:253-264), as it prepares the tensors, reshapes k_proj
#   (the first in safetensors' order) then q_proj to (n_head, 2, rows // n_head // 2, ...), k_proj's n_head the
#   kv heads where they differ; then LlamaModel.set_gguf_parameters (llama.py:171-173), after the base's adds,
#   hidden_size // num_attention_heads where head_dim is null;
# - ROPE_DIMS_FIRST: Phi3MiniModel.set_gguf_parameters (phi.py:155-156) first computes
#   int(partial_rotary_factor * hidden_size) // num_attention_heads.
PERMUTES_Q_K = frozenset(family for family, arch in ARCH_OF_FAMILY.items() if arch == "llama") | {"granite"}
ROPE_DIMS_FIRST = frozenset({"phi3"})

# The key of the experts' count, per family: what set_gguf_parameters' find_hparam(["num_local_experts",
# "num_experts", "n_routed_experts"]) finds (base.py:1519) and modify_tensors reads. Qwen3MoeConfig keeps a
# file's num_experts as num_local_experts (to_dict() has that name), with the same value.
EXPERT_COUNT_KEY = {
    "mixtral": "num_local_experts", "gpt_oss": "num_local_experts", "qwen2_moe": "num_experts",
    "qwen3_moe": "num_experts", "deepseek_v2": "n_routed_experts", "deepseek_v3": "n_routed_experts",
}  # fmt: skip
# Where the converter merges each layer's experts as it prepares the tensors: modify_tensors stacks them once
# it has seen n_experts * 3 (llama.py:268-282, qwen.py:120-133, deepseek.py:186-199); a count of 0 or less
# stacks none ("stack expects a non-empty TensorList"), after the vocabulary and before anything is
# written. GptOssModel's experts come fused.
MERGES_EXPERTS = frozenset(EXPERT_COUNT_KEY) - {"gpt_oss"}

# What set_gguf_parameters iterates once the base's values are added, (key, when the file has this key
# too): Olmo2Model (olmo.py:57-62) makes the window's per-layer pattern from `t == "sliding_attention" for t
# in hparams["layer_types"]` once the file has a sliding_window, null or not; a null, a number or a
# boolean there stops it ("object is not iterable"), before the vocabulary.
ITERATED = {"olmo2": (("layer_types", "sliding_window"),)}

# TextModel.__init__'s RoPE lookups (conversion/base.py:1361-1364), each find_hparam(keys, optional=True):
# the first key present wins, null or not.
THETA_KEYS = ("global_rope_theta", "rope_global_theta", "rope_theta_global", "rope_theta", "rotary_emb_base")
LOCAL_THETA_KEYS = ("local_rope_theta", "rope_local_theta", "rope_theta_local", "swa_rope_theta", "rope_local_base_freq")
PARTIAL_ROTARY_KEYS = ("partial_rotary_factor", "rope_pct", "rope_percent")

_ANY = Field("any", None)

# What gguf-py's GGUFWriter packs with struct once the conversion is done (write_kv_data_to_file, in the
# order each key was first added; a later add of the same key replaces the value, not the place): a value
# of another type stops the converter there ("required argument is not an integer", "argument out of
# range", ...). `key` is the hparam, or for rope_theta the base the converter resolved (cfglint.readers.
# converter.rope); `when` says when it is added (GIVEN: not null; PRESENT: config.json has the key, null
# or not, where the config class has no such attribute and to_dict() carries the file's).
UINT32, FLOAT32 = "uint32", "float32"
# add_feed_forward_length, add_head_count and add_head_count_kv take `int | Sequence[int]` (gguf_writer.py:
# 736-785): an int is packed as a uint32, anything else added as an array, at once (add_array's len(): a
# TypeError for a float or null, in set_gguf_parameters, before the vocabulary). A string becomes an array
# of its characters; a list is packed as an array of its first item's type (_pack_val, gguf_writer.py:1617).
COUNTS = "uint32 or array"
GIVEN, PRESENT, ALWAYS_ADDED = "given", "in the file", "True"


class Written(NamedTuple):
    key: str
    gguf: str  # the GGUF key, after "<arch>."
    type: str  # UINT32 | FLOAT32 | COUNTS
    when: str = GIVEN  # an expression over the hparams, or GIVEN


_CONTEXT, _EPS, _HEAD = "context_length", "attention.layer_norm_rms_epsilon", "attention.key_length"
_EMBEDDING, _FF = "embedding_length", "feed_forward_length"
_HEADS, _KV_HEADS = "attention.head_count", "attention.head_count_kv"
# TextModel.set_gguf_parameters (conversion/base.py:1434-1546): every lookup optional; the RoPE type is
# lowered between the head counts and rope_theta (readers.converter.adding_refusal keeps that order).
_BASE_WRITES = (
    Written("max_position_embeddings", _CONTEXT, UINT32),
    Written("hidden_size", _EMBEDDING, UINT32),
    Written("intermediate_size", _FF, COUNTS),
    Written("num_attention_heads", _HEADS, COUNTS),
    Written("num_key_value_heads", _KV_HEADS, COUNTS),
    Written("rope_theta", "rope.freq_base", FLOAT32),
    Written("rms_norm_eps", _EPS, FLOAT32),
    Written("head_dim", _HEAD, UINT32),
)


def _with_experts(family: str, writes: tuple[Written, ...]) -> tuple[Written, ...]:
    """A MoE family's writes with the experts' counts between the eps and head_dim (base.py:1519-1524):
    EXPERT_COUNT_KEY's, and find_hparam(["num_experts_per_tok", ...])."""
    if family not in EXPERT_COUNT_KEY:
        return writes
    at = next(i for i, w in enumerate(writes) if w.gguf == _EPS) + 1
    experts = (Written(EXPERT_COUNT_KEY[family], "expert_count", UINT32), Written("num_experts_per_tok", "expert_used_count", COUNTS))
    return writes[:at] + experts + writes[at:]


# GemmaModel.set_gguf_parameters (gemma.py:39-51): its own, every key read with hparams[...].
_GEMMA_WRITES = (
    Written("max_position_embeddings", _CONTEXT, UINT32, ALWAYS_ADDED),
    Written("hidden_size", _EMBEDDING, UINT32, ALWAYS_ADDED),
    Written("intermediate_size", _FF, COUNTS, ALWAYS_ADDED),
    Written("num_attention_heads", _HEADS, COUNTS, ALWAYS_ADDED),
    Written("num_key_value_heads", _KV_HEADS, COUNTS, ALWAYS_ADDED),
    Written("rms_norm_eps", _EPS, FLOAT32, ALWAYS_ADDED),
    Written("head_dim", _HEAD, UINT32, ALWAYS_ADDED),
)
_WRITES: dict[str, tuple[Written, ...]] = {
    **{family: _BASE_WRITES for family in ARCH_OF_FAMILY},
    "gemma": _GEMMA_WRITES,
    # Gemma2Model.set_gguf_parameters (gemma.py:84-103)
    "gemma2": _GEMMA_WRITES + (
        Written("attn_logit_softcapping", "attn_logit_softcapping", FLOAT32, ALWAYS_ADDED),
        Written("final_logit_softcapping", "final_logit_softcapping", FLOAT32, ALWAYS_ADDED),
        Written("sliding_window", "attention.sliding_window", UINT32, ALWAYS_ADDED),
    ),
    # Gemma3Model.set_gguf_parameters (gemma.py:141-158) after the base's: hparams.get with defaults the
    # to_dict() always overrides, full attention's theta or 1e6.
    "gemma3_text": (
        Written("max_position_embeddings", _CONTEXT, UINT32, ALWAYS_ADDED),
        Written("hidden_size", _EMBEDDING, UINT32),
        Written("intermediate_size", _FF, COUNTS),
        Written("num_attention_heads", _HEADS, COUNTS, ALWAYS_ADDED),
        Written("num_key_value_heads", _KV_HEADS, COUNTS, ALWAYS_ADDED),
        Written("rope_theta", "rope.freq_base", FLOAT32, ALWAYS_ADDED),
        Written("rms_norm_eps", _EPS, FLOAT32, ALWAYS_ADDED),
        Written("head_dim", _HEAD, UINT32, ALWAYS_ADDED),
        Written("final_logit_softcapping", "final_logit_softcapping", FLOAT32, "final_logit_softcapping"),
        Written("sliding_window", "attention.sliding_window", UINT32, "sliding_window_pattern != 1"),
    ),
    # Phi3MiniModel.set_gguf_parameters (phi.py:148-173): find_hparam, a null sliding_window written as 0.
    "phi3": (
        Written("max_position_embeddings", _CONTEXT, UINT32, ALWAYS_ADDED),
        Written("hidden_size", _EMBEDDING, UINT32, ALWAYS_ADDED),
        Written("intermediate_size", _FF, COUNTS, ALWAYS_ADDED),
        Written("num_attention_heads", _HEADS, COUNTS, ALWAYS_ADDED),
        Written("num_key_value_heads", _KV_HEADS, COUNTS, ALWAYS_ADDED),
        Written("rms_norm_eps", _EPS, FLOAT32, ALWAYS_ADDED),
        Written("rope_theta", "rope.freq_base", FLOAT32, ALWAYS_ADDED),
        Written("sliding_window", "attention.sliding_window", UINT32),
    ),
    # DeepseekV2Model.set_gguf_parameters (deepseek.py:319-377) sets num_key_value_heads to 1 (MLA as MQA)
    # and, after the base's: the leading dense block count (first_k_dense_replace, computed where null), the
    # q LoRA rank where given, the MLA lengths (not modelled: kv_lora_rank's arithmetic, and a v_head_dim that
    # does not fit kv_b_proj fails modify_tensors' assertion first);
    # the experts' feed-forward length, find_hparam(["moe_intermediate_size", "intermediate_size"]), null or
    # not (DeepseekV2Config always has it); the shared experts' count (hparams.get(..., 0)) and the routed
    # scaling factor where given.
    **{family: tuple(w for w in _BASE_WRITES if w.gguf not in (_HEAD, _KV_HEADS)) + (
        Written("first_k_dense_replace", "leading_dense_block_count", UINT32),
        Written("q_lora_rank", "attention.q_lora_rank", UINT32),
        Written("moe_intermediate_size", "expert_feed_forward_length", COUNTS, ALWAYS_ADDED),
        Written("n_shared_experts", "expert_shared_count", UINT32, ALWAYS_ADDED),
        Written("routed_scaling_factor", "expert_weights_scale", FLOAT32),
    ) for family in ("deepseek_v2", "deepseek_v3")},
    # GraniteModel.set_gguf_parameters (granite.py:33-49): the base's without head_dim, then each multiplier
    # that is truthy.
    "granite": tuple(w for w in _BASE_WRITES if w.gguf != _HEAD) + tuple(
        Written(key, gguf, FLOAT32, key) for key, gguf in (
            ("attention_multiplier", "attention.scale"), ("embedding_multiplier", "embedding_scale"),
            ("residual_multiplier", "residual_scale"), ("logits_scaling", "logit_scale"))),
    # Olmo2Model.set_gguf_parameters (olmo.py:54-58): the base's, then the file's sliding_window if it has one.
    "olmo2": _BASE_WRITES + (Written("sliding_window", "attention.sliding_window", UINT32, PRESENT),),
    # Qwen2MoeModel.set_gguf_parameters (qwen.py:81-88), Qwen3MoeModel's too: the experts' feed-forward lengths.
    **{family: _BASE_WRITES + (Written("moe_intermediate_size", "expert_feed_forward_length", COUNTS),
                               Written("shared_expert_intermediate_size", "expert_shared_feed_forward_length", UINT32))
       for family in ("qwen2_moe", "qwen3_moe")},
    # GptOssModel.set_gguf_parameters (gpt_oss.py:128-130): the base's, then hparams["sliding_window"].
    "gpt_oss": _BASE_WRITES + (Written("sliding_window", "attention.sliding_window", UINT32, ALWAYS_ADDED),),
}
WRITES = {family: _with_experts(family, writes) for family, writes in _WRITES.items()}

# TextModel.__init__ (conversion/base.py:1345-1377): block count (find_hparam, KeyError when none of
# n_layers/num_hidden_layers/n_layer/num_layers is present) and every RoPE key, in lookup order.
_ROPE_FIELDS = {
    "num_hidden_layers": Field("any", REQUIRED),
    "rope_parameters": _ANY,
    "rope_scaling": _ANY,
    "global_rope_theta": _ANY,
    "rope_global_theta": _ANY,
    "rope_theta_global": _ANY,
    "rope_theta": _ANY,
    "rotary_emb_base": _ANY,
    "local_rope_theta": _ANY,
    "rope_local_theta": _ANY,
    "rope_theta_local": _ANY,
    "swa_rope_theta": _ANY,
    "rope_local_base_freq": _ANY,
    "partial_rotary_factor": _ANY,
    "rope_pct": _ANY,
    "rope_percent": _ANY,
    "original_max_position_embeddings": _ANY,
}

# TextModel.set_gguf_parameters (conversion/base.py:1434-1546): all optional lookups; a key the
# converter does not write takes the runtime default (llama-model.cpp:1298-1420).
_BASE_FIELDS = {
    **_ROPE_FIELDS,
    "max_position_embeddings": _ANY,
    "hidden_size": _ANY,
    "intermediate_size": _ANY,
    "num_attention_heads": _ANY,
    "num_key_value_heads": _ANY,
    "is_causal": _ANY,
    "rms_norm_eps": _ANY,
    "head_dim": _ANY,
    # not read by the converter: proxies for the checkpoint (tensors) and the raw config.json
    # special-token ids that gguf-py's SpecialVocab reads after tokenizer_config.json.
    "tie_word_embeddings": Field("any", False),
    "attention_bias": Field("any", False),
    "eos_token_id": _ANY,
    "pad_token_id": _ANY,
    "bos_token_id": _ANY,
}

_FULL = "layers(num_hidden_layers, 'full_attention')"
# Olmo2 slides when the file gives a window the runtime reads as non-zero (true is packed as 1).
_OLMO2_WINDOWED = "(sliding_window is True or int(sliding_window))"
_KV = "num_key_value_heads if num_key_value_heads is not None else num_attention_heads"
_HEAD = "head_dim if head_dim is not None else hidden_size // num_attention_heads"
# SpecialVocab._set_special_token: only an int is taken (a list is ignored); the tokenizer files win.
_EOS = "eos_token_id if int(eos_token_id) is not None else None"

_BASE_DERIVE = {
    "head_dim": _HEAD,
    "num_key_value_heads": _KV,
    "hidden_act": "'silu'",
    "sliding_window": "None",
    "layer_types": _FULL,
    "query_pre_attn_scalar": _HEAD,
    "attn_logit_softcapping": "None",
    "final_logit_softcapping": "None",
    "eos_token_id": _EOS,
}

# gguf-py vocab.py:149-153, raised for any negative int id in config.json, even when the tokenizer
# files already set that token.
_SPECIAL_CHECKS = (
    Check("int(eos_token_id) is not None and eos_token_id < 0",
          "invalid value for special token type eos: {eos_token_id}", "/eos_token_id"),
    Check("int(bos_token_id) is not None and bos_token_id < 0",
          "invalid value for special token type bos: {bos_token_id}", "/bos_token_id"),
    Check("int(pad_token_id) is not None and pad_token_id < 0",
          "invalid value for special token type pad: {pad_token_id}", "/pad_token_id"),
)
# llama-model.cpp:1321 / src/models/<arch>.cpp: keys the runtime requires but the converter writes only
# when the config has them.
# Experts without num_experts_per_tok: the converter writes no expert_used_count and llama-model.cpp's
# load_hparams asserts that a model with experts uses some.
_NO_EXPERTS_USED = "GGML_ASSERT(n_expert_used_max > 0) failed"
_EXPERTS_USED = Check("num_experts_per_tok is None", _NO_EXPERTS_USED, "/num_experts_per_tok", outcome="panic", stage=RUN)
# conversion/qwen.py: find_hparam(["num_local_experts", "num_experts"]) (transformers 5 renames Qwen3-MoE's key).
_EXPERT_COUNT = Check("num_local_experts is None and num_experts is None",
                      "KeyError: could not find any of: ['num_local_experts', 'num_experts']", "/num_experts", kind="missing")

def _runtime_keys(family: str) -> tuple[Check, ...]:
    """llama-model-loader.cpp get_key: the key, named with the family's GGUF architecture, is not in the file."""
    arch = ARCH_OF_FAMILY[family]
    return (
        Check("max_position_embeddings is None", f"key not found in model: {arch}.context_length",
              "/max_position_embeddings", stage=RUN),
        Check("rms_norm_eps is None", f"key not found in model: {arch}.attention.layer_norm_rms_epsilon",
              "/rms_norm_eps", stage=RUN),
    )
# A tied checkpoint has no lm_head.weight; these archs create `output` without TENSOR_NOT_REQUIRED.
_OUTPUT_REQUIRED = Check("tie_word_embeddings", "missing tensor 'output.weight'",
                         "/tie_word_embeddings", kind="tensors", stage=RUN)
# q/k/v biases are optional in create_tensor_qkv, but these archs never create attn_output.bias.
_NO_O_BIAS = Check("attention_bias",
                   "done_getting_tensors: wrong number of tensors; expected N, got N - {num_hidden_layers} "
                   "(no layer creates attn_output.bias)",
                   "/attention_bias", kind="tensors", stage=RUN)

_LOCAL_THETA = (
    "local_rope_theta if local_rope_theta is not None else (rope_local_theta if rope_local_theta is not None"
    " else (rope_theta_local if rope_theta_local is not None else (swa_rope_theta if swa_rope_theta is not None"
    " else rope_local_base_freq)))"
)
_NESTED = (
    "(get(rope_parameters or rope_scaling, 'full_attention') is not None"
    " or get(rope_parameters or rope_scaling, 'sliding_attention') is not None)"
)


_QWEN_TITLE = "llama.cpp convert_hf_to_gguf (llama-cpp-python 0.3.36) conversion/qwen.py"

ENTRIES: tuple[Entry, ...] = (
    Entry(
        runtime=RUNTIME, family="qwen2", reader=READER, title=_QWEN_TITLE + " Qwen2Model",
        source=Source("ggml-org/llama.cpp", "conversion/qwen.py (+ src/llama-model.cpp)", REF),
        fields=dict(_BASE_FIELDS),
        derive={**_BASE_DERIVE, "attention_bias": "'q/k/v'", "tie_word_embeddings": "tie_word_embeddings"},
        rope="converter",
        checks=_SPECIAL_CHECKS + _runtime_keys("qwen2"),
        notes="No sliding window is written (use_sliding_window/max_window_layers are never read); biases and "
              "the output head come from the tensors present (no lm_head.weight -> token embeddings).",
    ),
    Entry(
        runtime=RUNTIME, family="qwen3", reader=READER, title=_QWEN_TITLE + " Qwen3Model",
        source=Source("ggml-org/llama.cpp", "conversion/qwen.py (+ src/llama-model.cpp)", REF),
        fields=dict(_BASE_FIELDS),
        derive={**_BASE_DERIVE, "attention_bias": "attention_bias", "tie_word_embeddings": "tie_word_embeddings"},
        rope="converter",
        checks=_SPECIAL_CHECKS + _runtime_keys("qwen3"),
        notes="head_dim is written as attention.key_length only when not None; sliding_window is never read. "
              "Output head: output.weight iff lm_head.weight is in the checkpoint.",
    ),
    Entry(
        runtime=RUNTIME, family="mistral", reader=READER,
        title="llama.cpp convert_hf_to_gguf (llama-cpp-python 0.3.36) conversion/llama.py LlamaModel",
        source=Source("ggml-org/llama.cpp", "conversion/llama.py (+ src/llama-model.cpp)", REF),
        fields={**_BASE_FIELDS, "num_attention_heads": Field("any", REQUIRED),
                "num_key_value_heads": Field("any", REQUIRED), "vocab_size": Field("any", REQUIRED)},
        derive={**_BASE_DERIVE, "attention_bias": "False", "tie_word_embeddings": "tie_word_embeddings", "partial_rotary_factor": "1.0"},
        rope="converter",
        checks=_SPECIAL_CHECKS + _runtime_keys("mistral"),
        notes="Converted as arch 'llama': sliding_window is never written, every layer attends fully. "
              "rope.dimension_count = head_dim or hidden//heads (the runtime refuses n_rot != head size).",
    ),
    Entry(
        runtime=RUNTIME, family="gemma2", reader=READER,
        title="llama.cpp convert_hf_to_gguf (llama-cpp-python 0.3.36) conversion/gemma.py Gemma2Model",
        source=Source("ggml-org/llama.cpp", "conversion/gemma.py (+ src/llama-model.cpp)", REF),
        fields={
            "num_hidden_layers": Field("any", REQUIRED),
            "max_position_embeddings": Field("any", REQUIRED),
            "hidden_size": Field("any", REQUIRED),
            "intermediate_size": Field("any", REQUIRED),
            "num_attention_heads": Field("any", REQUIRED),
            "num_key_value_heads": _ANY,
            "rms_norm_eps": Field("any", REQUIRED),
            "head_dim": Field("any", REQUIRED),
            "attn_logit_softcapping": Field("any", REQUIRED),
            "final_logit_softcapping": Field("any", REQUIRED),
            "sliding_window": Field("any", REQUIRED),
            "eos_token_id": _ANY, "pad_token_id": _ANY, "bos_token_id": _ANY,
            "attention_bias": Field("any", False),
        },
        derive={
            "head_dim": "head_dim",
            "num_key_value_heads": _KV,
            "tie_word_embeddings": "True",
            "hidden_act": "'gelu_pytorch_tanh'",
            "attention_bias": "attention_bias",
            "sliding_window": "sliding_window",
            "layer_types": "pattern(num_hidden_layers, 2)",
            # gemma2.cpp:25-27: 1/sqrt(n_embd/n_head) for the 46-layer (27B) model, else 1/sqrt(head_dim)
            "query_pre_attn_scalar": "hidden_size // num_attention_heads if num_hidden_layers == 46 else head_dim",
            "attn_logit_softcapping": "attn_logit_softcapping",
            "final_logit_softcapping": "final_logit_softcapping",
            "eos_token_id": _EOS,
        },
        rope="converter-none",
        checks=_SPECIAL_CHECKS + (
            _NO_O_BIAS,
        ),
        notes="No RoPE key is written (freq_base 10000, no scaling, whatever the config says); query_pre_attn_scalar "
              "and hidden_act/hidden_activation are never read; lm_head.weight is dropped, output = token embeddings.",
    ),
    Entry(
        runtime=RUNTIME, family="gemma", reader=READER,
        title="llama.cpp convert_hf_to_gguf (llama-cpp-python 0.3.36) conversion/gemma.py GemmaModel",
        source=Source("ggml-org/llama.cpp", "conversion/gemma.py (+ src/llama-model.cpp)", REF),
        fields={
            "num_hidden_layers": Field("any", REQUIRED),
            "max_position_embeddings": Field("any", REQUIRED),
            "hidden_size": Field("any", REQUIRED),
            "intermediate_size": Field("any", REQUIRED),
            "num_attention_heads": Field("any", REQUIRED),
            "num_key_value_heads": _ANY,
            "rms_norm_eps": Field("any", REQUIRED),
            "head_dim": Field("any", REQUIRED),
            "eos_token_id": _ANY, "pad_token_id": _ANY, "bos_token_id": _ANY,
            "attention_bias": Field("any", False),
        },
        derive={
            "head_dim": "head_dim",
            "num_key_value_heads": _KV,
            "tie_word_embeddings": "True",
            "hidden_act": "'gelu_pytorch_tanh'",
            "attention_bias": "attention_bias",
            "sliding_window": "None",
            "layer_types": _FULL,
            "query_pre_attn_scalar": "head_dim",
            "attn_logit_softcapping": "None",
            "final_logit_softcapping": "None",
            "eos_token_id": _EOS,
        },
        rope="converter-none",
        checks=_SPECIAL_CHECKS + (_NO_O_BIAS,),
        notes="No RoPE key is written (freq_base 10000, no scaling); hidden_act/hidden_activation are never read "
              "(ggml_gelu is the tanh form); lm_head.weight is dropped, output = token embeddings.",
    ),
    Entry(
        runtime=RUNTIME, family="gemma3_text", reader=READER,
        title="llama.cpp convert_hf_to_gguf (llama-cpp-python 0.3.36) conversion/gemma.py Gemma3Model",
        source=Source("ggml-org/llama.cpp", "conversion/gemma.py (+ src/llama-model.cpp)", REF),
        fields={
            **_BASE_FIELDS,
            "max_position_embeddings": Field("any", 131072),
            "num_attention_heads": Field("any", 8),
            "rms_norm_eps": Field("any", 1e-6),
            "head_dim": Field("any", 256),
            "num_key_value_heads": Field("any", 4),
            "attn_logit_softcapping": _ANY,
            "final_logit_softcapping": _ANY,
            "sliding_window_pattern": _ANY,
            "sliding_window": Field("any", REQUIRED),
        },
        derive={
            "head_dim": "head_dim",
            "num_key_value_heads": "num_key_value_heads",
            "tie_word_embeddings": "tie_word_embeddings",
            "hidden_act": "'gelu_pytorch_tanh'",
            "attention_bias": "attention_bias",
            "sliding_window": "sliding_window if sliding_window_pattern != 1 and int(sliding_window) else None",
            # gemma3.cpp:4-7 + llama-hparams.cpp set_swa_pattern: every 6th layer full, from the
            # runtime's fixed 6 (the converter writes no pattern; layer_types is never read)
            "layer_types": "pattern(num_hidden_layers, 6) if sliding_window_pattern != 1 and int(sliding_window) else "
                           + _FULL,
            "rope_local_base_freq": "(get(get(rope_parameters or rope_scaling, 'sliding_attention'), 'rope_theta') if "
                                    + _NESTED + " else (" + _LOCAL_THETA + ")) or 10000.0",
            "query_pre_attn_scalar": "hidden_size // num_attention_heads if num_hidden_layers == 62 else head_dim",
            "attn_logit_softcapping": "None",
            "final_logit_softcapping": "final_logit_softcapping or None",
            "eos_token_id": _EOS,
        },
        rope="converter",
        checks=_SPECIAL_CHECKS + (
            Check("attn_logit_softcapping is not None", 'assert hparams.get("attn_logit_softcapping") is None',
                  "/attn_logit_softcapping"),
            _NO_O_BIAS,
        ),
        notes="freq_base is rewritten by Gemma3Model with full_attention.rope_theta (fallback 1e6); sliding layers "
              "use freq_base_swa (10000 if unwritten) unscaled. query_pre_attn_scalar and layer_types are not read.",
    ),
    Entry(
        runtime=RUNTIME, family="phi3", reader=READER,
        title="llama.cpp convert_hf_to_gguf (llama-cpp-python 0.3.36) conversion/phi.py Phi3MiniModel",
        source=Source("ggml-org/llama.cpp", "conversion/phi.py (+ src/llama-model.cpp)", REF),
        fields={
            **_ROPE_FIELDS,
            "hidden_size": Field("any", REQUIRED),
            "num_attention_heads": Field("any", REQUIRED),
            "num_key_value_heads": Field("any", REQUIRED),
            "rms_norm_eps": Field("any", REQUIRED),
            "max_position_embeddings": Field("any", REQUIRED),
            "intermediate_size": Field("any", REQUIRED),
            "sliding_window": _ANY,
            "tie_word_embeddings": Field("any", False),
            "eos_token_id": _ANY, "pad_token_id": _ANY, "bos_token_id": _ANY,
        },
        derive={
            "head_dim": "hidden_size // num_attention_heads",
            "num_key_value_heads": "num_key_value_heads",
            "tie_word_embeddings": "tie_word_embeddings",
            "hidden_act": "'silu'",
            "attention_bias": "False",
            # rope.dimension_count = int(p * hidden) // heads (phi.py:163), over a head of hidden // heads
            "partial_rotary_factor":
                "(int((get(rope_parameters or rope_scaling, 'partial_rotary_factor') if get(rope_parameters or "
                "rope_scaling, 'partial_rotary_factor') is not None else (partial_rotary_factor if "
                "partial_rotary_factor is not None else 1.0)) * hidden_size) // num_attention_heads)"
                " / (hidden_size // num_attention_heads)",
            # phi3.cpp:13-24: a written window > 0 is discarded ("Phi SWA is currently disabled")
            "sliding_window": "None",
            "layer_types": _FULL,
            "query_pre_attn_scalar": "hidden_size // num_attention_heads",
            "attn_logit_softcapping": "None",
            "final_logit_softcapping": "None",
            "eos_token_id": _EOS,
        },
        rope="converter",
        checks=_SPECIAL_CHECKS,
        notes="Phi3MiniModel.set_gguf_parameters does not call the base one: head_dim is never read, no "
              "rope.scaling.type is written; longrope runs from rope_factors_long/short tensors + attn_factors.",
    ),
    Entry(
        runtime=RUNTIME, family="mixtral", reader=READER,
        title="llama.cpp convert_hf_to_gguf (llama-cpp-python 0.3.36) conversion/llama.py LlamaModel",
        source=Source("ggml-org/llama.cpp", "conversion/llama.py (+ src/llama-model.cpp)", REF),
        fields={**_BASE_FIELDS, "num_attention_heads": Field("any", REQUIRED),
                "num_key_value_heads": Field("any", REQUIRED), "vocab_size": Field("any", REQUIRED),
                "num_local_experts": Field("any", REQUIRED), "num_experts_per_tok": _ANY},
        # LlamaModel writes rope.dimension_count = head_dim: every dimension rotates.
        derive={**_BASE_DERIVE, "attention_bias": "False", "tie_word_embeddings": "tie_word_embeddings", "partial_rotary_factor": "1.0"},
        rope="converter",
        checks=_SPECIAL_CHECKS + _runtime_keys("mixtral") + (_EXPERTS_USED,),
        notes="Converted as arch 'llama' with expert tensors; sliding_window is never written. "
              "num_local_experts is indexed with [...] when the expert tensors are merged.",
    ),
    Entry(
        runtime=RUNTIME, family="qwen2_moe", reader=READER, title=_QWEN_TITLE + " Qwen2MoeModel",
        source=Source("ggml-org/llama.cpp", "conversion/qwen.py (+ src/llama-model.cpp)", REF),
        fields={**_BASE_FIELDS, "qkv_bias": Field("any", True), "num_local_experts": _ANY, "num_experts": _ANY,
                "num_experts_per_tok": _ANY, "moe_intermediate_size": _ANY,
                "shared_expert_intermediate_size": _ANY},
        derive={**_BASE_DERIVE, "attention_bias": "'q/k/v' if qkv_bias else False", "tie_word_embeddings": "False"},
        rope="converter",
        checks=_SPECIAL_CHECKS + _runtime_keys("qwen2_moe") + (_EXPERT_COUNT, _EXPERTS_USED, _OUTPUT_REQUIRED),
        notes="qwen2moe.cpp creates output.weight as required (no fallback to the embeddings). "
              "sliding_window / use_sliding_window are never read.",
    ),
    Entry(
        runtime=RUNTIME, family="qwen3_moe", reader=READER, title=_QWEN_TITLE + " Qwen3MoeModel",
        source=Source("ggml-org/llama.cpp", "conversion/qwen.py (+ src/llama-model.cpp)", REF),
        fields={**_BASE_FIELDS, "num_local_experts": _ANY, "num_experts": _ANY, "num_experts_per_tok": _ANY,
                "moe_intermediate_size": _ANY, "shared_expert_intermediate_size": _ANY},
        derive={**_BASE_DERIVE, "attention_bias": "attention_bias", "tie_word_embeddings": "tie_word_embeddings"},
        rope="converter",
        checks=_SPECIAL_CHECKS + _runtime_keys("qwen3_moe") + (_EXPERT_COUNT, _EXPERTS_USED),
        notes="head_dim written only when present in hparams (the 5.x class has none unless given).",
    ),
    Entry(
        runtime=RUNTIME, family="olmo2", reader=READER,
        title="llama.cpp convert_hf_to_gguf (llama-cpp-python 0.3.36) conversion/olmo.py Olmo2Model",
        source=Source("ggml-org/llama.cpp", "conversion/olmo.py (+ src/llama-model.cpp)", REF),
        fields={**_BASE_FIELDS, "sliding_window": _ANY, "layer_types": _ANY},
        derive={
            **_BASE_DERIVE,
            "attention_bias": "attention_bias",
            "tie_word_embeddings": "False",
            # a window of true is packed as 1 (read back so, WRITES)
            "sliding_window": f"sliding_window if {_OLMO2_WINDOWED} else None",
            "layer_types": f"(layer_types if layer_types is not None else pattern(num_hidden_layers, 4)) if {_OLMO2_WINDOWED} else {_FULL}",
        },
        rope="converter",
        checks=_SPECIAL_CHECKS + _runtime_keys("olmo2") + (_OUTPUT_REQUIRED, _NO_O_BIAS),
        notes="A window is written only if the hparams have a sliding_window key (Olmo2Config has none); "
              "the per-layer pattern is then layer_types or every 4th layer full.",
    ),
    Entry(
        runtime=RUNTIME, family="granite", reader=READER,
        title="llama.cpp convert_hf_to_gguf (llama-cpp-python 0.3.36) conversion/granite.py GraniteModel",
        source=Source("ggml-org/llama.cpp", "conversion/granite.py (+ src/llama-model.cpp)", REF),
        fields={**_BASE_FIELDS, "num_attention_heads": Field("any", REQUIRED),
                "num_key_value_heads": Field("any", REQUIRED), "vocab_size": Field("any", REQUIRED),
                "attention_multiplier": _ANY, "embedding_multiplier": _ANY, "residual_multiplier": _ANY,
                "logits_scaling": _ANY},
        derive={
            "partial_rotary_factor": "1.0",  # LlamaModel: rope.dimension_count = head_dim
            **_BASE_DERIVE,
            "head_dim": "hidden_size // num_attention_heads",
            "attention_bias": "attention_bias",
            "tie_word_embeddings": "tie_word_embeddings",
            "query_pre_attn_scalar": "1 / (attention_multiplier * attention_multiplier) if attention_multiplier "
                                     "else hidden_size // num_attention_heads",
        },
        rope="converter",
        checks=_SPECIAL_CHECKS + _runtime_keys("granite") + (
            Check("not logits_scaling", "key not found in model: granite.logit_scale", "/logits_scaling", stage=RUN),
        ),
        notes="head_dim is popped ('Ignoring head_dim ... for Granite'); multipliers are written only when truthy "
              "(granite.cpp reads logit_scale as required).",
    ),
    Entry(
        runtime=RUNTIME, family="deepseek_v2", reader=READER,
        title="llama.cpp convert_hf_to_gguf (llama-cpp-python 0.3.36) conversion/deepseek.py DeepseekV2Model",
        source=Source("ggml-org/llama.cpp", "conversion/deepseek.py (+ src/llama-model.cpp)", REF),
        # head_dim is not read (key_length and value_length come from the MLA sizes)
        fields={**{k: v for k, v in _BASE_FIELDS.items() if k != "head_dim"}, "rms_norm_eps": Field("any", 1e-6),
                "vocab_size": Field("any", REQUIRED),
                "kv_lora_rank": Field("any", 512), "q_lora_rank": _ANY,
                "qk_rope_head_dim": Field("any", REQUIRED), "qk_nope_head_dim": Field("any", REQUIRED),
                "v_head_dim": Field("any", REQUIRED), "moe_intermediate_size": _ANY,
                "n_routed_experts": _ANY, "n_shared_experts": Field("any", 0), "first_k_dense_replace": _ANY,
                # absent: no expert_weights_scale is written, and llama-graph.cpp:2163 scales only by a value
                # other than 0 and 1, so the routed weights are used as they are
                "routed_scaling_factor": Field("any", 1.0), "norm_topk_prob": _ANY, "num_experts_per_tok": _ANY,
                "n_group": _ANY, "topk_group": _ANY, "scoring_func": _ANY},
        derive={
            **{k: v for k, v in _BASE_DERIVE.items() if k != "head_dim"},
            "qk_head_dim": "qk_nope_head_dim + qk_rope_head_dim",
            "num_key_value_heads": "num_attention_heads",
            # kq_scale = mscale**2 / sqrt(key_length), mscale = 1 + rope.scaling.yarn_log_multiplier (0.1 *
            # mscale_all_dim) * ln(factor), from the same rope_parameters transformers 5 resolves
            "query_pre_attn_scalar": MLA_SCALAR,
            "attention_bias": "False",
            "tie_word_embeddings": "tie_word_embeddings",
            # leading_dense_block_count = first_k_dense_replace; every later layer is experts
            "mlp_layers": "moe_layers(num_hidden_layers, n_routed_experts, first_k_dense_replace or 0, None)",
            # topk_method is not read: llama-graph.cpp:2095-2118 picks expert groups whenever expert_group_count
            # (n_group, conversion/base.py) is above 1, scoring each group by its two best experts as V3's
            # noaux_tc does (V2's group_limited_greedy takes the best one), and sigmoid scores carry the bias
            "topk_method": "'noaux_tc' if (n_group or 1) > 1 or scoring_func == 'sigmoid' else 'greedy'",
        },
        rope="converter",
        checks=_SPECIAL_CHECKS + (
            _runtime_keys("deepseek_v2")[0],
            # conversion/deepseek.py modify_tensors splits kv_b_proj.weight by the hparams' num_key_value_heads,
            # and transformers builds it with one block per attention head (DeepSeek-V3's class default is 128).
            Check("num_key_value_heads != num_attention_heads",
                  "AssertionError: kv_b_proj.weight does not have num_key_value_heads * (v_head_dim + qk_nope_head_dim) rows",
                  "/num_key_value_heads"),
            Check("scoring_func is not None and scoring_func not in ['sigmoid', 'softmax', 'sqrtsoftplus']",
                  "Unsupported expert score gating function value: {scoring_func}", "/scoring_func"),
            Check("n_routed_experts is not None and num_experts_per_tok is None", _NO_EXPERTS_USED,
                  "/num_experts_per_tok", outcome="panic", stage=RUN),
        ),
        notes="MLA is written as MQA (head_count_kv 1, key_length kv_lora_rank+qk_rope_head_dim) and runs as MHA "
              "with q/k heads of qk_nope+qk_rope; rope.dimension_count = qk_rope_head_dim; the kq scale also "
              "carries the YaRN mscale^2.",
    ),
    Entry(
        runtime=RUNTIME, family="gpt_oss", reader=READER,
        title="llama.cpp convert_hf_to_gguf (llama-cpp-python 0.3.36) conversion/gpt_oss.py GptOssModel",
        source=Source("ggml-org/llama.cpp", "conversion/gpt_oss.py (+ src/llama-model.cpp)", REF),
        fields={**_BASE_FIELDS, "sliding_window": Field("any", REQUIRED),
                "intermediate_size": Field("any", REQUIRED), "num_local_experts": _ANY,
                "num_experts_per_tok": _ANY},
        derive={
            **_BASE_DERIVE,
            "hidden_act": "'swiglu_oai'",
            "attention_bias": "True",
            # the converter splits gate_up_proj_bias and writes down_proj_bias (conversion/gpt_oss.py);
            # models/openai-moe.cpp:51-54 requires the router's and the experts' bias tensors
            "mlp_bias": "True",
            "n_routed_experts": "num_local_experts",
            "mlp_layers": 'layers(num_hidden_layers, "moe")',
            "tie_word_embeddings": "False",
            "sliding_window": "sliding_window",
            # openai-moe.cpp:8-9: set_swa_pattern(2): even layers slide, odd layers full
            "layer_types": "pattern(num_hidden_layers, 2)",
        },
        rope="converter",
        checks=_SPECIAL_CHECKS + _runtime_keys("gpt_oss") + (
            _OUTPUT_REQUIRED,
            _EXPERTS_USED,
        ),
        notes="hidden_act is never read: the experts run LLM_FFN_SWIGLU_OAI_MOE (clamped x*sigmoid(1.702x) gate). "
              "layer_types is never read; the pattern is fixed at 2. YaRN's truncate has no GGUF key: ggml "
              "always truncates the correction range, where gpt-oss writes truncate false.",
    ),
)

# DeepseekV2Model converts DeepseekV3ForCausalLM too (the deepseek2 arch): the same reading, V3's sigmoid router
# and e_score_correction_bias travelling as expert_gating_func and the exp_probs_b tensor.
ENTRIES += tuple(
    e._replace(family="deepseek_v3", title=e.title.replace("DeepseekV2Model", "DeepseekV2Model (DeepseekV3ForCausalLM)"))
    for e in ENTRIES if e.family == "deepseek_v2"
)
