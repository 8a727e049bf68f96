"""The predicted stop sets against the runtimes themselves, on every stops-* sample.

Each sample gets a loadable tokenizer.json built around its added tokens (a word-level model holding the
added tokens at their own ids; the samples' trimmed tokenizer.json has no model), then transformers 5.24
(the test environment's, which has jinja2 to render templates) and 4.57.6 report generate()'s eos ids
(GenerationConfig) and the tokenizer's eos id, transformers 5.24 the rendered chat template, and mlx-lm
0.32 the ids its TokenizerWrapper stops on. llama.cpp's real converter writes the GGUF eos of a tiny
Llama. Not run here: llama.cpp's runtime end-of-generation set (it needs the C++ build), candle's examples
and mistral.rs (they need a full model and vocabulary to start generating); those sets are read from their
source, as runtimes.py says where.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from cfglint.cli import main
from cfglint.consumers import get
from cfglint.document import load
from cfglint.engine import context_of
from cfglint.stops import template
from tests.conformance.venvs import run_probe, runtime_python
from tests.conftest import SAMPLES

STOP_SAMPLES = sorted(p.name for p in SAMPLES.glob("stops-*"))


def loadable(sample: str, into) -> str:
    """The sample's files with a tokenizer.json that tokenizers can load: the same added tokens, same ids."""
    target = into / sample
    shutil.copytree(SAMPLES / sample, target)
    added = json.loads((target / "tokenizer.json").read_text())["added_tokens"]
    vocab = {"[UNK]": 0, "Hello": 1} | {t["content"]: t["id"] for t in added}
    (target / "tokenizer.json").write_text(json.dumps({
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": added, "normalizer": None,
        "pre_tokenizer": {"type": "Whitespace"}, "post_processor": None, "decoder": None,
        "model": {"type": "WordLevel", "vocab": vocab, "unk_token": "[UNK]"},
    }))
    return str(target)


@pytest.fixture(scope="module")
def pythons():
    return {
        "transformers-5": Path(sys.executable),  # transformers==5.24.0 from the test extra, and jinja2
        "transformers-4": runtime_python("transformers4", ["transformers==4.57.6"]),
        "mlx-lm": runtime_python("mlx-lm", ["mlx[cpu]", "mlx-lm"]),
    }


@pytest.fixture(scope="module")
def observed(pythons, tmp_path_factory):
    root = tmp_path_factory.mktemp("stops")
    directories = {sample: loadable(sample, root) for sample in STOP_SAMPLES}
    seen = {name: run_probe(python, "stops_probe.py", *directories.values()) for name, python in pythons.items()}
    return {s: {"dir": d, **{name: seen[name][d] for name in pythons}} for s, d in directories.items()}


def predicted(directory: str):
    ctx = context_of(load(Path(directory) / "config.json"), [get(n) for n in ("transformers-5", "transformers-4", "mlx-lm", "candle")])
    return ctx.stops


def as_set(value) -> set:
    return set(value) if isinstance(value, list) else ({value} if value is not None else set())


@pytest.mark.parametrize("sample", STOP_SAMPLES)
def test_generate_stops_where_predicted(sample, observed):
    stops = predicted(observed[sample]["dir"])
    for runtime in ("transformers-5", "transformers-4"):
        seen = observed[sample][runtime]
        assert "generation_error" not in seen, seen
        assert as_set(seen["generation_eos"]) == set(stops.sets[runtime].ids), (runtime, seen["generation_eos"])


@pytest.mark.parametrize("sample", STOP_SAMPLES)
def test_tokenizer_eos_and_turn_end_as_transformers_renders_them(sample, observed):
    stops = predicted(observed[sample]["dir"])
    files = stops.files
    for runtime in ("transformers-5", "transformers-4"):
        assert observed[sample][runtime]["tokenizer_eos"] == files.vocabulary.id_of(files.special("eos_token")), runtime
    # the token after the assistant's message in transformers' own rendering is the one cfglint found
    chat = observed[sample]["transformers-5"]["chat"]
    assert template.after_marker(chat, set(files.vocabulary.by_text)).token == stops.turn.token, (chat[-80:], stops.turn)


@pytest.mark.parametrize("sample", STOP_SAMPLES)
def test_mlx_lm_stops_where_predicted(sample, observed):
    stops = predicted(observed[sample]["dir"])
    assert set(observed[sample]["mlx-lm"]["mlx_lm_eos"]) == set(stops.sets["mlx-lm"].ids)


def test_the_safe_fix_keeps_what_generate_stops_on(pythons, observed, tmp_path):
    sample = "stops-llama-3-8b-instruct"
    directory = loadable(sample, tmp_path)
    assert main(["fix", "--write", "--isolated", directory]) == 0
    after = run_probe(pythons["transformers-5"], "stops_probe.py", directory)[directory]
    assert as_set(after["generation_eos"]) == as_set(observed[sample]["transformers-5"]["generation_eos"]) == {128001, 128009}
    assert json.loads((tmp_path / sample / "config.json").read_text())["eos_token_id"] == [128001, 128009]
    stops = predicted(directory)
    assert 128009 in stops.sets["candle"].ids and not stops.missing_turn_end()


# llama.cpp's converter: the GGUF eos it writes for a tiny Llama (tokenizer.json holds <unk> 0, <s> 1, </s> 2).
# case -> (tokenizer_config.json changes, config.json eos_token_id, the GGUF eos cfglint predicts)
CONVERTER_CASES = {
    "tokenizer eos wins over config.json's list": ({"eos_token": "</s>"}, [2, 1], 2),
    "no tokenizer eos: config.json's integer": ({"eos_token": None}, 1, 1),
    "no tokenizer eos: config.json's list is skipped": ({"eos_token": None}, [2, 1], None),
}


@pytest.mark.parametrize("case", sorted(CONVERTER_CASES))
def test_converter_writes_the_predicted_gguf_eos(case, tmp_path):
    from tests.conformance.llama_cpp_converter import converter_python, ensure_converter
    from tests.conformance.test_runtimes import TINY_DIMS
    from tests.conformance.tiny_checkpoint import write_tiny_checkpoint
    from tests.family import family

    tokenizer, eos, expected = CONVERTER_CASES[case]
    model = write_tiny_checkpoint(dict(family()["tf4-default"], **TINY_DIMS, num_attention_heads=4, num_key_value_heads=2,
                                       eos_token_id=eos), tmp_path / "model")
    config_path = model / "tokenizer_config.json"
    config = {k: v for k, v in {**json.loads(config_path.read_text()), **tokenizer}.items() if v is not None}
    config_path.write_text(json.dumps(config))
    seen = run_probe(converter_python("5.24.0"), "llama_cpp_probe.py", str(model), "--converter", str(ensure_converter()))
    assert seen["outcome"] == "loads", seen
    stops = context_of(load(model / "config.json"), [get("llama-cpp")]).stops
    written = [s.id for s in stops.sets["llama-cpp"].stops if s.origin.startswith("GGUF eos")]
    assert written == ([] if expected is None else [expected])
    assert seen["values"]["eos_token_id"] == expected
