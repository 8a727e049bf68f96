"""One fixture per rule: the files in, the findings of that rule out (code and JSON Pointer), and for rules
with a fix, what `cfglint fix --write --unsafe-fixes` leaves in config.json. Run by tests/test_rule_fixtures.py,
which also fails when a rule has no fixture here."""

from __future__ import annotations

import copy

import numpy as np

from cfglint.compat import FAMILY_BASES, edited, tf5_layout
from tests.family import BASE
from tests.gguf.files import TINY_CONFIG


def llama(**changes) -> dict:
    return edited(dict(BASE, rope_theta=100000.0), **changes)


def family(name: str, tf5: bool = False, **changes) -> dict:
    config = copy.deepcopy(FAMILY_BASES[name])
    config = tf5_layout(config) if tf5 else config
    config.update(changes)
    return config


NESTED = {"rope_theta": 100000.0, "rope_type": "default"}
LLAMA3 = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 64}
SAMPLING = {"do_sample": True, "temperature": 0.7}
# A Llama-3-like tokenizer in a 128-token vocabulary: </s> 2 ends text, <|eot|> 3 ends a turn.
ADDED = {"version": "1.0", "added_tokens": [{"id": 1, "content": "<s>"}, {"id": 2, "content": "</s>"}, {"id": 3, "content": "<|eot_id|>"}]}
TURNS = "{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}<|eot_id|>{% endfor %}"


def chat(template: str = TURNS, **tokenizer) -> dict:
    """tokenizer.json, tokenizer_config.json and chat_template.jinja beside config.json."""
    config = {"bos_token": "<s>", "eos_token": "<|eot_id|>", **tokenizer}
    return {"tokenizer.json": ADDED, "tokenizer_config.json": config, "chat_template.jinja": template}


def tiny(**changes) -> dict:
    """The config tests/gguf/files.py's tiny GGUF is converted from."""
    return edited(copy.deepcopy(TINY_CONFIG), **changes)


GEMMA2_CAPS = family("gemma2", hidden_size=64, num_attention_heads=4, num_key_value_heads=2, head_dim=16, vocab_size=32)

# code -> fixture: "config" (dict, or raw text), optional "files" (name -> dict or text beside config.json),
# "sample" (a samples/ directory to copy instead), "target" (a Hub id instead of a directory), "settings"
# (a .cfglint.toml beside the model), "expect" (the rule's findings as (code, pointer)), optional "fixed"
# (keys that must hold these values in the fixed config.json), "gguf" (name -> keyword arguments of
# tests/gguf/files.py tiny_gguf, plus "truncate": the bytes kept).
FIXTURES: dict[str, dict] = {
    "A001": {"config": llama(head_dim=32), "expect": [("A001", "/head_dim")]},
    "A002": {"config": llama(attention_bias=True), "expect": [("A002", "/attention_bias")]},
    "A003": {"config": family("gemma", hidden_act="gelu"), "expect": [("A003", "/hidden_act")]},
    "A004": {"config": llama(tie_word_embeddings=None), "expect": [("A004", "")]},
    "A005": {"config": family("gemma2"), "expect": [("A005", "/sliding_window")]},
    "A006": {"config": family("gemma2"), "expect": [("A006", "/query_pre_attn_scalar")]},
    "A007": {"config": family("gemma2"), "expect": [("A007", "/attn_logit_softcapping")]},
    "A008": {"config": family("phi3", tf5=True, partial_rotary_factor=None) | {"rope_parameters": {"rope_theta": 500000.0, "rope_type": "default", "partial_rotary_factor": 0.5}},
             "expect": [("A008", "/rope_parameters/partial_rotary_factor")]},
    "A009": {"config": family("granite"), "expect": [("A009", "/embedding_multiplier"), ("A009", "/logits_scaling"), ("A009", "/residual_multiplier")]},
    # DeepSeek-V2 (236B)'s routing: llama.cpp scores each of the 8 groups by its two best experts, not its best.
    "A010": {"config": family("deepseek_v2", n_routed_experts=16, n_group=8, topk_group=3, topk_method="group_limited_greedy"),
             "expect": [("A010", "/topk_method")]},
    "C001": {"config": llama(), "settings": '[[suppress]]\npath = "config.json"\npointer = "/rope_parameters"\ncodes = ["R001"]\nreason = "served by transformers 5 only"\n',
             "expect": [("C001", "/rope_parameters")]},
    "D001": {"config": llama(dtype="bfloat16"), "expect": [("D001", "/dtype")], "fixed": {"torch_dtype": "bfloat16"}},
    "G001": {"config": tiny(), "gguf": {"model.gguf": {"truncate": 200}}, "expect": [("G001", "")]},
    "G002": {"config": tiny(), "gguf": {"model.gguf": {"drop": ("{arch}.rope.freq_base",)}}, "expect": [("G002", "/rope_parameters/rope_theta")]},
    "G003": {"config": tiny(rope_parameters={"rope_theta": 100000.0, **LLAMA3}), "gguf": {"model.gguf": {}}, "expect": [("G003", "/rope_parameters")]},
    "G004": {"config": tiny(), "gguf": {"model.gguf": {"context_length": 4096}}, "expect": [("G004", "/max_position_embeddings")]},
    "G005": {"config": tiny(model_type="qwen2", architectures=["Qwen2ForCausalLM"]), "gguf": {"model.gguf": {}}, "expect": [("G005", "/model_type")]},
    "G006": {"config": tiny(), "gguf": {"model.gguf": {"block_count": 2}}, "expect": [("G006", "/num_hidden_layers")]},
    "G007": {"config": tiny(), "gguf": {"model.gguf": {"attention__layer_norm_rms_epsilon": 1e-6}}, "expect": [("G007", "/rms_norm_eps")]},
    "G008": {"config": tiny(tie_word_embeddings=False), "gguf": {"model.gguf": {}}, "expect": [("G008", "/tie_word_embeddings")]},
    "G009": {"config": GEMMA2_CAPS, "gguf": {"model.gguf": {"arch": "gemma2", "attention__sliding_window": 8192, "attn_logit_softcapping": 50.0, "final_logit_softcapping": 30.0}},
             "expect": [("G009", "/sliding_window")]},
    "G010": {"config": GEMMA2_CAPS, "gguf": {"model.gguf": {"arch": "gemma2", "attention__sliding_window": 4096}},
             "expect": [("G010", "/attn_logit_softcapping"), ("G010", "/final_logit_softcapping")]},
    "G011": {"config": tiny(), "gguf": {"model.gguf": {"tokenizer__ggml__bos_token_id": (0, "UINT32")}}, "expect": [("G011", "/bos_token_id")]},
    "G012": {"config": tiny(), "files": {"generation_config.json": {"do_sample": True, "temperature": 0.6}},
             "gguf": {"model.gguf": {"general__sampling__temp": 0.8}}, "expect": [("G012", "/temperature")]},
    "G013": {"config": tiny(head_dim=32), "gguf": {"model.gguf": {"attention__key_length": 32, "attention__value_length": 32,
             "tensors": {"blk.0.attn_q.weight": np.zeros((128, 64), np.float32), "blk.0.attn_k.weight": np.zeros((64, 64), np.float32)}}},
             "expect": [("G013", "")]},
    "G014": {"config": tiny(), "gguf": {"model.gguf": {"general__name": "Mistral-7B-v0.1", "rope__dimension_count": 16}}, "expect": [("G014", "")]},
    "H001": {"target": "hf://cfglint-test/absent", "expect": [("H001", "")]},
    "J001": {"config": '{"hidden_size": 576,}\n', "expect": [("J001", "")]},
    "J002": {"config": '{"model_type": "llama", "rope_theta": 10000.0, "rope_theta": 100000.0}\n', "expect": [("J002", "/rope_theta")]},
    "J003": {"config": '{"model_type": "llama", "rms_norm_eps": NaN}\n', "expect": [("J003", "/rms_norm_eps")]},
    "J004": {"config": '\ufeff{"model_type": "llama"}\n', "expect": [("J004", "")]},
    "J005": {"config": '[{"hidden_size": 576}]\n', "expect": [("J005", "")]},
    "L001": {"config": llama(hidden_size=64.0), "expect": [("L001", "/hidden_size")]},
    "M001": {"config": {"model_type": "falcon", "hidden_size": 64}, "expect": [("M001", "/model_type")]},
    "M002": {"config": family("gemma3_text"), "expect": [("M002", "/model_type")]},
    "M003": {"config": {k: v for k, v in family("ministral").items() if k != "layer_types"},
             "expect": [("M003", "/model_type")],
             "fixed": {"model_type": "mistral", "architectures": ["MistralForCausalLM"],
                       "layer_types": ["sliding_attention"] * 4}},
    "R001": {"config": llama(rope_theta=None, rope_parameters=NESTED), "expect": [("R001", "/rope_parameters/rope_theta")],
             "fixed": {"rope_theta": 100000.0}},
    "R002": {"config": llama(rope_theta=None, rope_parameters=dict(LLAMA3, rope_theta=500000.0)),
             "expect": [("R002", "/rope_parameters/rope_type")], "fixed": {"rope_scaling": LLAMA3, "rope_theta": 500000.0}},
    "R003": {"config": llama(rope_parameters={"rope_theta": 500000.0, "rope_type": "default"}), "expect": [("R003", "/rope_theta")],
             "fixed": {"rope_theta": 500000.0}},
    "R004": {"config": llama(rope_scaling={"type": "linear", "factor": 2.0}), "expect": [("R004", "/rope_scaling")]},
    "R005": {"config": llama(rope_scaling={"rope_type": "dynamic", "factor": 2.0}), "expect": [("R005", "/rope_scaling")]},
    "R006": {"config": family("gemma", rope_theta=100000.0), "expect": [("R006", "/rope_theta")]},
    "R007": {"config": family("qwen2", tf5=True, rope_parameters={"rope_type": "default", "rope_theta": 1e6, "full_attention": {"rope_type": "linear", "factor": 4.0, "rope_theta": 5e5}}),
             "expect": [("R007", "/rope_parameters/full_attention"), ("R007", "/rope_parameters/full_attention/rope_theta")]},
    "S001": {"config": llama(temperature=0.7, top_k=20), "expect": [("S001", "/temperature")]},
    "S002": {"config": llama(), "files": {"generation_config.json": SAMPLING}, "expect": [("S002", "")]},
    "S003": {"config": llama(), "files": {"generation_config.json": dict(SAMPLING, top_p=0.9)}, "expect": [("S003", "")]},
    "S004": {"config": llama(), "files": {"generation_config.json": {"do_sample": True, "top_k": 0, "top_p": 0.95}}, "expect": [("S004", "")]},
    "S005": {"config": llama(), "files": {"generation_config.json": {"do_sample": True, "temperature": 0.0}}, "expect": [("S005", "")]},
    "S006": {"config": llama(), "files": {"generation_config.json": dict(SAMPLING, repetition_penalty=1.2)}, "expect": [("S006", "")]},
    "S007": {"config": llama(), "files": {"generation_config.json": dict(SAMPLING, top_p=0.9)}, "expect": [("S007", "")]},
    "S008": {"config": llama(eos_token_id=2), "files": {"generation_config.json": {"eos_token_id": [2, 3]}}, "expect": [("S008", "/eos_token_id")]},
    "S009": {"config": llama(), "files": {"generation_config.json": {"temperature": 0.6, "top_p": 0.9}}, "expect": [("S009", "")]},
    "S010": {"config": llama(), "files": {"generation_config.json": {"do_sample": True, "temperature": 2}}, "expect": [("S010", "")]},
    "T001": {"config": llama(eos_token_id=2), "files": {**chat(), "generation_config.json": {"eos_token_id": [2, 3]}},
             "expect": [("T001", "/eos_token_id")], "fixed": {"eos_token_id": [2, 3]}},
    "T002": {"config": llama(eos_token_id=200), "files": chat(), "expect": [("T002", "/eos_token_id")]},
    "T003": {"config": llama(eos_token_id=[2, 3]), "files": {**chat(), "special_tokens_map.json": {"eos_token": "</s>"}},
             "expect": [("T003", "")]},
    "T004": {"config": llama(eos_token_id=[2, 3]), "files": chat(pad_token="<|eot_id|>"), "expect": [("T004", "")]},
    "T005": {"config": llama(eos_token_id=[2, 3]), "files": chat("{% for m in messages %}{{ m.content }"), "expect": [("T005", "")]},
    "W001": {"sample": "weights-truncated", "expect": [("W001", "")]},
    "W002": {"sample": "weights-sharded-stray", "expect": [("W002", "")]},
    "W003": {"sample": "weights-layers-missing", "expect": [("W003", "/num_hidden_layers")]},
    "W004": {"sample": "weights-kv-heads", "expect": [("W004", "/num_key_value_heads")]},
    "W005": {"sample": "weights-bias-unflagged", "expect": [("W005", "/attention_bias")]},
    "W006": {"sample": "weights-tied-head-stored", "expect": [("W006", "/tie_word_embeddings")]},
    "W007": {"sample": "weights-dtype", "expect": [("W007", "/torch_dtype")]},
    "W008": {"sample": "weights-inv-freq", "expect": [("W008", "")]},
    "W009": {"config": llama(), "files": {"pytorch_model.bin": "not opened"}, "expect": [("W009", "")]},
    "W010": {"sample": "weights-consistent", "files": {"model.safetensors": "EXTRA"}, "expect": [("W010", "")]},
    "W011": {"config": family("qwen2", quantization_config={"quant_method": "gptq"}), "files": {"model.safetensors": "WEIGHTS"}, "expect": [("W011", "/model_type")]},
}
