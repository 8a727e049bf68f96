"""llama.cpp's end-of-generation set (llama-vocab.cpp load), computed once for the GGUF header prediction and
the stop-token reading."""

from __future__ import annotations

from cfglint.knowledge.llama_cpp_eog import BY_TEXT, EndOfGeneration, end_of_generation


def eog(tokens: list[str], **special: int) -> list[EndOfGeneration]:
    token_to_id = {text: i for i, text in enumerate(tokens)}
    return end_of_generation(special, token_to_id, lambda i: tokens[i] if 0 <= i < len(tokens) else None)


def ids(found: list[EndOfGeneration]) -> list[int]:
    return sorted({e.id for e in found})


def test_the_keys_ids_come_first_then_the_texts_then_the_fim_tokens_found_by_text():
    found = eog(["<unk>", "<s>", "</s>", "<|eot_id|>", "<|fim_pad|>", "<|file_sep|>"], eos=2, eot=3)
    assert found == [EndOfGeneration(2, "eos"), EndOfGeneration(3, "eot"), EndOfGeneration(3, BY_TEXT, "<|eot_id|>"),
                     EndOfGeneration(2, BY_TEXT, "</s>"), EndOfGeneration(4, "fim_pad", "<|fim_pad|>"),
                     EndOfGeneration(5, "fim_sep", "<|file_sep|>")]


def test_a_fim_key_replaces_the_lookup_by_text():
    found = eog(["<|fim_pad|>", "word", "<|repo_name|>"], fim_pad=1)
    assert found == [EndOfGeneration(1, "fim_pad"), EndOfGeneration(2, "fim_rep", "<|repo_name|>")]


def test_a_text_held_twice_is_the_later_id_as_in_token_to_id():
    # llama.cpp's token_to_id keeps the later id of a text held twice; the earlier one ends nothing by its text
    assert ids(eog(["<|im_end|>", "word", "<|im_end|>", "<|fim_pad|>", "<|fim_pad|>"])) == [2, 4]


def test_end_leaves_the_set_when_return_and_call_are_in_it():
    tokens = ["<|end|>", "<|return|>", "<|call|>", "word"]
    assert ids(eog(tokens)) == [1, 2]
    assert ids(eog(tokens[:2])) == [0, 1]  # <|return|> alone keeps <|end|>


def test_end_leaves_the_set_when_calls_and_flush_are_in_it():
    assert ids(eog(["<|end|>", "<|calls|>", "<|flush|>"])) == [1, 2]


def test_either_call_token_counts_with_return_or_flush():
    # llama-vocab.cpp sets one has_call for <|call|> and <|calls|>, so the pairs mix too
    assert ids(eog(["<|end|>", "<|return|>", "<|calls|>"])) == [1, 2]
    assert ids(eog(["<|end|>", "<|call|>", "<|flush|>"])) == [1, 2]
    assert ids(eog(["<|end|>", "<|return|>", "<|flush|>"])) == [0, 1, 2]  # no call token: <|end|> stays


def test_a_key_that_names_end_is_dropped_with_it():
    # eos by key and the text both give id 0; the workaround removes the id, whatever put it in the set
    assert ids(eog(["<|end|>", "<|return|>", "<|call|>"], eos=0)) == [1, 2]


def test_the_later_of_two_end_tokens_leaves():
    # special_eog_ids is a std::set: the last id with the text is the one the workaround erases
    assert ids(eog(["<|end|>", "<|return|>", "<|call|>", "x", "<|end|>"], eot=0)) == [0, 1, 2]


def test_a_plain_end_of_sentence_leaves_beside_a_tool_response_or_plamo_eos():
    assert ids(eog(["</s>", "<|tool_response>"])) == [1]
    assert ids(eog(["<|plamo:eos|>", "</s>"], eos=0)) == [0]
    assert ids(eog(["</s>", "<eos>"])) == [0, 1]

