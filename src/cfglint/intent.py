"""What the producer means: the config as transformers 5 reads it, for either file layout.

transformers 5 is the reference because it writes the layout that other runtimes misread, and because it
understands both layouts. Semantics (transformers 5.24 `configuration_utils.py`, `modeling_rope_utils.py`,
`models/llama/configuration_llama.py`):
- a non-null legacy `rope_scaling` replaces `rope_parameters` (`rope_scaling or rope_parameters`);
- a top-level `rope_theta` only fills `rope_parameters.rope_theta` when that is absent; default 10000;
- a legacy `type` key stands for `rope_type`; llama3/yarn/longrope keep their own
  `original_max_position_embeddings`, else default it to `max_position_embeddings`: a top-level key of that
  name becomes an attribute only after the parameters are standardised, unless the config class declares it
  (Phi-3 alone, whose field, default 4096, then always replaces the nested value);
- `head_dim` defaults to hidden_size // num_attention_heads; `dtype` wins over `torch_dtype`;
- generation parameters left in config.json are dropped on load.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cfglint.knowledge.expr import uniform_layers
from cfglint.knowledge.transformers5_fields import DEFAULTS as FIELD_DEFAULTS
from cfglint.reading import DEFAULT, DERIVED, FIXED, Reading, copied

LLAMA_MODEL_TYPES = frozenset({"llama"})
DEFAULT_THETA = 10000.0

# transformers 5 `GenerationConfig._get_default_generation_params()` keys (5.24), less `use_cache`, which
# is also a model config field: these are popped from config.json on load and never reach the model.
SAMPLING_KEYS = frozenset(
    """max_length min_length do_sample early_stopping num_beams temperature top_k top_p typical_p
    repetition_penalty length_penalty no_repeat_ngram_size encoder_no_repeat_ngram_size bad_words_ids
    num_return_sequences output_scores return_dict_in_generate forced_bos_token_id forced_eos_token_id
    remove_invalid_values exponential_decay_length_penalty suppress_tokens begin_suppress_tokens epsilon_cutoff
    eta_cutoff encoder_repetition_penalty num_assistant_tokens num_assistant_tokens_schedule
    assistant_confidence_threshold assistant_lookbehind target_lookbehind num_beam_groups
    diversity_penalty""".split()
)

# transformers' LlamaConfig defaults (identical in 4.46-4.57 and 5.x).
LLAMA_DEFAULTS: dict[str, Any] = {
    "vocab_size": 32000,
    "hidden_size": 4096,
    "intermediate_size": 11008,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "hidden_act": "silu",
    "max_position_embeddings": 2048,
    "rms_norm_eps": 1e-6,
    "eos_token_id": 2,
    "bos_token_id": 1,
    "tie_word_embeddings": False,
    "attention_bias": False,
    "mlp_bias": False,
}


@dataclass
class Intent(Reading):
    model_type: str | None = None
    architectures: list[str] = field(default_factory=list)
    layout: str = "transformers-4"  # "transformers-5" when the file has rope_parameters
    dims: dict[str, Any] = field(default_factory=dict)
    dtype: str | None = None
    rope_pointer: str = ""  # where the RoPE settings transformers 5 uses are written
    family: str | None = None  # the model family cfglint models this config as; None when it models none
    # The family the file's model_type names, where transformers' AutoConfig builds another (a "mistral" file
    # with layer_types is Ministral): what a runtime that reads model_type itself loads.
    named_family: str | None = None
    root: str = ""  # where the model's own config is: "/text_config" in a multimodal file, else the top
    refusals: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)  # per family, asked once
    wrapper: dict | None = field(default=None, repr=False, compare=False)  # a multimodal file's top level
    serial: int | None = field(default=None, repr=False, compare=False)  # set on an intent cfglint.memo keeps

    @property
    def is_llama(self) -> bool:
        return self.family == "llama"

    def layer_type_keys(self, rope_parameters: Any) -> list[str]:
        """The keys of a file's rope_parameters that transformers 5 takes for per-layer-type parameters: those
        naming one of the layer types of a class that declares them (`nested_rope_parameter_keys`, 5.24).
        Once there is one, it keeps the shared keys as written and fills each layer type's missing theta
        from the top-level rope_theta, whether or not the family's model reads per layer type."""
        labels = self.values.get("layer_types")
        if not isinstance(rope_parameters, dict) or not isinstance(labels, list) or "layer_types" not in FIELD_DEFAULTS.get(self.family or "", {}):
            return []
        return [key for key in rope_parameters if key in labels]


def wrapper_refusal(intent: Intent) -> tuple[str, str] | None:
    """What transformers 5 refuses of a multimodal file's own fields (knowledge.strict_types), once per
    document: (message, pointer at the top level); None for any other file."""
    if intent.wrapper is None or intent.model_type is None:
        return None
    if intent.model_type not in intent.refusals:
        from cfglint.knowledge.strict_types import field_refusal

        intent.refusals[intent.model_type] = field_refusal(intent.wrapper, intent.model_type)
    return intent.refusals[intent.model_type]


def family_of(config: dict) -> str | None:
    """The family whose semantics apply: `model_type`, or without one, a LlamaForCausalLM architecture."""
    from cfglint.knowledge.transformers5 import FAMILIES

    kind = config.get("model_type")
    if isinstance(kind, str):
        return retyped(config, kind) if kind in LLAMA_MODEL_TYPES or kind in FAMILIES else None
    architectures = config.get("architectures")
    if isinstance(architectures, list) and "LlamaForCausalLM" in architectures:
        return "llama"
    return None


def retyped(config: dict, family: str) -> str:
    """The family transformers' AutoConfig builds for a file whose model_type names `family`
    (knowledge.transformers5.RETYPED)."""
    from cfglint.knowledge.transformers5 import RETYPED

    if family in RETYPED and RETYPED[family][1] in config:
        return RETYPED[family][0]
    return family


def resolve_rope(config: dict, default_theta: Any = DEFAULT_THETA, field_defaults: dict | None = None) -> tuple[float, dict | None, str, dict[str, str]]:
    """transformers 5's RoPE resolution: (theta, scaling or None, rope_type, sources of theta and scaling).
    `field_defaults`: the fields the family's config class declares, with their defaults."""
    scaling, params = config.get("rope_scaling"), config.get("rope_parameters")
    chosen_pointer = "/rope_scaling" if scaling else "/rope_parameters"
    chosen = copied(scaling or params)
    if not isinstance(chosen, dict):
        chosen = {}
    sources = {"rope_scaling": chosen_pointer if chosen else DEFAULT}
    if "rope_theta" in chosen:
        sources["rope_theta"] = chosen_pointer + "/rope_theta"
    elif "rope_theta" in config:
        chosen["rope_theta"] = config["rope_theta"]
        sources["rope_theta"] = "/rope_theta"
    else:
        chosen["rope_theta"] = default_theta
        sources["rope_theta"] = DEFAULT
    kind = chosen.setdefault("rope_type", chosen.get("type", "default"))
    if not isinstance(kind, str):
        kind = chosen["rope_type"] = repr(kind)  # an object or list as rope_type: transformers 5 refuses it
    if kind in ("llama3", "yarn", "longrope"):
        declared = field_defaults or {}
        if "original_max_position_embeddings" in declared:
            chosen["original_max_position_embeddings"] = config.get("original_max_position_embeddings", declared["original_max_position_embeddings"])
        else:
            chosen.setdefault("original_max_position_embeddings", config.get("max_position_embeddings", declared.get("max_position_embeddings", 2048)))
    theta = chosen.pop("rope_theta")
    chosen.pop("type", None)
    return theta, (chosen if kind != "default" else None), kind, sources


def intent_of(config: dict) -> Intent:
    from cfglint.knowledge.transformers5 import MULTIMODAL, WRAPPER_TIE

    kind = config.get("model_type")
    if isinstance(kind, str) and kind in MULTIMODAL and isinstance(config.get("text_config"), dict):
        from cfglint.readers.intent import family_intent, rebased

        text_family, root = MULTIMODAL[kind]
        intent = rebased(family_intent(config["text_config"], text_family), root)
        intent.model_type, intent.root, intent.wrapper = kind, root, config
        intent.named_family = intent.family
        if kind in WRAPPER_TIE:  # the wrapper ties by its own attribute, whatever text_config says
            if "tie_word_embeddings" in config:
                intent.set("tie_word_embeddings", config["tie_word_embeddings"], "/tie_word_embeddings")
            else:
                intent.set("tie_word_embeddings", WRAPPER_TIE[kind], DEFAULT)
        dtype = config.get("dtype", config.get("torch_dtype"))
        intent.dtype = dtype if dtype is not None else intent.dtype
        return intent
    family = family_of(config)
    if family is not None and family != "llama":
        from cfglint.readers.intent import family_intent

        intent = family_intent(config, family)
        if family != kind:  # AutoConfig's own reading of model_type: the family the file names is model_type's
            intent.named_family = kind
        return intent
    intent = Intent(
        family=family,
        named_family=family,
        model_type=config.get("model_type") if isinstance(config.get("model_type"), str) else None,
        architectures=[a for a in config.get("architectures") or [] if isinstance(a, str)]
        if isinstance(config.get("architectures"), list)
        else [],
        layout="transformers-5" if "rope_parameters" in config else "transformers-4",
    )
    for key in ("hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads", "vocab_size"):
        intent.dims[key] = config.get(key, LLAMA_DEFAULTS[key])

    theta, scaling, _, rope_sources = resolve_rope(config)
    intent.set("rope_theta", theta, rope_sources["rope_theta"])
    intent.set("rope_scaling", scaling, rope_sources["rope_scaling"] if scaling else DEFAULT)
    intent.rope_pointer = rope_sources["rope_scaling"] if rope_sources["rope_scaling"] != DEFAULT else ""

    read_llama_fields(intent, config)
    # LlamaAttention (modeling_llama.py @ v5.24.0) has no sliding window: every layer attends fully, whatever
    # layer_types or sliding_window the file gives.
    layers = uniform_layers(intent.dims["num_hidden_layers"], "full_attention")
    if layers is not None:
        intent.set("layer_types", layers, FIXED)
    intent.set("sliding_window", None, FIXED)
    dtype = config.get("dtype")
    intent.dtype = dtype if dtype is not None else config.get("torch_dtype")
    return intent


def read_llama_fields(reading: Reading, config: dict) -> None:
    """LlamaConfig's reading of everything but RoPE, shared by transformers 4 and 5: head_dim and the kv
    head count derived when absent, the rest defaulted."""
    hidden = config.get("hidden_size", LLAMA_DEFAULTS["hidden_size"])
    heads = config.get("num_attention_heads", LLAMA_DEFAULTS["num_attention_heads"])
    if config.get("head_dim") is not None:
        reading.set("head_dim", config["head_dim"], "/head_dim")
    else:
        reading.set("head_dim", floordiv(hidden, heads), DERIVED)
    if config.get("num_key_value_heads") is not None:
        reading.set("num_key_value_heads", config["num_key_value_heads"], "/num_key_value_heads")
    else:
        reading.set("num_key_value_heads", heads, DERIVED)
    for key in ("tie_word_embeddings", "hidden_act", "attention_bias", "mlp_bias", "max_position_embeddings", "rms_norm_eps", "eos_token_id"):
        if key in config:
            reading.set(key, config[key], "/" + key)
        else:
            reading.set(key, LLAMA_DEFAULTS[key], DEFAULT)


def floordiv(a: Any, b: Any) -> Any:
    try:
        return a // b
    except (TypeError, ZeroDivisionError):
        return None
