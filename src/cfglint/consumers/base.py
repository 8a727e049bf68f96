"""A consumer profile: the schema of what one runtime reads, and the view it ends up with."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple, TYPE_CHECKING

from cfglint import knowledge, memo
from cfglint.reading import Reading
from cfglint.readers import read as read_entry

if TYPE_CHECKING:
    from cfglint.document import Document
    from cfglint.intent import Intent
    from cfglint.knowledge.entry import Entry, Struct

LOADS, ERROR, PANIC, NOT_APPLICABLE = "loads", "error", "panic", "not-applicable"


class Failure(NamedTuple):
    """Why a consumer will not load the model, in the runtime's own words where it has them."""

    message: str
    pointer: str  # the member that causes it ("" for the whole document)
    kind: str  # "syntax" | "missing" | "type" | "variant" | "duplicate" | "shape"
    outcome: str = ERROR  # or PANIC
    stage: str = ""  # RUN (knowledge.entry): the runtime refuses what a converter wrote


@dataclass
class View(Reading):
    consumer: str = ""
    outcome: str = LOADS
    failure: Failure | None = None

    def fail(self, failure: Failure) -> "View":
        self.outcome, self.failure = failure.outcome, failure
        return self

    @property
    def message(self) -> str | None:
        return self.failure.message if self.failure else None

    def to_json(self) -> dict:
        return {"outcome": self.outcome, "message": self.message, "values": self.values}


def head_dim_mismatch(intent: Intent, hidden: int, heads: int, outcome: str) -> Failure | None:
    """Runtimes that derive head_dim as hidden/heads build q_proj for that many rows; a checkpoint made for
    an explicit, different head_dim then fails their shape check while the weights load."""
    stored, derived = intent.values.get("head_dim"), hidden // heads
    if not isinstance(stored, int) or stored == derived:
        return None
    return Failure(
        f"shape mismatch for model.layers.0.self_attn.q_proj.weight, expected: [{derived * heads}, {hidden}], got: [{stored * heads}, {hidden}]",
        "/head_dim",
        "shape",
        outcome,
    )


def llama3_scaling(factor: float, low: float, high: float, original: int) -> dict:
    return {
        "rope_type": "llama3",
        "factor": factor,
        "low_freq_factor": low,
        "high_freq_factor": high,
        "original_max_position_embeddings": original,
    }


class Consumer:
    """One runtime's reading of a config.json. Subclasses set the class attributes and implement read()."""

    name: ClassVar[str]
    title: ClassVar[str]  # e.g. "candle-transformers 0.11 models/llama.rs"
    source: ClassVar[str]  # upstream repository, path and tag or commit the profile encodes

    runtime: ClassVar[str]  # how the runtime names itself in messages ("candle 0.11")
    schema_ref: ClassVar[str]  # its Llama schema, "module:class" in cfglint.consumers.llama_schemas
    reads_intent: ClassVar[bool] = False  # its readings' values and sources are the intent's
    # It loads the file through transformers' AutoConfig, which reads model_type its own way (a "mistral" file
    # with layer_types is Ministral); the others load the family the model_type names.
    through_autoconfig: ClassVar[bool] = False
    llama_struct: ClassVar[Struct | None] = None  # the serde struct its hand-written Llama reading parses

    @property
    def schema(self) -> Any:
        """The pydantic schema of the Llama profile, imported on first use (a BaseModel subclass; typed Any
        because each profile reads the fields of its own)."""
        module, _, name = self.schema_ref.partition(":")
        return getattr(importlib.import_module(f"cfglint.consumers.llama_schemas.{module}"), name)

    def read(self, doc: Document, intent: Intent) -> View:
        """The hand-written Llama profile."""
        raise NotImplementedError

    def field_type(self, family: str, key: str) -> str | None:
        """The type this runtime's reading of a family declares for a key, in its reader's words
        (knowledge/entry.py), or None where it reads the key untyped or not at all."""
        if family == "llama":
            declared = self.llama_struct.fields if self.llama_struct is not None else {}
        else:
            entry = knowledge.entry(self.name, family)
            declared = entry.fields if entry is not None else {}
        return declared[key].type if key in declared else None

    def read_family(self, doc: Document, intent: Intent, entry: Entry) -> View:
        def fresh() -> View:
            view = read_entry(entry, doc, intent)
            view.consumer = self.name
            refused = self.build_refusal(doc.data, entry) if view.outcome == LOADS else None
            return view.fail(Failure(refused[0], refused[1], "validation")) if refused else view

        return memo.entry_reading(entry, doc, fresh)

    def build_refusal(self, data: dict, entry: Entry) -> tuple[str, str] | None:
        """(message, pointer) of what building the model refuses in a file the entry's reading takes: the
        Python runtimes' model code, which an entry's fields do not describe."""
        return None

    def view(self, doc: Document, intent: Intent) -> View:
        if intent.family == "llama":
            return self.read(doc, intent)
        family = self.family_read(intent)
        entry = knowledge.entry(self.name, family) if family else None
        if entry is not None and intent.root:
            # A multimodal file: the runtime reads its text model where it looks for it, or not at all.
            where = getattr(knowledge.module(self.name), "TEXT_CONFIG", {}).get(intent.model_type)
            if where is None:
                return self._not_applicable(f"{self.runtime} has no {intent.model_type} loader")
            from cfglint.readers.intent import rebased

            text_entry = knowledge.text_entry(self.name, entry.family, intent.model_type) or entry
            view = rebased(self.read_family(doc.at(where), intent, text_entry), where, sources=not self.reads_intent)
            return _wrapper_pointer(view, intent)
        if entry is not None:
            return self.read_family(doc, intent, entry)
        if family is None:
            kind = repr(intent.model_type) if intent.model_type else "absent"
            message = f"model_type {kind}: cfglint models no such family"
        elif family in getattr(knowledge.module(self.name), "MISSING", ()):
            message = f"{self.runtime} has no {intent.model_type if intent.root else family} loader"
        else:
            message = f"cfglint does not model {self.runtime}'s {family} loader yet"
        return self._not_applicable(message)

    def family_read(self, intent: Intent) -> str | None:
        """The family whose loader this runtime takes for the file: the one AutoConfig builds, or the one its
        model_type names."""
        return intent.family if self.through_autoconfig else intent.named_family

    def _not_applicable(self, message: str) -> View:
        return View(consumer=self.name, outcome=NOT_APPLICABLE, failure=Failure(message, "/model_type", "not-applicable", NOT_APPLICABLE))


def _wrapper_pointer(view: View, intent: Intent) -> View:
    """A text reading that failed on the wrapper's own refusal (transformers 5's AutoConfig, which some
    runtimes load the file through) points at the top level's key, not into text_config."""
    from cfglint.intent import wrapper_refusal

    refused = wrapper_refusal(intent) if view.failure is not None else None
    if refused and view.failure is not None and view.failure.message.startswith(refused[0]):
        view.failure = view.failure._replace(pointer=refused[1])
    return view
