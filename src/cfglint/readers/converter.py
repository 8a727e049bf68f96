"""The converter reader: llama.cpp's convert_hf_to_gguf sees `AutoConfig.from_pretrained(dir).to_dict()` of
the installed transformers (5 here), or the raw JSON when transformers refuses the file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cfglint import knowledge
from cfglint.consumers.base import Failure, View
from cfglint.consumers.python_reader import unreadable
from cfglint.document import Document
from cfglint.knowledge.entry import REQUIRED, Entry
from cfglint.knowledge.expr import compile_expression
from cfglint.readers.values import IMPLIED, defaults, fill


_HPARAM_DEFAULTS: dict[int, dict[str, Any]] = {}  # entries live as long as the process


def hparam_defaults(entry: Entry) -> dict[str, Any]:
    """What the converter's hparams hold for a key config.json leaves out: to_dict() carries every attribute
    of transformers 5's config class, so its default (max_position_embeddings, rms_norm_eps, the Gemmas'
    tie_word_embeddings true, ...), else the converter's own fallback. A shared dict: callers copy it."""
    if id(entry) not in _HPARAM_DEFAULTS:
        reference = knowledge.entry("transformers-5", entry.family)
        _HPARAM_DEFAULTS[id(entry)] = {**defaults(entry), **(defaults(reference) if reference is not None else {})}
    return _HPARAM_DEFAULTS[id(entry)]


_REQUIRED: dict[int, tuple[str, ...]] = {}


def _required(entry: Entry) -> tuple[str, ...]:
    if id(entry) not in _REQUIRED:
        _REQUIRED[id(entry)] = tuple(k for k, f in entry.fields.items() if f.default is REQUIRED)
    return _REQUIRED[id(entry)]


def read(entry: Entry, doc: Document, intent: Any) -> View:
    view = View(consumer=entry.runtime)
    failure = unreadable(doc)
    if failure:
        return view.fail(failure)
    data = doc.data
    env = {**hparam_defaults(entry), **data}
    for key, expression in IMPLIED.items():  # what the config class derives when it is None
        if env.get(key) is None:
            env[key] = compile_expression(expression)(env)
    missing = next((k for k in _required(entry) if env.get(k) is None), None)
    if missing is not None:
        return view.fail(Failure(f"KeyError: '{missing}'", "/" + missing, "missing"))
    present = {k for k, v in data.items() if v is not None}
    return fill(view, entry, env, present, data, intent)


def vocab_reads_config(family: str, doc: Document, listing: frozenset[str] | None = None) -> bool:
    """Whether the converter's vocabulary step loads this config with transformers' AutoTokenizer
    (knowledge.llama_cpp.VOCAB_READS_CONFIG), from the files beside it (`listing`, else looked up)."""
    from cfglint.knowledge.llama_cpp import ALWAYS, IF_GPT2_TOKENIZER, NEVER, UNLESS_SENTENCEPIECE_OR_TEKKEN, VOCAB_READS_CONFIG
    from cfglint.tokenizer_names import SENTENCEPIECE, TEKKEN, TOKENIZER, TOKENIZER_CONFIG

    route = VOCAB_READS_CONFIG.get(family, ALWAYS)
    if route in (ALWAYS, NEVER):
        return route == ALWAYS
    folder = doc.path.parent

    def beside(name: str) -> bool:
        return name in listing if listing is not None else (folder / name).is_file()

    if route == IF_GPT2_TOKENIZER:
        return beside(TOKENIZER_CONFIG) and tokenizer_class(folder / TOKENIZER_CONFIG) == "GPT2Tokenizer"
    if beside(SENTENCEPIECE):
        return False
    return not (route == UNLESS_SENTENCEPIECE_OR_TEKKEN and beside(TEKKEN) and not beside(TOKENIZER))


def tokenizer_class(path: Path) -> object:
    """tokenizer_config.json's tokenizer_class, as the converter reads it (None where the file says none or is
    no JSON object)."""
    from cfglint import document

    data = document.load(path).data
    return data.get("tokenizer_class") if isinstance(data, dict) else None


def rope_type_refusal(family: str, data: dict, config_loads: bool) -> Failure | None:
    """What the converter refuses of its hparams' rope_type before it writes anything else
    (knowledge.llama_cpp.LOWERS_ROPE_TYPE): str.lower() on another JSON type, and Phi-3's longrope types. The
    hparams' RoPE parameters are transformers 5's standardised ones, or the raw JSON's where AutoConfig
    refuses the file."""
    from cfglint.knowledge.llama_cpp import LONG_FACTORS, LOWERS_ROPE_TYPE, UNNAMED

    lowers = LOWERS_ROPE_TYPE.get(family)
    if lowers is None:
        return None
    params, pointer = _hparams_rope(family, data, config_loads)
    given = "rope_type" in params
    kind = params.get("rope_type")
    if lowers == LONG_FACTORS:
        if not params.get("long_factor"):
            return None
        kind = kind if given else ""
        if isinstance(kind, str) and not kind:
            return Failure("KeyError: 'Missing the required key rope_scaling.type'", pointer, "missing")
        if isinstance(kind, str) and kind.lower() not in ("su", "longrope", "yarn"):
            return Failure(f"NotImplementedError: The rope scaling type {kind.lower()} is not supported yet", pointer, "variant")
    if not given or isinstance(kind, str) or (lowers == UNNAMED and kind is None):
        return None
    return Failure(f"AttributeError: '{type(kind).__name__}' object has no attribute 'lower'", pointer, "validation")


def _hparams_rope(family: str, data: dict, config_loads: bool) -> tuple[dict, str]:
    """Full attention's RoPE parameters in the hparams, and the pointer to their type."""
    if config_loads:
        from cfglint.consumers.transformers5_rope import parameter_sets, type_pointer

        sets = parameter_sets(data, family)
        _, params, at = next((s for s in sets if s[0] == "full_attention"), sets[0]) if sets else ("", {}, "")
        return params, type_pointer(params, at)
    at = "/rope_parameters" if "rope_parameters" in data else "/rope_scaling"  # TextModel.__init__ (base.py)
    params = data.get("rope_parameters", data.get("rope_scaling")) or {}
    params = params if isinstance(params, dict) else {}
    if "full_attention" in params or "sliding_attention" in params:
        full = params.get("full_attention")
        params, at = (full, at + "/full_attention") if isinstance(full, dict) else ({}, at)
    elif "rope_type" not in params and params.get("type") is not None:
        return {**params, "rope_type": params["type"]}, at + "/type"
    return params, at + "/rope_type"


# LlamaModel (llama, mistral, mixtral, granite) bakes llama3 scaling into a rope_freqs tensor; the others drop it.
LLAMA3_AS_TENSOR = {"mistral", "mixtral", "granite"}
# base.py's set_gguf_parameters writes these scaling types; dynamic, llama3 and anything else write none.
WRITTEN = {"linear", "yarn", "longrope", "su"}


def rope(entry: Entry, data: dict, intent: Any, none: bool = False) -> dict | Failure:
    """What convert_hf_to_gguf writes for RoPE, from the hparams transformers 5 gives it (the intent's
    resolution: rope_parameters, per layer type for Gemma 3); gemma and gemma2 write no RoPE key at all, so
    llama.cpp runs its default base 10000, unscaled."""
    from cfglint.reading import DEFAULT, FIXED

    if none:
        return {"rope_theta": (10000.0, FIXED), "rope_scaling": (None, FIXED)}
    theta, theta_at = intent.values["rope_theta"], intent.sources["rope_theta"]
    scaling, scaling_at = intent.values["rope_scaling"], intent.sources["rope_scaling"]
    kind = scaling.get("rope_type") if isinstance(scaling, dict) else None
    kept = (kind == "llama3" and entry.family in LLAMA3_AS_TENSOR) or (
        kind in WRITTEN and not (kind in ("linear", "yarn") and scaling.get("factor") is None)
    )
    if not kept:
        scaling, scaling_at = None, (FIXED if kind not in (None, "default") else DEFAULT)
    elif kind == "yarn":
        # GGUF has no key for truncate: ggml's rope_yarn_corr_dims always floors and ceils (ggml/src/ggml.c:4482-4490)
        scaling = {**scaling, "truncate": True}
    out = {"rope_theta": (theta, theta_at), "rope_scaling": (scaling, scaling_at)}
    if "rope_local_base_freq" in intent.values:
        out["rope_local_base_freq"] = (intent.values["rope_local_base_freq"], intent.sources["rope_local_base_freq"])
    return out
