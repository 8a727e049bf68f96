"""Per family, the weight predictions against the real loaders, on checkpoints real transformers 5 saves.

For every family whose tensor layout cfglint models (weights.layout.LAYOUTS), a tiny random checkpoint is
written by transformers 5 (`write_family_checkpoint`, the family conformance suite's builder), and then
changed the ways checkpoints go wrong in the field:

- `clean`: as saved;
- `missing`: layer 0 loses the tensor that sets the family apart (its experts' router, its q_norm, its
  last norm, Phi-3's fused qkv_proj, or DeepSeek's kv_a_layernorm);
- `extra-bias`: layer 0 gains an o_proj bias its family does not build (not for gpt-oss, which has one);
- `head`: a tied family gains a stored lm_head.weight, an untied one loses it;
- `kv-heads`: config.json claims as many key/value heads as query heads while the tensors have fewer, so
  the k/v (or fused qkv) shapes disagree (not for DeepSeek's latent attention, which does not read it).

transformers 5 itself (in this process, with the test extras' torch) must load each as the reference plan
says: outcome, missing and unexpected keys, tie. mlx-lm, mistral.rs, transformers 4 and llama.cpp's
converter load the same directories in their own environments and must react as cfglint predicts for them
(tests/test_weights_runtimes.py's comparison: the outcome, and for a refusal the tensor it names).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest
from safetensors.numpy import load_file, save_file

from cfglint import consumers, document
from cfglint.engine import context_of
from cfglint.weights import loading
from cfglint.weights.layout import HEAD, LAYOUTS
from tests.conformance.test_families import write_family_checkpoint
from tests.families import variants
from tests.test_weights_runtimes import MLX_PROBE, TRANSFORMERS4_PROBE, compare, load_with_transformers

FAMILIES = sorted(f for f in LAYOUTS if f != "llama")  # Llama's layout has its own samples (samples/weights-*)
CHANGES = ("clean", "missing", "extra-bias", "head", "kv-heads")


def distinctive(family: str) -> str:
    """The layer-0 tensor that sets the family's layout apart from Llama's."""
    layout = LAYOUTS[family]
    if layout.latent:  # DeepSeek: layer 0 is dense; its latent attention sets it apart
        return "model.layers.0.self_attn.kv_a_layernorm.weight"
    if layout.experts is not None and layout.experts.packed:
        return "model.layers.0.mlp.router.weight"  # gpt-oss' router
    if layout.experts is not None:
        return f"model.layers.0.{layout.experts.module}.gate.weight"  # the router
    if layout.fused:
        return "model.layers.0.self_attn.qkv_proj.weight"
    if layout.head_norms:
        return "model.layers.0.self_attn.q_norm.weight"
    return f"model.layers.0.{layout.norms[-1]}.weight"


def change(directory: Path, family: str, how: str) -> None:
    """Alter a saved checkpoint (and for `kv-heads` its config.json) in place."""
    path = directory / "model.safetensors"
    tensors = load_file(str(path))
    config = json.loads((directory / "config.json").read_text())
    if how == "missing":
        del tensors[distinctive(family)]
    elif how == "extra-bias":
        tensors["model.layers.0.self_attn.o_proj.bias"] = np.zeros(config["hidden_size"], dtype=np.float32)
    elif how == "head":
        if HEAD in tensors:
            del tensors[HEAD]
        else:
            tensors[HEAD] = tensors["model.embed_tokens.weight"] + 1.0  # a head of its own, not a copy
    elif how == "kv-heads":
        config["num_key_value_heads"] = config["num_attention_heads"]
        (directory / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    save_file(tensors, str(path), metadata={"format": "pt"})


def case_ids() -> list[str]:
    # Latent attention makes its keys and values from kv_b_proj: num_key_value_heads changes no tensor; a
    # family whose o_proj has a bias already (gpt-oss) gains none.
    def applies(family: str, how: str) -> bool:
        if how == "kv-heads":
            return not LAYOUTS[family].latent
        return how != "extra-bias" or variants(family)["base"].get("attention_bias") is not True
    return [f"{family}/{how}" for family in FAMILIES for how in CHANGES if applies(family, how)]


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("family-weights")
    out = {}
    for case in case_ids():
        family, how = case.split("/")
        directory = write_family_checkpoint(variants(family)["base"], root / case.replace("/", "__"))
        change(directory, family, how)
        out[case] = directory
    return out


def plan_for(directory: Path, runtime: str | None):
    chosen = [consumers.get(runtime)] if runtime else []
    plans = loading.plan(context_of(document.load(directory / "config.json"), chosen))
    return plans.get(runtime or loading.REFERENCE)


def test_every_change_is_seen_by_the_reference(checkpoints):
    """The changes are real: each but `clean` makes transformers 5's predicted load differ from a clean one."""
    for case, directory in checkpoints.items():
        plan = plan_for(directory, None)
        assert plan is not None, case
        assert (plan.outcome == loading.LOADS) == case.endswith("/clean"), (case, plan.outcome, plan.message)


@pytest.mark.parametrize("case", case_ids())
def test_transformers5_loads_as_predicted(case, checkpoints):
    directory = checkpoints[case]
    plan = plan_for(directory, None)
    got = load_with_transformers(directory)
    if plan.outcome == "error":
        assert got["outcome"] == "error", got
        return
    assert got["outcome"] == "loads", (plan.message, got)
    refused = {n for n in plan.unused if not plan.loader.drops(n, plan.tie)}
    # transformers 5 names Mixtral's router by its own module (`mlp`), not the checkpoint's (`block_sparse_moe`)
    named = {n.replace(".mlp.gate.", ".block_sparse_moe.gate.") if case.startswith("mixtral/") else n for n in got["missing"]}
    assert (named, got["unexpected"]) == (set(plan.missing), refused)
    assert got["tied"] == (HEAD not in plan.expected)


# (runtime, family) -> why cfglint's plan is known to be wrong there. The family's plans are not compared for
# that runtime; its clean checkpoint must still disagree, so a fix shows.
KNOWN_WRONG = {
    ("mlx-lm", "gpt_oss"): "mlx-lm 0.32.2 loads only the MXFP4 release's expert names (gate_up_proj_blocks/_scales); "
                           "the unquantized experts.gate_up_proj transformers 5 saves are renamed and refused",
    ("mistralrs", "gpt_oss"): "mistral.rs 0.9.5 asks for experts.gate_proj.weight, which transformers 5's packed "
                              "experts.gate_up_proj does not provide",
}


def _against(runtime: str, checkpoints: dict[str, Path], got: dict[str, dict]) -> tuple[dict, int]:
    """Each case's disagreement between cfglint's plan and what the runtime did, and how many were compared."""
    mismatches, checked = {}, 0
    for case, directory in checkpoints.items():
        if (runtime, case.split("/")[0]) in KNOWN_WRONG:
            plan, result = plan_for(directory, runtime), got.get(str(directory))
            if case.endswith("/clean") and plan is not None and result is not None:
                assert compare(plan, {**result, "message": result.get("message") or ""}) is not None, (
                    f"{runtime} {case} now matches: remove it from KNOWN_WRONG")
            continue
        plan = plan_for(directory, runtime)
        result = got.get(str(directory))
        if plan is None or result is None or result["outcome"] == "not-applicable":
            continue  # the runtime refuses the config itself, or has no such family
        result = {**result, "message": result.get("message") or ""}
        checked += 1
        if (m := compare(plan, result)) is not None:
            mismatches[case] = m
    return mismatches, checked


def test_mlx_lm_loads_as_predicted(checkpoints):
    from tests.conformance.venvs import runtime_python

    python = runtime_python("mlx-lm", ["mlx[cpu]", "mlx-lm"])
    dirs = [str(d) for d in checkpoints.values()]
    proc = subprocess.run([str(python), "-c", MLX_PROBE, *dirs], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    by_name = json.loads(proc.stdout.strip().splitlines()[-1])
    got = {d: by_name[Path(d).name] for d in dirs}
    mismatches, checked = _against("mlx-lm", checkpoints, got)
    assert mismatches == {} and checked >= 40


def test_mistralrs_loads_as_predicted(checkpoints):
    from tests.conformance.venvs import run_probe, runtime_python

    python = runtime_python("mistralrs", ["mistralrs==0.9.5"])
    report = run_probe(python, "mistralrs_family_probe.py", *map(str, checkpoints.values()), timeout=900)
    mismatches, checked = _against("mistralrs", checkpoints, report["results"])
    assert mismatches == {} and checked >= 25


def test_transformers4_loads_as_predicted(checkpoints):
    from tests.conformance.venvs import TRANSFORMERS4_WITH_TORCH, runtime_python

    python = runtime_python(*TRANSFORMERS4_WITH_TORCH)
    dirs = [str(d) for d in checkpoints.values()]
    proc = subprocess.run([str(python), "-c", TRANSFORMERS4_PROBE, *dirs], capture_output=True, text=True, timeout=900,
                          env={"HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    by_name = json.loads(proc.stdout.strip().splitlines()[-1])
    mismatches, checked = {}, 0
    for case, directory in checkpoints.items():
        plan, seen = plan_for(directory, "transformers-4"), by_name[directory.name]
        checked += 1
        if plan.mismatched and seen["outcome"] == "error":
            # transformers 4 names only the parameter's local name: "size mismatch for weight: ..."
            if "size mismatch for" not in seen["message"]:
                mismatches[case] = (plan.message, seen["message"])
        elif (m := compare(plan, seen)) is not None:
            mismatches[case] = m
        elif seen["outcome"] == "loads":
            refused = sorted(n for n in plan.unused if not plan.loader.drops(n, plan.tie))
            if (seen["missing"], seen["unexpected"], seen["tied"]) != (sorted(plan.missing), refused, HEAD not in plan.expected):
                mismatches[case] = (plan.missing, refused, seen)
    assert mismatches == {} and checked == len(checkpoints)


def test_llama_cpp_converter_converts_as_predicted(checkpoints):
    """The converter refuses a tensor it cannot map; a missing tensor or a wrong shape passes conversion
    and fails in llama.cpp's C++ loader (not built here), so for those the converter must succeed."""
    from tests.conformance.llama_cpp_converter import converter_python, ensure_converter
    from tests.conformance.venvs import run_probe

    python, converter = converter_python("5.24.0"), ensure_converter()
    report = run_probe(python, "llama_cpp_family_probe.py", "--converter", str(converter),
                       *map(str, checkpoints.values()), timeout=900)["results"]
    mismatches, checked = {}, 0
    for case, directory in checkpoints.items():
        plan, got = plan_for(directory, "llama-cpp"), report[str(directory)]
        if plan is None or got["outcome"] == "not-applicable":
            continue
        checked += 1
        refused = [n for n in plan.unused if not plan.loader.drops(n, plan.tie)]
        if refused:
            agrees = got["outcome"] == "error" and plan.outcome == "error" and refused[0] in (got["message"] or "")
        elif plan.missing or plan.mismatched:
            agrees = got["outcome"] == "loads" and plan.outcome == "error"
        else:
            agrees = got["outcome"] == "loads" and plan.outcome != "error"
        if not agrees:
            mismatches[case] = (plan.outcome, plan.message, got["outcome"], got["message"])
    assert mismatches == {} and checked >= 40
