"""transformers 5 `LlamaConfig`: the reference reading, plus the ways it refuses a config.

Source: transformers 5.24.0 models/llama/configuration_llama.py (a `@strict` dataclass: ints, floats and
bools are type-checked; `validate_architecture` requires hidden_size % num_attention_heads == 0 even when
head_dim is given), modeling_rope_utils.py (`validate_rope`: per-type required keys raise KeyError; an odd
head_dim above 4 is refused). What it reads when it accepts the file is the intent itself.
"""

from __future__ import annotations


from cfglint.consumers.base import Consumer, Failure, View
from cfglint.consumers.python_reader import set_text, unreadable
from cfglint.document import Document
from cfglint.intent import Intent, resolve_rope
from cfglint.knowledge.transformers5_fields import DEFAULTS as FIELD_DEFAULTS
from cfglint.knowledge.transformers5_fields import FIELDS
from cfglint.knowledge.strict_types import INTERVALS, class_typed, field_annotations, strict_message, strict_refusal

# validate_rope's required keys per type, after standardisation has filled rope_type, rope_theta and
# (llama3, yarn, longrope) original_max_position_embeddings.
REQUIRED = {
    "linear": {"factor"},
    "dynamic": {"factor"},
    "yarn": {"factor"},
    "longrope": {"short_factor", "long_factor"},
    "llama3": {"factor", "low_freq_factor", "high_freq_factor"},
}


def class_validation(validator: str, error: str) -> str:
    """A class validator's refusal as the strict dataclass raises it (huggingface_hub 2.4 wraps the error)."""
    return f"StrictDataclassClassValidationError: Class validation error for validator '{validator}': {error}"


def _not_a_multiple(hidden: object, heads: object) -> str | None:
    """validate_architecture: hidden_size % num_attention_heads, even where head_dim is given."""
    if isinstance(hidden, int) and isinstance(heads, int) and heads and hidden % heads:
        return class_validation("validate_architecture", f"ValueError: The hidden size ({hidden}) is not a multiple of the number of attention heads ({heads}).")
    return None


# Where a config class sets head_dim in __post_init__ whatever the file leaves out (configuration_llama.py,
# configuration_mistral.py: hidden // heads when None) or says (configuration_deepseek_v2.py: the RoPE width).
_HEAD_DIM_DERIVED = {"llama", "mistral"}
_HEAD_DIM_IS = {"deepseek_v2": "qk_rope_head_dim"}
# The layer types a class builds its rope_parameters for, in order, from a file that gives them flat or not at
# all (configuration_gemma3.py, standardize_rope_params): the file's partial_rotary_factor is not carried over.
_BUILT_PER_LAYER_TYPE = {"gemma3_text": ("sliding_attention", "full_attention")}


def _odd_rotary_dimension(data: dict, family: str) -> tuple[str, str] | None:
    """validate_rope (modeling_rope_utils.py): a fully rotated head of an odd size above 4 is refused, for the
    first layer type whose partial_rotary_factor turns all of it; head_dim is the class's attribute."""
    defaults = FIELD_DEFAULTS[family]
    head_dim = data.get(_HEAD_DIM_IS.get(family, "head_dim"), defaults.get(_HEAD_DIM_IS.get(family, "head_dim")))
    if head_dim is None and family in _HEAD_DIM_DERIVED:
        hidden, heads = data.get("hidden_size", defaults["hidden_size"]), data.get("num_attention_heads", defaults["num_attention_heads"])
        head_dim = hidden // heads if heads else None
    if not isinstance(head_dim, int) or head_dim <= 4 or head_dim % 2 == 0:
        return None
    rope = data.get("rope_scaling") or data.get("rope_parameters") or {}
    layers = {k: v for k, v in rope.items() if k in ("full_attention", "sliding_attention")} if isinstance(rope, dict) else {}
    given = data.get("partial_rotary_factor", defaults.get("partial_rotary_factor"))
    if not layers and family in _BUILT_PER_LAYER_TYPE:
        layers, given = dict.fromkeys(_BUILT_PER_LAYER_TYPE[family], {}), None
    for layer_type, params in (layers or {"full_attention": rope}).items():
        factor = params.get("partial_rotary_factor", given if given is not None else 1.0) if isinstance(params, dict) else 1.0
        if isinstance(factor, (int, float)) and int(head_dim * factor) == head_dim:
            message = (f"ValueError: RoPE requires an even rotary dimension, but got `head_dim`={head_dim} with "
                       f"`partial_rotary_factor`={factor} for `{layer_type}`.")
            return class_validation("validate_rope", message), "/head_dim"
    return None


def refusal(data: dict) -> tuple[str, str] | None:
    """(message, pointer) of the first check transformers 5 fails, or None."""
    key = strict_refusal(data, class_typed("llama"))
    if key is not None:
        return strict_message(key, data[key], field_annotations("llama")[key], INTERVALS.get("llama", {}).get(key)), "/" + key
    defaults = FIELD_DEFAULTS["llama"]
    refused = _not_a_multiple(data.get("hidden_size", defaults["hidden_size"]), data.get("num_attention_heads", defaults["num_attention_heads"]))
    if refused:
        return refused, "/num_attention_heads"
    _, scaling, kind, sources = resolve_rope(data)
    missing = REQUIRED.get(kind, set()) - set(scaling or {})
    if missing:
        where = sources["rope_scaling"] if sources["rope_scaling"] != "default" else "/rope_parameters"
        return f"KeyError: \"Missing required keys in `rope_parameters` for 'rope_type'='{kind}': {set_text(missing)}\"", where
    return _odd_rotary_dimension(data, "llama")


class Transformers5(Consumer):
    name = "transformers-5"
    runtime = "transformers 5"
    title = "transformers 5.x LlamaConfig (the reference)"
    source = "transformers 5.24.0 models/llama/configuration_llama.py, modeling_rope_utils.py"
    schema_ref = "transformers5:LlamaConfig"

    def field_type(self, family: str, key: str) -> str | None:
        """The config class's annotation: its strict dataclass checks every field it declares, read or not."""
        return field_annotations(family).get(key) if family in FIELDS else None

    def read(self, doc: Document, intent: Intent) -> View:
        return self._intent_unless_refused(doc, intent, lambda: refusal(doc.data))

    def read_family(self, doc: Document, intent: Intent, entry) -> View:
        return self._intent_unless_refused(doc, intent, lambda: refusal_for(doc, intent, entry) or model_refusal(doc.data))

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


def family_refusal(data: dict, entry) -> tuple[str, str] | None:
    """(message, pointer) of the first check a family's strict config class fails, or None."""
    key = strict_refusal(data, class_typed(entry.family))
    if key is not None:
        return strict_message(key, data[key], field_annotations(entry.family)[key], INTERVALS.get(entry.family, {}).get(key)), "/" + key
    defaults = FIELD_DEFAULTS[entry.family]
    hidden, heads = data.get("hidden_size", defaults["hidden_size"]), data.get("num_attention_heads", defaults["num_attention_heads"])
    refused = _not_a_multiple(hidden, heads) if entry.family in _VALIDATES_HEADS else None
    if refused:
        return refused, "/num_attention_heads"
    return _odd_rotary_dimension(data, entry.family)


def model_refusal(data: dict) -> tuple[str, str] | None:
    """What the config class takes and building the model refuses: a rope_type that is no string, which the
    class only warns of and RotaryEmbedding looks up in vain (AutoConfig alone, as AutoTokenizer uses it,
    loads the file)."""
    rope = data.get("rope_scaling") or data.get("rope_parameters")
    kind = rope.get("rope_type", rope.get("type", "default")) if isinstance(rope, dict) else "default"
    if not isinstance(kind, str):
        return f"KeyError: {kind!r}", "/rope_scaling" if data.get("rope_scaling") else "/rope_parameters"
    return None


def config_refusal(doc: Document, intent: Intent, family: str) -> tuple[str, str] | None:
    """What AutoConfig refuses of a family's file, for the runtimes that load it through transformers 5's
    config class first (mlx-lm's AutoTokenizer, the converter's vocabulary step)."""
    from cfglint import knowledge

    reference = knowledge.entry("transformers-5", family)
    return refusal_for(doc, intent, reference) if reference is not None else None


def refusal_for(doc: Document, intent: Intent, entry) -> tuple[str, str] | None:
    """family_refusal, once per document: transformers 5 and mlx-lm (through AutoTokenizer) both ask."""
    if entry.family not in intent.refusals:
        intent.refusals[entry.family] = family_refusal(doc.data, entry)
    return intent.refusals[entry.family]

