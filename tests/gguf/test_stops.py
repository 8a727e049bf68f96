"""llama.cpp's stop set from a GGUF beside config.json (written with the gguf package's GGUFWriter): the
file's own eos/eot/eom and FIM ids and its vocabulary's end-of-generation texts, instead of a prediction
from the tokenizer files."""

from __future__ import annotations

import json

import gguf

from cfglint.cli import main
from cfglint.gguf.header import read_header
from cfglint.gguf.runs import runs_of
from tests.family import BASE
from tests.gguf.files import tiny_kv, write_gguf
from tests.rule_fixtures import chat

T = gguf.GGUFValueType
# ids 0-3 as the tokenizer files say (tests.rule_fixtures.ADDED), then what a chat GGUF may hold
TOKENS = ["<unk>", "<s>", "</s>", "<|eot_id|>", "<|end|>", "<|return|>", "<|call|>", "<|fim_pad|>", "word"]


def model(tmp_path, **kv) -> str:
    directory = tmp_path / "model"
    directory.mkdir()
    (directory / "config.json").write_text(json.dumps(dict(BASE, eos_token_id=2)))
    for name, content in chat(eos_token="</s>").items():
        (directory / name).write_text(content if isinstance(content, str) else json.dumps(content))
    keys = {k: v for k, v in {**tiny_kv(), "tokenizer.ggml.tokens": TOKENS[:4], **kv}.items() if v is not None}
    write_gguf(directory / "model-Q8_0.gguf", kv=keys)
    return str(directory)


def llama_cpp(capsys, target: str) -> dict:
    capsys.readouterr()
    assert main(["view", target, "--format", "json", "--isolated"]) == 0
    return json.loads(capsys.readouterr().out)[0]["stops"]["runtimes"]["llama-cpp"]


def test_the_gguf_says_what_llama_cpp_stops_on(tmp_path, capsys):
    # an old conversion: eos <s> (1), no eot key; llama.cpp still ends on </s> and <|eot_id|> by their text
    stops = llama_cpp(capsys, model(tmp_path, **{"tokenizer.ggml.eos_token_id": (1, T.UINT32)}))
    assert stops["ids"] == [1, 2, 3]
    assert stops["from"][0] == {"id": 1, "origin": "model-Q8_0.gguf eos (tokenizer.ggml.eos_token_id)"}
    assert {s["origin"] for s in stops["from"][1:]} == {"model-Q8_0.gguf end-of-generation text '</s>'",
                                                        "model-Q8_0.gguf end-of-generation text '<|eot_id|>'"}


def test_an_absent_eos_key_is_the_tokenizer_models_default(tmp_path, capsys):
    stops = llama_cpp(capsys, model(tmp_path, **{"tokenizer.ggml.eos_token_id": None, "tokenizer.ggml.tokens": ["a", "b", "c", "d"]}))
    assert stops["ids"] == [2]  # llama-vocab.cpp: the "llama" tokenizer model's eos is 2
    assert stops["from"][0]["origin"].endswith("(absent: the tokenizer model's default)")


def test_end_of_generation_keys_fim_tokens_and_harmony_end(tmp_path, capsys):
    kv = {"tokenizer.ggml.tokens": TOKENS, "tokenizer.ggml.eot_token_id": (8, T.UINT32), "tokenizer.ggml.eom_token_id": (7, T.UINT32)}
    stops = llama_cpp(capsys, model(tmp_path, **kv))
    # eos 2, eot 8 and eom 7 by key, 7 also as the FIM pad by its text; </s>, <|eot_id|>, <|return|>, <|call|>
    # by text; <|end|> (4) is dropped because <|return|> and <|call|> are there
    assert stops["ids"] == [2, 3, 5, 6, 7, 8]


def test_a_gguf_without_a_vocabulary_is_not_the_model(tmp_path, capsys):
    target = model(tmp_path)
    (tmp_path / "model" / "model-Q8_0.gguf").rename(tmp_path / "model" / "zz.gguf")
    write_gguf(tmp_path / "model" / "mmproj-model-f16.gguf", "clip", kv={"clip.projector_type": "mlp"})
    stops = llama_cpp(capsys, target)
    assert stops["from"][0]["origin"] == "zz.gguf eos (tokenizer.ggml.eos_token_id)"  # mmproj-... sorts first, has no tokens


def test_an_unreadable_gguf_is_a_finding_and_the_prediction_stands(tmp_path, capsys):
    target = model(tmp_path)
    (tmp_path / "model" / "model-Q8_0.gguf").write_bytes(b"GGUF\x03\x00\x00\x00truncated")
    capsys.readouterr()
    assert main(["check", target, "--format", "json", "--isolated"]) == 1
    [t005] = [f for f in json.loads(capsys.readouterr().out) if f["code"] == "T005"]
    assert t005["message"].startswith("model-Q8_0.gguf cannot be read as a GGUF (") and "\n" not in t005["message"]
    assert llama_cpp(capsys, target)["from"][0]["origin"] == "GGUF eos (tokenizer_config.json eos_token) '</s>'"


def test_the_header_prediction_and_the_stop_token_reading_compute_one_set(tmp_path, capsys):
    # a text held twice (<|eot_id|> 3 and 9: token_to_id keeps 9; real llama.cpp then fails its assertion that
    # each text is one id, which neither reading models yet), the FIM pad by key, <|end|> dropped
    tokens = [*TOKENS, "<|eot_id|>"]
    kv = {"tokenizer.ggml.tokens": tokens, "tokenizer.ggml.fim_pad_token_id": (8, T.UINT32)}
    target = model(tmp_path, **kv)
    predicted = runs_of(read_header(tmp_path / "model" / "model-Q8_0.gguf"))["end_of_generation"].value
    assert predicted == llama_cpp(capsys, target)["ids"] == [2, 5, 6, 8, 9]
