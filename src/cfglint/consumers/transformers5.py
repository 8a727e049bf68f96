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


def refusal(data: dict) -> tuple[str, str] | None:
    """(message, pointer) of the first check transformers 5 fails, or None."""
    key = strict_refusal(data, class_typed("llama"))
    if key is not None:
        return strict_message(key, data[key], field_annotations("llama")[key], INTERVALS.get("llama", {}).get(key)), "/" + key
    hidden, heads = data.get("hidden_size", 4096), data.get("num_attention_heads", 32)
    if heads and hidden % heads != 0:
        return f"ValueError: The hidden size ({hidden}) is not a multiple of the number of attention heads ({heads}).", "/num_attention_heads"
    _, scaling, kind, sources = resolve_rope(data)
    missing = REQUIRED.get(kind, set()) - set(scaling or {})
    if missing:
        where = sources["rope_scaling"] if sources["rope_scaling"] != "default" else "/rope_parameters"
        return f"KeyError: \"Missing required keys in `rope_parameters` for 'rope_type'='{kind}': {set_text(missing)}\"", where
    head_dim = data.get("head_dim") or (hidden // heads if heads else 0)
    if isinstance(head_dim, int) and head_dim > 4 and head_dim % 2:
        return f"ValueError: head_dim {head_dim} must be even for rotary embeddings", "/head_dim"
    return None


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
        return self._intent_unless_refused(doc, intent, lambda: refusal_for(doc, intent, entry))

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
    hidden, heads = data.get("hidden_size", entry.fields["hidden_size"].default), data.get("num_attention_heads", entry.fields["num_attention_heads"].default)
    if entry.family in _VALIDATES_HEADS and isinstance(hidden, int) and isinstance(heads, int) and heads and hidden % heads:
        return f"ValueError: The hidden size ({hidden}) is not a multiple of the number of attention heads ({heads}).", "/num_attention_heads"
    rope = data.get("rope_scaling") or data.get("rope_parameters")
    if isinstance(rope, dict) and not isinstance(rope.get("rope_type", rope.get("type", "default")), str):
        return f"ValueError: rope_type must be a string, got {rope.get('rope_type', rope.get('type'))!r}", "/rope_parameters"
    return None


def refusal_for(doc: Document, intent: Intent, entry) -> tuple[str, str] | None:
    """family_refusal, once per document: transformers 5 and mlx-lm (through AutoTokenizer) both ask."""
    if entry.family not in intent.refusals:
        intent.refusals[entry.family] = family_refusal(doc.data, entry)
    return intent.refusals[entry.family]

