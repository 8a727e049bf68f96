"""mlx-lm 0.32 `models/llama.py`: a plain dataclass fed the config's keys it knows.

Source: ml-explore/mlx-lm, mlx_lm/models/llama.py (`ModelArgs`), models/rope_utils.py (`initialize_rope`),
utils.py (`load_config`), first read at HEAD d78bf58e (0.31.3-43), checked against the installed 0.32.2
wheel (tests/knowledge/test_mlx_lm_entries.py), whose ModelArgs also reads `layer_types` and
`sliding_window`: a layer typed sliding_attention masks to the window, and LlamaModel needs one
full_attention layer. Unknown keys are
dropped, nothing is type-checked, seven keys are required, `rope_theta` defaults to 10000 (rope_parameters is
never read for Llama), `tie_word_embeddings` defaults to True, the MLP is always SwiGLU (SiLU), RoPE scaling
picks a legacy `type` over `rope_type`, llama3 factors default to 1.0 / 4.0 / 8192, yarn's original
context to 4096 and yarn always truncates its correction range, and a truthy eos_token_id in
generation_config.json replaces the config's. `mlx_lm.load` then loads the tokenizer through transformers'
AutoTokenizer, which reads the config with AutoConfig: a config that the installed transformers (5.x,
mlx-lm's own dependency) refuses fails in mlx-lm too.
"""

from __future__ import annotations

import json
import math
from typing import Any

from cfglint.consumers.base import Consumer, Failure, View, llama3_scaling
from cfglint.consumers.python_reader import missing_arguments, take, unreadable
from cfglint.document import Document
from cfglint.intent import Intent, floordiv
from cfglint.reading import DEFAULT, DERIVED, FIXED

REQUIRED = ("model_type", "hidden_size", "num_hidden_layers", "intermediate_size", "num_attention_heads", "rms_norm_eps", "vocab_size")
# ModelArgs' fields in declaration order (the schema, llama_schemas/mlx_lm.py, declares the same): what the
# dataclass keeps; every other key is dropped.
FIELDS = (*REQUIRED, "head_dim", "max_position_embeddings", "num_key_value_heads", "attention_bias", "mlp_bias", "rope_theta",
          "rope_traditional", "rope_scaling", "tie_word_embeddings", "layer_types", "sliding_window")
# mlx_lm.load's tokenizer half loads the config with transformers 5's AutoConfig first: what it refuses.
TOKENIZER_READS_IT = " (AutoTokenizer reads the config with transformers 5)"
SUPPORTED = {"default", "linear", "dynamic", "llama3", "yarn", "deepseek_yarn", "telechat3-yarn", "longrope", "proportional", "mrope"}



def scaling_as_built(scaling: Any) -> tuple[dict | None, str | None]:
    """The RoPE initialize_rope builds: (scaling or None, error message)."""
    if scaling is None:
        return None, None
    if not isinstance(scaling, dict):  # initialize_rope calls scaling_config.get on anything but None, even 0
        return None, f"AttributeError: '{type(scaling).__name__}' object has no attribute 'get'"
    kind = scaling.get("type") or scaling.get("rope_type", "default")
    if isinstance(kind, (dict, list)):
        return None, f"TypeError: unhashable type: '{type(kind).__name__}'"  # initialize_rope's `in` on a set
    if kind not in SUPPORTED:
        return None, f"ValueError: Unsupported RoPE type {kind}"
    if kind in ("linear", "dynamic", "llama3", "yarn") and "factor" not in scaling:
        return None, "KeyError: 'factor'"
    if kind == "default":
        return None, None
    if kind == "linear":
        return {"rope_type": "linear", "factor": scaling["factor"]}, None
    if kind == "llama3":
        return llama3_scaling(
            scaling["factor"],
            scaling.get("low_freq_factor", 1.0),
            scaling.get("high_freq_factor", 4.0),
            scaling.get("original_max_position_embeddings", 8192),
        ), None
    if kind == "yarn":
        out = {"rope_type": "yarn", "factor": scaling["factor"], "original_max_position_embeddings": 4096}
        out.update({k: scaling[k] for k in ("original_max_position_embeddings", "beta_fast", "beta_slow", "mscale", "mscale_all_dim") if k in scaling})
        # YarnRoPE never reads truncate: yarn_find_correction_range always floors and ceils (rope_utils.py:150-152)
        out["truncate"] = True
        return out, None
    return {"rope_type": kind, **{k: v for k, v in scaling.items() if k not in ("type", "rope_type")}}, None


def scaling_failure(error: str) -> Failure:
    kind = "variant" if "Unsupported" in error else "type" if error.startswith("AttributeError") else "missing"
    return Failure(error, "/rope_scaling", kind)


def generation_eos(doc: Document) -> Any:
    """load_config: a truthy eos_token_id in generation_config.json replaces the config's."""
    path = doc.path.parent / "generation_config.json"
    try:
        generation = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    return generation.get("eos_token_id") if isinstance(generation, dict) else None


def _layers_failure(kinds: Any, layers: Any) -> Failure | None:
    """LlamaModel.__init__ builds one layer per entry of layer_types, then takes the index of the first
    full_attention one; load_weights then wants exactly the checkpoint's layers (num_hidden_layers of them)."""
    if not isinstance(kinds, (list, str, dict)):
        return Failure(f"TypeError: '{type(kinds).__name__}' object is not iterable", "/layer_types", "type")
    if isinstance(kinds, dict):
        return Failure("AttributeError: 'dict' object has no attribute 'index'", "/layer_types", "type")
    if "full_attention" not in kinds:
        return Failure("ValueError: 'full_attention' is not in list" if isinstance(kinds, list) else "ValueError: substring not found",
                       "/layer_types", "validation")
    if isinstance(layers, int) and len(kinds) != layers:
        mlx = "Received parameters not in model" if len(kinds) < layers else "Missing parameters"
        return Failure(f"ValueError: {mlx}: layer_types builds {len(kinds)} layers for a checkpoint of "
                       f"num_hidden_layers {layers}", "/layer_types", "validation")  # the checkpoint transformers builds
    return None


def _sliding(view: View, data: dict) -> None:
    """ModelArgs.__post_init__: layer_types defaults to full attention on every layer; a layer typed
    sliding_attention masks to `sliding_window` (None: no window), any other attends fully."""
    kinds = data.get("layer_types")
    if kinds is None:
        n = data["num_hidden_layers"]
        view.set("layer_types", ["full_attention"] * n if isinstance(n, int) and 0 <= n <= 4096 else None, DEFAULT)
    else:
        view.set("layer_types", ["sliding_attention" if k == "sliding_attention" else "full_attention" for k in kinds], "/layer_types")
    slides = isinstance(kinds, list) and "sliding_attention" in kinds
    if data.get("sliding_window") is not None and not slides:
        view.set("sliding_window", None, DERIVED)  # no layer slides: the window is never applied
    else:
        take(view, data, "sliding_window", None)


class MlxLm(Consumer):
    name = "mlx-lm"
    runtime = "mlx-lm 0.32"
    title = "mlx-lm 0.32 models/llama.py"
    source = "ml-explore/mlx-lm mlx_lm/models/llama.py, models/rope_utils.py, utils.py @ 0.32.2 (wheel)"
    schema_ref = "mlx_lm:ModelArgs"

    def read(self, doc: Document, intent: Intent) -> View:
        view = View(consumer=self.name)
        failure = unreadable(doc)
        data = doc.data
        missing = [k for k in REQUIRED if k not in data]
        if failure is None and missing:
            failure = Failure(missing_arguments("ModelArgs", missing), "/" + missing[0], "missing")
        scaling, error = (None, None) if failure else scaling_as_built(data.get("rope_scaling"))
        if error:
            failure = scaling_failure(error)
        if failure is None and data.get("layer_types") is not None:
            failure = _layers_failure(data["layer_types"], data["num_hidden_layers"])
        if failure is None:  # load builds the model (its attention, its RoPE, then its norms), then the tokenizer
            failure = (head_dim_refusal("llama", data) or yarn_refusal(scaling, data.get("rope_theta", 10000.0), "/rope_theta", "/rope_scaling")
                       or norm_refusal("llama", data))
        if failure is None:
            from cfglint.consumers.transformers5 import refusal

            refused = refusal(data)
            if refused:
                failure = Failure(refused[0] + TOKENIZER_READS_IT, refused[1], "validation")
        if failure:
            return view.fail(failure)
        take(view, data, "rope_theta", 10000.0)
        view.set("rope_scaling", scaling, "/rope_scaling" if scaling else DEFAULT)
        hidden, heads = data["hidden_size"], data["num_attention_heads"]
        view.set("head_dim", data.get("head_dim") or floordiv(hidden, heads), "/head_dim" if data.get("head_dim") else DERIVED)
        if data.get("num_key_value_heads") is not None:
            view.set("num_key_value_heads", data["num_key_value_heads"], "/num_key_value_heads")
        else:
            view.set("num_key_value_heads", heads, DERIVED)
        take(view, data, "tie_word_embeddings", True)
        view.set("hidden_act", "silu", FIXED)
        take(view, data, "attention_bias", False)
        take(view, data, "mlp_bias", False)
        take(view, data, "max_position_embeddings", None)
        _sliding(view, data)
        view.set("rms_norm_eps", data["rms_norm_eps"], "/rms_norm_eps")
        eos = generation_eos(doc)
        if eos:
            view.set("eos_token_id", eos, "generation_config.json")
        else:
            take(view, data, "eos_token_id", None)
        return view

    def read_family(self, doc: Document, intent: Intent, entry) -> View:
        view = super().read_family(doc, intent, entry)
        if view.failure is None:  # load builds the model, then the tokenizer
            values, sources = view.values, view.sources
            built = (head_dim_refusal(entry.family, doc.data)
                     or yarn_refusal(values.get("rope_scaling"), values.get("rope_theta"), sources.get("rope_theta", ""), sources.get("rope_scaling", ""))
                     or norm_refusal(entry.family, doc.data))
            if built:
                return view.fail(built)
            from cfglint.consumers.transformers5 import config_refusal

            refused = config_refusal(doc.data, intent)
            if refused:
                view.fail(Failure(refused[0] + TOKENIZER_READS_IT, refused[1], "validation"))
        return view


def head_dim_refusal(family: str, data: dict) -> Failure | None:
    """What the family module's attention cannot build from the file's head_dim (ATTENTION_HEAD_DIM): the
    arithmetic is Python's own, on the value as the dataclass keeps it; mx.random refuses a negative size."""
    from cfglint.knowledge.mlx_lm import ATTENTION_HEAD_DIM

    if family not in ATTENTION_HEAD_DIM or "head_dim" not in data:
        return None
    taken, steps = ATTENTION_HEAD_DIM[family]
    head_dim: Any = data["head_dim"]
    heads, hidden = data.get("num_attention_heads"), data.get("hidden_size")
    if not isinstance(heads, int) or not isinstance(hidden, int) or heads <= 0 or hidden <= 0:
        return None  # ModelArgs' own refusals, or an arithmetic this does not follow
    if taken == "or-derived" and not head_dim:
        head_dim = hidden // heads
    message = next((m for m in (_attention_step(step, head_dim, heads) for step in steps) if m), None)
    return Failure(message, "/head_dim", "validation") if message else None


_NOT_A_SIZE = "TypeError: uniform(): incompatible function arguments."  # mx.random.uniform's first words


def _attention_step(step: str, head_dim: Any, heads: int) -> str | None:
    """The error of one step in Python's or mlx's words, or None where it builds."""
    try:
        if step == "scale":
            head_dim ** -0.5  # any JSON value: Python's words for the ones that are no number
            return None
        if isinstance(head_dim, (str, list, float)):
            return _NOT_A_SIZE  # heads * head_dim is a string, a list or a float (not repeated here)
        width = heads * head_dim
        if isinstance(width, int) and abs(width) >= 2**31:
            return None  # beyond mlx's shapes: its own refusal, not followed
        if step == "q_proj" and width < 0:
            return "ValueError: [bits] Negative dimensions not allowed."
        if step == "o_proj":
            math.sqrt(1.0 / width)  # nn.Linear's init scale
    except (TypeError, ZeroDivisionError, ValueError, OverflowError) as err:
        return f"{type(err).__name__}: {err}"
    return None


def norm_refusal(family: str, data: dict) -> Failure | None:
    """nn.RMSNorm's refusal of an eps of 0 or less, in the family modules that build it (CHECKS_NORM_EPS)."""
    from cfglint.knowledge.mlx_lm import CHECKS_NORM_EPS

    eps = data.get("rms_norm_eps")
    if family not in CHECKS_NORM_EPS or not isinstance(eps, (int, float)) or eps > 0.0:
        return None
    return Failure(f"ValueError: [RMSNorm] 'eps' must be positive but got {eps}.", "/rms_norm_eps", "validation")


def yarn_refusal(scaling: Any, base: Any, theta_at: str, scaling_at: str) -> Failure | None:
    """YarnRoPE.__init__'s correction range (rope_utils.py:142-153 @ 0.32.2), always floored and ceiled, on
    the theta, the original context (4096 where the file gives none) and the betas as given (32 and 1 where
    absent: a null or a 0 is used as it is); the scaling as scaling_as_built keeps it."""
    from cfglint.consumers.transformers5_rope import yarn_range_error

    if not isinstance(scaling, dict) or scaling.get("rope_type") != "yarn":
        return None
    context = scaling.get("original_max_position_embeddings", 4096)
    if not all(isinstance(v, (int, float)) for v in (base, context)):
        return None
    betas = ("beta_fast", scaling.get("beta_fast", 32)), ("beta_slow", scaling.get("beta_slow", 1))
    refused = yarn_range_error(1, base, context, betas)
    if refused is None:
        return None
    message, key = refused
    if key == "rope_theta":
        return Failure(message, theta_at if theta_at.startswith("/") else "/rope_theta", "validation")
    return Failure(message, f"{scaling_at if scaling_at.startswith('/') else '/rope_scaling'}/{key}", "validation")
