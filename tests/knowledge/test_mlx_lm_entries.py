"""The mlx-lm entries against the installed mlx-lm: fields, their order and defaults, per family.

The mlx-lm venv is the one the conformance tests use (`runtime_python("mlx-lm", ["mlx[cpu]", "mlx-lm"])`),
built on first use. One probe run, inside it, chooses each family's classes the way `mlx_lm.load` does
(`mlx_lm.utils._get_classes`, so MODEL_REMAPPING applies) and prints `dataclasses.fields(ModelArgs)` with
their defaults; every entry must equal that exactly (names, order, defaults and their JSON types).
"""

from __future__ import annotations

import json

import pytest

from cfglint.knowledge import mlx_lm
from cfglint.knowledge.entry import REQUIRED
from tests.conformance.venvs import run_probe, runtime_python

PROBE = r'''
import dataclasses
import inspect
import json
import os
import re
import sys

# Everything but the JSON object goes to stderr.
json_out = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)
sys.stdout = sys.stderr

from importlib.metadata import version

from mlx_lm.utils import _get_classes


def default_of(field):
    if field.default is not dataclasses.MISSING:
        value = field.default
    elif field.default_factory is not dataclasses.MISSING:
        value = field.default_factory()
    else:
        return {"required": True}
    try:
        json.dumps(value)
    except TypeError:
        value = repr(value)
    return {"default": value}


def attention_head_dim(module):
    """How the module's attention takes head_dim, and what it computes from it in order (None: it sizes its
    heads as hidden // heads)."""
    classes = [c for c in vars(module).values() if inspect.isclass(c) and c.__module__ == module.__name__]
    sources = [inspect.getsource(c.__init__) for c in classes if "q_proj" in inspect.getsource(c)]
    if not sources:
        return None
    source = sources[0]
    if re.search(r"head_dim = args\.head_dim or ", source):
        taken = "or-derived"
    elif re.search(r"head_dim = (?:args\.head_dim\b|config\.head_dim\b|getattr\(\s*args, \"head_dim\")", source):
        taken = "as-is"
    else:
        return None
    patterns = {"scale": r"self\.scale = (?:self\.)?head_dim\s*\*\*\s*-0\.5", "q_proj": r"self\.q_proj = nn\.Linear\(",
                "o_proj": r"self\.o_proj = nn\.Linear\("}
    found = sorted((m.start(), step) for step, pattern in patterns.items() if (m := re.search(pattern, source)))
    return [taken, [step for _, step in found]]


def text_config_fills(module):
    """What the wrapper's ModelArgs.__post_init__ writes into text_config where it has no such key:
    `self.text_config[key] = self.text_config.get(key, default)`."""
    source = inspect.getsource(module.ModelArgs.__post_init__)
    pattern = r'self\.text_config\["(\w+)"\] = self\.text_config\.get\(\s*"(\w+)",\s*([^)\s]+)\s*\)'
    return {key: json.loads(default) for key, same, default in re.findall(pattern, source) if key == same}


wrappers = {}
for name in [a.removeprefix("wrapper:") for a in sys.argv[1:] if a.startswith("wrapper:")]:
    model_class, args_class = _get_classes({"model_type": name})
    wrappers[name] = text_config_fills(sys.modules[args_class.__module__])

families = {}
for family in [a for a in sys.argv[1:] if not a.startswith("wrapper:")]:
    try:
        model_class, args_class = _get_classes({"model_type": family})
    except Exception as exc:
        families[family] = {"error": f"{type(exc).__name__}: {exc}"}
        continue
    source = inspect.getsource(sys.modules[args_class.__module__])
    families[family] = {
        "module": args_class.__module__,
        "struct": args_class.__name__,
        "fields": [[f.name, default_of(f)] for f in dataclasses.fields(args_class)],
        # a norm built by mlx's nn.RMSNorm with the config's eps (a call may span lines)
        "norm_eps_checked": re.search(r"nn\.RMSNorm\([^)]*rms_norm_eps", source) is not None,
        "attention_head_dim": attention_head_dim(sys.modules[args_class.__module__]),
    }

json_out.write(json.dumps({
    "mlx-lm": version("mlx-lm"),
    "mlx": version("mlx"),
    "families": families,
    "wrappers": wrappers,
}) + "\n")
json_out.flush()
'''

ENTRIES = {entry.family: entry for entry in mlx_lm.ENTRIES}


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    python = runtime_python("mlx-lm", ["mlx[cpu]", "mlx-lm"])
    script = tmp_path_factory.mktemp("mlx_lm_fields") / "mlx_lm_fields_probe.py"
    script.write_text(PROBE, encoding="utf-8")
    # run_probe joins the probes folder with the name; an absolute path stays itself.
    return run_probe(python, str(script), "llama", *ENTRIES, *mlx_lm.MISSING, *(f"wrapper:{k}" for k in mlx_lm.TEXT_CONFIG))


def _as_json(default):
    return {"required": True} if default is REQUIRED else {"default": json.loads(json.dumps(default))}


def test_installed_version_is_the_one_read(installed):
    ref = {entry.source.ref for entry in mlx_lm.ENTRIES}
    assert ref == {f"{installed['mlx-lm']} (wheel)"}, (ref, installed["mlx-lm"], installed["mlx"])


@pytest.mark.parametrize("family", sorted(ENTRIES))
def test_fields_match_model_args(family, installed):
    entry = ENTRIES[family]
    found = installed["families"][family]
    assert "error" not in found, found
    assert entry.source.path == "mlx_lm/models/" + found["module"].rsplit(".", 1)[-1] + ".py"
    assert entry.struct == found["struct"]
    ours = [[name, _as_json(f.default)] for name, f in entry.fields.items()]
    theirs = found["fields"]
    assert [n for n, _ in ours] == [n for n, _ in theirs], "field names or order differ"
    for (name, a), (_, b) in zip(ours, theirs):
        # Compared as JSON text, so 1000000 vs 1000000.0 and False vs 0 count as different.
        assert json.dumps(a) == json.dumps(b), (name, a, b)
    assert all(f.type == "any" for f in entry.fields.values())


@pytest.mark.parametrize("family", ["llama", *sorted(ENTRIES)])
def test_the_families_whose_norms_check_eps_are_the_modules_using_mlx_rmsnorm(family, installed):
    """nn.RMSNorm refuses an eps of 0 or less; a module that builds its norms with it and the config's eps is
    one cfglint says refuses such a file (CHECKS_NORM_EPS)."""
    assert installed["families"][family]["norm_eps_checked"] == (family in mlx_lm.CHECKS_NORM_EPS)


@pytest.mark.parametrize("family", ["llama", *sorted(ENTRIES)])
def test_the_attention_head_sizes_are_the_modules(family, installed):
    """How each module's attention takes head_dim, and what it builds from it, in order (ATTENTION_HEAD_DIM)."""
    found = installed["families"][family]["attention_head_dim"]
    ours = mlx_lm.ATTENTION_HEAD_DIM.get(family)
    assert (list(ours[0:1]) + [list(ours[1])] if ours else None) == found


def test_missing_families_have_no_module(installed):
    for family in mlx_lm.MISSING:
        assert "error" in installed["families"][family], (family, installed["families"][family])


def test_the_llama_reading_reads_the_fields_of_model_args(installed):
    """The hand-written Llama reading (cfglint.consumers.mlx_lm) and its schema: ModelArgs' fields, in order,
    with the schema's defaults."""
    from cfglint.consumers import mlx_lm as reading
    from cfglint.consumers.llama_schemas.mlx_lm import ModelArgs

    found = installed["families"]["llama"]
    assert found["module"] == "mlx_lm.models.llama" and found["struct"] == "ModelArgs"
    assert list(reading.FIELDS) == [name for name, _ in found["fields"]]
    assert list(ModelArgs.model_fields) == [name for name, _ in found["fields"]]
    for name, default in found["fields"]:
        field = ModelArgs.model_fields[name]
        ours = {"required": True} if field.is_required() else {"default": field.default}
        assert json.dumps(ours) == json.dumps(default), (name, ours, default)


def test_the_defaults_a_wrapper_fills_in_are_the_modules(installed):
    """WRAPPER_DEFAULTS: what each multimodal module's ModelArgs writes into a text_config without the key."""
    assert set(mlx_lm.WRAPPER_DEFAULTS) <= set(mlx_lm.TEXT_CONFIG)
    for kind in mlx_lm.TEXT_CONFIG:
        assert installed["wrappers"][kind] == mlx_lm.WRAPPER_DEFAULTS.get(kind, {}), kind
