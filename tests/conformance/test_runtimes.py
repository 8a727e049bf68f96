"""Every consumer profile against the real runtime, installed by the test into its own venv.

For every Llama sample and the generated family, the profile's predicted outcome (loads or not) and values
(theta, scaling, head_dim, kv heads, tie, activation, biases, limits) must equal what the runtime does.
Runtimes that need weights get a tiny random checkpoint written with that config; a sample's dimensions are
shrunk for them first (every key cfglint compares is kept as published).
"""

from __future__ import annotations

import json

import pytest

from cfglint import consumers, document
from cfglint.engine import context_of
from cfglint.reading import KEYS, same
from tests.conftest import sample_dirs
from tests.conformance.llama_cpp_converter import converter_python, ensure_converter
from tests.conformance.tiny_checkpoint import write_tiny_checkpoint
from tests.conformance.venvs import run_probe, runtime_python
from tests.family import family

TINY_DIMS = {"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2, "vocab_size": 256}


def shrunk(config: dict) -> dict:
    """The same config at a size a test can hold in memory: dims scaled down and special token ids moved into
    the tiny vocabulary (runtimes look them up in the tokenizer); every other key compared is kept."""
    out = dict(config, **TINY_DIMS)
    for key, tiny_id in (("bos_token_id", 1), ("eos_token_id", 2), ("pad_token_id", 0)):
        if isinstance(out.get(key), int):
            out[key] = tiny_id
        elif isinstance(out.get(key), list):
            out[key] = [tiny_id + i for i in range(len(out[key]))]
    heads, kv = config.get("num_attention_heads", 32), config.get("num_key_value_heads")
    out["num_attention_heads"] = 4
    if kv is not None:
        out["num_key_value_heads"] = 4 if kv == heads else 2
    return out


def cases() -> dict[str, dict]:
    out = {p.name: json.loads((p / "config.json").read_text()) for p in sample_dirs()}
    out = {n: c for n, c in out.items() if c.get("model_type") == "llama" and "head_dim" not in c}
    out.update(family())
    base = family()["tf4-default"]
    # Cases where the runtimes part ways beyond the family's axes.
    out["tie-string"] = dict(base, tie_word_embeddings="true")
    out["llama3-no-original-context"] = dict(
        base, rope_scaling={"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0}
    )
    out["yarn-no-original-context"] = dict(base, rope_scaling={"rope_type": "yarn", "factor": 4.0})
    return out


CASES = cases()

# runtime -> (consumer profile, needs weights)
RUNTIMES = {
    "transformers-4": ("transformers-4", False),
    "transformers-5": ("transformers-5", False),
    "mlx-lm": ("mlx-lm", True),
    "mistralrs": ("mistralrs", True),
    "llama-cpp": ("llama-cpp", True),
}


@pytest.fixture(scope="module")
def runtimes():
    converter = ensure_converter()
    return {
        "transformers-4": (runtime_python("transformers4", ["transformers==4.57.6"]), "transformers_config.py", ()),
        "transformers-5": (runtime_python("transformers5", ["transformers==5.24.0"]), "transformers_config.py", ()),
        "mlx-lm": (runtime_python("mlx-lm", ["mlx[cpu]", "mlx-lm"]), "mlx_lm_probe.py", ()),
        "mistralrs": (runtime_python("mistralrs", ["mistralrs==0.9.5"]), "mistralrs_probe.py", ()),
        "llama-cpp": (converter_python("5.24.0"), "llama_cpp_probe.py", ("--converter", str(converter))),
    }


@pytest.mark.parametrize("runtime", sorted(RUNTIMES))
@pytest.mark.parametrize("name", sorted(CASES))
def test_profile_matches_runtime(name, runtime, runtimes, tmp_path):
    profile, needs_weights = RUNTIMES[runtime]
    config = CASES[name]
    model = tmp_path / "model"
    if needs_weights:
        write_tiny_checkpoint(shrunk(config) if name in {p.name for p in sample_dirs()} else config, model)
    else:
        model.mkdir()
        (model / "config.json").write_text(json.dumps(config, indent=2))
    python, probe, extra = runtimes[runtime]
    actual = run_probe(python, probe, str(model), *extra)

    ctx = context_of(document.load(model / "config.json"), [consumers.get(profile)])
    view = ctx.views[profile]
    predicted_loads = view.outcome in ("loads",)
    assert predicted_loads == (actual["outcome"] == "loads"), (view.outcome, view.message, actual["outcome"], actual["message"])
    if not predicted_loads:
        return
    compared = [k for k in KEYS if k in actual["values"] and k in view.values]
    assert compared, f"{runtime} reported nothing to compare"
    for key in compared:
        ours, theirs = view.values[key], actual["values"][key]
        if key == "rope_scaling" and isinstance(ours, dict) and isinstance(theirs, dict):
            # A probe reports the parameters it can observe in the built model or the GGUF; defaults the
            # runtime keeps internally (mlx-lm's yarn context) are checked against the source, not here.
            ours = {k: v for k, v in ours.items() if k in theirs}
        assert same(key, ours, theirs), (key, ours, theirs)
