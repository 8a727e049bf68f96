"""What the llama.cpp converter writes into the GGUF (knowledge.llama_cpp.WRITES), and the order of its refusals:
its own (vocabulary, then gguf-py's packing of each written value) before those of the runtime that loads
the file it wrote. The real converter checks the same cases in tests/conformance/test_gguf_packing.py."""

from __future__ import annotations

import copy
import json

import pytest

from cfglint import consumers, document, knowledge
from cfglint.compat import BASE as LLAMA_BASE
from cfglint.engine import context_of
from cfglint.knowledge.entry import RUN
from cfglint.knowledge.expr import compile_expression, names
from cfglint.knowledge.llama_cpp import GIVEN, PRESENT, WRITES
from cfglint.reading import DEFAULT
from tests.families import BASES


def view_of(tmp_path, config: dict):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    return context_of(document.load(path), [consumers.get("llama-cpp")]).views["llama-cpp"]


@pytest.mark.parametrize("family", sorted(set(WRITES) - {"llama"}))  # Llama's reading is hand-written
def test_each_written_value_is_one_the_converter_reads(family):
    entry = knowledge.entry("llama-cpp", family)
    for written in WRITES[family]:
        assert written.key == "rope_theta" or written.key in entry.fields, written
        if written.when not in (GIVEN, PRESENT):
            compile_expression(written.when)
            assert names(written.when) <= set(entry.fields), written


@pytest.mark.parametrize(
    ("family", "spoilt", "message", "pointer"),
    [
        ("gemma2", {"rms_norm_eps": "x", "max_position_embeddings": "x"}, "required argument is not an integer", "/max_position_embeddings"),
        ("gemma2", {"sliding_window": -1}, "argument out of range", "/sliding_window"),
        ("gemma2", {"sliding_window": 2**32}, "'I' format requires 0 <= number <= 4294967295", "/sliding_window"),
        ("gemma2", {"final_logit_softcapping": 1e39}, "OverflowError: float too large to pack with f format", "/final_logit_softcapping"),
        ("phi3", {"rope_theta": None}, "required argument is not a float", "/rope_theta"),
        ("qwen2", {"rope_theta": "x"}, "required argument is not a float", "/rope_theta"),
    ],
)
def test_the_first_value_gguf_py_cannot_pack_stops_the_conversion(tmp_path, family, spoilt, message, pointer):
    view = view_of(tmp_path, dict(copy.deepcopy(BASES[family]), **spoilt))
    assert view.outcome == "error" and message in view.message and view.failure.pointer == pointer, view.failure


@pytest.mark.parametrize("value", [True, 0, 1.0e38, float("inf")])
def test_what_struct_packs_is_no_refusal(tmp_path, value):
    assert view_of(tmp_path, dict(copy.deepcopy(BASES["gemma2"]), final_logit_softcapping=value)).outcome == "loads"


def test_a_null_base_is_not_written_and_the_runtime_runs_its_own(tmp_path):
    for config in (dict(LLAMA_BASE, rope_theta=None), dict(copy.deepcopy(BASES["qwen2"]), rope_theta=None)):
        view = view_of(tmp_path, config)
        assert view.outcome == "loads" and (view.values["rope_theta"], view.sources["rope_theta"]) == (10000.0, DEFAULT)


def test_the_vocabulary_step_refuses_before_the_runtime_would(tmp_path):
    # transformers 5 refuses the null; the vocabulary step (no tokenizer.model here) stops on it, before
    # llama.cpp could miss the context length the converter would not have written.
    view = view_of(tmp_path, dict(copy.deepcopy(BASES["mistral"]), max_position_embeddings=None))
    assert view.message.startswith("StrictDataclassFieldValidationError"), view.message
    assert view.failure.stage != RUN


def test_the_runtime_refuses_what_the_converter_wrote_and_reads_nothing(tmp_path):
    view = view_of(tmp_path, dict(copy.deepcopy(BASES["granite"]), logits_scaling=0))
    assert view.message == "key not found in model: granite.logit_scale" and view.failure.stage == RUN
    assert view.values == {}


def test_a_boolean_is_written_and_read_back_as_the_number_struct_packs(tmp_path):
    view = view_of(tmp_path, dict(copy.deepcopy(BASES["gemma2"]), rms_norm_eps=True, sliding_window=True))
    assert view.outcome == "loads"
    for key, number in (("rms_norm_eps", 1.0), ("sliding_window", 1)):
        assert view.values[key] == number and type(view.values[key]) is type(number)


@pytest.mark.parametrize(
    ("family", "spoilt", "message", "pointer"),
    [
        # add_array's len(), as set_gguf_parameters adds the count: before the vocabulary step's refusal
        ("gemma2", {"intermediate_size": 9216.0}, "TypeError: object of type 'float' has no len()", "/intermediate_size"),
        ("gemma2", {"num_attention_heads": None}, "TypeError: object of type 'NoneType' has no len()", "/num_attention_heads"),
        ("qwen2", {"num_key_value_heads": 2.0}, "TypeError: object of type 'float' has no len()", "/num_key_value_heads"),
        # the array's items, as the file is written
        ("gemma2", {"num_key_value_heads": [4, "x"]}, "ValueError: All items in a GGUF array should be of the same type", "/num_key_value_heads"),
        ("gemma2", {"num_key_value_heads": [None]}, "ValueError: Unknown type: <class 'NoneType'>", "/num_key_value_heads"),
        ("gemma2", {"num_key_value_heads": [[]]}, "ValueError: Invalid GGUF metadata array. Empty array", "/num_key_value_heads"),
        ("gemma2", {"num_key_value_heads": {"a": 1}}, "ValueError: Invalid GGUF metadata array, expecting sequence", "/num_key_value_heads"),
        ("gemma2", {"num_key_value_heads": [2**31]}, "'i' format requires", "/num_key_value_heads"),
        ("gemma2", {"hidden_size": -1}, "argument out of range", "/hidden_size"),
        # the arithmetic before the adding: Llama's q/k permutation, Phi-3's RoPE dimensions
        ("mistral", {"num_key_value_heads": "8"}, "TypeError: unsupported operand type(s) for //: 'int' and 'str'", "/num_key_value_heads"),
        ("mistral", {"num_attention_heads": 32.0}, "TypeError: reshape() takes 1 positional argument", "/num_attention_heads"),
        ("mistral", {"num_key_value_heads": 0}, "ZeroDivisionError: integer division or modulo by zero", "/num_key_value_heads"),
        ("phi3", {"hidden_size": [3072]}, "TypeError: can't multiply sequence by non-int of type 'float'", "/hidden_size"),
    ],
)
def test_a_count_the_converter_cannot_add_pack_or_compute_with_stops_it(tmp_path, family, spoilt, message, pointer):
    view = view_of(tmp_path, dict(copy.deepcopy(BASES[family]), **spoilt))
    assert view.outcome == "error" and message in view.message and view.failure.pointer == pointer, view.failure


@pytest.mark.parametrize("value", [[], "", [4, 4]])
def test_an_array_gguf_py_packs_or_leaves_out_is_no_refusal(tmp_path, value):
    assert view_of(tmp_path, dict(copy.deepcopy(BASES["gemma2"]), intermediate_size=value)).outcome == "loads"


def test_a_count_given_as_a_string_is_read_back_as_its_characters(tmp_path):
    view = view_of(tmp_path, dict(copy.deepcopy(BASES["gemma2"]), num_key_value_heads="44"))
    assert view.outcome == "loads" and view.values["num_key_value_heads"] == ["4", "4"]


def test_the_counts_are_added_before_an_unnamed_rope_type_is_lowered_and_after_llamas(tmp_path):
    # Qwen2 lowers the RoPE type in set_gguf_parameters, after the counts; Llama's generate_extra_tensors
    # lowers it before the tensors are prepared.
    rope = {"rope_parameters": {"rope_type": 5, "rope_theta": 10000.0}, "rope_scaling": None}
    qwen2 = view_of(tmp_path, dict(copy.deepcopy(BASES["qwen2"]), num_key_value_heads=2.0, **rope))
    mistral = view_of(tmp_path, dict(copy.deepcopy(BASES["mistral"]), num_key_value_heads=2.0, **rope))
    assert qwen2.message.startswith("TypeError: object of type 'float' has no len()"), qwen2.message
    assert mistral.message.startswith("AttributeError: 'int' object has no attribute 'lower'"), mistral.message


@pytest.mark.parametrize(
    ("family", "spoilt", "message", "pointer"),
    [
        # modify_tensors merges the experts as the tensors are prepared, before set_gguf_parameters adds anything
        ("mixtral", {"num_local_experts": 0, "num_experts_per_tok": 1.5}, "RuntimeError: stack expects a non-empty TensorList", "/num_local_experts"),
        ("qwen2_moe", {"num_experts": "x"}, "TypeError: '>=' not supported between instances of 'int' and 'str'", "/num_experts"),
        ("deepseek_v2", {"n_routed_experts": 2.0}, "TypeError: 'float' object cannot be interpreted as an integer", "/n_routed_experts"),
        # GptOssModel's experts come fused: its count is only packed
        ("gpt_oss", {"num_local_experts": -1}, "struct.error: argument out of range (gguf-py packs gpt-oss.expert_count", "/num_local_experts"),
        # the experts' counts are added after the RoPE type is lowered (base.py), the head counts before
        ("qwen2_moe", {"num_experts_per_tok": 1.5, "rope_scaling": {"rope_type": 3, "factor": 2.0}}, "AttributeError", "/rope_scaling/rope_type"),
        ("qwen2_moe", {"num_key_value_heads": 1.5, "rope_scaling": {"rope_type": 3, "factor": 2.0}}, "TypeError: object of type 'float' has no len()", "/num_key_value_heads"),
        ("granite", {"residual_multiplier": 1e39}, "OverflowError: float too large to pack with f format (gguf-py packs granite.residual_scale", "/residual_multiplier"),
        ("olmo2", {"sliding_window": None}, "struct.error: required argument is not an integer (gguf-py packs olmo2.attention.sliding_window", "/sliding_window"),
    ],
)
def test_the_experts_multipliers_and_windows_refused(tmp_path, family, spoilt, message, pointer):
    view = view_of(tmp_path, dict(copy.deepcopy(BASES[family]), **spoilt))
    assert view.outcome == "error" and view.message.startswith(message) and view.failure.pointer == pointer, view.failure


def test_what_is_not_added_is_not_packed(tmp_path):
    """A falsy Granite multiplier and an Olmo2 file without a window add nothing; true is packed as 1."""
    assert view_of(tmp_path, dict(copy.deepcopy(BASES["granite"]), attention_multiplier=0)).outcome == "loads"
    assert view_of(tmp_path, {k: v for k, v in BASES["olmo2"].items() if k != "sliding_window"}).outcome == "loads"
    windowed = view_of(tmp_path, dict(copy.deepcopy(BASES["olmo2"]), sliding_window=True))
    assert windowed.outcome == "loads" and windowed.values["sliding_window"] == 1 and type(windowed.values["sliding_window"]) is int
