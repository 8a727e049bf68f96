"""cfglint.memo: a run's results with its kept readings and findings equal the results read afresh.

The corpus repeats values on purpose (fine-tunes of one base) and varies them where a reading or a rule
looks: each family sample with a key dropped, set to null, to a value of another type or to another
number, keys added that routing, scaling or window rules read, members reordered, the same values under
another `_name_or_path`, and model directories with a stop-token setup, a generation_config.json or weights
beside config.json.
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest

from cfglint import document, engine, memo
from cfglint.diagnostics import Finding, Severity
from cfglint.rule import Rule
from cfglint.session import Session

SAMPLES = Path(__file__).resolve().parents[1] / "samples"
# Values a key is set to: other numbers, other types, null.
REPLACEMENTS = (None, 0, 1, 2.5, -1, True, "silu", "gelu_pytorch_tanh", [1, 2], {"rope_type": "yarn", "factor": 4.0})
# Keys readings and rules consult that the samples may lack.
ADDED = {
    "rope_theta": 500000.0,
    "rope_scaling": {"rope_type": "linear", "factor": 2.0},
    "rope_parameters": {"rope_type": "default", "rope_theta": 1000000.0},
    "sliding_window": 4096,
    "use_sliding_window": True,
    "hidden_activation": "gelu_pytorch_tanh",
    "query_pre_attn_scalar": 128,
    "attn_logit_softcapping": 50.0,
    "head_dim": 96,
    "num_experts": 8,
    "topk_method": "group_limited_greedy",
    "moe_layer_freq": 2,
    "partial_rotary_factor": 0.5,
    "attention_bias": True,
    "torch_dtype": "float16",
    "dtype": "bfloat16",
    "top_k": 20,
}


def _variants(data: dict, rng: random.Random) -> list[dict]:
    keys = list(data)
    out = [dict(data), {**data, "_name_or_path": "someone/fine-tune"}]
    for _ in range(6):
        changed = dict(data)
        for _ in range(rng.randint(1, 2)):
            key = rng.choice(keys)
            choice = rng.random()
            if choice < 0.3:
                changed.pop(key, None)
            elif choice < 0.8:
                changed[key] = rng.choice(REPLACEMENTS)
            else:
                added = rng.choice(list(ADDED))
                changed[added] = ADDED[added]
        out += [changed, dict(changed)]  # each change twice: the second reads kept readings
    reordered = dict(reversed(list(data.items())))
    out += [reordered, reordered]
    return out


def _corpus(root: Path) -> list[str]:
    rng = random.Random(7)
    dirs = []
    for sample in sorted(SAMPLES.glob("*/config.json")):
        data = json.loads(sample.read_text(encoding="utf-8"))
        for i, variant in enumerate(_variants(data, rng)):
            folder = root / f"{sample.parent.name}-{i:02d}"
            folder.mkdir()
            for beside in sample.parent.iterdir():  # stop-token files, weights: what the other rules read
                if beside.name != "config.json" and beside.is_file():
                    shutil.copy(beside, folder / beside.name)
            (folder / "config.json").write_text(json.dumps(variant, indent=2), encoding="utf-8")
            dirs.append(str(folder))
    # The same Llama values with and without a generation_config.json: mlx-lm takes its eos from that file.
    smollm = (SAMPLES / "smollm2-135m-instruct" / "config.json").read_text(encoding="utf-8")
    for name, generation in (("bare", None), ("generation", '{"eos_token_id": [7, 8]}')):
        folder = root / f"llama-eos-{name}"
        folder.mkdir()
        (folder / "config.json").write_text(smollm, encoding="utf-8")
        if generation is not None:
            (folder / "generation_config.json").write_text(generation, encoding="utf-8")
        dirs.append(str(folder))
    # A suppression that applies to some files: a kept rule must still mark it used (C001).
    (root / ".cfglint.toml").write_text(
        '[[suppress]]\npath = "qwen2.5-0.5b-instruct-tf5-0*/config.json"\ncodes = ["R001"]\nreason = "test"\n', encoding="utf-8"
    )
    return dirs


def _outcome(dirs: list[str]) -> list[tuple]:
    results = Session().check_all(dirs)
    return [
        (
            r.display,
            [d.to_json() for d in r.diagnostics],
            {name: (view.to_json(), dict(view.sources)) for name, view in r.ctx.views.items()},
            repr(r.ctx.intent),
        )
        for r in results
    ]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    return _corpus(tmp_path_factory.mktemp("memo"))


def test_kept_readings_and_findings_equal_fresh_ones(corpus: list[str]) -> None:
    kept = _outcome(corpus)
    with memo.disabled():
        fresh = _outcome(corpus)
    assert len(kept) == len(corpus)
    for got, want in zip(kept, fresh):
        assert got == want, got[0]


def test_a_run_reads_repeated_values_once(corpus: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    kept, made = [], []  # the documents whose readings may be kept, and those read
    read, family = engine._readings, memo._family

    def reading(doc, consumers):
        made.append(doc.path)
        return read(doc, consumers)

    def keepable(doc, listing):
        found = family(doc, listing)
        if found is not None:
            kept.append(doc.path)
        return found

    monkeypatch.setattr(engine, "_readings", reading)
    monkeypatch.setattr(memo, "_family", keepable)
    Session().check_all(corpus)
    # Each change is written twice in a row, and the first two variants read the same values: at most 9 of
    # a sample's 16 variants are read.
    read_kept = [path for path in made if path in set(kept)]
    assert len(kept) > 300
    assert 0 < len(read_kept) <= len(kept) * 9 / 16
    made.clear()
    with memo.disabled():
        Session().check_all(corpus)
    assert len(made) == len(corpus)


def test_full_tables_are_emptied_and_results_stay_equal(corpus: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memo, "LIMITS", {"readings": 3, "findings": 2})
    sizes = []
    store = memo._store

    def counted(table: dict, limit: int, key: tuple, value: object) -> None:
        store(table, limit, key, value)
        sizes.append(len(table) <= limit)

    monkeypatch.setattr(memo, "_store", counted)
    kept = _outcome(corpus[:120])
    assert sizes and all(sizes)
    with memo.disabled():
        assert kept == _outcome(corpus[:120])


def test_nothing_is_kept_outside_a_run(corpus: list[str]) -> None:
    Session().check_all(corpus[:20])
    assert not any(memo._tables.values()) and not memo._entries


def test_a_suppressing_policy_runs_its_rules_for_every_file(corpus: list[str]) -> None:
    """A rule wrapped with suppressions marks them used as it yields, so it is never kept: kept findings of
    the same values (the shipped sample, checked first) must not stand in for it, or C001 would fire."""
    sample = str(SAMPLES / "qwen2.5-0.5b-instruct-tf5")
    suppressed = next(d for d in corpus if d.endswith("qwen2.5-0.5b-instruct-tf5-00"))
    plain, quiet = Session().check_all([sample, suppressed])
    assert "R001" in [d.code for d in plain.diagnostics]
    assert [rule.config_keys for rule in quiet.rules if rule.code == "R001"] == [None]
    codes = [d.code for d in quiet.diagnostics]
    assert "R001" not in codes and "C001" not in codes


def test_values_a_runtime_tells_apart_are_different_keys() -> None:
    """Python holds 1 == 1.0 == True and -0.0 == 0.0; serde and the readings do not."""
    values = [1, 1.0, True, "1", 0, 0.0, -0.0, False, None, "null", [1], [1.0], [True], {"a": 1, "b": 2}, {"b": 2, "a": 1}, 10**30, float(10**30)]
    keys = [memo.frozen(v) for v in values]
    assert len(set(keys)) == len(values)
    assert [memo.frozen(v) for v in json.loads(json.dumps(values))] == keys  # the same value read again: the same key


@pytest.mark.parametrize(("sample", "key"), [
    ("qwen2.5-0.5b-instruct-tf5", "my_marker"),  # a key no Qwen2 reading consults
    ("smollm2-135m-instruct-tf5", "_name_or_path"),  # one of LLAMA_UNREAD
])
def test_kept_findings_follow_the_keys_the_readings_do_not_settle(tmp_path: Path, sample: str, key: str) -> None:
    """Files whose readings are the same kept ones may differ in a key a kept rule names: each gets that
    rule's findings for its own value."""

    def check(ctx):
        if key in ctx.config:
            yield Finding(f"{key} {ctx.config[key]}", "/" + key)

    rule = Rule("X900", "marker", Severity.WARNING, check, "", config_keys=(key,))
    data = json.loads((SAMPLES / sample / "config.json").read_text(encoding="utf-8"))
    data.pop(key, None)
    consumers = Session().consumers
    markers = ("a", "b", "b", None, "a")
    found, serials = [], set()
    with memo.run():
        for i, marker in enumerate(markers):
            folder = tmp_path / f"{i}"
            folder.mkdir()
            written = data if marker is None else {**data, key: marker}
            (folder / "config.json").write_text(json.dumps(written, indent=2), encoding="utf-8")
            ctx = engine.context_of(document.load(folder / "config.json"), consumers)
            serials.add(ctx.intent.serial)
            found.append([d.message for d in engine.lint(ctx, [rule], str(folder))])
    assert len(serials) == 1  # one kept reading served them all
    assert found == [[f"{key} {m}"] if m is not None else [] for m in markers]


def test_a_field_only_the_strict_config_class_checks_is_kept_apart(tmp_path: Path) -> None:
    """transformers 5 type-checks every field of its config class, `use_cache` too, which no reading reads:
    a file that differs only there is not given the readings of the file before it."""
    data = json.loads((SAMPLES / "qwen2.5-0.5b-instruct-tf5" / "config.json").read_text(encoding="utf-8"))
    dirs = []
    for i, use_cache in enumerate((True, "yes")):
        folder = tmp_path / f"{i}"
        folder.mkdir()
        (folder / "config.json").write_text(json.dumps({**data, "use_cache": use_cache}, indent=2), encoding="utf-8")
        dirs.append(str(folder))
    loads, refuses = Session().check_all(dirs)
    assert loads.ctx.views["transformers-5"].outcome == "loads"
    assert refuses.ctx.views["transformers-5"].outcome == "error"
    assert "use_cache" in refuses.ctx.views["transformers-5"].message


@pytest.mark.parametrize("key", ["max_window_layers", "pad_token_id", "initializer_range"])
def test_a_runtime_that_loads_through_transformers5_refuses_what_it_refuses(tmp_path: Path, key: str) -> None:
    """mlx-lm reads the config with transformers 5 (AutoTokenizer) first: its reading kept under its own keys
    must not stand in for a file whose value transformers 5's class refuses, in a key mlx-lm does not read."""
    data = json.loads((SAMPLES / "qwen2.5-0.5b-instruct-tf5" / "config.json").read_text(encoding="utf-8"))
    dirs = []
    for i, value in enumerate((0.5 if key == "initializer_range" else 21, "x")):  # the second differs only there
        folder = tmp_path / f"{i}"
        folder.mkdir()
        (folder / "config.json").write_text(json.dumps({**data, key: value}, indent=2), encoding="utf-8")
        dirs.append(str(folder))
    first, second = Session().check_all(dirs)
    assert first.ctx.views["mlx-lm"].outcome == "loads"
    assert second.ctx.views["mlx-lm"].outcome == "error" and key in second.ctx.views["mlx-lm"].message


@pytest.mark.parametrize(("sample", "beside"), [
    ("qwen2.5-0.5b-instruct-tf5", "tokenizer.model"), ("smollm2-135m-instruct-tf5", "tokenizer.model"),
    ("smollm2-135m-instruct-tf5", "tekken.json"),
])
def test_the_same_values_beside_a_vocabulary_file_are_kept_apart(tmp_path: Path, sample: str, beside: str) -> None:
    """The converter stops on a value transformers 5's class refuses when its vocabulary step reads the
    config (AutoTokenizer), and not when a tokenizer.model (SentencePiece) or, for Llama, a lone tekken.json
    (Mistral's tokenizer) reads the vocabulary: files with the same values do not share its reading."""
    data = json.loads((SAMPLES / sample / "config.json").read_text(encoding="utf-8"))
    dirs = []
    for name in ("plain", "with-file", "plain-again"):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "config.json").write_text(json.dumps({**data, "rms_norm_eps": 1}, indent=2), encoding="utf-8")
        if name == "with-file":
            (folder / beside).write_bytes(b"")
        dirs.append(str(folder))
    outcomes = [r.ctx.views["llama-cpp"].outcome for r in Session().check_all(dirs)]
    assert outcomes == ["error", "loads", "error"]
    kept = _outcome(dirs)
    with memo.disabled():
        assert kept == _outcome(dirs)


def test_phi3s_vocabulary_route_is_kept_apart_by_the_tokenizer_class(tmp_path: Path) -> None:
    """Phi-3's converter reads its vocabulary through AutoTokenizer only where tokenizer_config.json names
    GPT2Tokenizer (Phi-4), so only there does transformers 5's refusal stop it: same file names, same values,
    readings apart."""
    data = json.loads((SAMPLES / "phi-3-mini-4k-instruct-tf5" / "config.json").read_text(encoding="utf-8"))
    dirs = []
    for name, tokenizer_class in (("llama-tokenizer", "LlamaTokenizer"), ("gpt2-tokenizer", "GPT2Tokenizer"), ("again", "LlamaTokenizer")):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "config.json").write_text(json.dumps({**data, "rms_norm_eps": 1}, indent=2), encoding="utf-8")
        (folder / "tokenizer_config.json").write_text(json.dumps({"tokenizer_class": tokenizer_class}), encoding="utf-8")
        dirs.append(str(folder))
    outcomes = [r.ctx.views["llama-cpp"].outcome for r in Session().check_all(dirs)]
    assert outcomes == ["loads", "error", "loads"]
    kept = _outcome(dirs)
    with memo.disabled():
        assert kept == _outcome(dirs)
