"""transformers 5 `LlamaConfig`: the reference reading, plus the ways it refuses a config.

Source: transformers 5.24.0 models/llama/configuration_llama.py (a `@strict` dataclass: ints, floats and
bools are type-checked; `validate_architecture` requires hidden_size % num_attention_heads == 0 even when
head_dim is given), modeling_rope_utils.py (`validate_rope`; what it and the model built refuse of the RoPE
parameters is consumers/transformers5_rope.py, of the head size consumers/transformers5_attention.py). What it
reads when it accepts the file is the intent itself.
"""

from __future__ import annotations


from cfglint.consumers.base import Consumer, Failure, View
from cfglint.consumers.python_reader import unreadable
from cfglint.consumers.transformers5_attention import attention_refusal, generation_refusal
from cfglint.consumers.transformers5_rope import PER_LAYER_TYPE, given_parameters, model_refusal, odd_rotary_dimension, rope_refusal, shared_parameters_refusal
from cfglint.document import Document
from cfglint.intent import Intent, wrapper_refusal
from cfglint.knowledge.transformers5_fields import DEFAULTS as FIELD_DEFAULTS
from cfglint.knowledge.transformers5_fields import ATTENTION_LAYER_TYPES, FIELDS, LEGACY_LAYER_TYPES, MLP_LAYER_TYPES
from cfglint.knowledge.strict_types import class_typed, class_validation, field_annotations, field_refusal, strict_message, strict_refusal


def legacy_scaling_refusal(data: dict, family: str) -> tuple[str, str] | None:
    """What the class refuses of a legacy `rope_scaling` that is no dict, after its fields' own checks
    (convert_rope_params_to_dict @ v5.24.0): most classes store `rope_scaling or rope_parameters` as
    rope_parameters, whose strict type then refuses a truthy number, string or list; Gemma 3 updates the
    full_attention dict of the file's rope_parameters (its own default ones where the file has none) with
    anything but null: `rope_parameters["full_attention"].update(rope_scaling)`, which raises where that
    dict is missing or no dict, and as dict.update raises for the argument (Python's own words)."""
    scaling = data.get("rope_scaling")
    if family in PER_LAYER_TYPE:
        return _per_layer_type_update_refusal(data.get("rope_parameters"), scaling)
    if scaling is None or type(scaling) is dict:
        return None
    declared = field_annotations(family).get("rope_parameters")
    if not scaling or declared is None or strict_refusal({"rope_parameters": scaling}, class_typed(family)) is None:
        return None
    return strict_message("rope_parameters", scaling, declared), "/rope_scaling"


def _per_layer_type_update_refusal(params: object, scaling: object) -> tuple[str, str] | None:
    """Gemma3TextConfig.convert_rope_params_to_dict on the file's rope_parameters dict (the strict type
    refuses another JSON type before): the legacy scaling's update of full attention's, then each layer
    type's setdefault of its theta on what is not null."""
    given = params if isinstance(params, dict) else None
    if scaling is not None:
        if given is not None and "full_attention" not in given:
            return "KeyError: 'full_attention'", "/rope_parameters"
        full = given["full_attention"] if given is not None else {}
        if not isinstance(full, dict):
            return f"AttributeError: '{type(full).__name__}' object has no attribute 'update'", "/rope_parameters/full_attention"
        if type(scaling) is not dict:
            try:
                dict(scaling)  # type: ignore[call-overload]  # any JSON value: dict() refuses it as update would
            except (TypeError, ValueError) as exc:
                return f"{type(exc).__name__}: {exc}", "/rope_scaling"
    for layer_type in ("full_attention", "sliding_attention"):
        value = given.get(layer_type) if given is not None else None
        if value is not None and not isinstance(value, dict):
            return f"AttributeError: '{type(value).__name__}' object has no attribute 'setdefault'", f"/rope_parameters/{layer_type}"
    return None


def _not_a_multiple(hidden: object, heads: object) -> str | None:
    """validate_architecture: hidden_size % num_attention_heads, even where head_dim is given."""
    if isinstance(hidden, int) and isinstance(heads, int) and heads and hidden % heads:
        return class_validation("validate_architecture", f"ValueError: The hidden size ({hidden}) is not a multiple of the number of attention heads ({heads}).")
    return None


def _renamed_layer_types(data: dict) -> dict[str, list] | tuple[str, str]:
    """PreTrainedConfig.__post_init__'s renaming of legacy names in `layer_types` and `mtp_layer_types`
    (remap_legacy_layer_types), each that is not null: the lists it keeps, or (message, pointer) where it
    cannot iterate one (a number, or an entry that is a list or an object), which stops it unwrapped."""
    renamed = {}
    for key in ("layer_types", "mtp_layer_types"):
        given = data.get(key)
        if given is not None:
            try:
                renamed[key] = [LEGACY_LAYER_TYPES.get(t, t) for t in given]
            except TypeError as exc:
                return f"TypeError: {exc}", "/" + key
    return renamed


def renaming_refusal(data: dict) -> tuple[str, str] | None:
    """What __post_init__'s renaming of legacy layer types raises, or None."""
    renamed = _renamed_layer_types(data)
    return renamed if isinstance(renamed, tuple) else None


def layer_types_refusal(data: dict, family: str) -> tuple[str, str] | None:
    """validate_layer_type (after validate_architecture: the validators run in name order): each of
    layer_types' entries, then mlp_layer_types', among the known types, and as many as num_hidden_layers;
    it stops at the first list that is null, so mlp_layer_types goes unchecked beside a null layer_types.
    A class that declares layer_types fills a null one in itself, one known type a layer."""
    renamed = _renamed_layer_types(data)
    if isinstance(renamed, tuple) or ("layer_types" not in renamed and "layer_types" not in field_annotations(family)):
        return None
    layers = data.get("num_hidden_layers", FIELD_DEFAULTS[family].get("num_hidden_layers"))
    for key, allowed, given in (("layer_types", ATTENTION_LAYER_TYPES, renamed.get("layer_types")),
                                ("mlp_layer_types", MLP_LAYER_TYPES, data.get("mlp_layer_types"))):
        if key == "layer_types" and given is None:
            continue  # filled in by the class
        if given is None:
            return None
        try:
            if not all(entry in allowed for entry in given):
                return class_validation("validate_layer_type", f"ValueError: The `{key}` entries must be in {allowed} but got {given}"), "/" + key
            if layers is not None and layers != len(given):
                return class_validation("validate_layer_type", f"ValueError: `num_hidden_layers` ({layers}) must be equal to the number of `{key}` ({len(given)})"), "/" + key
        except TypeError as exc:
            return class_validation("validate_layer_type", f"TypeError: {exc}"), "/" + key
    return None


def refusal(data: dict) -> tuple[str, str] | None:
    """(message, pointer) of the first check transformers 5 fails, or None."""
    first = field_refusal(data, "llama") or legacy_scaling_refusal(data, "llama") or renaming_refusal(data)
    if first:
        return first
    defaults = FIELD_DEFAULTS["llama"]
    refused = _not_a_multiple(data.get("hidden_size", defaults["hidden_size"]), data.get("num_attention_heads", defaults["num_attention_heads"]))
    if refused:
        return refused, "/num_attention_heads"
    return layer_types_refusal(data, "llama") or rope_refusal(data, "llama") or odd_rotary_dimension(data, "llama")


class Transformers5(Consumer):
    name = "transformers-5"
    runtime = "transformers 5"
    title = "transformers 5.x LlamaConfig (the reference)"
    source = "transformers 5.24.0 models/llama/configuration_llama.py, modeling_rope_utils.py"
    schema_ref = "transformers5:LlamaConfig"
    reads_intent = True
    through_autoconfig = True

    def field_type(self, family: str, key: str) -> str | None:
        """The config class's annotation: its strict dataclass checks every field it declares, read or not."""
        return field_annotations(family).get(key) if family in FIELDS else None

    def read(self, doc: Document, intent: Intent) -> View:
        return self._intent_unless_refused(doc, intent, lambda: refusal(doc.data) or built_refusal(doc.data, "llama"))

    def view(self, doc: Document, intent: Intent) -> View:
        refused = wrapper_refusal(intent) if doc.ok else None  # its own fields, before its text model's
        if refused:  # at the top level, not the text model's
            return View(consumer=self.name).fail(Failure(refused[0], refused[1], "validation"))
        return super().view(doc, intent)

    def read_family(self, doc: Document, intent: Intent, entry) -> View:
        def refused() -> tuple[str, str] | None:
            layered = layer_type_keys(doc.data, intent, entry.family)
            return (refusal_for(doc.data, intent, entry) or built_refusal(doc.data, entry.family, layered)
                    or generation_refusal(intent.values, intent.sources))

        return self._intent_unless_refused(doc, intent, refused)

    def _intent_unless_refused(self, doc: Document, intent: Intent, refused_by) -> View:
        """What transformers 5 reads is the intent itself, unless its config class refuses the file."""
        view = View(consumer=self.name)
        failure = unreadable(doc)
        refused = None if failure else refused_by()
        if refused:
            failure = Failure(refused[0], refused[1], "validation")
        if failure:
            return view.fail(failure)
        view.values = dict(intent.values)
        view.sources = dict(intent.sources)
        return view


_VALIDATES_HEADS = {"gemma2", "gemma3_text", "deepseek_v2"}  # validate_architecture: hidden % heads, even with head_dim given


def built_refusal(data: dict, family: str, layered: list[str] | None = None) -> tuple[str, str] | None:
    """What building the model refuses of a file its config class takes: the layers' attention first, then
    the rotary embedding."""
    return attention_refusal(data, family) or shared_parameters_refusal(data, layered or []) or model_refusal(data, family)


def layer_type_keys(data: dict, intent: Intent, family: str) -> list[str]:
    """The keys of a flat family's RoPE dict the class reads per layer type (none for Gemma 3, always per
    layer type)."""
    return [] if family in PER_LAYER_TYPE else intent.layer_type_keys(given_parameters(data)[0])


def family_refusal(data: dict, entry, layer_types: list[str] | tuple[str, ...] = ()) -> tuple[str, str] | None:
    """(message, pointer) of the first check a family's strict config class fails, or None."""
    first = field_refusal(data, entry.family) or legacy_scaling_refusal(data, entry.family) or renaming_refusal(data)
    if first:
        return first
    defaults = FIELD_DEFAULTS[entry.family]
    hidden, heads = data.get("hidden_size", defaults["hidden_size"]), data.get("num_attention_heads", defaults["num_attention_heads"])
    refused = _not_a_multiple(hidden, heads) if entry.family in _VALIDATES_HEADS else None
    if refused:
        return refused, "/num_attention_heads"
    return (layer_types_refusal(data, entry.family) or rope_refusal(data, entry.family, layer_types)
            or odd_rotary_dimension(data, entry.family))


def config_refusal(data: dict, intent: Intent) -> tuple[str, str] | None:
    """What AutoConfig refuses of a family's file, for the runtimes that load it through transformers 5's
    config class first (mlx-lm's AutoTokenizer, the converter's vocabulary step): a multimodal wrapper's own
    fields first (its pointer at the top level, cfglint.consumers.base keeps it there). The class is the one
    AutoConfig builds (intent.family), whatever family the runtime's own reading takes the file for."""
    from cfglint import knowledge

    reference = knowledge.entry("transformers-5", intent.family) if intent.family else None
    return wrapper_refusal(intent) or (refusal_for(data, intent, reference) if reference is not None else None)


def refusal_for(data: dict, intent: Intent, entry) -> tuple[str, str] | None:
    """family_refusal, once per document: transformers 5 and mlx-lm (through AutoTokenizer) both ask."""
    if entry.family not in intent.refusals:
        intent.refusals[entry.family] = family_refusal(data, entry, layer_type_keys(data, intent, entry.family))
    return intent.refusals[entry.family]

