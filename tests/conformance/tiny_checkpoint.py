"""Write a tiny, loadable Llama checkpoint: config.json, random weights and a small tokenizer.

The weights have exactly the tensor names and shapes of a transformers `LlamaForCausalLM` built
from the given config, so every runtime that loads Llama checkpoints strictly accepts them:

    write_tiny_checkpoint(
        {"model_type": "llama", "architectures": ["LlamaForCausalLM"], "hidden_size": 64,
         "num_attention_heads": 4, "num_key_value_heads": 2, "num_hidden_layers": 2,
         "vocab_size": 128, "intermediate_size": 128},
        out_dir,
    )

Shapes always come from `config`; `config_text` (written verbatim when given) lets a caller ship a
config.json that differs from it, e.g. one that is malformed or lacks a key on purpose.
Needs numpy and safetensors only.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from safetensors.numpy import save_file

_SHAPE_KEYS = (
    "hidden_size",
    "num_attention_heads",
    "num_hidden_layers",
    "vocab_size",
    "intermediate_size",
)
# A Llama/SentencePiece-style vocabulary: specials first, as in Llama 2 (eos_token_id 2 by default).
UNK_TOKEN, BOS_TOKEN, EOS_TOKEN = "<unk>", "<s>", "</s>"
_SPECIAL_TOKENS = (UNK_TOKEN, BOS_TOKEN, EOS_TOKEN)
_WORD_START = "\u2581"  # SentencePiece's word-boundary mark


def write_tiny_checkpoint(
    config: dict,
    out_dir: Path,
    *,
    seed: int = 0,
    config_text: str | None = None,
) -> Path:
    """Write config.json, model.safetensors, tokenizer.json and tokenizer_config.json into out_dir.

    Returns out_dir. Raises KeyError when `config` lacks a key that the tensor shapes need.
    """
    missing = [key for key in _SHAPE_KEYS if key not in config]
    if missing:
        raise KeyError(f"tiny checkpoint config needs {missing} to size its tensors")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    text = config_text if config_text is not None else json.dumps(config, indent=2) + "\n"
    (out_dir / "config.json").write_text(text, encoding="utf-8")
    save_file(llama_weights(config, seed=seed), str(out_dir / "model.safetensors"))
    write_tokenizer(out_dir, int(config["vocab_size"]))
    return out_dir


def write_tokenizer(out_dir: Path, vocab_size: int) -> None:
    """Write tokenizer.json and tokenizer_config.json for tokenizer_json(vocab_size) into out_dir."""
    (out_dir / "tokenizer.json").write_text(
        json.dumps(tokenizer_json(vocab_size), indent=2, ensure_ascii=False) + "\n",
        encoding="utf-8",
    )
    (out_dir / "tokenizer_config.json").write_text(
        json.dumps(_tokenizer_config(), indent=2) + "\n", encoding="utf-8"
    )


def llama_tensor_shapes(config: dict) -> dict[str, tuple[int, ...]]:
    """Tensor name -> shape of a transformers LlamaForCausalLM with this config."""
    hidden = int(config["hidden_size"])
    heads = int(config["num_attention_heads"])
    # LlamaConfig: a null num_key_value_heads / head_dim means "derive it", like an absent key.
    kv_heads = int(config.get("num_key_value_heads") or heads)
    head_dim = int(config.get("head_dim") or hidden // heads)
    intermediate = int(config["intermediate_size"])
    vocab = int(config["vocab_size"])
    attention_bias = bool(config.get("attention_bias", False))
    mlp_bias = bool(config.get("mlp_bias", False))

    shapes: dict[str, tuple[int, ...]] = {"model.embed_tokens.weight": (vocab, hidden)}
    for layer in range(int(config["num_hidden_layers"])):
        prefix = f"model.layers.{layer}"
        projections = {
            "self_attn.q_proj": ((heads * head_dim, hidden), attention_bias),
            "self_attn.k_proj": ((kv_heads * head_dim, hidden), attention_bias),
            "self_attn.v_proj": ((kv_heads * head_dim, hidden), attention_bias),
            "self_attn.o_proj": ((hidden, heads * head_dim), attention_bias),
            "mlp.gate_proj": ((intermediate, hidden), mlp_bias),
            "mlp.up_proj": ((intermediate, hidden), mlp_bias),
            "mlp.down_proj": ((hidden, intermediate), mlp_bias),
        }
        for module, ((out_features, in_features), has_bias) in projections.items():
            shapes[f"{prefix}.{module}.weight"] = (out_features, in_features)
            if has_bias:
                shapes[f"{prefix}.{module}.bias"] = (out_features,)
        shapes[f"{prefix}.input_layernorm.weight"] = (hidden,)
        shapes[f"{prefix}.post_attention_layernorm.weight"] = (hidden,)
    shapes["model.norm.weight"] = (hidden,)
    # LlamaConfig defaults tie_word_embeddings to False, so an absent key means a separate lm_head.
    if not config.get("tie_word_embeddings", False):
        shapes["lm_head.weight"] = (vocab, hidden)
    return shapes


def llama_weights(config: dict, *, seed: int = 0) -> dict[str, np.ndarray]:
    """Random float32 weights, deterministic for a seed.

    Scaled so activations stay of order one: logits then react visibly to RoPE differences,
    which is what a logits comparison between runtimes needs.
    """
    rng = np.random.default_rng(seed)
    weights = {}
    for name, shape in llama_tensor_shapes(config).items():
        if name.endswith("norm.weight"):
            values = 1.0 + 0.1 * rng.standard_normal(shape)
        elif name == "model.embed_tokens.weight":
            values = rng.standard_normal(shape)
        elif name.endswith(".bias"):
            values = 0.1 * rng.standard_normal(shape)
        else:
            values = rng.standard_normal(shape) / np.sqrt(shape[1])
        weights[name] = values.astype(np.float32)
    return weights


def tokenizer_json(vocab_size: int) -> dict:
    """A Llama-2-style BPE tokenizer (byte fallback, SentencePiece word marks) of vocab_size tokens.

    Llama-2-shaped on purpose: the llama.cpp converter only takes a tokenizer.json of this shape
    without a sentencepiece model file, and transformers/tokenizers load it generically.
    """
    vocab: dict[str, int] = {}
    for token in _candidate_tokens():
        if len(vocab) == vocab_size:
            break
        vocab.setdefault(token, len(vocab))
    merges = [
        [_WORD_START, letter]
        for letter in "abcdefghijklmnopqrstuvwxyz"
        if {_WORD_START, letter, _WORD_START + letter} <= vocab.keys()
    ]
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [
            {
                "id": vocab[token],
                "content": token,
                "single_word": False,
                "lstrip": False,
                "rstrip": False,
                "normalized": False,
                "special": True,
            }
            for token in _SPECIAL_TOKENS
            if token in vocab
        ],
        "normalizer": {
            "type": "Sequence",
            "normalizers": [
                {"type": "Prepend", "prepend": _WORD_START},
                {"type": "Replace", "pattern": {"String": " "}, "content": _WORD_START},
            ],
        },
        "pre_tokenizer": None,
        "post_processor": _bos_template(vocab),
        "decoder": {
            "type": "Sequence",
            "decoders": [
                {"type": "Replace", "pattern": {"String": _WORD_START}, "content": " "},
                {"type": "ByteFallback"},
                {"type": "Fuse"},
                {"type": "Strip", "content": " ", "start": 1, "stop": 0},
            ],
        },
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": UNK_TOKEN,
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": True,
            "byte_fallback": True,
            "ignore_merges": False,
            "vocab": vocab,
            "merges": merges,
        },
    }


def _candidate_tokens() -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    return [
        *_SPECIAL_TOKENS,
        "<0x0A>",  # the newline byte token, which the llama.cpp converter looks for
        _WORD_START,
        *letters,
        *(_WORD_START + letter for letter in letters),
        *letters.upper(),
        *"0123456789",
        *".,!?'\"-:;()",
        # Fillers so any requested vocab size can be matched exactly.
        *(f"<extra_{index}>" for index in range(1 << 16)),
    ]


def _bos_template(vocab: dict[str, int]) -> dict | None:
    if BOS_TOKEN not in vocab:
        return None
    return {
        "type": "TemplateProcessing",
        "single": [
            {"SpecialToken": {"id": BOS_TOKEN, "type_id": 0}},
            {"Sequence": {"id": "A", "type_id": 0}},
        ],
        "pair": [
            {"SpecialToken": {"id": BOS_TOKEN, "type_id": 0}},
            {"Sequence": {"id": "A", "type_id": 0}},
            {"Sequence": {"id": "B", "type_id": 1}},
        ],
        "special_tokens": {
            BOS_TOKEN: {"id": BOS_TOKEN, "ids": [vocab[BOS_TOKEN]], "tokens": [BOS_TOKEN]}
        },
    }


def _tokenizer_config() -> dict:
    # The generic fast class loads tokenizer.json as written, under transformers 4 and 5 alike.
    return {
        "tokenizer_class": "PreTrainedTokenizerFast",
        "bos_token": BOS_TOKEN,
        "eos_token": EOS_TOKEN,
        "unk_token": UNK_TOKEN,
        "model_max_length": 2048,
        "clean_up_tokenization_spaces": False,
    }
