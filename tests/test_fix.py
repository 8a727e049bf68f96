"""`cfglint fix`: byte-stable, idempotent, atomic edits whose safety is checked against real transformers."""

from __future__ import annotations

import difflib
import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from cfglint import consumers, document
from cfglint.cli import main
from cfglint.engine import context_of
from cfglint.fixing import fix_document
from cfglint.reading import same
from cfglint.rule import load_builtin
from tests.conftest import ROOT, sample_dirs
from tests.family import family
from tests.rule_fixtures import family as family_config

TF5_SMOLLM = ROOT / "samples" / "smollm2-135m-instruct-tf5"


def fixed_text(text: str, unsafe: bool = False) -> str:
    doc = document.parse(ROOT / "config.json", text.encode("utf-8"))
    outcome = fix_document(doc, [consumers.get(n) for n in consumers.names()], load_builtin(), "config.json", unsafe=unsafe)
    return outcome.after.text


def only_insertions(before: str, after: str) -> list[str]:
    """The lines the fix added; fails if any original line changed or moved."""
    a, b = before.splitlines(keepends=True), after.splitlines(keepends=True)
    added = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if tag == "insert":
            added += b[j1:j2]
        elif tag != "equal":
            # An insertion after the last member of an object adds a comma to that line; allow exactly that.
            assert tag == "replace" and i2 - i1 == 1, (tag, a[i1:i2], b[j1:j2])
            old, new = a[i1], b[j1]
            assert new.rstrip("\r\n") == old.rstrip("\r\n") + ",", (old, new)
            added += b[j1 + 1 : j2]
    return added


TF5_CONFIG = {
    "architectures": ["LlamaForCausalLM"], "hidden_size": 64, "intermediate_size": 128, "max_position_embeddings": 256,
    "model_type": "llama", "num_attention_heads": 4, "num_hidden_layers": 2, "num_key_value_heads": 2,
    "rms_norm_eps": 1e-05, "rope_parameters": {"rope_theta": 100000.0, "rope_type": "default"},
    "tie_word_embeddings": False, "vocab_size": 128,
}


def test_sorted_file_gets_the_key_in_sorted_position():
    text = json.dumps(TF5_CONFIG, indent=2, sort_keys=True) + "\n"
    after = fixed_text(text)
    assert only_insertions(text, after) == ['  "rope_theta": 100000.0,\n']
    keys = list(json.loads(after))
    assert keys == sorted(keys)


def test_unsorted_file_gets_the_key_last():
    config = dict(reversed(list(TF5_CONFIG.items())))
    text = json.dumps(config, indent=2) + "\n"
    after = fixed_text(text)
    assert list(json.loads(after))[-1] == "rope_theta"
    assert only_insertions(text, after) == ['  "rope_theta": 100000.0\n']


@pytest.mark.parametrize("indent", [4, "\t"])
def test_indentation_is_kept(indent):
    text = json.dumps(TF5_CONFIG, indent=indent, sort_keys=True) + "\n"
    unit = " " * indent if isinstance(indent, int) else indent
    assert only_insertions(text, fixed_text(text)) == [f'{unit}"rope_theta": 100000.0,\n']


def test_crlf_and_missing_final_newline_are_kept():
    text = json.dumps(TF5_CONFIG, indent=2, sort_keys=True).replace("\n", "\r\n")
    after = fixed_text(text)
    assert not after.endswith("\n") and "\n" not in after.replace("\r\n", "")
    assert only_insertions(text, after) == ['  "rope_theta": 100000.0,\r\n']


def test_non_ascii_text_is_kept_as_written():
    config = dict(TF5_CONFIG, note="modèle 日本語", escaped="caf\\u00e9")
    text = json.dumps(config, indent=2, sort_keys=True, ensure_ascii=False).replace("caf\\\\u00e9", "caf\\u00e9") + "\n"
    after = fixed_text(text)
    assert "modèle 日本語" in after and "caf\\u00e9" in after
    assert len(only_insertions(text, after)) == 1


def test_single_line_file():
    text = json.dumps(TF5_CONFIG, sort_keys=True)
    after = fixed_text(text)
    assert "\n" not in after and json.loads(after)["rope_theta"] == 100000.0
    assert after == text.replace('"tie_word_embeddings"', '"rope_theta": 100000.0, "tie_word_embeddings"')


def test_llama3_fix_adds_scaling_and_theta():
    text = (ROOT / "samples" / "llama-3.2-1b-tf5" / "config.json").read_text()
    added = "".join(only_insertions(text, fixed_text(text)))
    assert json.loads("{" + added.rstrip().rstrip(",") + "}") == {
        "rope_scaling": {"factor": 32.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                         "original_max_position_embeddings": 8192, "rope_type": "llama3"},
        "rope_theta": 500000.0,
        "torch_dtype": "bfloat16",
    }


@pytest.mark.parametrize("name", sorted(family()))
def test_fix_is_idempotent(name):
    text = json.dumps(family()[name], indent=2) + "\n"
    once = fixed_text(text, unsafe=True)
    assert fixed_text(once, unsafe=True) == once


def test_unsafe_fix_needs_the_flag():
    text = json.dumps(family()["conflicting-theta"], indent=2) + "\n"
    assert json.loads(fixed_text(text))["rope_theta"] == 100000.0
    assert json.loads(fixed_text(text, unsafe=True))["rope_theta"] == 500000.0


@pytest.mark.parametrize("model_type, top_level, nested, dropped", [
    ("olmo2", {}, {"rope_type": "dynamic", "factor": 2.0, "rope_theta": 500000.0, "_name_or_path": None}, "_name_or_path"),
    ("phi3", {}, {"rope_type": "longrope", "short_factor": [1.0] * 8, "long_factor": [2.0] * 8, "attention_factor": 1.2,
                  "original_max_position_embeddings": 128, "rope_theta": 10000.0}, "attention_factor"),
    ("qwen2", {"rope_theta": 10000.0}, {"rope_type": "linear", "factor": 2.0, "rope_theta": 500000.0}, "rope_theta"),
    ("gemma2", {}, {"rope_type": "linear", "factor": 2.0, "rope_theta": 500000.0, "sliding_attention": None}, "sliding_attention"),
])
def test_a_legacy_scaling_that_transformers5_reads_differently_is_only_an_unsafe_fix(model_type, top_level, nested, dropped):
    """A top-level rope_scaling replaces rope_parameters in transformers 5, which then takes theta from the top
    level: OLMo 2's two keys and Phi-3's three would drop a nested key, a different top-level theta would
    replace the nested one, and a key named after a layer type makes the dict per-layer-type, which takes no
    theta from the top level. The safe fixes leave rope_scaling out; without that key (or conflict) they add it."""
    config = family_config(model_type, tf5=True) | top_level
    text = json.dumps(config | {"rope_parameters": nested}, indent=2) + "\n"
    assert "rope_scaling" not in json.loads(fixed_text(text))
    assert "rope_scaling" in json.loads(fixed_text(text, unsafe=True))
    if dropped in top_level:
        config = {k: v for k, v in config.items() if k != dropped}
    else:
        nested = {k: v for k, v in nested.items() if k != dropped}
    assert "rope_scaling" in json.loads(fixed_text(json.dumps(config | {"rope_parameters": nested})))


@pytest.mark.parametrize("layer_type, safe", [({}, False), ({"rope_theta": 500000.0}, True), (None, True)])
def test_a_top_level_theta_that_would_fill_a_layer_types_parameters_is_only_an_unsafe_fix(layer_type, safe):
    """transformers 5 takes a flat rope_parameters holding a key named after one of the config's layer types
    for per-layer-type parameters, and fills that layer type's missing theta from a top-level rope_theta."""
    nested = {"rope_theta": 500000.0, "rope_type": "default", "full_attention": layer_type}
    text = json.dumps(family_config("qwen2", tf5=True) | {"rope_parameters": nested}, indent=2) + "\n"
    assert ("rope_theta" in json.loads(fixed_text(text))) is safe
    assert json.loads(fixed_text(text, unsafe=True))["rope_theta"] == 500000.0


# --- the command -------------------------------------------------------------------------------------


def copy_sample(tmp_path, sample=TF5_SMOLLM):
    target = tmp_path / sample.name
    shutil.copytree(sample, target)
    return target


def test_dry_run_prints_a_diff_and_exits_1(tmp_path, capsys):
    model = copy_sample(tmp_path)
    before = (model / "config.json").read_bytes()
    assert main(["fix", str(model)]) == 1
    out = capsys.readouterr().out
    assert '+  "rope_theta": 100000,' in out and out.startswith("---")
    assert (model / "config.json").read_bytes() == before


def test_write_applies_then_nothing_is_pending(tmp_path, capsys):
    model = copy_sample(tmp_path)
    os.chmod(model / "config.json", 0o640)
    assert main(["fix", "--write", str(model)]) == 0
    assert "fixed 2 findings" in capsys.readouterr().err
    assert oct(os.stat(model / "config.json").st_mode & 0o777) == "0o640"
    assert main(["fix", str(model)]) == 0
    assert main(["check", str(model)]) == 0


def test_unchanged_file_is_not_touched(tmp_path):
    model = copy_sample(tmp_path, ROOT / "samples" / "smollm2-135m-instruct")
    config = model / "config.json"
    os.utime(config, (1_000_000_000, 1_000_000_000))
    assert main(["fix", "--write", str(model)]) == 0
    assert config.stat().st_mtime == 1_000_000_000


def test_symlinked_config_is_not_written_through(tmp_path, capsys):
    blobs = tmp_path / "blobs"
    blobs.mkdir()
    blob = blobs / "abc123"
    shutil.copy(TF5_SMOLLM / "config.json", blob)
    snapshot = tmp_path / "snapshot"
    snapshot.mkdir()
    (snapshot / "config.json").symlink_to(blob)
    before = blob.read_bytes()
    assert main(["fix", "--write", str(snapshot)]) == 2
    err = capsys.readouterr().err
    assert "is a symlink" in err and err.count("\n") == 1
    assert blob.read_bytes() == before and (snapshot / "config.json").is_symlink()
    assert main(["fix", "--write", "--follow-symlinks", str(snapshot)]) == 0
    assert (snapshot / "config.json").is_symlink() and b'"rope_theta": 100000,' in blob.read_bytes()


def test_a_hugging_face_cache_blob_is_never_written(tmp_path, capsys):
    from tests.hub.conftest import lay_out_snapshot

    files = {"config.json": (TF5_SMOLLM / "config.json").read_bytes()}
    snapshot = lay_out_snapshot(tmp_path / "hub", "acme/model", files, "0" * 40)
    blob = (snapshot / "config.json").resolve()
    for args in (["fix", "--write", "--follow-symlinks", str(snapshot)], ["fix", "--write", str(blob)]):
        assert main(args) == 2
        err = capsys.readouterr().err
        assert "is a Hugging Face cache blob" in err and "not written" in err and err.count("\n") == 1
    assert blob.read_bytes() == files["config.json"] and (snapshot / "config.json").is_symlink()


def test_unparseable_config_is_reported_and_left_alone(write_config, capsys):
    directory = write_config('{"rope_parameters": {"rope_theta": 1e5,}}')
    before = (directory / "config.json").read_bytes()
    assert main(["fix", "--write", str(directory)]) == 2
    assert "not fixed" in capsys.readouterr().err
    assert (directory / "config.json").read_bytes() == before


def test_show_fixes_lists_each_fix(tmp_path, capsys):
    model = copy_sample(tmp_path, ROOT / "samples" / "llama-3.2-1b-tf5")
    assert main(["fix", "--show-fixes", str(model)]) == 1
    out = capsys.readouterr().out
    assert "R001 add top-level \"rope_theta\": 500000.0" in out and "R002 add top-level \"rope_scaling\" (llama3)" in out


WRITER = """
import sys
from pathlib import Path
from cfglint.edit import write_atomic
path = Path(sys.argv[1])
contents = [b"A" * 8_000_000, b"B" * 8_000_000]
i = 0
print("ready", flush=True)
while True:
    write_atomic(path, contents[i % 2])
    i += 1
"""


def test_killed_mid_write_leaves_old_or_new_file(tmp_path):
    target = tmp_path / "config.json"
    target.write_bytes(b"original")
    allowed = {b"original", b"A" * 8_000_000, b"B" * 8_000_000}
    for delay in (0.05, 0.11, 0.17, 0.23, 0.31):
        proc = subprocess.Popen([sys.executable, "-c", WRITER, str(target)], stdout=subprocess.PIPE)
        assert proc.stdout.readline().strip() == b"ready"
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        assert target.read_bytes() in allowed


# --- the safety claim, against real transformers ---------------------------------------------------------


def fix_cases():
    cases = [(p.name, json.loads((p / "config.json").read_text())) for p in sample_dirs()]
    return [(n, c) for n, c in cases + list(family().items()) if c.get("model_type") == "llama" and n != "kanana-1.5-2.1b"]


CASES = fix_cases()


@pytest.fixture(scope="module")
def fixed_family(tmp_path_factory):
    """Each case before and after `cfglint fix --write --unsafe-fixes`."""
    root = tmp_path_factory.mktemp("fixed")
    pairs = {}
    for name, config in CASES:
        before, after = root / name / "before", root / name / "after"
        before.mkdir(parents=True)
        text = json.dumps(config, indent=2) + "\n"
        (before / "config.json").write_text(text)
        shutil.copytree(before, after)
        assert main(["fix", "--write", "--unsafe-fixes", str(after)]) in (0,)
        pairs[name] = (before, after)
    return pairs


def rope_of(directory):
    from transformers import AutoConfig

    config = AutoConfig.from_pretrained(str(directory))
    return dict(config.rope_parameters), config.head_dim, str(config.dtype)


@pytest.mark.parametrize("name", [n for n, _ in CASES])
def test_transformers5_reads_the_same_after_the_fix(name, fixed_family):
    pytest.importorskip("transformers")
    before, after = fixed_family[name]
    assert rope_of(before) == rope_of(after)


@pytest.mark.parametrize("name", [n for n, _ in CASES])
def test_candle_view_equals_intent_after_the_fix(name, fixed_family):
    _, after = fixed_family[name]
    ctx = context_of(document.load(after / "config.json"), [consumers.get("candle")])
    view = ctx.views["candle"]
    kind = ctx.intent.values["rope_scaling"]["rope_type"] if ctx.intent.values["rope_scaling"] else "default"
    if kind not in ("default", "llama3"):
        # candle has no other scaling: after the fix it refuses loudly instead of running unscaled.
        assert view.outcome == "error" and view.failure.pointer.startswith("/rope_scaling")
        return
    for key in ("rope_theta", "rope_scaling"):
        assert same(key, view.values[key], ctx.intent.values[key]), (key, view.values[key], ctx.intent.values[key])


@pytest.fixture(scope="module")
def transformers4(fixed_family):
    """What transformers 4.57 reads of every fixed directory, its LlamaRotaryEmbedding built from it (torch
    installed beside it), in one process."""
    from tests.conformance.venvs import TRANSFORMERS4_WITH_TORCH, run_probe, runtime_python

    folders = [str(after) for _, after in fixed_family.values()]
    return run_probe(runtime_python(*TRANSFORMERS4_WITH_TORCH), "transformers4_family_probe.py", *folders)["results"]


@pytest.mark.parametrize("name", [n for n, _ in CASES])
def test_transformers4_reads_the_intent_after_the_fix(name, fixed_family, transformers4):
    _, after = fixed_family[name]
    ctx = context_of(document.load(after / "config.json"), [])
    got = transformers4[str(after)]
    assert got["outcome"] == "loads", got
    for key in ("rope_theta", "rope_scaling"):
        assert same(key, got["values"][key], ctx.intent.values[key]), (key, got["values"][key], ctx.intent.values[key])


def _make_read_only(path):
    """chmod does not stop root, so as root use the immutable attribute; undo with the returned callable."""
    if os.geteuid() == 0:
        subprocess.run(["chattr", "+i", str(path)], check=True)
        return lambda: subprocess.run(["chattr", "-i", str(path)], check=True)
    mode = path.stat().st_mode
    os.chmod(path, 0o555 if path.is_dir() else 0o444)
    return lambda: os.chmod(path, mode)


@pytest.mark.parametrize("what", ["directory", "file"])
def test_read_only_target_is_a_one_line_error(what, tmp_path, capsys):
    model = copy_sample(tmp_path)
    config = model / "config.json"
    before = config.read_bytes()
    undo = _make_read_only(model if what == "directory" else config)
    try:
        assert main(["fix", "--write", str(model)]) == 2
    finally:
        undo()
    err = capsys.readouterr().err
    assert err.startswith(f"cfglint: error: {config}: cannot write:") and err.count("\n") == 1
    assert config.read_bytes() == before
    assert sorted(p.name for p in model.iterdir()) == ["config.json"]  # no temp file left behind
