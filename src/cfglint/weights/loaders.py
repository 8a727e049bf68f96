"""What each runtime does with the tensors it finds, beyond what its config reading decides.

A consumer's view says which tensors it builds (its head_dim, kv heads, tie and bias flags); this table
says what happens when the checkpoint has more, fewer, or differently shaped tensors. Facts and sources:
consumer-facts sections 1.4 (candle), 2.5 (transformers), 3.4 (mlx-lm), 4.3 (llama.cpp), 5.1 (mistral.rs).
Consumers with no entry here are left out of weight findings rather than guessed at.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from cfglint.weights.layout import HEAD, is_inv_freq

# What a runtime does about one kind of disagreement, worst last.
IGNORES, DROPS, WARNS, ERROR, PANIC = "ignores", "drops", "warns", "error", "panic"
RANK = {IGNORES: 0, DROPS: 0, WARNS: 1, ERROR: 2, PANIC: 3}


@dataclass(frozen=True)
class Loader:
    consumer: str
    missing_layer: str  # a per-layer tensor it requests is absent
    missing: str  # any other requested tensor is absent
    unused: str  # the checkpoint holds a tensor it never requests
    shape_layer: str
    shape: str
    missing_words: str  # "{name}"
    unused_words: str  # "{count}", "{names}"
    shape_words: str  # "{name}", "{expected}", "{got}"
    biases_stored: bool = False  # builds a bias wherever the checkpoint has one, whatever the flags say
    head_stored: bool = False  # uses lm_head.weight whenever stored, else the embeddings
    drops_tied_head: bool = False  # discards a stored lm_head.weight when tied, before a strict load
    unties: bool = False  # uses a stored lm_head.weight despite tie_word_embeddings when it differs from the embeddings
    drops_inv_freq: str = ""  # the name suffix of leftover RoPE buffers it discards ("" when none)
    reads_pickle: bool = False
    globs_beside_index: bool = False  # loads every model*.safetensors even when an index names the shards
    globs_without_index: bool = False  # with no index, loads every model*.safetensors
    index_must_match: bool = False  # refuses an index whose tensor names differ from its shards'
    uses_dtype: bool = False  # loads the weights in the config's dtype / torch_dtype
    dtype: str = ""  # what it does with that key instead, or how
    source: str = ""

    def drops(self, name: str, tie: bool) -> bool:
        if name == HEAD and tie and self.drops_tied_head:
            return True
        return bool(self.drops_inv_freq) and is_inv_freq(name) and name.endswith(self.drops_inv_freq)


_TRANSFORMERS: dict[str, Any] = dict(
    missing_layer=WARNS, missing=WARNS, unused=WARNS, shape_layer=ERROR, shape=ERROR,
    missing_words="{name} MISSING: newly initialized",
    unused_words="UNEXPECTED keys, ignored",
    drops_inv_freq="rotary_emb.inv_freq", reads_pickle=True,
)

LOADERS = {
    loader.consumer: loader
    for loader in (
        Loader(
            "candle", missing_layer=PANIC, missing=ERROR, unused=IGNORES, shape_layer=PANIC, shape=ERROR,
            missing_words="cannot find tensor {name}",
            unused_words="never requested",
            shape_words="shape mismatch for {name}, expected: {expected}, got: {got}",
            dtype="weights are cast to the example's --dtype, default f16",
            source="candle-transformers 0.11 models/llama.rs Llama::load, Block::load(...).unwrap(); candle-nn var_builder.rs",
        ),
        Loader(
            "transformers-5", **_TRANSFORMERS, unties=True, uses_dtype=True,
            shape_words="{name} MISMATCH - ckpt: {got} vs model: {expected}; ignore_mismatched_sizes is False, so it raises",
            dtype='from_pretrained\'s default dtype="auto" loads in it',
            source="transformers 5 modeling_utils.py, utils/loading_report.py (observed with 5.24 on samples/weights-*)",
        ),
        Loader(
            "transformers-4", **{**_TRANSFORMERS, "missing_words": "not initialized from the checkpoint, newly initialized: {name}",
                                 "unused_words": "some weights of the checkpoint were not used"},
            drops_tied_head=True,  # tie_weights() points lm_head at the embeddings; the stored head is discarded silently
            shape_words="{name}: size mismatch for weight: copying a param with shape {got} from checkpoint, the shape in current model is {expected}",
            dtype='loads float32 unless from_pretrained(dtype="auto")',
            source="transformers 4.57 modeling_utils.py (observed with 4.57.6 and torch 2.13 on samples/weights-*)",
        ),
        Loader(
            "mlx-lm", missing_layer=ERROR, missing=ERROR, unused=ERROR, shape_layer=ERROR, shape=ERROR,
            missing_words="Missing parameters: {name}",
            unused_words="Received {count} parameters not in model: {names}",
            shape_words="Expected shape {expected} but received shape {got} for parameter {name}",
            drops_tied_head=True, drops_inv_freq="self_attn.rotary_emb.inv_freq",
            globs_beside_index=True, globs_without_index=True,
            dtype="keeps the stored dtype at load; mlx_lm.convert casts to torch_dtype",
            source="mlx-lm models/llama.py Model.sanitize, utils.load_model (load_weights strict=True); observed with 0.32.2",
        ),
        Loader(
            "mistralrs", missing_layer=ERROR, missing=ERROR, unused=IGNORES, shape_layer=ERROR, shape=ERROR,
            missing_words="Missing required tensor(s): {name}",
            unused_words="never requested",
            shape_words="shape mismatch for {name}, expected: {expected}, got: {got}",
            dtype="the dtype is chosen at load",
            source="mistral.rs mistralrs-core/src/models/llama.rs (candle VarBuilder); observed with mistralrs 0.9.5",
        ),
        Loader(
            "llama-cpp", missing_layer=ERROR, missing=ERROR, unused=ERROR, shape_layer=ERROR, shape=ERROR,
            missing_words="missing tensor {name}",
            unused_words="Can not map tensor {names}",
            shape_words="tensor {name} has wrong shape; expected {expected}, got {got}",
            biases_stored=True, head_stored=True, drops_inv_freq="rotary_emb.inv_freq", reads_pickle=True,
            globs_without_index=True, index_must_match=True,
            dtype="the output type is guessed from the first tensor",
            # The converter's side (0.3.36) is checked on samples/weights-* by tests/test_weights_runtimes.py;
            # shape and missing-tensor errors come from the runtime's C++ loader, which is not built there.
            source="llama.cpp conversion/base.py ModelBase.index_tensors, conversion/llama.py; src/models/llama.cpp",
        ),
    )
}


# Where a runtime's model code for a family treats tensors differently from its Llama model: mlx-lm's
# Model.sanitize differs per module (mlx-lm 0.32 models/<family>.py; its mistral is models/llama.py).
_MLX = "mlx-lm 0.32 models/{}.py"
FAMILY_LOADERS: dict[tuple[str, str], dict] = {
    # sanitize pops a tied lm_head.weight, and keeps any rotary_emb.inv_freq (which the strict load refuses)
    ("mlx-lm", "qwen3"): dict(drops_inv_freq="", source=_MLX.format("qwen3") + " Model.sanitize"),
    ("mlx-lm", "granite"): dict(drops_inv_freq="", source=_MLX.format("granite") + " Model.sanitize"),
    # no sanitize at all: a stored head or inv_freq is refused
    ("mlx-lm", "gemma"): dict(drops_tied_head=False, drops_inv_freq="", source=_MLX.format("gemma") + ": no sanitize; the head is always the embeddings"),
    ("mlx-lm", "gemma2"): dict(drops_tied_head=False, drops_inv_freq="", source=_MLX.format("gemma2") + ": no sanitize; the head is always the embeddings"),
    ("mlx-lm", "phi3"): dict(drops_tied_head=False, drops_inv_freq="", source=_MLX.format("phi3") + ": no sanitize"),
    # sanitize drops inv_freq only; a tied model with a stored head is refused
    ("mlx-lm", "olmo2"): dict(drops_tied_head=False, source=_MLX.format("olmo2") + " Model.sanitize"),
    # sanitize unties when lm_head.weight is stored, whatever tie_word_embeddings says
    ("mlx-lm", "gemma3_text"): dict(drops_tied_head=False, drops_inv_freq="", head_stored=True,
                                    source=_MLX.format("gemma3_text") + " Model.sanitize"),
}


def loader_for(consumer: str, family: str | None = "llama") -> Loader | None:
    loader = LOADERS.get(consumer)
    override = FAMILY_LOADERS.get((consumer, family or ""))
    if loader is None or not override:
        return loader
    return replace(loader, **{**override, "source": f"{override['source']}; {loader.source}"})
