"""The converter reader: llama.cpp's convert_hf_to_gguf sees `AutoConfig.from_pretrained(dir).to_dict()` of
the installed transformers (5 here), or the raw JSON when transformers refuses the file."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache, partial
from pathlib import Path
from typing import Any, NamedTuple

from cfglint import knowledge
from cfglint.consumers.base import Failure, View
from cfglint.consumers.python_reader import unreadable
from cfglint.document import Document
from cfglint.knowledge.entry import REQUIRED, Entry
from cfglint.knowledge.expr import compile_expression
from cfglint.knowledge.llama_cpp import (
    ALWAYS_ADDED, ARCH_OF_FAMILY, COUNTS, EXPERT_COUNT_KEY, FLOAT32, GIVEN, ITERATED, LONG_FACTORS, LOWERS_ROPE_TYPE, MERGES_EXPERTS,
    PERMUTES_Q_K, PRESENT, ROPE_DIMS_FIRST, UINT32, UNNAMED, WRITES,
)
from cfglint.knowledge.transformers5_fields import DEFAULTS as FIELD_DEFAULTS
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


@lru_cache(maxsize=None)
def _added_keys(family: str) -> frozenset[str]:
    return frozenset(w.key for w in WRITES.get(family, ()))


def consulted(family: str) -> frozenset[str]:
    """The hparams the converter's own refusals consult beyond an entry's fields: what it writes, the
    experts' count it merges by and what it iterates."""
    iterated = {key for pair in ITERATED.get(family, ()) for key in pair}
    return _added_keys(family) | ({EXPERT_COUNT_KEY[family]} if family in EXPERT_COUNT_KEY else set()) | iterated


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
    # hparams[key] of an absent key raises; a null one the converter adds goes on to the packing (WRITES)
    missing = next((k for k in _required(entry) if env.get(k) is None and not (k in data and k in _added_keys(entry.family))), None)
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


def rope_type_refusal(family: str, data: dict, intent: Any, config_loads: bool) -> Failure | None:
    """What the converter refuses of its hparams' rope_type before it writes anything else
    (knowledge.llama_cpp.LOWERS_ROPE_TYPE): str.lower() on another JSON type, and Phi-3's longrope types. The
    hparams' RoPE parameters are transformers 5's standardised ones, or the raw JSON's where AutoConfig
    refuses the file."""

    lowers = LOWERS_ROPE_TYPE.get(family)
    if lowers is None:
        return None
    params, pointer = _hparams_rope(family, data, intent, config_loads, whole=lowers == LONG_FACTORS)
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


def raw_rope_refusal(family: str, data: dict, intent: Any, config_loads: bool) -> Failure | None:
    """Where AutoConfig refuses the file, TextModel.__init__ (base.py:1359-1377) works on the raw JSON's
    `rope_parameters` (else `rope_scaling`) `or {}`: a truthy value of another JSON type stops it at the first
    `in` or item assignment it meets, before anything is written."""
    from cfglint.knowledge.llama_cpp import LOCAL_THETA_KEYS, PARTIAL_ROTARY_KEYS, THETA_KEYS

    if config_loads:
        return None
    params, at, _ = hparams_rope_parameters(family, data, intent, config_loads)
    if isinstance(params, dict):
        return None
    name = type(params).__name__
    if not isinstance(params, (str, list)):
        return Failure(f"TypeError: argument of type '{name}' is not iterable", at, "type")
    assign = Failure("TypeError: 'str' object does not support item assignment" if name == "str"
                     else "TypeError: list indices must be integers or slices, not str", at, "type")
    no_get = Failure(f"AttributeError: '{name}' object has no attribute 'get'", at, "type")
    if "full_attention" in params or "sliding_attention" in params:
        return no_get  # the mirroring is skipped; set_gguf_parameters' rope_parameters.get stops it
    if _find(data, LOCAL_THETA_KEYS) is not None or ("rope_theta" not in params and _find(data, THETA_KEYS) is not None):
        return assign
    if "rope_type" not in params:
        return no_get  # self.rope_parameters.get("type")
    if "partial_rotary_factor" not in params and _find(data, PARTIAL_ROTARY_KEYS) is not None:
        return assign
    if "original_max_position_embeddings" not in params and _find(data, ("original_max_position_embeddings",)) is not None:
        return assign
    return no_get


def _find(data: dict, keys: tuple[str, ...]) -> Any:
    """ModelBase.find_hparam(keys, optional=True)."""
    key = next((k for k in keys if k in data), None)
    return data[key] if key is not None else None


def _hparams_rope(family: str, data: dict, intent: Any, config_loads: bool, whole: bool = False) -> tuple[dict, str]:
    """The RoPE parameters the converter reads its type from, and the pointer to their type: full attention's
    (`rope_parameters.get("full_attention", rope_parameters)`, base.py set_gguf_parameters and llama.py), or
    the whole dict (`whole`: Phi3MiniModel.generate_extra_tensors, phi.py)."""
    from cfglint.consumers.transformers5_rope import PER_LAYER_TYPE, parameter_sets, type_pointer

    layered = None if whole or family in PER_LAYER_TYPE else layer_parameters(family, data, intent, config_loads)
    if layered is not None:
        full = layered[0]
        return (full.params, type_pointer(full.params, full.at)) if isinstance(full.params, dict) else ({}, full.at)
    if config_loads:
        sets = parameter_sets(data, family)
        _, params, at = next((s for s in sets if s[0] == "full_attention"), sets[0]) if sets else ("", {}, "")
        return params, type_pointer(params, at)
    params, at, _ = hparams_rope_parameters(family, data, intent, config_loads)
    if not isinstance(params, dict):
        return {}, at
    if "rope_type" not in params and params.get("type") is not None and not _names_layer_types(params):
        return {**params, "rope_type": params["type"]}, at + "/type"  # TextModel.__init__ mirrors the legacy type
    return params, at + "/rope_type"


def hparams_rope_parameters(family: str, data: dict, intent: Any, config_loads: bool) -> tuple[Any, str, list[str]]:
    """The converter's `self.rope_parameters` (TextModel.__init__, base.py:1359:
    `hparams.get("rope_parameters", hparams.get("rope_scaling")) or {}`), where the file gives it, and the
    layer types whose parameters transformers 5 standardised in it. Where AutoConfig loads the file, the
    hparams are its to_dict(): the dict the class takes (`rope_scaling or rope_parameters`), the layer types
    it names standardised each on its own; else the raw JSON's."""
    if config_loads:
        from cfglint.consumers.transformers5 import layer_type_keys
        from cfglint.consumers.transformers5_rope import given_parameters

        params, at = given_parameters(data)
        return params or {}, at, layer_type_keys(data, intent, family)
    at = "/rope_parameters" if "rope_parameters" in data else "/rope_scaling"
    return data.get("rope_parameters", data.get("rope_scaling")) or {}, at, []


def _names_layer_types(params: Any) -> bool:
    """TextModel.__init__ mirrors no top-level RoPE key into a dict holding either key (base.py:1367)."""
    return isinstance(params, dict) and ("full_attention" in params or "sliding_attention" in params)


class Layered(NamedTuple):
    """A layer type's RoPE parameters as the converter reads them, where the file gives them, and as given."""

    params: Any
    at: str
    given: Any


def layer_parameters(family: str, data: dict, intent: Any, config_loads: bool) -> tuple[Layered, Layered] | None:
    """Where the converter's RoPE dict holds `full_attention` or `sliding_attention`: full attention's
    parameters (`rope_parameters.get("full_attention", rope_parameters)`) and sliding attention's
    (`.get("sliding_attention", {})`), else None. transformers 5 standardised a layer type's where the class
    names it, and the dict itself where it names none."""
    params, at, nested = hparams_rope_parameters(family, data, intent, config_loads)
    if not _names_layer_types(params):
        return None

    def layer(name: str, absent: Any, standardised_absent: bool) -> Layered:
        if name not in params:
            given, where, standardised = absent, at, standardised_absent
        else:
            given, where, standardised = params[name], f"{at}/{name}", name in nested
        return Layered(standardise(given, data, family) if standardised and isinstance(given, dict) else given, where, given)

    return layer("full_attention", params, config_loads and not nested), layer("sliding_attention", {}, False)


def standardise(params: dict, data: dict, family: str) -> dict:
    """One set of RoPE parameters as transformers 5's convert_rope_params_to_dict and standardize_rope_params
    (modeling_rope_utils.py) fill it: the type, the top-level rope_theta or the class's, the original context."""
    chosen = dict(params)
    chosen.setdefault("rope_type", chosen.get("type", "default"))
    chosen.setdefault("rope_theta", data["rope_theta"] if "rope_theta" in data else class_theta(family))
    if chosen["rope_type"] in ("llama3", "yarn", "longrope"):
        chosen.setdefault("original_max_position_embeddings", data.get("max_position_embeddings", FIELD_DEFAULTS[family].get("max_position_embeddings")))
    return chosen


def class_theta(family: str) -> Any:
    """`getattr(config, "rope_theta", config.default_theta)`: the class's field, else 10000."""
    from cfglint.intent import DEFAULT_THETA

    reference = knowledge.entry("transformers-5", family)
    field = reference.fields.get("rope_theta") if reference is not None else None
    return field.default if field is not None else DEFAULT_THETA


# LlamaModel (llama, mistral, mixtral) bakes llama3 scaling into a rope_freqs tensor; the others drop it.
LLAMA3_AS_TENSOR = {"mistral", "mixtral"}
# GraniteModel is a LlamaModel whose GGUF architecture has no rope_freqs tensor (gguf-py constants.py
# MODEL_TENSORS[GRANITE]): writing the llama3 one stops the converter.
NO_ROPE_FREQS = {"granite": "ValueError: Missing <MODEL_TENSOR.ROPE_FREQS: 18> for MODEL_TENSORS of <MODEL_ARCH.GRANITE: 97>"}
# base.py's set_gguf_parameters writes these scaling types; dynamic, llama3 and anything else write none.
WRITTEN = {"linear", "yarn", "longrope", "su"}


def rope(entry: Entry, data: dict, intent: Any, none: bool = False) -> dict | Failure:
    """What convert_hf_to_gguf writes for RoPE, from the hparams transformers 5 gives it (the intent's
    resolution: rope_parameters, per layer type for Gemma 3), or full attention's parameters where the dict
    names layer types (layered_rope); gemma and gemma2 write no RoPE key at all, so llama.cpp runs its
    default base 10000, unscaled."""
    from cfglint.consumers.transformers5 import config_refusal
    from cfglint.consumers.transformers5_rope import PER_LAYER_TYPE
    from cfglint.reading import DEFAULT, FIXED

    if none:
        return {"rope_theta": (10000.0, FIXED), "rope_scaling": (None, FIXED)}
    if entry.family not in PER_LAYER_TYPE and any(_names_layer_types(data.get(k)) for k in ("rope_parameters", "rope_scaling")):
        layered = layered_rope(entry.family, data, intent, config_refusal(data, intent) is None)
        if layered is not None:
            return layered if isinstance(layered, Failure) or "rope_local_base_freq" in entry.fields else _without_local(layered)
    theta, theta_at = intent.values["rope_theta"], intent.sources["rope_theta"]
    scaling, scaling_at = intent.values["rope_scaling"], intent.sources["rope_scaling"]
    kind = scaling.get("rope_type") if isinstance(scaling, dict) else None
    if kind == "llama3" and entry.family in NO_ROPE_FREQS:
        return Failure(NO_ROPE_FREQS[entry.family], scaling_at + "/rope_type", "variant")
    if not _written(entry.family, kind, scaling):
        scaling, scaling_at = None, (FIXED if kind not in (None, "default") else DEFAULT)
    elif kind == "yarn":
        scaling = _truncated(scaling)
    out = {"rope_theta": (theta, theta_at), "rope_scaling": (scaling, scaling_at)}
    if "rope_local_base_freq" in intent.values:
        out["rope_local_base_freq"] = (intent.values["rope_local_base_freq"], intent.sources["rope_local_base_freq"])
    return out


def _written(family: str, kind: Any, scaling: Any) -> bool:
    if LOWERS_ROPE_TYPE.get(family) == LONG_FACTORS:  # Phi3MiniModel writes the factors it is given, or nothing
        return bool(kind in WRITTEN and scaling.get("long_factor"))
    return (kind == "llama3" and family in LLAMA3_AS_TENSOR) or (
        kind in WRITTEN and not (kind in ("linear", "yarn") and scaling.get("factor") is None)
    )


def _truncated(scaling: dict) -> dict:
    # GGUF has no key for truncate: ggml's rope_yarn_corr_dims always floors and ceils (ggml/src/ggml.c:4482-4490)
    return {**scaling, "truncate": True}


def _without_local(values: dict) -> dict:
    return {k: v for k, v in values.items() if k != "rope_local_base_freq"}


def layered_rope(family: str, data: dict, intent: Any, config_loads: bool) -> dict | Failure | None:
    """What the converter writes where its RoPE dict holds `full_attention` or `sliding_attention`, or None:
    TextModel.set_gguf_parameters (base.py:1461-1510) takes full attention's parameters for the type, the
    scaling and `rope.freq_base` (none written for no theta: llama.cpp's 10000), sliding attention's theta for
    `rope.freq_base_swa`, and nothing from the top level, whatever transformers 5 runs; LlamaModel builds its
    llama3 tensor from full attention's too (llama.py:299-309)."""
    from cfglint.consumers.base import llama3_scaling
    from cfglint.consumers.transformers5_rope import type_pointer
    from cfglint.reading import DEFAULT, FIXED

    layered = layer_parameters(family, data, intent, config_loads)
    if layered is None:
        return None
    full, sliding = layered
    if family == "phi3":
        return _phi3_layered(full, *hparams_rope_parameters(family, data, intent, config_loads)[:2], data)
    for layer in layered:
        if not isinstance(layer.params, dict):
            return Failure(f"AttributeError: '{type(layer.params).__name__}' object has no attribute 'get'", layer.at, "type")
    theta = full.params.get("rope_theta")
    kind = full.params.get("rope_type")
    scaling, scaling_at = None, (FIXED if kind not in (None, "default") else DEFAULT)
    if kind == "llama3" and family in NO_ROPE_FREQS:
        return Failure(NO_ROPE_FREQS[family], type_pointer(full.params, full.at), "variant")
    if kind == "llama3" and family in LLAMA3_AS_TENSOR | {"llama"}:
        get = full.params.get
        scaling = llama3_scaling(get("factor", 8.0), get("low_freq_factor", 1.0), get("high_freq_factor", 4.0), get("original_max_position_embeddings", 8192))
    elif _written(family, kind, full.params):
        if kind == "yarn" and "original_max_position_embeddings" not in full.params:
            return Failure("KeyError: 'original_max_position_embeddings'", full.at, "missing")
        scaling = {"rope_type": kind, **{k: v for k, v in full.params.items() if k not in ("rope_theta", "rope_type", "type")}}
        scaling = _truncated(scaling) if kind == "yarn" else scaling
    local = sliding.params.get("rope_theta")
    return {
        "rope_theta": (theta, _theta_source(full, data)) if theta is not None else (10000.0, DEFAULT),
        # full attention's parameters are where it looks, scaled or not
        "rope_scaling": (scaling, full.at if scaling is not None or full.at.endswith("/full_attention") else scaling_at),
        "rope_local_base_freq": (local, _theta_source(sliding, data) if local is not None else DEFAULT),
    }


def _phi3_layered(full: Layered, params: dict, at: str, data: dict) -> dict | Failure:
    """Phi3MiniModel.set_gguf_parameters (phi.py:148-167) calls no base one: the original context from the
    whole dict (which TextModel.__init__ fills from the top level only where it names no layer type), theta
    from full attention's (indexed: a KeyError for none), long factors from the whole dict; no sliding theta."""
    from cfglint.reading import DEFAULT

    if "original_max_position_embeddings" not in params:
        return Failure("KeyError: 'original_max_position_embeddings'", at, "missing")
    if not isinstance(full.params, dict):
        return Failure(f"TypeError: '{type(full.params).__name__}' object is not subscriptable", full.at, "type")
    if "rope_theta" not in full.params:
        return Failure("KeyError: 'rope_theta'", full.at, "missing")
    layers = ("rope_theta", "rope_type", "type", "full_attention", "sliding_attention")
    scaling = {"rope_type": "longrope", **{k: v for k, v in params.items() if k not in layers}} if params.get("long_factor") else None
    return {
        "rope_theta": (full.params["rope_theta"], _theta_source(full, data)),
        "rope_scaling": (scaling, at if scaling else DEFAULT),
        "rope_local_base_freq": (None, DEFAULT),
    }


def _theta_source(layer: Layered, data: dict) -> str:
    """The file's own theta for the layer type, else the top-level one transformers 5 filled in."""
    from cfglint.reading import DEFAULT

    if isinstance(layer.given, dict) and "rope_theta" in layer.given:
        return layer.at + "/rope_theta"
    return "/rope_theta" if "rope_theta" in data else DEFAULT


def _hparam(key: str, data: dict, defaults: Mapping[str, Any]) -> Any:
    """The converter's hparams[key]: the file's value over the config class's default, and what the class
    derives for a null (IMPLIED: no kv heads are the heads)."""
    value = data[key] if key in data else defaults.get(key)
    if value is None and key in IMPLIED:
        return compile_expression(IMPLIED[key])({**defaults, **data})
    return value


def conversion_refusal(family: str, data: dict, defaults: Mapping[str, Any], intent: Any, config_loads: bool) -> Failure | None:
    """The converter's own first refusal before its vocabulary step, in the order it meets them: TextModel.
    __init__'s RoPE lookups; then, as it prepares the tensors (ModelBase.write: before set_gguf_parameters),
    the RoPE type lowered in generate_extra_tensors (Llama's, Phi-3's), the experts' merging and Llama's
    permutation of q/k; then set_gguf_parameters: Phi-3's RoPE dimensions, the head counts' adding, the
    RoPE type the others lower there (UNNAMED), the experts' counts' adding, Llama's RoPE dimensions, and
    what the family iterates after them. The hparams are the file's keys over `defaults`."""
    broken = raw_rope_refusal(family, data, intent, config_loads)
    if broken:
        return broken
    if LOWERS_ROPE_TYPE.get(family) == UNNAMED:
        return (experts_refusal(family, data, defaults) or adding_refusal(family, data, defaults, after_rope=False)
                or rope_type_refusal(family, data, intent, config_loads) or adding_refusal(family, data, defaults, after_rope=True)
                or iterating_refusal(family, data))
    return (rope_type_refusal(family, data, intent, config_loads) or experts_refusal(family, data, defaults)
            or _arithmetic_refusal(family, data, defaults, first=True) or adding_refusal(family, data, defaults, after_rope=False)
            or adding_refusal(family, data, defaults, after_rope=True) or _arithmetic_refusal(family, data, defaults, first=False)
            or iterating_refusal(family, data))


def iterating_refusal(family: str, data: dict) -> Failure | None:
    """Python's refusal to iterate what the converter reads as a list (knowledge.llama_cpp.ITERATED)."""
    for key, beside in ITERATED.get(family, ()):
        if key in data and beside in data:
            refused = _python_refusal(lambda key=key: iter(data[key]), key)
            if refused:
                return refused
    return None


def experts_refusal(family: str, data: dict, defaults: Mapping[str, Any]) -> Failure | None:
    """modify_tensors' merging of a layer's experts (knowledge.llama_cpp.MERGES_EXPERTS), from the count
    alone: `len(seen) >= n_experts * 3`, then torch.stack over `range(n_experts)`, which stacks none for a
    count of 0 or less. A null count is left to the weights (a dense checkpoint has no expert to merge)."""
    if family not in MERGES_EXPERTS:
        return None
    key = EXPERT_COUNT_KEY[family]
    count = _hparam(key, data, defaults)
    if count is None:
        return None
    refused = _python_refusal(lambda: (1 >= count * 3, range(count)), key)
    if refused or range(count):
        return refused
    return Failure(f"RuntimeError: stack expects a non-empty TensorList (modify_tensors merges {count!r} experts "
                   "a layer)", "/" + key, "shape")


_HEADS, _KV_HEADS, _HIDDEN = "num_attention_heads", "num_key_value_heads", "hidden_size"
_NOT_A_SHAPE = "TypeError: reshape() takes 1 positional argument but 4 were given"  # torch, for a float or bool


def _arithmetic_refusal(family: str, data: dict, defaults: Mapping[str, Any], first: bool) -> Failure | None:
    """Python's (or torch's) refusal where the converter computes with a count (knowledge.llama_cpp.
    PERMUTES_Q_K, ROPE_DIMS_FIRST): `first` those before the counts are added, else those after. Only the
    values' types decide here: a count that does not divide the checkpoint's tensors is the weights' business."""

    def get(key: str) -> Any:
        return _hparam(key, data, defaults)

    if family in ROPE_DIMS_FIRST and first:
        rotary = get("partial_rotary_factor")
        rotary = 1.0 if rotary is None else rotary
        return (_python_refusal(lambda: int(rotary * get(_HIDDEN)), _HIDDEN)
                or _python_refusal(lambda: int(rotary * get(_HIDDEN)) // get(_HEADS), _HEADS))
    if family in PERMUTES_Q_K and first:
        heads, kv = get(_HEADS), get(_KV_HEADS)
        for n_head, key in ((kv, _KV_HEADS) if kv is not None and heads != kv else (heads, _HEADS), (heads, _HEADS)):
            refused = _python_refusal(partial(_rows, n_head), key)
            if refused:
                return refused
            if type(n_head) is not int or type(_rows(n_head)) is not int:
                return Failure(f"{_NOT_A_SHAPE} (LlamaModel.permute)", "/" + key, "type")
    if family in PERMUTES_Q_K and not first and get("head_dim") is None:
        return _python_refusal(lambda: get(_HIDDEN) // get(_HEADS), _HIDDEN)
    return None


def _rows(n_head: Any) -> Any:
    return 64 // n_head // 2  # any whole row count: the types decide


def _python_refusal(compute: Any, key: str) -> Failure | None:
    try:
        compute()
    except (TypeError, ValueError, OverflowError, ZeroDivisionError) as err:
        return Failure(f"{type(err).__name__}: {err}", "/" + key, "type")
    return None


def adding_refusal(family: str, data: dict, defaults: Mapping[str, Any], after_rope: bool) -> Failure | None:
    """What gguf-py refuses as the converter adds a count (knowledge.llama_cpp.COUNTS), the first in
    set_gguf_parameters' order: add_array's len() of a float or a null, before the vocabulary step; those
    added before the RoPE base (the head counts) or, `after_rope`, after it (the experts')."""
    for written in _counts_added(family)[after_rope]:
        value = _hparam(written.key, data, defaults)
        if isinstance(value, (int, str, list, dict)) or (value is None and written.when == GIVEN):
            continue
        where = f"{ARCH_OF_FAMILY[family]}.{written.gguf}"
        return Failure(f"TypeError: object of type '{type(value).__name__}' has no len() (gguf-py adds {where} "
                       f"as {_PACKED_AS[COUNTS]})", "/" + written.key, "type")
    return None


@lru_cache(maxsize=None)
def _counts_added(family: str) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """The counts (COUNTS) a family's converter adds before its RoPE base, and after it."""
    writes = WRITES.get(family, ())
    split = next((i for i, w in enumerate(writes) if w.key == "rope_theta"), len(writes))
    return tuple(w for w in writes[:split] if w.type == COUNTS), tuple(w for w in writes[split:] if w.type == COUNTS)


def packing_refusal(family: str, data: dict, defaults: Mapping[str, Any], view: View) -> Failure | None:
    """What gguf-py's struct.pack refuses among the values the converter added (knowledge.llama_cpp.WRITES),
    the first in the file's order: the conversion stops there, after the vocabulary, before any runtime
    reads the file. The hparams are the file's keys over `defaults`; the base written is the one the view
    reads (view.values["rope_theta"])."""
    for written in WRITES.get(family, ()):
        if written.key == "rope_theta":
            value, source = view.values.get("rope_theta"), view.sources.get("rope_theta", "")
            at = source if source.startswith("/") else "/rope_theta"
        else:
            value = _hparam(written.key, data, defaults)
            at = "/" + written.key
        if written.when == GIVEN:
            if value is None:
                continue
        elif written.when == PRESENT:
            if written.key not in data:
                continue
        elif written.when != ALWAYS_ADDED and not compile_expression(written.when)({**defaults, **data}):
            continue
        refused = _unpackable(value, written.type)
        if refused:
            where = f"{ARCH_OF_FAMILY[family]}.{written.gguf}"
            return Failure(f"{refused} (gguf-py packs {where} as {_PACKED_AS.get(written.type, written.type)})", at, "type")
    return None


def read_back(family: str, values: dict) -> dict[str, Any]:
    """The written values the runtime reads back otherwise than JSON holds them: struct packs true as 1,
    and a count given as a string is written as the array of its characters (COUNTS)."""
    out: dict[str, Any] = {}
    for written in WRITES.get(family, ()):
        value = values.get(written.key)
        if isinstance(value, bool):
            out[written.key] = (float if written.type == FLOAT32 else int)(value)
        elif written.type == COUNTS and isinstance(value, str) and value:
            out[written.key] = list(value)
    return out


_INT32, _STRING, _BOOL, _ARRAY = "int32", "string", "bool", "array"  # an array's items (GGUFValueType)
_STRUCT_FORMAT = {UINT32: "<I", FLOAT32: "<f", _INT32: "<i"}
_PACKED_AS = {COUNTS: "a uint32 or an array"}
_FLOAT32_MAX = 3.4028234663852886e38


def _unpackable(value: Any, gguf_type: str) -> str | None:
    """struct.pack's refusal of the value, as gguf-py's GGUFWriter._pack meets it (CPython's own struct)."""
    kind = type(value)
    if gguf_type == UINT32 and kind is int and 0 <= value <= 0xFFFFFFFF:
        return None  # what config files hold: no need to ask struct
    if gguf_type == FLOAT32 and (kind is float or kind is int) and abs(value) <= _FLOAT32_MAX:
        return None
    if gguf_type == COUNTS:
        return _unpackable(value, UINT32) if isinstance(value, int) else _array_refusal(value)
    import struct

    try:
        struct.pack(_STRUCT_FORMAT[gguf_type], value)
    except struct.error as err:
        return f"struct.error: {err}"
    except OverflowError as err:
        return f"OverflowError: {err}"
    return None


def _array_refusal(items: Any) -> str | None:
    """GGUFWriter._pack_val's refusal of an array (gguf_writer.py:1630-1649): a string's characters are
    strings; a list's items must share the type its first has (GGUFValueType.get_type), each packed as
    that type. An empty one (add_array adds none) and what has no len() (refused when added) are no
    refusal here."""
    if isinstance(items, str) or not items:
        return None
    if not isinstance(items, list):
        return "ValueError: Invalid GGUF metadata array, expecting sequence"
    first = None
    for item in items:
        kind = _ITEM_TYPE.get(type(item))
        if kind is None:
            return f"ValueError: Unknown type: {type(item)}"
        if first is None:
            first = kind
        elif kind != first:
            return "ValueError: All items in a GGUF array should be of the same type"
    for item in items:
        if first == _ARRAY:
            refused = _array_refusal(item) if item else "ValueError: Invalid GGUF metadata array. Empty array"
        else:
            refused = _unpackable(item, first) if first in (FLOAT32, _INT32) else None
        if refused:
            return refused
    return None


_ITEM_TYPE = {str: _STRING, list: _ARRAY, float: FLOAT32, bool: _BOOL, int: _INT32}
