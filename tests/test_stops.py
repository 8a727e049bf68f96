"""Stop tokens: each runtime's precedence on hand-made directories, the template's end of turn, and bad
tokenizer files (a finding or a one-line error, never a traceback, never a hang)."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

from cfglint.cli import main
from cfglint.stops import template
from tests.conftest import ROOT
from tests.family import BASE
from tests.rule_fixtures import ADDED, TURNS, chat

QWEN_ADDED = {"added_tokens": [{"id": 0, "content": "<|endoftext|>"}, {"id": 1, "content": "<|im_start|>"}, {"id": 2, "content": "<|im_end|>"}]}
CHATML = "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"


def model(tmp_path, config: dict, files: dict, name: str = "model") -> str:
    d = tmp_path / name
    d.mkdir(parents=True, exist_ok=True)
    (d / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    for file, content in files.items():
        (d / file).write_text(content if isinstance(content, str) else json.dumps(content))
    return str(d)


def view(capsys, target: str) -> dict:
    capsys.readouterr()
    assert main(["view", target, "--format", "json", "--isolated"]) == 0
    return json.loads(capsys.readouterr().out)[0]["stops"]


def check(capsys, target: str) -> list[dict]:
    capsys.readouterr()
    assert main(["check", target, "--format", "json", "--isolated"]) in (0, 1)
    return [f for f in json.loads(capsys.readouterr().out or "[]") if f["code"].startswith("T")]


def ids(stops: dict) -> dict[str, list[int]]:
    return {name: s["ids"] for name, s in stops["runtimes"].items()}


def test_llama3_layout_each_runtime_reads_its_own_file(tmp_path, capsys):
    target = model(tmp_path, dict(BASE, eos_token_id=2), {**chat(), "generation_config.json": {"eos_token_id": [2, 3]}})
    stops = view(capsys, target)
    assert stops["turn_end"] == {"token": "<|eot_id|>", "id": 3, "template": "chat_template.jinja", "error": None}
    assert ids(stops) == {
        "transformers-5": [2, 3], "transformers-4": [2, 3],
        "vllm": [2, 3],  # the tokenizer's eos <|eot_id|> and generation_config.json's list
        "mlx-lm": [2, 3],  # generation_config.json's eos replaces config.json's
        "candle": [2],  # config.json only
        "mistralrs": [2, 3],
        "llama-cpp": [2, 3],  # GGUF eos from tokenizer_config.json's eos_token; </s> and <|eot_id|> end generation by their text
    }


def test_without_generation_config_transformers_reads_config_json(tmp_path, capsys):
    target = model(tmp_path, dict(BASE, eos_token_id=2), chat(eos_token="</s>"))
    stops = view(capsys, target)
    assert ids(stops)["transformers-5"] == [2] and ids(stops)["mlx-lm"] == [2]
    found = check(capsys, target)
    assert [f["code"] for f in found] == ["T001"]
    [t001] = found
    # mistral.rs stops on <|eot_id|> anyway: the vocabulary has it and the template writes it
    assert {e["consumer"] for e in t001["effects"]} == {"transformers-5", "transformers-4", "vllm", "mlx-lm", "candle"}
    # transformers 5 reads config.json's eos here, so adding the id changes what it stops on: unsafe
    assert t001["fix"]["applicability"] == "unsafe" and t001["fix"]["edits"] == [{"op": "set", "pointer": "/eos_token_id", "value": [2, 3]}]


def test_mlx_lm_adds_the_tokenizer_eos(tmp_path, capsys):
    config = {k: v for k, v in BASE.items() if k != "eos_token_id"}
    target = model(tmp_path, config, {**chat(), "generation_config.json": {"eos_token_id": []}})
    assert ids(view(capsys, target))["mlx-lm"] == [3]  # an empty list is falsy, config.json has none: the tokenizer's
    target = model(tmp_path, dict(BASE, eos_token_id=2), {**chat(), "generation_config.json": {"eos_token_id": 2}}, "gen")
    assert ids(view(capsys, target))["mlx-lm"] == [2, 3]


def test_generation_eos_missing_from_generation_config_is_shown_not_written(tmp_path, capsys):
    target = model(tmp_path, dict(BASE, eos_token_id=2), {**chat(), "generation_config.json": {"eos_token_id": 2}})
    [t001] = check(capsys, target)
    assert t001["fix"]["applicability"] == "display-only" and t001["fix"]["edits"] == []
    assert "generation_config.json" in t001["fix"]["message"]


def test_qwen_candle_stops_by_name_and_mistralrs_on_template_alternates(tmp_path, capsys):
    config = {"model_type": "qwen2", "vocab_size": 64, "eos_token_id": 0}
    files = {"tokenizer.json": QWEN_ADDED, "tokenizer_config.json": {"eos_token": "<|endoftext|>"}, "chat_template.jinja": CHATML,
             "generation_config.json": {"eos_token_id": 0}}
    stops = view(capsys, model(tmp_path, config, files))
    assert stops["turn_end"]["token"] == "<|im_end|>"
    assert ids(stops)["candle"] == [0, 2] and ids(stops)["mistralrs"] == [0, 2] and ids(stops)["llama-cpp"] == [0, 2]
    assert ids(stops)["transformers-5"] == [0]


def test_candle_qwen_example_bails_without_im_end(tmp_path, capsys):
    config = {"model_type": "qwen2", "vocab_size": 64, "eos_token_id": 0}
    files = {"tokenizer.json": {"added_tokens": QWEN_ADDED["added_tokens"][:1]}, "tokenizer_config.json": {"eos_token": "<|endoftext|>"}}
    candle = view(capsys, model(tmp_path, config, files))["runtimes"]["candle"]
    assert candle["failure"] == "cannot find the <|im_end|> token"


def test_llama_cpp_skips_a_list_in_config_json(tmp_path, capsys):
    def gguf_eos(target: str) -> list[int]:
        return [s["id"] for s in view(capsys, target)["runtimes"]["llama-cpp"]["from"] if s["origin"].startswith("GGUF eos")]

    target = model(tmp_path, dict(BASE, eos_token_id=[2, 3]), {"tokenizer.json": ADDED, "tokenizer_config.json": {}})
    assert gguf_eos(target) == []  # config.json's list gives no GGUF eos (</s> and <|eot_id|> still end generation by text)
    assert ids(view(capsys, target))["llama-cpp"] == [2, 3]
    single = model(tmp_path, dict(BASE, eos_token_id=1), {"tokenizer.json": ADDED, "tokenizer_config.json": {}}, "single")
    assert gguf_eos(single) == [1] and ids(view(capsys, single))["llama-cpp"] == [1, 2, 3]


def test_special_tokens_map_wins_for_transformers_but_not_for_mistralrs(tmp_path, capsys):
    files = {**chat(), "special_tokens_map.json": {"eos_token": {"content": "</s>"}}}
    target = model(tmp_path, dict(BASE, eos_token_id=[2, 3]), files)
    runtimes = view(capsys, target)["runtimes"]
    assert runtimes["vllm"]["from"][0]["origin"] == "tokenizer eos_token '</s>'"
    assert runtimes["mistralrs"]["from"][0]["origin"] == "tokenizer_config.json eos_token '<|eot_id|>'"


def test_template_variants(tmp_path):
    names = {"<s>", "</s>", "<|eot_id|>", "<end_of_turn>"}
    gemma = "{% for m in messages %}<start_of_turn>{{ m.role }}\n{{ m.content | trim }}<end_of_turn>\n{% endfor %}"
    assert template.turn_end(gemma, {}, names).token == "<end_of_turn>"
    system_only = "{% if messages[0].role != 'system' %}{{ raise_exception('needs a system message') }}{% endif %}" + TURNS
    assert template.turn_end(system_only, {}, names).token == "<|eot_id|>"  # the second conversation has one
    eos_after = "{% for m in messages %}{{ m.content }}{{ eos_token }}{% endfor %}"
    assert template.turn_end(eos_after, {"eos_token": "</s>"}, names).token == "</s>"
    nothing_after = "{% for m in messages %}{{ m.content }}{% endfor %}"
    end = template.turn_end(nothing_after, {}, names)
    assert end.token is None and end.error is None
    assert template.turn_end("{{ 'no messages' }}", {}, names).error == "does not print the assistant's message"
    generation = "{% for m in messages %}{% generation %}{{ m.content }}{% endgeneration %}<|eot_id|>{% endfor %}"
    assert template.turn_end(generation, {}, names).token == "<|eot_id|>"


@pytest.mark.parametrize("body, error", [
    ("{% for m in messages %}{{ m.content }", "does not parse"),
    ("{{ raise_exception('no') }}", "does not render: no"),
    ("{% for i in range(100000) %}{{ 'x' * 1000 }}{% endfor %}", "renders more than 65536 characters"),
    ("{% set s = namespace(v='x') %}{% for i in range(64) %}{% set s.v = s.v ~ s.v %}{% endfor %}{{ s.v }}", "needs more than 1 GiB"),
    ("{{ ''.__class__.__mro__[1].__subclasses__() }}", "does not render"),  # the sandbox refuses
])
def test_bad_templates_give_one_line(body, error):
    end = template.turn_end(body, {}, {"<|eot_id|>"})
    assert end.token is None and end.error is not None and end.error.startswith(error), end.error
    assert "\n" not in end.error


def test_a_looping_template_is_stopped(monkeypatch):
    monkeypatch.setattr(template, "TIMEOUT", 1.0)
    loop = "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}"
    assert template.turn_end(loop, {}, set()).error == "did not finish rendering in 1 s"


BAD_FILES = [
    ("tokenizer_config.json", '{"eos_token": "</s>",', "tokenizer_config.json is not valid JSON"),
    ("tokenizer_config.json", "[1, 2]", "tokenizer_config.json is a JSON list, not an object"),
    ("tokenizer_config.json", '{"chat_template": 3}', "tokenizer_config.json chat_template is a JSON int, not a string"),
    ("special_tokens_map.json", "\x00\x01garbage", "special_tokens_map.json is not valid JSON"),
    ("tokenizer.json", '{"version": "1.0", "added_tokens": [{"id": 1, "content": "<s>"}, {"id"', "tokenizer.json added_tokens is not valid JSON"),
    ("tokenizer.json", "PK\x03\x04 not json", "tokenizer.json is not a JSON object"),
]


@pytest.mark.parametrize("name, text, message", BAD_FILES)
def test_bad_tokenizer_files_are_findings(tmp_path, capsys, name, text, message):
    target = model(tmp_path, dict(BASE, eos_token_id=2), {name: text})
    found = check(capsys, target)
    assert [f["code"] for f in found] == ["T005"] and found[0]["message"].startswith(message), found
    assert main(["view", target, "--isolated"]) == 0
    assert main(["fix", target, "--isolated"]) in (0, 1)


def test_tokenizer_json_is_read_only_as_far_as_its_added_tokens(tmp_path, capsys):
    from cfglint.stops import files

    big = '{"version": "1.0", "model": {"vocab": "' + "x" * (files.READ_LIMIT + 10) + '"}, "added_tokens": []}'
    found = check(capsys, model(tmp_path, dict(BASE, eos_token_id=2), {"tokenizer.json": big}))
    assert [f["message"] for f in found] == ["tokenizer.json has no added_tokens in its first 8 MiB; not read further: its stop tokens were not checked"]


def _mutation(rng: random.Random):
    values = [None, 0, -1, 2, 3, 10**20, 1.5, True, "</s>", "<|eot_id|>", "", [], [2, "x"], {}, {"content": 3}, {"content": "<s>"}]
    config = {"eos_token": rng.choice(values), "pad_token": rng.choice(values), "bos_token": rng.choice(values)}
    if rng.random() < 0.5:
        config["added_tokens_decoder"] = rng.choice([{"3": {"content": "<x>"}}, {"a": 1}, [1], {"2": None}, None])
    if rng.random() < 0.15:
        config["chat_template"] = rng.choice([TURNS, ["x"], [{"name": "default", "template": TURNS}], [{"name": 1}], ""])
    files = {"tokenizer_config.json": config}
    if rng.random() < 0.5:
        files["tokenizer.json"] = rng.choice([ADDED, {"added_tokens": None}, {"added_tokens": [1, {"id": "2"}, {"id": 2, "content": 5}]}])
    if rng.random() < 0.3:
        files["special_tokens_map.json"] = {"eos_token": rng.choice(values)}
    if rng.random() < 0.5:
        files["generation_config.json"] = {"eos_token_id": rng.choice(values), "pad_token_id": rng.choice(values)}
    return dict(BASE, eos_token_id=rng.choice(values)), files


@pytest.mark.parametrize("seed", range(24))
def test_mutated_tokenizer_files_never_crash(tmp_path, capsys, seed):
    config, files = _mutation(random.Random(seed))
    target = model(tmp_path, config, files)
    for args in (["check", target, "--format", "json"], ["view", target, "--format", "json"], ["fix", target, "--write", "--unsafe-fixes"]):
        capsys.readouterr()
        assert main([*args, "--isolated"]) in (0, 1, 2)
        out, err = capsys.readouterr()
        assert "Traceback" not in out + err
        if args[-1] == "json":
            json.loads(out)


PROBE = """
import sys
from cfglint.cli import main
main(["check", sys.argv[1], "--isolated", "--format", "json"])
print("jinja2" in sys.modules)
"""


def test_the_check_process_never_imports_jinja2(tmp_path):
    target = model(tmp_path, dict(BASE, eos_token_id=2), chat())
    proc = subprocess.run([sys.executable, "-c", PROBE, target], cwd=ROOT, capture_output=True, text=True, check=False)
    assert proc.stdout.strip().splitlines()[-1] == "False", proc.stderr


def test_the_readme_view_example_is_what_view_prints(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    command = "cfglint view samples/stops-llama-3-8b-instruct"
    block = (ROOT / "README.md").read_text().split(f"```console\n$ {command}\n...\n", 1)[1].split("```", 1)[0]
    assert main(["view", "samples/stops-llama-3-8b-instruct"]) == 0
    out = capsys.readouterr().out
    assert out[out.index("stop tokens:"):] == block


def test_a_stop_on_an_ordinary_token_is_reported(tmp_path, capsys):
    target = model(tmp_path, dict(BASE, eos_token_id=[2, 3]), {**chat(), "generation_config.json": {"eos_token_id": [2, 3, 40]}})
    [t002] = [f for f in check(capsys, target) if f["code"] == "T002"]
    assert t002["severity"] == "warning" and t002["message"].startswith("generation_config.json's eos_token_id 40 is no added token")


def test_added_tokens_decoder_naming_another_token_is_reported(tmp_path, capsys):
    decoder = {"3": {"content": "<|end|>", "special": True}}
    target = model(tmp_path, dict(BASE, eos_token_id=[2, 3]), chat(added_tokens_decoder=decoder))
    messages = [f["message"] for f in check(capsys, target) if f["code"] == "T002"]
    assert messages == [("token 3 is '<|eot_id|>' in tokenizer.json but '<|end|>' in tokenizer_config.json's added_tokens_decoder: "
                         "candle and llama.cpp's converter read the first, mistral.rs the second")]


def test_a_template_is_rendered_once_per_run(monkeypatch):
    """Model directories that share a chat template (a tree of fine-tunes) start one renderer between them."""
    import subprocess

    from cfglint.stops import template

    template._rendered.cache_clear()
    started = []
    real_run = subprocess.run

    def counting_run(*args, **kwargs):
        started.append(args)
        return real_run(*args, **kwargs)

    monkeypatch.setattr(template.subprocess, "run", counting_run)
    text = "{% for m in messages %}{{ m['content'] }}<|end|>{% endfor %}"
    first = template.turn_end(text, {"eos_token": "</s>"}, {"<|end|>", "</s>"})
    second = template.turn_end(text, {"eos_token": "</s>"}, {"<|end|>"})
    other = template.turn_end(text + " ", {"eos_token": "</s>"}, {"<|end|>"})
    assert (first.token, second.token, other.token) == ("<|end|>", "<|end|>", "<|end|>")
    assert len(started) == 2  # the second call found the first's rendering; a different text renders anew
