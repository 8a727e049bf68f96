"""What llama.cpp runs from a GGUF header: its metadata, and llama.cpp's own defaults for absent keys.

Knowledge of llama.cpp at the tag vendored in llama-cpp-python 0.3.36, kept as data with its source:
`src/llama-model.cpp` (llama_model_base::load_hparams: the keys every architecture reads),
`src/llama-hparams.h` (member defaults), `src/models/<arch>.cpp` (load_arch_hparams, load_arch_tensors),
`src/llama-vocab.cpp` (special token defaults per tokenizer model). Key names are the `gguf` package's
(`gguf.Keys`), which llama.cpp's `src/llama-arch.cpp` spells the same.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from gguf import Keys

from cfglint.gguf.header import GgufArray, GgufHeader
from cfglint.knowledge.llama_cpp_eog import EOT_TEXTS, end_of_generation

FILE, DEFAULT, DERIVED, TENSOR, REFUSED, FIXED = "file", "default", "derived", "tensor", "refused", "fixed"

# load_hparams: `rope_freq_base_train = 10000.0f` before the optional read of {arch}.rope.freq_base.
DEFAULT_FREQ_BASE = 10000.0
# load_hparams: an absent or zero {arch}.rope.scaling.factor means no scaling (rope_freq_scale_train = 1).
# Per architecture (src/models/<arch>.cpp): the sliding window and soft-capping each reads, with the defaults
# it runs when the key is absent. gemma2: n_swa = 4096 and attn_soft_cap = true, caps from llama-hparams.h
# (f_attn_logit_softcapping 50, f_final_logit_softcapping 30); gemma3: no attention cap, final cap 0 (off),
# window only when the key is present; olmo2: window only when present. None: the architecture reads no key.
# Any other architecture (llama, which Mistral and Mixtral convert to, qwen2, ...) runs no sliding window.
ARCH_ATTENTION: dict[str, dict[str, Any]] = {
    "gemma2": {"sliding_window": 4096, "attn_softcapping": 50.0, "final_softcapping": 30.0},
    "gemma3": {"sliding_window": 0, "attn_softcapping": None, "final_softcapping": 0.0},
    "olmo2": {"sliding_window": 0, "attn_softcapping": None, "final_softcapping": None},
    # openai-moe.cpp: `ml.get_key(LLM_KV_ATTENTION_SLIDING_WINDOW, hparams.n_swa)` (required), every other layer
    # sliding (load_swa_pattern(ml, 2)), the sliding layers' base optional (the global one when absent).
    "gpt-oss": {"sliding_window": REFUSED, "attn_softcapping": None, "final_softcapping": None},
}
# Multi-head latent attention (src/models/deepseek2.cpp): the converter writes the absorbed form as
# key_length (kv_lora_rank + qk_rope_head_dim), value_length (kv_lora_rank) and head_count_kv 1, and the
# per-head sizes as key_length_mla / value_length_mla (optional: 0 means key_length / value_length).
MLA_ARCHS = frozenset({"deepseek2"})
# load_arch_tensors: `output.weight` is always the token embedding (gemma, gemma2: TENSOR_DUPLICATED),
# optional (TENSOR_NOT_REQUIRED: absent, the token embedding is reused) or required (absent: llama.cpp
# refuses). Other architectures are not modelled: no tied_output value.
OUTPUT_TIED = frozenset({"gemma", "gemma2"})
OUTPUT_OPTIONAL = frozenset({"llama", "qwen2", "qwen3", "qwen3moe", "gemma3", "phi3", "granite"})
OUTPUT_REQUIRED = frozenset({"qwen2moe", "olmo2"})
# llama-vocab.cpp: special token ids when the tokenizer.ggml.*_token_id key is absent, per tokenizer model.
SPECIAL_DEFAULTS: dict[str, dict[str, int | None]] = {"llama": {"bos": 1, "eos": 2}, "gpt2": {"bos": 11, "eos": 11}, "t5": {"bos": None, "eos": 1}}
FIM_KEYS = {"fim_pad": Keys.Tokenizer.FIM_PAD_ID, "fim_rep": Keys.Tokenizer.FIM_REP_ID, "fim_sep": Keys.Tokenizer.FIM_SEP_ID}
SAMPLING_KEYS = {
    "temp": Keys.General.SAMPLING_TEMP, "top_k": Keys.General.SAMPLING_TOP_K, "top_p": Keys.General.SAMPLING_TOP_P,
    "min_p": Keys.General.SAMPLING_MIN_P, "penalty_repeat": Keys.General.SAMPLING_PENALTY_REPEAT,
}  # fmt: skip


@dataclass(frozen=True)
class Ran:
    """One value llama.cpp runs: where it came from (FILE, DEFAULT, DERIVED, TENSOR or REFUSED) and the key."""

    value: Any
    key: str
    origin: str

    @property
    def defaulted(self) -> bool:
        return self.origin in (DEFAULT, DERIVED)


@dataclass
class Runs:
    architecture: str | None
    values: dict[str, Ran]

    def __getitem__(self, name: str) -> Ran:
        return self.values[name]

    def get(self, name: str) -> Ran | None:
        return self.values.get(name)


def runs_of(header: GgufHeader) -> Runs:
    arch = header.architecture
    meta = header.metadata
    values: dict[str, Ran] = {}
    if arch is None:
        return Runs(None, values)

    def key(template: str) -> str:
        return template.format(arch=arch)

    def read(name: str, template: str, default: Any = None, origin: str = DEFAULT) -> Ran:
        k = key(template)
        if k in meta:
            found = Ran(_scalar(meta[k]), k, FILE)
        else:
            found = Ran(default, k, origin)
        values[name] = found
        return found

    for name, template in (("context_length", Keys.LLM.CONTEXT_LENGTH), ("block_count", Keys.LLM.BLOCK_COUNT),
                           ("embedding_length", Keys.LLM.EMBEDDING_LENGTH)):
        read(name, template, origin=REFUSED)  # load_hparams reads these with `required`
    read("feed_forward_length", Keys.LLM.FEED_FORWARD_LENGTH, 0)
    heads = read("head_count", Keys.Attention.HEAD_COUNT, 0).value
    read("head_count_kv", Keys.Attention.HEAD_COUNT_KV, heads, DERIVED)
    embd = values["embedding_length"].value
    head_dim = embd // heads if _positive_int(embd) and _positive_int(heads) else None
    read("key_length", Keys.Attention.KEY_LENGTH, head_dim, DERIVED)
    read("value_length", Keys.Attention.VALUE_LENGTH, head_dim, DERIVED)
    read("rope_dimension_count", Keys.Rope.DIMENSION_COUNT, values["key_length"].value, DERIVED)
    read("norm_rms_eps", Keys.Attention.LAYERNORM_RMS_EPS, origin=REFUSED)
    if arch in MLA_ARCHS:
        read("kv_lora_rank", Keys.Attention.KV_LORA_RANK, origin=REFUSED)
        read("q_lora_rank", Keys.Attention.Q_LORA_RANK, 0)
        read("key_length_mla", Keys.Attention.KEY_LENGTH_MLA, values["key_length"].value, DERIVED)
        read("value_length_mla", Keys.Attention.VALUE_LENGTH_MLA, values["value_length"].value, DERIVED)
    read("rope_freq_base", Keys.Rope.FREQ_BASE, DEFAULT_FREQ_BASE)
    _rope_scaling(values, read, key, header)
    read("expert_count", Keys.LLM.EXPERT_COUNT, 0)
    read("expert_used_count", Keys.LLM.EXPERT_USED_COUNT, 0)
    attention = ARCH_ATTENTION.get(arch, {})
    if not attention:
        values["sliding_window"] = Ran(0, key(Keys.Attention.SLIDING_WINDOW), FIXED)
    else:
        window = attention["sliding_window"]
        if window == REFUSED:
            read("sliding_window", Keys.Attention.SLIDING_WINDOW, origin=REFUSED)
        else:
            read("sliding_window", Keys.Attention.SLIDING_WINDOW, window)
        base_swa = values["rope_freq_base"].value if arch != "gemma3" else 10000.0  # llama-hparams.h: 10000.0f
        read("rope_freq_base_swa", Keys.Rope.FREQ_BASE_SWA, base_swa, DERIVED if arch != "gemma3" else DEFAULT)
        for name, template in (("attn_softcapping", Keys.LLM.ATTN_LOGIT_SOFTCAPPING), ("final_softcapping", Keys.LLM.FINAL_LOGIT_SOFTCAPPING)):
            if attention[name] is not None:
                read(name, template, attention[name])
    _vocabulary(values, header)
    _output(values, arch, header)
    for name, sampling_key in SAMPLING_KEYS.items():
        if sampling_key in meta:
            values[f"sampling.{name}"] = Ran(_scalar(meta[sampling_key]), sampling_key, FILE)
    return Runs(arch, values)


def _rope_scaling(values: dict[str, Ran], read, key, header: GgufHeader) -> None:
    scaling_type = read("rope_scaling_type", Keys.Rope.SCALING_TYPE, "linear")
    factor_key = key(Keys.Rope.SCALING_FACTOR)
    legacy_key = key("{arch}.rope.scale_linear")  # load_hparams: the old name, read when the factor is absent
    factor_at = factor_key if factor_key in header.metadata else legacy_key
    factor = _scalar(header.metadata.get(factor_at, 0.0))
    values["rope_scaling_factor"] = Ran(factor, factor_at if factor_at in header.metadata else factor_key,
                                        FILE if factor_at in header.metadata else DEFAULT)
    scaled = isinstance(factor, (int, float)) and factor not in (0.0, 1.0)
    values["rope_scaling"] = Ran(scaling_type.value if scaled else "none", scaling_type.key, DERIVED)
    read("rope_original_context", Keys.Rope.SCALING_ORIG_CTX_LEN, values["context_length"].value, DERIVED)
    for name, template, default in (("yarn_beta_fast", Keys.Rope.SCALING_YARN_BETA_FAST, 32.0),
                                    ("yarn_beta_slow", Keys.Rope.SCALING_YARN_BETA_SLOW, 1.0),
                                    ("yarn_log_multiplier", Keys.Rope.SCALING_YARN_LOG_MUL, 0.0),
                                    ("rope_attn_factor", Keys.Rope.SCALING_ATTN_FACTOR, 1.0)):
        read(name, template, default)
    # llama (src/models/llama.cpp): per-dimension factors, Llama 3's "llama3" scaling, from this tensor.
    freqs = header.tensors.get("rope_freqs.weight")
    values["rope_freqs"] = Ran(freqs.shape if freqs is not None else None, "rope_freqs.weight", TENSOR if freqs else DEFAULT)


def _vocabulary(values: dict[str, Ran], header: GgufHeader) -> None:
    meta = header.metadata
    tokens = meta.get(Keys.Tokenizer.LIST)
    size = len(tokens) if isinstance(tokens, GgufArray) else None
    values["vocab_size"] = Ran(size, Keys.Tokenizer.LIST, DERIVED)  # llama.cpp's n_vocab: the token list's length
    model = meta.get(Keys.Tokenizer.MODEL)
    defaults = SPECIAL_DEFAULTS.get(model if isinstance(model, str) else "", {})
    for name, k in (("bos", Keys.Tokenizer.BOS_ID), ("eos", Keys.Tokenizer.EOS_ID), ("eot", Keys.Tokenizer.EOT_ID), ("eom", Keys.Tokenizer.EOM_ID)):
        if k in meta:
            values[f"{name}_token_id"] = Ran(_scalar(meta[k]), k, FILE)
        else:
            values[f"{name}_token_id"] = Ran(defaults.get(name), k, DEFAULT)
    texts = list(tokens) if isinstance(tokens, GgufArray) and tokens.item_type.name == "STRING" else None
    if texts is not None and Keys.Tokenizer.EOT_ID not in meta:
        found = [i for i, text in enumerate(texts) if text in EOT_TEXTS]
        if len(found) == 1:
            values["eot_token_id"] = Ran(found[0], Keys.Tokenizer.EOT_ID, DERIVED)
        elif found:  # one of these, in an order no header tells (SmolLM2: <|endoftext|> 0 or <|im_end|> 2)
            values["eot_candidates"] = Ran(found, Keys.Tokenizer.EOT_ID, DERIVED)
    keyed = {kind: values[f"{kind}_token_id"].value for kind in ("eos", "eot", "eom")}
    keyed |= {kind: _scalar(meta[k]) for kind, k in FIM_KEYS.items() if k in meta}
    special = {kind: token_id for kind, token_id in keyed.items() if isinstance(token_id, int)}
    vocabulary = texts or []
    token_to_id = {text: i for i, text in enumerate(vocabulary)}  # for a text held twice, the later id
    if len(token_to_id) < len(vocabulary) or "" in token_to_id:  # a text twice, or an empty one renamed
        twice = held_twice(vocabulary)
        if twice:
            values["tokens_held_twice"] = Ran(twice, Keys.Tokenizer.LIST, DERIVED)
    eog = end_of_generation(special, token_to_id, lambda i: vocabulary[i] if 0 <= i < len(vocabulary) else None)
    values["end_of_generation"] = Ran(sorted({e.id for e in eog}), Keys.Tokenizer.EOS_ID, DERIVED)


def held_twice(texts: list[str]) -> list[tuple[str, int, int]]:
    """(text, first id, later id) for each token text the list holds again, as llama.cpp's vocabulary loader
    names them (llama-vocab.cpp load: an empty text becomes "[EMPTY_<id>]"); it then aborts, since
    `GGML_ASSERT(id_to_token.size() == token_to_id.size())` fails."""
    first: dict[str, int] = {}
    out = []
    for i, text in enumerate(texts):
        word = text or f"[EMPTY_{i}]"
        if word in first:
            out.append((word, first[word], i))
        else:
            first[word] = i
    return out


def _output(values: dict[str, Ran], arch: str, header: GgufHeader) -> None:
    has_output = "output.weight" in header.tensors
    if arch in OUTPUT_TIED:
        values["tied_output"] = Ran(True, "output.weight", DERIVED)
    elif has_output:
        values["tied_output"] = Ran(False, "output.weight", TENSOR)
    elif arch in OUTPUT_REQUIRED:
        values["tied_output"] = Ran(None, "output.weight", REFUSED)
    elif arch in OUTPUT_OPTIONAL:
        values["tied_output"] = Ran(True, "output.weight", DERIVED)


def _scalar(value: Any) -> Any:
    """A per-layer array (llama.cpp's get_key_or_arr) is kept as a list; other arrays as they are."""
    if isinstance(value, GgufArray) and value.item_type.name != "STRING" and len(value) <= 4096:
        items = value.to_list()
        return items[0] if items and all(v == items[0] for v in items) else items
    return value


def _positive_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
