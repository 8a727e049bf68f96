"""transformers 5's strict config classes against cfglint's reading of them, value by value: for every
field each family's class declares (and Llama's), the installed transformers 5 refuses a value with a
StrictDataclassFieldValidationError exactly when cfglint predicts it, and cfglint quotes its message. The
table of those fields (cfglint/knowledge/transformers5_fields.json) is the installed classes' own:
`CFGLINT_UPDATE_GOLDEN=1` writes it again from them."""

from __future__ import annotations

import copy
import dataclasses
import json
import os
import re
import warnings
from pathlib import Path

import pytest

from cfglint import consumers
from cfglint.consumers import transformers5
from cfglint.knowledge import strict_types, transformers5_fields
from cfglint.knowledge.entry import number_kind
from cfglint.knowledge.transformers5 import FAMILIES, MULTIMODAL

TABLE = Path(transformers5_fields.__file__).with_suffix(".json")


CLASSES = ["llama", *FAMILIES, *MULTIMODAL]  # the multimodal wrappers' own fields too (Gemma3Config's)


def installed_fields() -> dict[str, tuple[tuple[str, str], ...]]:
    """Each family class's own fields (not PreTrainedConfig's, no ClassVar) and annotations, in field order;
    a wrapper's sub-configs (text_config, vision_config) are checked by building them, not as fields here."""
    from transformers import CONFIG_MAPPING, PreTrainedConfig

    inherited = set(PreTrainedConfig.__dataclass_fields__)
    out = {}
    for family in CLASSES:
        cls = CONFIG_MAPPING[family]
        left_out = inherited | set(getattr(cls, "sub_configs_defaults", None) or {})
        out[family] = tuple(
            (f.name, re.sub(r"<class '(\w+)'>", r"\1", str(f.type)).replace("transformers.modeling_rope_utils.", ""))
            for f in cls.__dataclass_fields__.values()
            if f.name not in left_out and f._field_type is dataclasses._FIELD  # type: ignore[attr-defined]  # how dataclasses marks a field that is not a ClassVar
        )
    return out


def installed_intervals() -> dict[str, dict[str, tuple]]:
    """The bounds transformers' `interval` validator puts on a field, read off the validator itself."""
    from transformers import CONFIG_MAPPING

    out: dict[str, dict[str, tuple]] = {}
    for family in CLASSES:
        for name, _ in installed_fields()[family]:
            for check in CONFIG_MAPPING[family].__dataclass_fields__[name].metadata.get("validator", ()):
                held = dict(zip(check.__code__.co_freevars, (c.cell_contents for c in check.__closure__ or ())))
                if {"min", "max", "exclude_min", "exclude_max"} <= held.keys():
                    out.setdefault(family, {})[name] = (held["min"], held["max"], held["exclude_min"], held["exclude_max"])
    return out


def installed_defaults() -> dict[str, dict[str, object]]:
    """Each of those fields' default in the class (every one a JSON value)."""
    from transformers import CONFIG_MAPPING

    return {family: {name: CONFIG_MAPPING[family].__dataclass_fields__[name].default for name, _ in fields}
            for family, fields in installed_fields().items()}


def installed_layer_types() -> dict[str, object]:
    """The layer types every class takes, and the legacy names it renames (configuration_utils.py)."""
    from transformers import configuration_utils

    return {"attention": list(configuration_utils.ALLOWED_ATTN_LAYER_TYPES), "mlp": list(configuration_utils.ALLOWED_MLP_LAYER_TYPES),
            "legacy": dict(configuration_utils._LEGACY_LAYER_TYPE_REMAP)}


def render(table: dict[str, tuple[tuple[str, str], ...]], intervals: dict[str, dict[str, tuple]], defaults: dict[str, dict[str, object]],
           layer_types: dict[str, object]) -> str:
    data = {"fields": {f: [list(p) for p in v] for f, v in table.items()}, "intervals": {f: {k: list(b) for k, b in v.items()} for f, v in intervals.items()},
            "defaults": defaults, "layer_types": layer_types}
    return json.dumps(data, indent=1) + "\n"


def test_the_table_is_the_installed_classes():
    expected = render(installed_fields(), installed_intervals(), installed_defaults(), installed_layer_types())
    if os.environ.get("CFGLINT_UPDATE_GOLDEN"):
        TABLE.write_text(expected, encoding="utf-8")
    assert TABLE.read_text(encoding="utf-8") == expected, "CFGLINT_UPDATE_GOLDEN=1 writes it from the installed transformers 5"

# A value of each JSON type, and the edge cases the validators tell apart (an int for a float, a bool for an
# int, a list with an item of the wrong type).
PROBES = (1, 2.5, 0.5, -0.5, True, "x", None, [1], ["a"], [1, "a"], {"a": 1})


def _typed_fields() -> list[tuple[str, str, str]]:
    return [(family, key, annotation) for family, fields in transformers5_fields.FIELDS.items() for key, annotation in fields]


def _predicted(family: str, key: str, value: object) -> str | None:
    if family == "llama":
        found = transformers5.refusal({key: value})
    elif family in MULTIMODAL:
        found = strict_types.field_refusal({key: value}, family)
    else:
        found = transformers5.family_refusal({key: value}, FAMILIES[family])
    if found is None or not found[0].startswith("StrictDataclassFieldValidationError"):
        return None
    return found[0]


@pytest.mark.parametrize(("family", "key", "declared"), _typed_fields(), ids=lambda v: str(v))
def test_strict_refusals_are_transformers5s(family: str, key: str, declared: str) -> None:  # noqa: ARG001  (in the test id)
    from huggingface_hub.errors import StrictDataclassFieldValidationError
    from transformers import CONFIG_MAPPING

    cls = CONFIG_MAPPING[family]
    for value in PROBES:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                cls.from_dict({key: copy.deepcopy(value)})  # it standardises a RoPE dict in place
                observed = None
            except StrictDataclassFieldValidationError as err:
                observed = f"{type(err).__name__}: " + " ".join(line.strip() for line in str(err).splitlines())
            except Exception:  # noqa: BLE001  (a later check of the config class: not the strict types')
                observed = None
        assert _predicted(family, key, value) == observed, (key, value)


@pytest.mark.parametrize(("family", "key", "declared"), [f for f in _typed_fields() if f[0] not in MULTIMODAL], ids=lambda v: str(v))
def test_the_schema_refuses_what_the_strict_checks_refuse(family: str, key: str, declared: str) -> None:  # noqa: ARG001  (in the test id)
    """`cfglint schema transformers-5 [--family F]`: its pydantic model takes a value in every field of the
    class exactly when the strict check does (a multimodal wrapper's schema is its text model's)."""
    from pydantic import ValidationError

    from cfglint.consumers.llama_schemas.transformers5 import LlamaConfig
    from cfglint.readers.schema import model_of

    model = LlamaConfig if family == "llama" else model_of(FAMILIES[family])
    for value in PROBES:
        try:
            model.model_validate({key: value})
            takes = True
        except ValidationError:
            takes = False
        assert takes == (_predicted(family, key, value) is None), (key, value)


@pytest.mark.parametrize("family", sorted(transformers5_fields.FIELDS))
def test_a_fields_number_kind_is_what_the_class_takes(family: str) -> None:
    """L001 writes an integer as the same float where a refusing runtime's field holds floats only: the kind
    read off the class's annotation (entry.number_kind, through Consumer.field_type) is what the strict check
    takes, a float and no integer, or the other way round."""
    for key, annotation in transformers5_fields.FIELDS[family]:
        assert consumers.field_type("transformers-5", family, key) == annotation
        kind = number_kind(annotation)
        takes = {"integer": _predicted(family, key, 0) is None, "float": _predicted(family, key, 0.0) is None}
        if kind is None:  # no field that takes only floats goes unseen
            assert takes != {"integer": False, "float": True}, (key, annotation)
        else:
            assert takes == {"integer": kind == "integer", "float": kind == "float"}, (key, annotation)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_the_entries_types_are_the_class_annotations(family: str) -> None:
    """The transformers 5 entries name each field's type in short (`int?`, `ids`); the refusal, the schema
    and L001 read the class table instead, so the short names must say the same (`list` is `list[str]`)."""
    annotations = strict_types.field_annotations(family)
    for key, field in FAMILIES[family].fields.items():
        if key not in annotations:
            assert field.type == "any", (key, "not a field of the class: read as any value")
            continue
        short = sorted("list[str]" if m == "list" else m for m in strict_types._members(field.type))
        assert short == sorted(strict_types._members(annotations[key])), (key, field.type, annotations[key])


def _dimension_cases() -> list[tuple[str, str, dict]]:
    """Each family's tiny config with a head size the class validators look at."""
    from cfglint.compat import BASE
    from tests.families import BASES

    out = []
    for family in ["llama", *FAMILIES]:
        # a copy of its own: the config class standardises the RoPE dicts it is given in place
        base = {k: v for k, v in copy.deepcopy(BASE if family == "llama" else BASES[family]).items() if k != "head_dim"}
        odd = dict(base, hidden_size=45, num_attention_heads=9, num_key_value_heads=3)
        out += [
            (family, "odd-derived", odd),
            (family, "odd-head_dim", dict(base, head_dim=5)),
            (family, "odd-head_dim-partial", dict(base, head_dim=5, partial_rotary_factor=0.5)),
            (family, "small-odd-head_dim", dict(base, head_dim=3)),
            (family, "heads-not-dividing", dict(base, hidden_size=64, num_attention_heads=6, num_key_value_heads=2, head_dim=16)),
        ]
    nested = {"full_attention": {"rope_type": "default", "rope_theta": 10000.0},
              "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 0.5}}
    out.append(("gemma3_text", "odd-head_dim-nested", dict(copy.deepcopy(BASES["gemma3_text"]), head_dim=5, rope_parameters=nested)))
    return [(family, case, copy.deepcopy(config)) for family, case, config in out]  # no dict shared between cases


@pytest.mark.parametrize(("family", "case", "config"), _dimension_cases(), ids=lambda v: v if isinstance(v, str) else "")
def test_class_validator_refusals_are_transformers5s(family: str, case: str, config: dict) -> None:  # noqa: ARG001  (in the test id)
    """validate_architecture and validate_rope's even-dimension check, as the installed classes apply them:
    cfglint refuses exactly where the class does, and quotes the StrictDataclassClassValidationError."""
    from huggingface_hub.errors import StrictDataclassClassValidationError
    from transformers import CONFIG_MAPPING

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            CONFIG_MAPPING[family].from_dict(copy.deepcopy(config))  # it standardises the RoPE dicts in place
            observed = None
        except StrictDataclassClassValidationError as err:
            observed = f"{type(err).__name__}: " + " ".join(line.strip() for line in str(err).splitlines())
    found = transformers5.refusal(config) if family == "llama" else transformers5.family_refusal(config, FAMILIES[family])
    assert (found[0] if found and found[0].startswith("StrictDataclassClassValidationError") else None) == observed


def _layer_type_cases() -> list[tuple[str, str, dict]]:
    """Each family's tiny config with layer types the class renames, takes or refuses."""
    from cfglint.compat import BASE
    from tests.families import BASES

    out = []
    for family in ["llama", *FAMILIES]:
        base = copy.deepcopy(BASE if family == "llama" else BASES[family])
        n = base.get("num_hidden_layers", transformers5_fields.DEFAULTS[family].get("num_hidden_layers"))
        full = ["full_attention"] * n
        cases = {
            "empty": {"layer_types": []}, "short": {"layer_types": full[1:]}, "unknown": {"layer_types": ["x"] * n},
            "legacy": {"layer_types": ["attention"] * n}, "sliding": {"layer_types": ["sliding_attention"] * n},
            "null": {"layer_types": None}, "string": {"layer_types": "ab"}, "number": {"layer_types": 5},
            "object": {"layer_types": {"full_attention": 1}}, "nested": {"layer_types": [full[:1]] * n},
            "mlp-unknown": {"layer_types": full, "mlp_layer_types": ["x"] * n}, "mlp-short": {"layer_types": full, "mlp_layer_types": ["dense"]},
            "mlp-number": {"layer_types": full, "mlp_layer_types": 5}, "mlp-alone": {"mlp_layer_types": ["x"]},
            "mlp-dense": {"layer_types": full, "mlp_layer_types": ["dense"] * n}, "mtp-number": {"mtp_layer_types": 5},
            "legacy-short": {"layer_types": ["attention"]}, "layers-differ": {"layer_types": full, "num_hidden_layers": n + 1},
        }
        out += [(family, name, dict(copy.deepcopy(base), **extra)) for name, extra in cases.items()]
    return out


@pytest.mark.parametrize(("family", "case", "config"), _layer_type_cases(), ids=lambda v: v if isinstance(v, str) else "")
def test_layer_type_refusals_are_transformers5s(family: str, case: str, config: dict) -> None:  # noqa: ARG001  (in the test id)
    """PreTrainedConfig.__post_init__'s renaming of legacy layer types and validate_layer_type, as the
    installed classes apply them: cfglint refuses exactly where the class does, in its words."""
    from transformers import CONFIG_MAPPING

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            CONFIG_MAPPING[family].from_dict(copy.deepcopy(config))
            observed = None
        except Exception as err:  # noqa: BLE001  (any refusal, in its own words)
            observed = f"{type(err).__name__}: " + " ".join(line.strip() for line in str(err).splitlines())
    found = transformers5.refusal(config) if family == "llama" else transformers5.family_refusal(config, FAMILIES[family])
    assert (found[0] if found else None) == observed


def test_a_rope_type_of_another_json_type_is_refused_when_the_model_is_built() -> None:
    """The config class only warns of a rope_type it has no validator for; RotaryEmbedding looks the type up
    when the model is built, and a number is no type it has."""
    from transformers import CONFIG_MAPPING, AutoModelForCausalLM

    from tests.families import BASES

    config = {k: v for k, v in copy.deepcopy(BASES["qwen2"]).items() if k != "rope_theta"} | {"rope_parameters": {"rope_type": 5, "rope_theta": 10000.0}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        built = CONFIG_MAPPING["qwen2"].from_dict(copy.deepcopy(config))
        with pytest.raises(KeyError) as raised:
            AutoModelForCausalLM.from_config(built)
    assert transformers5.family_refusal(config, FAMILIES["qwen2"]) is None  # what AutoConfig (and AutoTokenizer) loads
    assert transformers5.model_refusal(config, "qwen2") == (f"KeyError: {raised.value}", "/rope_parameters/rope_type")


# A legacy rope_scaling of each JSON type but an object, the falsy ones included (most classes take
# `rope_scaling or rope_parameters`; Gemma 3 updates a dict with anything but null, pairs included).
LEGACY_SCALINGS = (0, 1, 2.5, True, False, "x", "", [], [1], ["ab"], [["factor", 2.0]])


@pytest.mark.parametrize("family", ["llama", *sorted(FAMILIES)])
def test_a_legacy_rope_scaling_that_is_no_dict_is_refused_as_transformers5_refuses_it(family: str) -> None:
    from transformers import CONFIG_MAPPING

    from cfglint.compat import BASE
    from tests.families import BASES

    base = BASE if family == "llama" else BASES[family]
    for value in LEGACY_SCALINGS:
        config = {**copy.deepcopy(base), "rope_scaling": copy.deepcopy(value)}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                CONFIG_MAPPING[family].from_dict(copy.deepcopy(config))
                observed = None
            except Exception as err:  # noqa: BLE001  (whatever the class raises is the observation)
                observed = f"{type(err).__name__}: " + " ".join(line.strip() for line in str(err).splitlines())
        found = transformers5.refusal(config) if family == "llama" else transformers5.family_refusal(config, FAMILIES[family])
        assert (found[0] if found else None) == observed, value
        assert found is None or found[1] == "/rope_scaling", found


# Gemma 3 beside a legacy rope_scaling: `rope_parameters["full_attention"].update(rope_scaling)`, on the
# file's own rope_parameters where it has them.
_SLIDING = {"rope_type": "default", "rope_theta": 1e4}
_LINEAR = {"rope_type": "linear", "factor": 2.0}
GEMMA3_PARAMETERS = {
    "flat": {"rope_type": "default", "rope_theta": 1e6},
    "sliding-only": {"sliding_attention": _SLIDING},
    "full-null": {"full_attention": None, "sliding_attention": _SLIDING},
    "full-list": {"full_attention": [["factor", 2.0]], "sliding_attention": _SLIDING},
    "full-zero": {"full_attention": 0, "sliding_attention": _SLIDING},
    "sliding-string": {"full_attention": {"rope_type": "default"}, "sliding_attention": "x"},
    "empty": {},
    "nested": {"full_attention": {"rope_type": "default", "rope_theta": 1e6}, "sliding_attention": _SLIDING},
    "absent": None,
}


@pytest.mark.parametrize("legacy", [None, _LINEAR, [["factor", 2.0]], "x"], ids=["no-legacy", "legacy-dict", "legacy-pairs", "legacy-string"])
@pytest.mark.parametrize("case", sorted(GEMMA3_PARAMETERS))
def test_gemma3_updates_full_attention_with_a_legacy_scaling_as_transformers5_does(case: str, legacy) -> None:
    from transformers import CONFIG_MAPPING

    from tests.families import BASES

    config = {k: v for k, v in copy.deepcopy(BASES["gemma3_text"]).items() if k not in ("rope_theta", "rope_local_base_freq")}
    if GEMMA3_PARAMETERS[case] is not None:
        config["rope_parameters"] = copy.deepcopy(GEMMA3_PARAMETERS[case])
    if legacy is not None:
        config["rope_scaling"] = copy.deepcopy(legacy)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            CONFIG_MAPPING["gemma3_text"].from_dict(copy.deepcopy(config))
            observed = None
        except Exception as err:  # noqa: BLE001  (whatever the class raises is the observation)
            observed = f"{type(err).__name__}: " + " ".join(line.strip() for line in str(err).splitlines())
    found = transformers5.family_refusal(config, FAMILIES["gemma3_text"])
    assert (found[0] if found else None) == observed


@pytest.mark.parametrize("text_spoilt", [False, True], ids=["text-fine", "text-spoilt"])
@pytest.mark.parametrize("value", ["yes", 1, [True]], ids=repr)
def test_a_wrappers_own_fields_are_checked_before_its_text_model(value: object, text_spoilt: bool, tmp_path: Path) -> None:
    """Gemma3Config checks its own fields (a tie_word_embeddings that is no bool) before it builds text_config's
    class: cfglint's transformers-5 reading quotes the installed class's refusal, at the top level."""
    from huggingface_hub.errors import StrictDataclassFieldValidationError
    from transformers import AutoConfig

    from cfglint import document
    from cfglint.engine import context_of
    from tests.families import multimodal, variants

    config = dict(multimodal(variants("gemma3_text")["base"]), tie_word_embeddings=value)
    if text_spoilt:
        config["text_config"]["hidden_size"] = "x"
    (tmp_path / "config.json").write_text(json.dumps(config))
    with pytest.raises(StrictDataclassFieldValidationError) as raised:
        AutoConfig.from_pretrained(tmp_path)
    observed = f"{raised.type.__name__}: " + " ".join(line.strip() for line in str(raised.value).splitlines())
    view = context_of(document.load(tmp_path / "config.json"), [consumers.get("transformers-5")]).views["transformers-5"]
    assert (view.message, view.failure.pointer) == (observed, "/tie_word_embeddings")
