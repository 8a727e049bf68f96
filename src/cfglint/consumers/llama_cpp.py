"""llama.cpp's `convert_hf_to_gguf` (llama-cpp-python 0.3.36) and the runtime defaults it relies on.

Source: ggml-org/llama.cpp conversion/base.py (`ModelBase.load_hparams`, `TextModel.set_gguf_parameters`),
conversion/llama.py (`LlamaModel`), src/llama-model.cpp, as vendored in the llama-cpp-python 0.3.36 sdist.
hparams come from `AutoConfig.from_pretrained(dir).to_dict()` of the installed transformers (5 here, so
RoPE follows transformers 5), falling back to the raw JSON when transformers refuses the file; a refusal of
the strict dataclass still stops it where the vocabulary is read through AutoTokenizer (no tokenizer.model).
`rope_parameters` wins over `rope_scaling`; `dynamic` scaling is dropped without a word; llama3 is baked into
a `rope_freqs` tensor (on the raw-JSON path its original context falls back to a top-level
`original_max_position_embeddings`, then 8192); without a theta none is written and the runtime uses 10000.
gguf-py packs each written value only when it writes the file, after the vocabulary: one of a type it
cannot pack (a string or 1.5 for a uint32, a negative count, a string or null for a float32) stops the
conversion there (knowledge.llama_cpp.WRITES), before any runtime check of the file.
Observed with the converter itself under transformers 4.57.6 and 5.24.0 (tests/conformance).
The activation is always SiLU; biases and `output.weight` are converted whenever the tensors exist, whatever
the flags say, so from the config alone they read as meant.
"""

from __future__ import annotations

from typing import Any

from cfglint.consumers.base import Consumer, Failure, View, llama3_scaling
from cfglint.consumers.python_reader import unreadable
from cfglint.document import Document
from cfglint.intent import Intent
from cfglint.knowledge.entry import RUN
from cfglint.knowledge.llama_cpp import ARCHITECTURE_FAMILY
from cfglint.reading import DEFAULT, FIXED

VOCABULARY = " (its vocabulary step's AutoTokenizer reads the config with transformers 5)"
RUNTIME_THETA = 10000.0  # llama-model.cpp: rope_freq_base_train where the GGUF has no rope.freq_base



def rope_of(data: dict, intent: Intent) -> tuple[Any, str, dict | None, str] | Failure:
    """(theta, its source, scaling, its source) as the converter writes them into the GGUF."""
    from cfglint.consumers.transformers5 import refusal
    from cfglint.readers.converter import layered_rope

    layered = layered_rope("llama", data, intent, config_loads=refusal(data) is None)
    if layered is not None:
        return layered if isinstance(layered, Failure) else (*layered["rope_theta"], *layered["rope_scaling"])
    if refusal(data) is None:
        # AutoConfig (transformers 5) resolved the RoPE: the intent's reading.
        theta, theta_source = intent.values["rope_theta"], intent.sources["rope_theta"]
        scaling = intent.values["rope_scaling"]
        scaling_source = intent.sources["rope_scaling"]
    else:
        params = data.get("rope_parameters", data.get("rope_scaling")) or {}
        params = dict(params) if isinstance(params, dict) else {}
        scaling_source = "/rope_parameters" if "rope_parameters" in data else "/rope_scaling"
        theta, theta_source = params.get("rope_theta"), scaling_source + "/rope_theta"
        if theta is None:
            from cfglint.knowledge.llama_cpp import THETA_KEYS

            found = next((k for k in THETA_KEYS if data.get(k) is not None), None)
            theta, theta_source = (data[found], "/" + found) if found else (RUNTIME_THETA, DEFAULT)
        kind = params.get("rope_type", params.get("type", "default"))
        scaling = None if kind == "default" else {"rope_type": kind, **{k: v for k, v in params.items() if k not in ("rope_theta", "rope_type", "type")}}
        if kind == "llama3":
            scaling = llama3_scaling(
                params.get("factor", 8.0),
                params.get("low_freq_factor", 1.0),
                params.get("high_freq_factor", 4.0),
                params.get("original_max_position_embeddings", data.get("original_max_position_embeddings", 8192)),
            )
    if scaling is not None and scaling["rope_type"] == "dynamic":
        return theta, theta_source, None, FIXED  # "handled in model class": not for Llama
    return theta, theta_source, scaling, scaling_source


def _tie_follows_the_head(family: str | None) -> bool:
    """Whether the family's GGUF is tied exactly when its checkpoint has no lm_head.weight (the entry reads
    tie_word_embeddings as written, standing for the checkpoint saved with it)."""
    from cfglint import knowledge

    found = knowledge.entry("llama-cpp", family) if family else None
    return found is not None and found.derive.get("tie_word_embeddings") == "tie_word_embeddings"


class LlamaCpp(Consumer):
    name = "llama-cpp"
    runtime = "llama.cpp's converter"
    title = "llama.cpp convert_hf_to_gguf (llama-cpp-python 0.3.36) + runtime"
    source = "ggml-org/llama.cpp conversion/base.py, conversion/llama.py, src/llama-model.cpp (llama-cpp-python 0.3.36 sdist)"
    schema_ref = "llama_cpp:Hparams"

    def read(self, doc: Document, intent: Intent) -> View:
        view = View(consumer=self.name)
        failure = unreadable(doc)
        if failure:
            return view.fail(failure)
        data = doc.data
        from cfglint.consumers.transformers5 import refusal
        from cfglint.knowledge.transformers5_fields import DEFAULTS as FIELD_DEFAULTS
        from cfglint.readers.converter import conversion_refusal

        refused = refusal(data)
        wrong_type = conversion_refusal("llama", data, FIELD_DEFAULTS["llama"], intent, config_loads=refused is None)
        if wrong_type:
            return view.fail(wrong_type)
        if refused and _stops_the_vocabulary(refused[0], "llama", doc):
            return view.fail(Failure(refused[0] + VOCABULARY, refused[1], "validation"))
        read = rope_of(data, intent)
        if isinstance(read, Failure):
            return view.fail(read)
        theta, theta_source, scaling, scaling_source = read
        view.set("rope_theta", theta, theta_source)
        kept = scaling or scaling_source == FIXED or scaling_source.endswith("/full_attention")  # where it looked
        view.set("rope_scaling", scaling, scaling_source if kept else DEFAULT)
        for key in ("head_dim", "num_key_value_heads", "tie_word_embeddings", "attention_bias", "mlp_bias", "max_position_embeddings", "rms_norm_eps"):
            view.set(key, intent.values[key], intent.sources[key])
        view.set("hidden_act", "silu", FIXED)
        from cfglint.readers.converter import packing_refusal

        packing = packing_refusal("llama", data, intent.values, view)
        if packing:
            return view.fail(packing)
        return _as_the_runtime_reads(view, "llama")

    def family_read(self, intent: Intent) -> str | None:
        """The converter picks its model by the first architecture (ARCHITECTURE_FAMILY), the file's
        model_type notwithstanding."""
        first = intent.architectures[0] if intent.architectures else None
        return ARCHITECTURE_FAMILY.get(first or "", intent.named_family)

    def view(self, doc: Document, intent: Intent) -> View:
        view = super().view(doc, intent)
        if intent.root and view.failure is None and _tie_follows_the_head(intent.family):
            # The converter writes output.weight iff the checkpoint has lm_head.weight, which a multimodal
            # checkpoint has by the wrapper's tie (what transformers 5 ties and saves by), not by text_config's,
            # which the converter merges over the top level.
            view.set("tie_word_embeddings", intent.values["tie_word_embeddings"], intent.sources["tie_word_embeddings"])
        return view

    def read_family(self, doc: Document, intent: Intent, entry) -> View:
        view = super().read_family(doc, intent, entry)
        if view.failure is None or view.failure.stage == RUN:  # the conversion's own refusals come first
            from cfglint.consumers.transformers5 import config_refusal
            from cfglint.readers.converter import conversion_refusal, hparam_defaults, packing_refusal

            refused = config_refusal(doc.data, intent)
            wrong_type = conversion_refusal(entry.family, doc.data, hparam_defaults(entry), intent, refused is None)
            if wrong_type:
                view.fail(wrong_type)
            elif refused and _stops_the_vocabulary(refused[0], entry.family, doc):
                view.fail(Failure(refused[0] + VOCABULARY, refused[1], "validation"))
            else:
                packing = packing_refusal(entry.family, doc.data, hparam_defaults(entry), view)
                if packing:
                    view.fail(packing)
        if view.failure is not None and view.failure.stage == RUN:
            view.values, view.sources = {}, {}  # a runtime that refuses the file reads nothing from it
        elif view.failure is None:
            view = _as_the_runtime_reads(view, entry.family)
        return view


def _as_the_runtime_reads(view: View, family: str) -> View:
    """The values llama.cpp reads back from the file: a boolean written as the number struct packs, a
    count's string as the array of its characters, and for a RoPE base the converter adds only when given,
    none written, the runtime's own."""
    from cfglint.knowledge.llama_cpp import GIVEN, WRITES
    from cfglint.readers.converter import read_back

    written = read_back(family, view.values)
    unwritten = view.values.get("rope_theta") is None and any(w.key == "rope_theta" and w.when == GIVEN for w in WRITES.get(family, ()))
    if written or unwritten:
        view.values, view.sources = dict(view.values), dict(view.sources)  # a memo's copy shares them
        view.values.update(written)
        if unwritten:
            view.set("rope_theta", RUNTIME_THETA, DEFAULT)
    return view


def _stops_the_vocabulary(refusal: str, family: str, doc: Document) -> bool:
    """What transformers 5's config class refuses stops the converter where its vocabulary step loads the
    config through AutoTokenizer, which passes over a ValueError or OSError only (the strict dataclass's
    refusals are neither, nor are validate_rope's KeyError and ZeroDivisionError, Gemma 3's TypeError of
    dict.update): the raw-JSON fallback of load_hparams does not cover that."""
    if refusal.startswith(("ValueError", "OSError")):
        return False
    from cfglint.readers.converter import vocab_reads_config

    return vocab_reads_config(family, doc)
