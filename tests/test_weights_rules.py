"""The weight rules (W001-W010): findings, per-consumer effects, fixes and the view, on real directories."""

from __future__ import annotations

import json
import shutil
import struct
import subprocess
import sys

import pytest

from cfglint import compat, document
from cfglint.cli import main
from cfglint.consumers.base import View
from cfglint.engine import context_of, lint
from cfglint.rule import load_builtin
from cfglint.weights import loading
from tests.conftest import ROOT
from tests.test_weights_header import TINY, llama_shapes, safetensors_bytes, write_checkpoint, write_index, write_model


def findings(capsys, directory, *extra):
    code = main(["check", str(directory), "--format", "json", "--consumer", "candle", *extra])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, json.loads(out)


def codes(capsys, directory):
    return [f["code"] for f in findings(capsys, directory)[1]]


def edited(**changes):
    return compat.edited(TINY, **changes)


def only(found, code):
    [finding] = [f for f in found if f["code"] == code]
    return finding


def effect(finding, consumer):
    [e] = [e for e in finding["effects"] if e["consumer"] == consumer]
    return e


def test_a_consistent_checkpoint_has_no_weight_findings(tmp_path, capsys):
    assert codes(capsys, write_model(tmp_path / "m", TINY)) == []


def test_a_config_file_path_reads_the_weights_beside_it(tmp_path, capsys):
    model = write_model(tmp_path / "m", edited(num_hidden_layers=3))
    assert codes(capsys, model / "config.json") == ["W003"]


def test_a_config_not_named_config_json_has_no_weights(tmp_path, capsys):
    model = write_model(tmp_path / "m", edited(num_hidden_layers=3))
    shutil.copy(model / "config.json", model / "other.json")
    assert codes(capsys, model / "other.json") == []


# --- W001 / W002: files that cannot be read, index and shards that disagree --------------------------------


def test_truncated_file_is_W001_and_the_tensor_rules_stay_quiet(tmp_path, capsys):
    model = write_model(tmp_path / "m", edited(num_hidden_layers=3))
    path = model / "model.safetensors"
    path.write_bytes(path.read_bytes()[:-100])
    code, found = findings(capsys, model)
    assert code == 1
    assert [f["code"] for f in found] == ["W001", "W003"]  # the header is intact: the layer count is still known
    assert only(found, "W001")["message"].startswith("model.safetensors: truncated: tensor")


def test_unreadable_header_is_W001_and_nothing_else(tmp_path, capsys):
    model = write_model(tmp_path / "m", edited(num_hidden_layers=3))
    (model / "model.safetensors").write_bytes(struct.pack("<Q", 2**40) + b"{}")
    code, found = findings(capsys, model)
    assert code == 1 and [f["code"] for f in found] == ["W001"]
    assert found[0]["message"] == "model.safetensors: header length 1,099,511,627,776 bytes is larger than the rest of the file (2 bytes): truncated, or not a safetensors file"


def test_index_naming_a_missing_shard_is_W001(tmp_path, capsys):
    model = tmp_path / "m"
    write_model(model, TINY)
    (model / "model.safetensors").rename(model / "model-00001-of-00002.safetensors")
    write_index(model, {**{t: "model-00001-of-00002.safetensors" for t in llama_shapes(TINY)}, "x": "model-00002-of-00002.safetensors"})
    code, found = findings(capsys, model)
    assert code == 1 and [(f["code"], f["message"]) for f in found] == [
        ("W001", "model.safetensors.index.json: names shard model-00002-of-00002.safetensors, which is not in the model directory"),
    ]


def test_duplicated_tensor_across_shards_is_W002(tmp_path, capsys):
    model = tmp_path / "m"
    model.mkdir()
    (model / "config.json").write_text(json.dumps(TINY))
    shapes = llama_shapes(TINY)
    head = shapes.pop("lm_head.weight")
    write_checkpoint(model, shapes, "model-00001-of-00002.safetensors")
    write_checkpoint(model, {"lm_head.weight": head, "model.norm.weight": (16,)}, "model-00002-of-00002.safetensors")
    write_index(model, {**{t: "model-00001-of-00002.safetensors" for t in shapes}, "lm_head.weight": "model-00002-of-00002.safetensors"})
    _, found = findings(capsys, model)
    assert [(f["code"], f["message"]) for f in found] == [
        ("W002", "model.norm.weight is in both model-00001-of-00002.safetensors and model-00002-of-00002.safetensors"),
    ]


def test_stray_shard_without_an_index_names_the_runtimes_that_glob(tmp_path):
    model = tmp_path / "m"
    write_model(model, TINY)
    write_checkpoint(model, {"model.norm.weight": (16,)}, "model-00002-of-00002.safetensors")
    ctx = context(model, {"mlx-lm": {}, "candle": {}, "llama-cpp": {}})
    [finding] = [f for f in run_rules(ctx) if f.code == "W002"]
    assert finding.consumers == ["mlx-lm", "llama-cpp"]
    assert finding.message.startswith("model-00002-of-00002.safetensors sits beside model.safetensors with no index")


def test_stray_shard_beside_an_index_is_read_by_mlx_only(in_repo):
    ctx = context(ROOT / "samples" / "weights-sharded-stray", {"mlx-lm": {}, "candle": {}, "llama-cpp": {}})
    [finding] = [f for f in run_rules(ctx) if f.code == "W002"]
    assert finding.consumers == ["mlx-lm"]


def test_index_disagreeing_with_its_shards_stops_the_llama_cpp_converter(tmp_path):
    model = write_model(tmp_path / "m", TINY)
    (model / "model.safetensors").rename(model / "model-00001-of-00001.safetensors")
    weight_map = {t: "model-00001-of-00001.safetensors" for t in llama_shapes(TINY) if t != "model.norm.weight"}
    write_index(model, weight_map)
    ctx = context(model, {"mlx-lm": {}, "llama-cpp": {}})
    [finding] = [f for f in run_rules(ctx) if f.code == "W002"]
    assert [(e.consumer, e.outcome, e.detail) for e in finding.effects] == [("llama-cpp", "error", "Mismatch between weight map and model parts")]


# --- W003 layer count ----------------------------------------------------------------------------------------


def test_missing_layer_panics_candle_and_offers_an_unsafe_fix(tmp_path, capsys):
    model = write_model(tmp_path / "m", edited(num_hidden_layers=3))
    _, found = findings(capsys, model)
    w = only(found, "W003")
    assert w["message"].startswith("num_hidden_layers is 3, but the weights hold 2 layer(s) (0-1); layer(s) 2 are missing")
    assert effect(w, "candle") == {"consumer": "candle", "outcome": "panic", "value": None,
                                         "detail": "cannot find tensor model.layers.2.self_attn.q_proj.weight"}
    assert w["fix"] == {"message": "set num_hidden_layers to 2", "applicability": "unsafe",
                        "edits": [{"op": "set", "pointer": "/num_hidden_layers", "value": 2}]}
    assert main(["fix", "--write", "--unsafe-fixes", str(model)]) == 0
    assert json.loads((model / "config.json").read_text())["num_hidden_layers"] == 2
    capsys.readouterr()
    assert codes(capsys, model) == []


def test_extra_layer_is_ignored_by_candle(tmp_path, capsys):
    _, found = findings(capsys, write_model(tmp_path / "m", edited(num_hidden_layers=1)))
    w = only(found, "W003")
    assert "layer(s) 1 are never loaded" in w["message"]
    assert effect(w, "candle")["outcome"] == "ignores"


def test_a_gap_in_the_layers_gets_no_fix(tmp_path, capsys):
    shapes = {n: s for n, s in llama_shapes(edited(num_hidden_layers=3)).items() if not n.startswith("model.layers.1.")}
    _, found = findings(capsys, write_model(tmp_path / "m", edited(num_hidden_layers=3), shapes))
    w = only(found, "W003")
    assert "hold 2 layer(s) (0, 2); layer(s) 1 are missing" in w["message"] and w["fix"] is None


# --- W004 shapes -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("key, value, pointer, tensor", [
    ("intermediate_size", 48, "/intermediate_size", "model.layers.0.mlp.gate_proj.weight is stored as [32, 16], but the config makes it [48, 16] (intermediate_size 48)"),
    ("vocab_size", 60, "/vocab_size", "model.embed_tokens.weight is stored as [64, 16], but the config makes it [60, 16] (vocab_size 60)"),
    ("num_key_value_heads", 1, "/num_key_value_heads", "model.layers.0.self_attn.k_proj.weight is stored as [8, 16], but the config makes it [4, 16]"),
    ("head_dim", 8, "/head_dim", "model.layers.0.self_attn.q_proj.weight is stored as [16, 16], but the config makes it [32, 16]"),
])
def test_shape_mismatch_blames_the_key(tmp_path, capsys, key, value, pointer, tensor):
    shapes = llama_shapes(TINY)
    _, found = findings(capsys, write_model(tmp_path / "m", edited(**{key: value}), shapes))
    w = [f for f in found if f["code"] == "W004"]
    assert w and w[0]["pointer"] == pointer and w[0]["message"].startswith(tensor), w


def test_missing_kv_heads_gets_the_count_the_weights_imply(tmp_path, capsys):
    model = write_model(tmp_path / "m", edited(num_key_value_heads=None), llama_shapes(TINY))
    _, found = findings(capsys, model)
    w = only(found, "W004")
    assert w["fix"]["edits"] == [{"op": "set", "pointer": "/num_key_value_heads", "value": 2}]
    assert effect(w, "candle")["outcome"] == "panic"
    main(["fix", "--write", "--unsafe-fixes", str(model)])
    capsys.readouterr()
    assert codes(capsys, model) == []


def test_head_dim_that_candle_derives_differently_is_left_to_A001(tmp_path, capsys):
    config = edited(head_dim=8)  # hidden 16 / 4 heads = 4 for candle; the weights are made for 8
    shapes = llama_shapes(config)
    assert codes(capsys, write_model(tmp_path / "m", config, shapes)) == ["A001"]


def test_a_runtime_only_shape_mismatch_names_that_runtime(tmp_path):
    model = write_model(tmp_path / "m", TINY)
    ctx = context(model, {"mlx-lm": {"head_dim": 8}})  # a runtime that derived another head_dim
    [finding] = [f for f in run_rules(ctx) if f.code == "W004"]
    assert finding.message.startswith("the weights fit the config as transformers reads it, but model.layers.0.self_attn.q_proj.weight is [16, 16] where a runtime builds [32, 16]")
    assert finding.consumers == ["mlx-lm"]


# --- W005 biases -------------------------------------------------------------------------------------------------


def biased(config, projections=("q_proj", "k_proj", "v_proj")):
    shapes = llama_shapes(config)
    for i in range(config["num_hidden_layers"]):
        for proj in projections:
            rows = shapes[f"model.layers.{i}.self_attn.{proj}.weight"][0]
            shapes[f"model.layers.{i}.self_attn.{proj}.bias"] = (rows,)
    return shapes


def test_stored_biases_with_the_flag_false(tmp_path, capsys):
    _, found = findings(capsys, write_model(tmp_path / "m", edited(attention_bias=False), biased(TINY)))
    w = only(found, "W005")
    assert w["message"].startswith("attention_bias is false, but the weights hold 6 attention bias tensor(s)")
    assert effect(w, "candle") == {"consumer": "candle", "outcome": "ignores", "value": None, "detail": "never requested"}
    assert w["fix"] is None  # o_proj has no bias: true would not describe these weights either


def test_every_projection_biased_gets_an_unsafe_fix(tmp_path, capsys):
    shapes = biased(TINY, ("q_proj", "k_proj", "v_proj", "o_proj"))
    _, found = findings(capsys, write_model(tmp_path / "m", TINY, shapes))
    assert only(found, "W005")["fix"]["edits"] == [{"op": "set", "pointer": "/attention_bias", "value": True}]


def test_flag_true_without_tensors_is_a_warning(tmp_path, capsys):
    _, found = findings(capsys, write_model(tmp_path / "m", edited(mlp_bias=True), llama_shapes(TINY)))
    w = only(found, "W005")
    assert w["severity"] == "warning"
    assert w["message"].startswith("mlp_bias is true, but the weights hold none of the MLP bias tensors")
    assert w["fix"]["edits"] == [{"op": "set", "pointer": "/mlp_bias", "value": False}]


def test_biases_split_the_runtimes(tmp_path):
    model = write_model(tmp_path / "m", TINY, biased(TINY))
    ctx = context(model, {"candle": {}, "mlx-lm": {}, "llama-cpp": {}, "transformers-5": {}})
    [finding] = [f for f in run_rules(ctx) if f.code == "W005"]
    outcomes = {e.consumer: e.outcome for e in finding.effects}
    assert outcomes == {"candle": "ignores", "mlx-lm": "error", "llama-cpp": "uses", "transformers-5": "warns"}


# --- W006 tied head ------------------------------------------------------------------------------------------------


def test_untied_without_a_head(tmp_path, capsys):
    shapes = llama_shapes(edited(tie_word_embeddings=True))
    _, found = findings(capsys, write_model(tmp_path / "m", TINY, shapes))
    w = only(found, "W006")
    assert w["severity"] == "error"
    assert effect(w, "candle") == {"consumer": "candle", "outcome": "error", "value": None, "detail": "cannot find tensor lm_head.weight"}
    assert w["fix"]["applicability"] == "unsafe" and w["fix"]["edits"][0]["value"] is True


def test_tied_with_a_head_stored(tmp_path, capsys):
    _, found = findings(capsys, write_model(tmp_path / "m", edited(tie_word_embeddings=True), llama_shapes(TINY)))
    w = only(found, "W006")
    assert w["severity"] == "warning" and effect(w, "candle")["outcome"] == "ignores"


def test_absent_tie_with_a_head_gets_a_safe_fix(tmp_path, capsys):
    model = write_model(tmp_path / "m", edited(tie_word_embeddings=None), llama_shapes(TINY))
    _, found = findings(capsys, model)
    w = only(found, "W006")
    assert w["fix"] == {"message": 'add "tie_word_embeddings": false', "applicability": "safe",
                        "edits": [{"op": "set", "pointer": "/tie_word_embeddings", "value": False}]}
    assert main(["fix", "--write", str(model)]) == 0
    capsys.readouterr()
    assert codes(capsys, model) == []


def test_absent_tie_is_read_differently_by_mlx(tmp_path):
    model = write_model(tmp_path / "m", edited(tie_word_embeddings=None), llama_shapes(TINY))
    ctx = context(model, {"candle": {}, "mlx-lm": {"tie_word_embeddings": True}})
    [finding] = [f for f in run_rules(ctx) if f.code == "W006"]
    assert [(e.consumer, e.outcome) for e in finding.effects] == [("mlx-lm", "drops")]


def test_absent_tie_without_a_head(tmp_path, capsys):
    shapes = llama_shapes(edited(tie_word_embeddings=True))
    _, found = findings(capsys, write_model(tmp_path / "m", edited(tie_word_embeddings=None), shapes))
    assert only(found, "W006")["message"].startswith("tie_word_embeddings is not written (read as false), but the weights store no lm_head.weight")


# --- W007 dtype, W008 inv_freq, W009 pickles, W010 the rest ----------------------------------------------------


def test_dtype_mismatch(tmp_path, capsys):
    model = tmp_path / "m"
    model.mkdir()
    (model / "config.json").write_text(json.dumps(edited(torch_dtype="bfloat16")))
    write_checkpoint(model, llama_shapes(TINY), dtype="F32")
    _, found = findings(capsys, model)
    w = only(found, "W007")
    assert w["message"].startswith('torch_dtype is "bfloat16", but 100% of the stored parameters are F32')
    assert w["fix"]["edits"] == [{"op": "set", "pointer": "/torch_dtype", "value": "float32"}]


def test_matching_dtype_under_either_key_is_quiet(tmp_path, capsys):
    assert codes(capsys, write_model(tmp_path / "a", edited(dtype="float16"))) == []
    assert codes(capsys, write_model(tmp_path / "b", edited(dtype="float16", torch_dtype="float32"))) == []  # dtype wins


def test_inv_freq_is_info_unless_a_runtime_refuses_it(tmp_path, capsys):
    shapes = {**llama_shapes(TINY), "model.layers.0.self_attn.rotary_emb.inv_freq": (2,), "model.layers.1.self_attn.rotary_emb.inv_freq": (2,)}
    model = write_model(tmp_path / "m", TINY, shapes)
    code, found = findings(capsys, model)
    w = only(found, "W008")
    assert code == 0 and w["severity"] == "info" and [f["code"] for f in found] == ["W008"]
    # A top-level copy, which mlx-lm's sanitize does not drop, makes its strict load fail.
    shapes["model.rotary_emb.inv_freq"] = (2,)
    write_checkpoint(model, shapes)
    ctx = context(model, {"mlx-lm": {}})
    [finding] = [f for f in run_rules(ctx) if f.code == "W008"]
    assert finding.severity.value == "error" and finding.effects[0].outcome == "error"


def test_inv_freq_sized_for_another_head_dim(tmp_path, capsys):
    shapes = {**llama_shapes(TINY), "model.layers.0.self_attn.rotary_emb.inv_freq": (4,)}
    _, found = findings(capsys, write_model(tmp_path / "m", TINY, shapes))
    assert "they are sized [4], not [2] for head_dim 4" in only(found, "W008")["message"]


def test_pickle_weights_are_never_opened(tmp_path, capsys):
    model = tmp_path / "m"
    model.mkdir()
    (model / "config.json").write_text(json.dumps(TINY))
    marker = tmp_path / "unpickled"
    # Unpickling this would create the marker file: proof that nothing loaded it.
    (model / "pytorch_model.bin").write_bytes(b"cbuiltins\nopen\n(V" + str(marker).encode() + b"\nVw\ntR.")
    code, found = findings(capsys, model)
    w = only(found, "W009")
    assert w["message"].startswith("the only weights are pickle files (pytorch_model.bin): cfglint does not open pickles")
    assert effect(w, "candle")["outcome"] == "error" and w["severity"] == "warning"
    assert not marker.exists()


def test_missing_and_foreign_tensors_are_W010(tmp_path, capsys):
    shapes = llama_shapes(TINY)
    del shapes["model.norm.weight"]
    shapes["model.vision_tower.weight"] = (4, 4)
    _, found = findings(capsys, write_model(tmp_path / "m", TINY, shapes))
    messages = [(f["message"], effect(f, "candle")["outcome"]) for f in found if f["code"] == "W010"]
    assert messages == [
        ("the weights lack 1 tensor(s) the config requires (model.norm.weight): candle refuses to load (cannot find tensor model.norm.weight)", "error"),
        ("the weights hold 1 tensor(s) that no part of the llama layout uses (model.vision_tower.weight): candle ignores them (never requested)", "ignores"),
    ]


def test_checkpoints_of_unmodelled_layouts_are_said_unmatched(tmp_path, capsys):
    shapes = llama_shapes(TINY)
    quantized = edited(num_hidden_layers=5, quantization_config={"quant_method": "gptq"})
    assert codes(capsys, write_model(tmp_path / "q", quantized, shapes)) == ["W011"]
    multimodal = {"model_type": "gemma3", "text_config": edited(model_type="gemma3_text", num_hidden_layers=5)}
    found = codes(capsys, write_model(tmp_path / "x", multimodal, shapes))
    assert "W011" in found and "W003" not in found
    # Qwen3's layout is modelled: the five layers the config claims are held against the two stored.
    qwen3 = codes(capsys, write_model(tmp_path / "n", edited(model_type="qwen3", num_hidden_layers=5), shapes))
    assert "W003" in qwen3 and "W011" not in qwen3


# --- the view ---------------------------------------------------------------------------------------------------


def test_view_json_has_weight_facts_per_consumer(tmp_path, capsys):
    model = write_model(tmp_path / "m", edited(num_hidden_layers=3))
    main(["view", str(model), "--format", "json", "--consumer", "candle"])
    [view] = json.loads(capsys.readouterr().out)
    weights = view["weights"]
    assert weights["files"] == ["model.safetensors"] and weights["tensors"] == len(llama_shapes(TINY))
    candle = weights["consumers"]["candle"]
    assert candle["outcome"] == "panic" and candle["message"] == "cannot find tensor model.layers.2.self_attn.q_proj.weight"
    assert len(candle["missing"]) == 9 and candle["unused"] == [] and candle["mismatched"] == []
    assert weights["consumers"][loading.REFERENCE]["outcome"] == "warns"


def test_view_table_has_weight_rows(tmp_path, capsys):
    model = write_model(tmp_path / "m", edited(num_hidden_layers=1))
    main(["view", str(model), "--consumer", "candle"])
    out = capsys.readouterr().out
    rows = {line.split("  ")[0]: line.split() for line in out.splitlines()}
    assert rows["weights"][-2:] == ["warns", "loads"]
    assert rows["unused tensors"][-2:] == ["9", "9"]
    assert "candle weights: loads: unused: model.layers.1.self_attn.q_proj.weight, " in out


def test_view_of_a_config_only_directory_has_no_weights_key(in_repo, capsys):
    main(["view", "samples/smollm2-135m-instruct", "--format", "json"])
    assert "weights" not in json.loads(capsys.readouterr().out)[0]


def test_check_with_weights_imports_nothing_heavy(tmp_path):
    model = write_model(tmp_path / "m", edited(num_hidden_layers=3))
    probe = (
        "import json, sys\nfrom cfglint.cli import main\n"
        f"code = main(['check', {str(model)!r}, '--format', 'json'])\n"
        "print(json.dumps({'code': code, 'heavy': sorted({m.split('.')[0] for m in sys.modules} & {'numpy', 'safetensors', 'torch', 'transformers'})}))"
    )
    proc = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True)
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == {"code": 1, "heavy": []}


# --- helpers for consumers this checkout may not have profiles for ---------------------------------------------


def context(model, consumers: dict[str, dict]):
    """A context whose views are the intent's values with some changed: a stand-in for other runtimes' profiles."""
    doc = document.load(model / "config.json")
    base = context_of(doc, [])
    views = {}
    for name, changes in consumers.items():
        values = {**base.intent.values, **changes}
        views[name] = View(values=values, sources=dict(base.intent.sources), consumer=name)
    base.views = views
    return base


def run_rules(ctx):
    return lint(ctx, load_builtin(), "config.json")


def test_safetensors_bytes_helper_matches_the_library(tmp_path):
    from safetensors.numpy import load_file

    header = {"t": {"dtype": "F16", "shape": [2], "data_offsets": [0, 4]}}
    (tmp_path / "x.safetensors").write_bytes(safetensors_bytes(header, 4))
    assert load_file(str(tmp_path / "x.safetensors"))["t"].shape == (2,)
