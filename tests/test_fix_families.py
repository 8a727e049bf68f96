"""The fix safety claim for every family, against real transformers: after `cfglint fix --write --unsafe-fixes`
(the fixes R003 marks unsafe change what transformers 4 reads, never what 5 reads), transformers
5 builds the same model as before (the modules it builds, not only its config), and transformers 4.57 reads
the RoPE that transformers 5 means (base, scaling, Gemma 3's sliding-layer base) and builds the family's
RotaryEmbedding from it."""

from __future__ import annotations

import json
import shutil

import pytest

from cfglint import consumers, document
from cfglint.cli import main
from cfglint.engine import context_of, lint
from cfglint.rule import load_builtin
from cfglint.reading import same
from tests.conftest import sample_dirs
from tests.families import all_cases
from tests.knowledge.test_transformers5_entries import BUILD_FAILURES, observed

pytestmark = pytest.mark.runtimes


def cases() -> dict[str, dict]:
    out = {k: v for k, v in all_cases().items() if k not in BUILD_FAILURES}
    # A RoPE type transformers 5 builds and 4.57 has no init function for: R002's fix writes it where 4.57
    # reads it, its config loads, and building its model refuses the type (what R004 then reports).
    proportional = {"rope_type": "proportional", "rope_theta": 1e6, "partial_rotary_factor": 0.5}
    out["qwen2/tf5-proportional"] = dict(out["qwen2/tf5-base"], rope_parameters=proportional)
    for path in sample_dirs():
        config = json.loads((path / "config.json").read_text())
        if config.get("model_type") not in (None, "llama"):
            out[f"sample/{path.name}"] = config
    return out


CASES = cases()


@pytest.fixture(scope="module")
def fixed(tmp_path_factory):
    root = tmp_path_factory.mktemp("fixed-families")
    pairs = {}
    for i, (name, config) in enumerate(sorted(CASES.items())):
        before, after = root / str(i) / "before", root / str(i) / "after"
        before.mkdir(parents=True)
        (before / "config.json").write_text(json.dumps(config, indent=2) + "\n")
        shutil.copytree(before, after)
        assert main(["fix", "--write", "--unsafe-fixes", str(after)]) in (0, 1)
        assert main(["fix", "--unsafe-fixes", str(after)]) == 0  # nothing is left to apply twice
        pairs[name] = (before, after)
    return pairs


def small(config: dict) -> dict:
    """A published config at a size a test builds in a second: dimensions shrunk, every other key kept."""
    out = dict(config, hidden_size=64, intermediate_size=128, vocab_size=256)
    out["num_hidden_layers"] = min(config.get("num_hidden_layers", 4), 7)
    out["num_attention_heads"], out["num_key_value_heads"] = 4, 2 if config.get("num_key_value_heads", 4) != config.get("num_attention_heads") else 4
    if "head_dim" in config and config["head_dim"] is not None:
        out["head_dim"] = 16
    for key in ("num_experts", "num_local_experts"):
        if key in config:
            out[key] = 4
    for key in ("moe_intermediate_size", "shared_expert_intermediate_size"):
        if key in config:
            out[key] = 32
    if "layer_types" in config and isinstance(config["layer_types"], list):
        out["layer_types"] = config["layer_types"][: out["num_hidden_layers"]]
    for key in ("bos_token_id", "eos_token_id", "pad_token_id"):
        if isinstance(out.get(key), int):
            out[key] = min(out[key], 255)
        elif isinstance(out.get(key), list):
            out[key] = [min(i, 255) for i in out[key]]
    if isinstance(out.get("rope_scaling"), dict) and "short_factor" in out["rope_scaling"]:
        out["rope_scaling"] = dict(out["rope_scaling"], short_factor=[1.0] * 8, long_factor=[1.0] * 8)
    return out


def test_the_fixes_change_most_transformers5_files(fixed):
    changed = [n for n, (a, b) in fixed.items() if (a / "config.json").read_bytes() != (b / "config.json").read_bytes()]
    assert len([n for n in changed if "/tf5-" in n]) >= len([n for n in fixed if "/tf5-" in n]) * 0.9


@pytest.mark.parametrize("name", sorted(CASES))
def test_transformers5_builds_the_same_model_after_the_fix(name, fixed, tmp_path):
    before, after = fixed[name]
    old, new = json.loads((before / "config.json").read_text()), json.loads((after / "config.json").read_text())
    if old == new:
        return  # nothing was fixed: the same file builds the same model
    if name.startswith("sample/"):
        old, new = small(old), small(new)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    assert observed(old, tmp_path / "a") == observed(new, tmp_path / "b")


# One process reads every fixed directory: {directory: what transformers 4.57's config object holds}, or
# what loading the config or building the family's first attention and RotaryEmbedding from it raises (a fix
# must not make transformers 4 refuse to build the model; transformers4_family_probe.py builds them as
# modeling does).
T4_PROBE = r'''
import json, sys
sys.path.insert(0, sys.argv[1])
import transformers
from transformers4_family_probe import build_refusal
out = {}
for folder in sys.argv[2:]:
    try:
        config = transformers.AutoConfig.from_pretrained(folder, local_files_only=True)
    except Exception as exc:  # a refusal is an observation
        out[folder] = {"error": f"{type(exc).__name__}: {exc}"}
        continue
    refused = build_refusal(config)
    if refused is not None:
        out[folder] = {"error": refused}
        continue
    config = getattr(config, "text_config", None) or config  # a multimodal file: its text model
    scaling = config.rope_scaling if isinstance(getattr(config, "rope_scaling", None), dict) else None
    out[folder] = {"rope_theta": getattr(config, "rope_theta", None), "rope_scaling": scaling,
                   "rope_local_base_freq": getattr(config, "rope_local_base_freq", None),
                   "original_max_position_embeddings": getattr(config, "original_max_position_embeddings", None)}
print(json.dumps(out))
'''


@pytest.fixture(scope="module")
def transformers4(tmp_path_factory, fixed):
    import subprocess

    from tests.conformance.venvs import PROBES_DIR, TRANSFORMERS4_WITH_TORCH, runtime_python

    probe = tmp_path_factory.mktemp("probe") / "t4_rope.py"
    probe.write_text(T4_PROBE)
    python = runtime_python(*TRANSFORMERS4_WITH_TORCH)  # torch, to build the RotaryEmbedding
    folders = [str(after) for _, after in fixed.values()]
    run = subprocess.run([str(python), str(probe), str(PROBES_DIR), *folders], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


def as_transformers4_runs(got: dict) -> dict | None:
    scaling = got["rope_scaling"]
    if not scaling:
        return None
    kind = scaling.get("rope_type", scaling.get("type"))
    if kind == "default":
        return None
    out = {k: v for k, v in scaling.items() if k not in ("type", "rope_type", "rope_theta")}
    if kind == "longrope" and "original_max_position_embeddings" not in out:
        out["original_max_position_embeddings"] = got["original_max_position_embeddings"]
    return {"rope_type": kind, **out}


@pytest.mark.parametrize("name", sorted(CASES))
def test_transformers4_reads_the_intended_rope_after_the_fix(name, fixed, transformers4):
    _, after = fixed[name]
    ctx = context_of(document.load(after / "config.json"), [consumers.get("transformers-4")])
    intent, predicted = ctx.intent, ctx.views["transformers-4"]
    got = transformers4[str(after)]
    if predicted.failure is not None and predicted.outcome != "not-applicable":
        # No fix can make transformers 4 take this file (OLMo 2's YaRN, a scaling 4.57 validates away):
        # cfglint says it will refuse, in its words.
        assert "error" in got and got["error"].split(":")[0] == predicted.message.split(":")[0], (got, predicted.message)
        return
    assert "error" not in got, got["error"]
    remaining = {d.code for d in lint(ctx, load_builtin(), "config.json")}
    if "R002" in remaining:
        # A scaling the family's legacy form cannot hold (OLMo 2's YaRN): no fix, and the finding stays.
        assert as_transformers4_runs(got) is None and intent.values["rope_scaling"] is not None
        return
    assert same("rope_theta", got["rope_theta"], intent.values["rope_theta"]), (got, intent.values["rope_theta"])
    scaling = intent.values["rope_scaling"]
    ours = {k: v for k, v in scaling.items() if k != "attention_factor"} if scaling else None
    assert same("rope_scaling", as_transformers4_runs(got), ours), (got["rope_scaling"], scaling)
    if "rope_local_base_freq" in intent.values:
        assert same("rope_local_base_freq", got["rope_local_base_freq"], intent.values["rope_local_base_freq"])
