"""The tensors a decoder-only causal LM is built from, named as transformers 5 saves them, per family.

Each expected tensor records, per axis, which config quantity sets it, so a shape mismatch can name the
key to blame. The same layout serves every runtime: only the values plugged in differ (candle derives
head_dim as hidden/heads, mlx-lm defaults tie_word_embeddings to true, ...). The families differ in their
per-layer norms, per-head q/k norms and fused projections (LAYOUTS); what they share is Llama's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Any

LAYER = re.compile(r"^model\.layers\.(\d+)\.(.+)$")
ATTENTION = ("q_proj", "k_proj", "v_proj", "o_proj")
MLP = ("gate_proj", "up_proj", "down_proj")
INV_FREQ_SUFFIX = "rotary_emb.inv_freq"
EMBED = "model.embed_tokens.weight"
HEAD = "lm_head.weight"


@dataclass(frozen=True)
class Axis:
    size: int
    key: str  # the config key that sets it ("hidden_size", "head_dim", ...)
    why: str  # how it is computed, for messages: "num_attention_heads × head_dim = 4 × 8"


@dataclass(frozen=True)
class Expected:
    name: str
    axes: tuple[Axis, ...]
    kind: str  # "embedding" | "head" | "norm" | "layer" | "bias"

    @cached_property
    def shape(self) -> tuple[int, ...]:
        return tuple(a.size for a in self.axes)


@dataclass(frozen=True)
class MoeShape:
    count_key: str  # the key the number of experts was read from
    experts: int
    expert_size: int
    shared_size: int  # 0 without a shared expert
    dense: frozenset[int]  # layers with a plain MLP instead of experts


@dataclass(frozen=True)
class MlaShape:
    """Multi-head latent attention's sizes, as one reader ends up with them (cfglint.reading.MLA_KEYS)."""

    qk_head: int
    rope: int
    v_head: int
    kv_lora: int
    q_lora: int | None  # None: queries straight from the hidden state (q_proj)

    @classmethod
    def of(cls, values: dict[str, Any]) -> MlaShape | None:
        numbers: list[Any] = [values.get(k) for k in ("qk_head_dim", "qk_rope_head_dim", "v_head_dim", "kv_lora_rank")]
        q_lora = values.get("q_lora_rank")
        if not all(type(v) is int and v >= 0 for v in numbers) or not (q_lora is None or (type(q_lora) is int and q_lora >= 0)):
            return None
        qk_head, rope, v_head, kv_lora = numbers
        return cls(qk_head, rope, v_head, kv_lora, q_lora)


@dataclass(frozen=True)
class Shape:
    """The numbers a layout needs, as one reader ends up with them."""

    hidden: int
    intermediate: int
    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    vocab: int
    head_dim_key: str  # "head_dim" when the reader takes it from the file, else "num_attention_heads"
    kv_given: bool  # False when num_key_value_heads is not written (the reading's default)
    moe: MoeShape | None = None  # a mixture of experts' numbers
    mla: MlaShape | None = None  # latent attention's sizes (DeepSeek); head_dim is then the q/k head size

    @classmethod
    def of(cls, dims: dict[str, Any], values: dict[str, Any], head_dim_given: bool, kv_given: bool) -> Shape | None:
        """None when a number is missing or not a count (the config rules report that)."""
        numbers: dict[str, Any] = {  # JSON values: checked to be counts just below
            "hidden": dims.get("hidden_size"),
            "intermediate": dims.get("intermediate_size"),
            "layers": dims.get("num_hidden_layers"),
            "heads": dims.get("num_attention_heads"),
            "kv_heads": values.get("num_key_value_heads"),
            "head_dim": values.get("head_dim"),
            "vocab": dims.get("vocab_size"),
        }
        mla = None
        if "qk_head_dim" in values:  # a latent-attention reading reports its sizes instead of one head_dim
            mla = MlaShape.of(values)
            if mla is None:
                return None
            numbers["head_dim"] = mla.qk_head
        if not all(type(v) is int and v >= 0 for v in numbers.values()):
            return None
        return cls(**numbers, head_dim_key="head_dim" if head_dim_given else "num_attention_heads", kv_given=kv_given, mla=mla)


def layer_of(name: str) -> int | None:
    m = LAYER.match(name)
    return int(m.group(1)) if m else None


PROJECTION_BIAS = ("_proj.bias", "_proj_with_mqa.bias")  # DeepSeek's kv_a_proj_with_mqa


def is_bias(name: str) -> bool:
    m = LAYER.match(name)
    return m is not None and m.group(2).endswith(PROJECTION_BIAS)


def is_attention_bias(name: str) -> bool:
    m = LAYER.match(name)
    return m is not None and m.group(2).startswith("self_attn.") and m.group(2).endswith(PROJECTION_BIAS)


def is_mlp_bias(name: str) -> bool:
    m = LAYER.match(name)
    return m is not None and m.group(2).startswith("mlp.") and m.group(2).endswith("_proj.bias")


def is_inv_freq(name: str) -> bool:
    return name.endswith(INV_FREQ_SUFFIX)


@dataclass(frozen=True)
class Experts:
    """A mixture of experts' sparse MLP, as transformers 5 saves it (per expert, not fused): the router
    (`gate`), each expert's three projections, and Qwen2-MoE's shared expert with its one-wide gate."""

    module: str  # the layer's module holding them: "block_sparse_moe" (Mixtral) or "mlp"
    projections: tuple[str, str, str]  # an expert's gate, up and down projections
    count: tuple[tuple[str, ...], int]  # the keys that set the number of experts, the one read first, and the default
    size: tuple[str, int]  # the key that sets an expert's intermediate size, and its default
    shared: tuple[str, int] | None = None  # the shared expert's size key and default
    stepped: bool = False  # decoder_sparse_step and mlp_only_layers leave some layers dense
    # DeepSeek: the counts and which layers hold experts are the reading's own (n_routed_experts,
    # n_shared_experts, mlp_layers); the shared experts are one MLP n_shared_experts experts wide.
    by_reading: bool = False
    router_bias: bool = False  # the router's e_score_correction_bias (DeepSeek-V3), one per expert
    # gpt-oss: a biased `router` and the experts fused into 3-D gate_up_proj / down_proj with their biases
    packed: bool = False

    def shape(self, config: dict[str, Any], layers: int, values: dict[str, Any] | None = None) -> MoeShape | None:
        """None when a number is not a count (the config rules say so)."""
        if self.by_reading:
            return self._read(config, values or {})
        keys, default = self.count
        count_key = next((k for k in keys if config.get(k) is not None), keys[0])
        numbers = [config.get(count_key, default)] + [config.get(k, d) for k, d in (self.size, self.shared or ("", 0))]
        if not all(type(n) is int and n >= 0 for n in numbers):
            return None
        dense: set[int] = set()
        if self.stepped:
            step, only = config.get("decoder_sparse_step", 1), config.get("mlp_only_layers", [])
            if type(step) is not int or step <= 0 or not isinstance(only, list):
                return None
            dense = {i for i in range(layers) if i in only or numbers[0] == 0 or (i + 1) % step}
        return MoeShape(count_key, numbers[0], numbers[1], numbers[2], frozenset(dense))

    def _read(self, config: dict[str, Any], values: dict[str, Any]) -> MoeShape | None:
        count, size, shared, kinds = (values.get("n_routed_experts"), config.get(self.size[0], self.size[1]),
                                      values.get("n_shared_experts"), values.get("mlp_layers"))
        if not isinstance(kinds, list) or not all(type(n) is int and n >= 0 for n in (size, *(x for x in (count, shared) if x is not None))):
            return None
        dense = frozenset(i for i, kind in enumerate(kinds) if kind != "moe")
        return MoeShape(self.count[0][0], count or 0, size, size * shared if shared else 0, dense)


@dataclass(frozen=True)
class Layout:
    """What one family's decoder layer holds beyond Llama's attention and MLP projections."""

    norms: tuple[str, ...] = ("input_layernorm", "post_attention_layernorm")  # per layer, hidden_size each
    head_norms: str = ""  # "per-head": q_norm and k_norm of head_dim; "per-projection": of the q and k widths
    fused: bool = False  # one qkv_proj and one gate_up_proj instead of q/k/v and gate/up
    experts: Experts | None = None  # a mixture of experts instead of the MLP (in every layer, or the sparse ones)
    latent: bool = False  # DeepSeek's multi-head latent attention instead of q/k/v projections
    sinks: bool = False  # gpt-oss: one learned attention sink per head (self_attn.sinks)
    source: str = ""


_T5 = "transformers 5.24 models/{0}/modeling_{0}.py; names and shapes checked against the model it builds (tests/test_weights_families.py)"
_GEMMA2_NORMS = ("input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm", "post_feedforward_layernorm")
LAYOUTS: dict[str, Layout] = {
    "llama": Layout(source=_T5.format("llama")),
    "mistral": Layout(source=_T5.format("mistral")),
    "ministral": Layout(source=_T5.format("ministral")),
    "granite": Layout(source=_T5.format("granite")),
    "qwen2": Layout(source=_T5.format("qwen2")),  # its q/k/v biases come from the reading's attention_bias
    "gemma": Layout(source=_T5.format("gemma")),
    "qwen3": Layout(head_norms="per-head", source=_T5.format("qwen3")),
    "gemma2": Layout(_GEMMA2_NORMS, source=_T5.format("gemma2")),
    "gemma3_text": Layout(_GEMMA2_NORMS, head_norms="per-head", source=_T5.format("gemma3")),
    "olmo2": Layout(("post_attention_layernorm", "post_feedforward_layernorm"), head_norms="per-projection", source=_T5.format("olmo2")),
    "phi3": Layout(fused=True, source=_T5.format("phi3")),
    "mixtral": Layout(experts=Experts("block_sparse_moe", ("w1", "w3", "w2"), (("num_experts", "num_local_experts"), 8), ("intermediate_size", 14336)),
                         source=_T5.format("mixtral")),
    "qwen2_moe": Layout(experts=Experts("mlp", MLP, (("num_experts",), 60), ("moe_intermediate_size", 1408),
                                        shared=("shared_expert_intermediate_size", 5632), stepped=True),
                        source=_T5.format("qwen2_moe")),
    "qwen3_moe": Layout(head_norms="per-head",
                        experts=Experts("mlp", MLP, (("num_local_experts", "num_experts"), 128), ("moe_intermediate_size", 768), stepped=True),
                        source=_T5.format("qwen3_moe")),
}
# DeepSeek-V2: latent attention; experts from first_k_dense_replace on, with shared experts beside them.
LAYOUTS["deepseek_v2"] = Layout(latent=True, experts=Experts("mlp", MLP, (("n_routed_experts",), 64), ("moe_intermediate_size", 1407),
                                                             shared=("n_shared_experts", 2), by_reading=True),
                                source=_T5.format("deepseek_v2"))
# DeepSeek-V3: the same, its router also holding e_score_correction_bias.
LAYOUTS["deepseek_v3"] = Layout(latent=True, experts=Experts("mlp", MLP, (("n_routed_experts",), 256), ("moe_intermediate_size", 2048),
                                                             shared=("n_shared_experts", 1), by_reading=True, router_bias=True),
                                source=_T5.format("deepseek_v3"))
# gpt-oss: attention sinks; every layer's MLP is packed experts behind a biased router.
LAYOUTS["gpt_oss"] = Layout(sinks=True, experts=Experts("mlp", MLP, (("num_experts", "num_local_experts"), 128), ("intermediate_size", 2880),
                                                        packed=True), source=_T5.format("gpt_oss"))
LLAMA = LAYOUTS["llama"]


def biased(flag: object, fused: bool = False) -> tuple[str, ...]:
    """The attention projections with a bias, for a reading's attention_bias: true (all four), "q/k/v" (Qwen2's
    implicit biases) or false."""
    if flag is True:
        return ("qkv_proj", "o_proj") if fused else ATTENTION
    if flag == "q/k/v":
        return ("qkv_proj",) if fused else ATTENTION[:3]
    return ()


@lru_cache(maxsize=64)  # consumers that read the same numbers share one layout; callers must not mutate it
def expected(s: Shape, *, tie: bool, attention_bias: bool | str, mlp_bias: bool, layout: Layout = LLAMA) -> dict[str, Expected]:
    hidden = Axis(s.hidden, "hidden_size", f"hidden_size {s.hidden}")
    vocab = Axis(s.vocab, "vocab_size", f"vocab_size {s.vocab}")
    inter = Axis(s.intermediate, "intermediate_size", f"intermediate_size {s.intermediate}")
    q_key = "head_dim" if s.head_dim_key == "head_dim" else "num_attention_heads"
    q = Axis(s.heads * s.head_dim, q_key, f"num_attention_heads {s.heads} × head_dim {s.head_dim}")
    kv_key = "num_key_value_heads"  # given or defaulted to the head count, it is the key to write
    fallback = "the head count" if s.kv_heads == s.heads else "the runtime's default"  # mlx-lm's Gemma 3: 1
    kv_heads = f"num_key_value_heads {s.kv_heads}" if s.kv_given else f"num_key_value_heads not written, so {s.kv_heads} ({fallback})"
    kv = Axis(s.kv_heads * s.head_dim, kv_key, f"{kv_heads} × head_dim {s.head_dim}")

    if layout.latent and s.mla is not None:
        rows, q = _latent(s, hidden)
        mlp = {"gate_proj": (inter, hidden), "up_proj": (inter, hidden), "down_proj": (hidden, inter)}
    elif layout.fused:
        qkv = Axis(q.size + 2 * kv.size, q_key, f"{q.why} + 2 × {kv.why}")
        rows = {"qkv_proj": qkv, "o_proj": hidden}
        gate_up = Axis(2 * s.intermediate, "intermediate_size", f"2 × intermediate_size {s.intermediate}")
        mlp = {"gate_up_proj": (gate_up, hidden), "down_proj": (hidden, inter)}
    else:
        rows = {"q_proj": q, "k_proj": kv, "v_proj": kv, "o_proj": hidden}
        mlp = {"gate_proj": (inter, hidden), "up_proj": (inter, hidden), "down_proj": (hidden, inter)}
    with_bias = biased(attention_bias, layout.fused)
    if layout.latent:  # attention_bias: the down-projections and o_proj
        with_bias = ("q_a_proj", "kv_a_proj_with_mqa", "o_proj") if attention_bias is True else ()
    head_norms: dict[str, Axis] = {}
    if layout.head_norms == "per-head":
        per_head = Axis(s.head_dim, s.head_dim_key, f"head_dim {s.head_dim}")
        head_norms = {"q_norm": per_head, "k_norm": per_head}
    elif layout.head_norms == "per-projection":
        head_norms = {"q_norm": q, "k_norm": kv}

    out: list[Expected] = [Expected(EMBED, (vocab, hidden), "embedding"), Expected("model.norm.weight", (hidden,), "norm")]
    if not tie:
        out.append(Expected(HEAD, (vocab, hidden), "head"))
    for i in range(s.layers):
        p = f"model.layers.{i}."
        for proj, rows_axis in rows.items():
            if isinstance(rows_axis, tuple):  # latent attention: (rows, columns), or a norm's one axis
                axes = rows_axis
            else:
                axes = (rows_axis, q if proj == "o_proj" else hidden)
            out.append(Expected(f"{p}self_attn.{proj}.weight", axes, "layer"))
            if proj in with_bias:
                out.append(Expected(f"{p}self_attn.{proj}.bias", axes[:1], "bias"))
        for name, axis in head_norms.items():
            out.append(Expected(f"{p}self_attn.{name}.weight", (axis,), "layer"))
        if layout.sinks:
            out.append(Expected(f"{p}self_attn.sinks", (Axis(s.heads, "num_attention_heads", f"num_attention_heads {s.heads}"),), "layer"))
        if layout.experts is not None and s.moe is not None and i not in s.moe.dense:
            out += _experts(p, layout.experts, s.moe, hidden)
        else:
            for proj, shape in mlp.items():
                out.append(Expected(f"{p}mlp.{proj}.weight", shape, "layer"))
                if mlp_bias:
                    out.append(Expected(f"{p}mlp.{proj}.bias", shape[:1], "bias"))
        for norm in layout.norms:
            out.append(Expected(f"{p}{norm}.weight", (hidden,), "layer"))
    return {e.name: e for e in out}


def _latent(s: Shape, hidden: Axis) -> tuple[dict[str, Any], Axis]:
    """DeepSeek's MLA (modeling_deepseek_v2.py DeepseekV2Attention): queries from q_proj, or from q_a_proj ->
    q_a_layernorm -> q_b_proj; keys and values from kv_a_proj_with_mqa (the latent plus the shared RoPE key)
    -> kv_a_layernorm -> kv_b_proj; o_proj from the value heads. Returns the projections and o_proj's input."""
    m = s.mla
    assert m is not None
    heads = f"num_attention_heads {s.heads}"
    q = Axis(s.heads * m.qk_head, "qk_nope_head_dim", f"{heads} × (qk_nope_head_dim + qk_rope_head_dim) {m.qk_head}")
    kv_lora = Axis(m.kv_lora, "kv_lora_rank", f"kv_lora_rank {m.kv_lora}")
    rows: dict[str, Any] = {}
    if m.q_lora is None:
        rows["q_proj"] = (q, hidden)
    else:
        q_lora = Axis(m.q_lora, "q_lora_rank", f"q_lora_rank {m.q_lora}")
        rows.update({"q_a_proj": (q_lora, hidden), "q_a_layernorm": (q_lora,), "q_b_proj": (q, q_lora)})
    compressed = Axis(m.kv_lora + m.rope, "kv_lora_rank", f"kv_lora_rank {m.kv_lora} + qk_rope_head_dim {m.rope}")
    kv = Axis(s.heads * (m.qk_head - m.rope + m.v_head), "v_head_dim",
              f"{heads} × (qk_nope_head_dim {m.qk_head - m.rope} + v_head_dim {m.v_head})")
    values = Axis(s.heads * m.v_head, "v_head_dim", f"{heads} × v_head_dim {m.v_head}")
    rows.update({"kv_a_proj_with_mqa": (compressed, hidden), "kv_a_layernorm": (kv_lora,), "kv_b_proj": (kv, kv_lora),
                 "o_proj": (hidden, values)})
    return rows, values


def _experts(prefix: str, experts: Experts, moe: MoeShape, hidden: Axis) -> list[Expected]:
    count_key, size_key = moe.count_key, experts.size[0]
    router = Axis(moe.experts, count_key, f"{count_key} {moe.experts}")
    size = Axis(moe.expert_size, size_key, f"{size_key} {moe.expert_size}")
    gate, up, down = experts.projections
    m = f"{prefix}{experts.module}."
    if experts.packed:
        return _packed_experts(m, router, size, hidden, moe)
    out = [Expected(f"{m}gate.weight", (router, hidden), "layer")]
    if experts.router_bias:
        out.append(Expected(f"{m}gate.e_score_correction_bias", (router,), "layer"))
    for e in range(moe.experts):
        for proj in (gate, up):
            out.append(Expected(f"{m}experts.{e}.{proj}.weight", (size, hidden), "layer"))
        out.append(Expected(f"{m}experts.{e}.{down}.weight", (hidden, size), "layer"))
    if experts.by_reading and moe.shared_size:
        key = experts.shared[0] if experts.shared else ""
        shared = Axis(moe.shared_size, key, f"moe_intermediate_size × {key} = {moe.shared_size}")
        out += [Expected(f"{m}shared_experts.{gate}.weight", (shared, hidden), "layer"),
                Expected(f"{m}shared_experts.{up}.weight", (shared, hidden), "layer"),
                Expected(f"{m}shared_experts.{down}.weight", (hidden, shared), "layer")]
    elif experts.shared is not None and not experts.by_reading:
        key = experts.shared[0]
        shared = Axis(moe.shared_size, key, f"{key} {moe.shared_size}")
        out += [Expected(f"{m}shared_expert.{gate}.weight", (shared, hidden), "layer"),
                Expected(f"{m}shared_expert.{up}.weight", (shared, hidden), "layer"),
                Expected(f"{m}shared_expert.{down}.weight", (hidden, shared), "layer"),
                Expected(f"{m}shared_expert_gate.weight", (Axis(1, key, "one shared-expert gate"), hidden), "layer")]
    return out


def _packed_experts(m: str, router: Axis, size: Axis, hidden: Axis, moe: MoeShape) -> list[Expected]:
    """GptOssMLP as transformers 5 saves it: router weight and bias; gate_up_proj (experts, hidden, 2 x size)
    and down_proj (experts, size, hidden), each with a bias per expert."""
    both = Axis(2 * moe.expert_size, size.key, f"2 × {size.why}")
    return [Expected(f"{m}router.weight", (router, hidden), "layer"), Expected(f"{m}router.bias", (router,), "layer"),
            Expected(f"{m}experts.gate_up_proj", (router, hidden, both), "layer"),
            Expected(f"{m}experts.gate_up_proj_bias", (router, both), "layer"),
            Expected(f"{m}experts.down_proj", (router, size, hidden), "layer"),
            Expected(f"{m}experts.down_proj_bias", (router, hidden), "layer")]


def layout_of(family: str | None) -> Layout | None:
    """The family's layout; None for one whose tensors are not modelled (mixtures of experts, ...)."""
    return LAYOUTS.get(family) if family is not None else None


def blame(spec: Expected, stored: tuple[int, ...]) -> Axis | None:
    """The first axis whose size differs (None when only the number of axes differs)."""
    if len(stored) != len(spec.axes):
        return None
    for axis, size in zip(spec.axes, stored):
        if axis.size != size:
            return axis
    return None
