"""The predicted stop sets against the runtimes themselves, on every stops-* sample.

Each sample gets a loadable tokenizer.json built around its added tokens (a word-level model holding the
added tokens at their own ids; the samples' trimmed tokenizer.json has no model), then transformers 5.24
(the test environment's, which has jinja2 to render templates) and 4.57.6 report generate()'s eos ids
(GenerationConfig) and the tokenizer's eos id, transformers 5.24 the rendered chat template, and mlx-lm
0.32 the ids its TokenizerWrapper stops on. Echo checkpoints (a tiny Llama that repeats its last token,
echo_checkpoint.py) around the same files show where real generation stops: transformers 5.24's generate(),
in this process, and mistral.rs 0.9.5's completion requests (finish_reason "stop" after one token, or
"length"), also without a generation_config.json. llama.cpp's real converter writes the GGUF eos of a tiny
Llama. Not run here: llama.cpp's runtime end-of-generation set (it needs the C++ build) and candle's
examples (Rust binaries built from source); those sets are read from their source, as runtimes.py says where.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from cfglint.cli import main
from cfglint.consumers import get
from cfglint.document import load
from cfglint.engine import context_of
from cfglint.stops import template
from tests.conformance.echo_checkpoint import make_echo
from tests.conformance.venvs import run_probe, runtime_python
from tests.conftest import SAMPLES

STOP_SAMPLES = sorted(p.name for p in SAMPLES.glob("stops-*"))
# Gemma 3's sample as a multimodal file without generation_config.json, its eos_token_id at the top level, in
# text_config, or nowhere: generate() takes the top level's, then the text model's (its class default where
# neither has one); mlx-lm reads config.json's top level only.
MULTIMODAL = {f"gemma3-eos-{where}": where for where in ("top", "text", "nowhere")}


def loadable(sample: str, into) -> str:
    """The sample's files with a tokenizer.json that tokenizers can load: the same added tokens, same ids."""
    target = into / sample
    shutil.copytree(SAMPLES / sample, target)
    added = json.loads((target / "tokenizer.json").read_text())["added_tokens"]
    # Every id up to the last added token has a word (mistral.rs indexes its token table by id): the added
    # tokens their own, two free ids "[UNK]" and "Hello", the others a filler.
    taken = {t["id"]: t["content"] for t in added}
    free = [i for i in range(len(taken) + 2) if i not in taken][:2]
    words = taken | {free[0]: "[UNK]", free[1]: "Hello"}
    vocab = {words.get(i, f"filler{i}"): i for i in range(max(words) + 1)}
    (target / "tokenizer.json").write_text(json.dumps({
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": added, "normalizer": None,
        "pre_tokenizer": {"type": "Whitespace"}, "post_processor": None,
        "decoder": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},  # mistral.rs needs one
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


def multimodal_case(case: str, into) -> str:
    """The Gemma 3 sample's files around a multimodal config.json (MULTIMODAL), without generation_config.json."""
    from tests.families import VISION

    directory = Path(loadable("stops-gemma-3-1b-it", into / "multimodal")).rename(into / case)
    (directory / "generation_config.json").unlink()
    config = json.loads((directory / "config.json").read_text())
    text = {k: v for k, v in config.items() if k not in ("architectures", "eos_token_id")}
    wrapper = {"architectures": ["Gemma3ForConditionalGeneration"], "model_type": "gemma3", "text_config": text, "vision_config": dict(VISION)}
    if MULTIMODAL[case] != "nowhere":
        (wrapper if MULTIMODAL[case] == "top" else text)["eos_token_id"] = config["eos_token_id"]
    (directory / "config.json").write_text(json.dumps(wrapper, indent=2))
    return str(directory)


@pytest.fixture(scope="module")
def observed(pythons, tmp_path_factory):
    root = tmp_path_factory.mktemp("stops")
    directories = {sample: loadable(sample, root) for sample in STOP_SAMPLES} | {case: multimodal_case(case, root) for case in MULTIMODAL}
    seen = {name: run_probe(python, "stops_probe.py", *directories.values()) for name, python in pythons.items()}
    return {s: {"dir": d, **{name: seen[name][d] for name in pythons}} for s, d in directories.items()}


def predicted(directory: str):
    ctx = context_of(load(Path(directory) / "config.json"), [get(n) for n in ("transformers-5", "transformers-4", "mlx-lm", "candle")])
    return ctx.stops


def test_the_multimodal_cases_split_the_runtimes(observed):
    """Where text_config alone has the eos, generate() stops on it and mlx-lm does not (the cases above could
    fail either way)."""
    seen = observed["gemma3-eos-text"]
    assert as_set(seen["transformers-5"]["generation_eos"]) == {1, 106} and 106 not in seen["mlx-lm"]["mlx_lm_eos"]


def as_set(value) -> set:
    return set(value) if isinstance(value, list) else ({value} if value is not None else set())


@pytest.mark.parametrize("sample", STOP_SAMPLES + sorted(MULTIMODAL))
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


@pytest.mark.parametrize("sample", STOP_SAMPLES + sorted(MULTIMODAL))
def test_mlx_lm_stops_where_predicted(sample, observed):
    stops = predicted(observed[sample]["dir"])
    assert set(observed[sample]["mlx-lm"]["mlx_lm_eos"]) == set(stops.sets["mlx-lm"].ids)


# Echo checkpoints (echo_checkpoint.py): each sample's tokenizer files and generation settings around a tiny
# Llama that repeats its last token, so a runtime shows by stopping or running on which ids end generation.
# case -> (sample, files to drop, config.json changes)
ECHO_CASES = {sample: (sample, (), {}) for sample in STOP_SAMPLES} | {
    # without generation_config.json: generate() reads config.json; mistral.rs too (its eos_token_id list)
    "llama-3 without generation_config.json": ("stops-llama-3-8b-instruct", ("generation_config.json",), {"eos_token_id": [128001, 128008]}),
    "qwen2.5 without generation_config.json": ("stops-qwen2.5-0.5b-instruct", ("generation_config.json",), {"eos_token_id": 151643}),
}


def echo_model(case: str, into: Path) -> tuple[str, list[int]]:
    """The case's echo checkpoint, and the ids it is watched on: every id a runtime is predicted to stop on,
    the template's end of turn, the BOS, and one added token that no runtime stops on."""
    sample, dropped, changes = ECHO_CASES[case]
    directory = Path(loadable(sample, into / case.replace(" ", "-")))
    for name in dropped:
        (directory / name).unlink()
    config_path = directory / "config.json"
    config_path.write_text(json.dumps({**json.loads(config_path.read_text()), **changes}, indent=2))
    stops = context_of(load(config_path), [get(n) for n in ("transformers-5", "transformers-4", "mlx-lm", "candle", "mistralrs")]).stops
    watched = {i for s in stops.sets.values() for i in s.ids} | {stops.turn_end_id, stops.files.vocabulary.id_of(stops.files.special("bos_token"))}
    decoy = min(i for i in stops.files.vocabulary.by_id if i not in watched)
    ids = sorted(i for i in watched | {decoy} if i is not None)
    make_echo(directory, ids)
    return str(directory), ids


def predicted_in(directory: str, runtime: str) -> set[int]:
    return set(context_of(load(Path(directory) / "config.json"), [get(runtime)]).stops.sets[runtime].ids)


def generate_stops(directory: str, ids: list[int]) -> set[int]:
    """The ids real transformers 5 generate() stops on, of `ids`, on an echo checkpoint loaded as from_pretrained
    loads it (generation_config.json, else config.json, gives model.generation_config)."""
    import torch
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(directory, dtype=torch.float32)
    stopped = set()
    for token_id in ids:
        prompt = torch.tensor([[token_id]])
        new = model.generate(prompt, attention_mask=torch.ones_like(prompt), max_new_tokens=3, do_sample=False)[0, 1:].tolist()
        assert new in ([token_id], [token_id] * 3), (token_id, new)  # the echo model repeats the token, or stops
        if new == [token_id]:
            stopped.add(token_id)
    return stopped


@pytest.fixture(scope="module")
def echoes(tmp_path_factory):
    root = tmp_path_factory.mktemp("echo")
    return {case: echo_model(case, root) for case in ECHO_CASES}


@pytest.mark.parametrize("case", sorted(ECHO_CASES))
def test_generate_stops_on_the_predicted_ids(case, echoes):
    directory, ids = echoes[case]
    assert generate_stops(directory, ids) == predicted_in(directory, "transformers-5")


@pytest.fixture(scope="module")
def mistralrs_seen(echoes):
    """mistral.rs 0.9.5 on every echo checkpoint, in one process."""
    python = runtime_python("mistralrs", ["mistralrs==0.9.5"])
    args = [arg for directory, ids in echoes.values() for arg in (",".join(map(str, ids)), directory)]
    return run_probe(python, "mistralrs_stops_probe.py", *args)["results"]


@pytest.mark.parametrize("case", sorted(ECHO_CASES))
def test_mistralrs_stops_on_the_predicted_ids(case, echoes, mistralrs_seen):
    directory, ids = echoes[case]
    seen = mistralrs_seen[directory]
    assert seen["outcome"] == "loads", seen
    for token_id, run in seen["values"].items():
        assert run["prompt_ids"][-1] == int(token_id), run  # the prompt ends with the token itself
        assert (run["finish_reason"], run["completion_tokens"]) in (("stop", 1), ("length", 3)), (token_id, run)
    stopped = {int(i) for i, run in seen["values"].items() if run["finish_reason"] == "stop"}
    assert stopped == predicted_in(directory, "mistralrs")


def test_the_safe_fix_keeps_where_generate_stops(tmp_path):
    """T001's safe fix writes config.json's eos_token_id, which transformers 5 reads; generate() stops where it
    did (generation_config.json sets its ids), and candle's Llama example now stops at the turn's end. The same
    edit without a generation_config.json is unsafe, and real generate() shows why: it then stops elsewhere."""
    directory, ids = echo_model("stops-llama-3-8b-instruct", tmp_path)
    before = generate_stops(directory, ids)
    assert main(["fix", "--write", "--isolated", directory]) == 0
    assert json.loads((Path(directory) / "config.json").read_text())["eos_token_id"] == [128001, 128009]
    assert generate_stops(directory, ids) == before == {128001, 128009}
    stops = predicted(directory)
    assert 128009 in stops.sets["candle"].ids and not stops.missing_turn_end()

    directory, ids = echo_model("llama-3 without generation_config.json", tmp_path)
    before = generate_stops(directory, ids)
    config = (Path(directory) / "config.json").read_text()
    assert main(["fix", "--write", "--isolated", directory]) == 0
    assert (Path(directory) / "config.json").read_text() == config  # T001's fix is unsafe here: not applied
    assert main(["fix", "--write", "--isolated", "--unsafe-fixes", directory]) == 0
    assert json.loads((Path(directory) / "config.json").read_text())["eos_token_id"] == [128001, 128008, 128009]
    assert generate_stops(directory, ids) == before | {128009}


def test_the_model_types_whose_transformers5_code_reads_the_eos():
    """TRANSFORMERS5_EOS_IN_FORWARD, recomputed from the installed transformers 5's modeling files."""
    import transformers
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES, model_type_to_module_name

    from cfglint.stops.runtimes import TRANSFORMERS5_EOS_IN_FORWARD

    models = Path(transformers.__file__).parent / "models"
    reading = {t for t in CONFIG_MAPPING_NAMES
               if any("config.eos_token_id" in f.read_text(encoding="utf-8") for f in (models / model_type_to_module_name(t)).glob("modeling_*.py"))}
    assert reading == TRANSFORMERS5_EOS_IN_FORWARD


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


def test_llama_cpp_stops_on_what_the_converted_gguf_holds(tmp_path, capsys):
    """A tiny Llama converted by llama.cpp's real converter, the GGUF left beside config.json: llama.cpp's stop
    set is read from that file (its eos as gguf's own GGUFReader reads it), not predicted from the tokenizer
    files, which are then edited to name another EOS."""
    import subprocess

    import gguf

    from tests.conformance.llama_cpp_converter import converter_python, ensure_converter
    from tests.conformance.test_runtimes import TINY_DIMS
    from tests.conformance.tiny_checkpoint import write_tiny_checkpoint
    from tests.family import family

    model = write_tiny_checkpoint(dict(family()["tf4-default"], **TINY_DIMS, num_attention_heads=4, num_key_value_heads=2),
                                  tmp_path / "model")
    converter = ensure_converter()
    converted = subprocess.run([str(converter_python("5.24.0")), str(converter), str(model), "--outfile", str(model / "model-f32.gguf"),
                                "--outtype", "f32"], capture_output=True, text=True, timeout=300, check=False,
                               env={k: v for k, v in {**os.environ, "HF_HUB_OFFLINE": "1"}.items() if k != "NO_LOCAL_GGUF"})
    assert converted.returncode == 0, converted.stderr[-2000:]
    field = gguf.GGUFReader(model / "model-f32.gguf").fields["tokenizer.ggml.eos_token_id"]
    written = int(field.parts[field.data[0]][0])
    config = json.loads((model / "tokenizer_config.json").read_text())
    (model / "tokenizer_config.json").write_text(json.dumps(dict(config, eos_token="<s>")))  # after the conversion

    def llama_cpp() -> dict:
        capsys.readouterr()
        assert main(["view", str(model), "--format", "json", "--isolated"]) == 0
        return json.loads(capsys.readouterr().out)[0]["stops"]["runtimes"]["llama-cpp"]

    stops = llama_cpp()
    assert stops["from"][0] == {"id": written, "origin": "model-f32.gguf eos (tokenizer.ggml.eos_token_id)"}
    assert written == 2 and stops["ids"] == [2]  # </s>, which also ends generation by its text
    (model / "model-f32.gguf").unlink()
    assert llama_cpp()["ids"] == [1, 2]  # predicted from the edited files: the converter would now write <s>
