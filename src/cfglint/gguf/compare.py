"""Where what llama.cpp runs from a GGUF differs from what its source config means, or from the file itself.

Each difference belongs to one rule (its `topic`), names the GGUF key (or tensor) and, when a config is
known, the JSON Pointer into it of the value transformers 5 reads. Values are compared as runtimes compute
with them (`reading.same`: floats to float32 precision), since GGUF stores most floats as float32.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator

from cfglint.gguf import FILE_PLACEHOLDER
from cfglint.gguf.runs import MLA_ARCHS, DEFAULT, DEFAULT_FREQ_BASE, REFUSED, Ran, Runs, finite
from cfglint.knowledge.llama_cpp import ARCH_OF_FAMILY
from cfglint.reading import same, show

# The config key each dimension is converted from, per GGUF value (convert_hf_to_gguf.py set_gguf_parameters).
DIMENSIONS = (
    ("block_count", "num_hidden_layers"), ("embedding_length", "hidden_size"), ("head_count", "num_attention_heads"),
    ("head_count_kv", "num_key_value_heads"), ("key_length", "head_dim"), ("value_length", "head_dim"),
    ("vocab_size", "vocab_size"),
)  # fmt: skip
# Under latent attention (runs.MLA_ARCHS) the per-head sizes replace key/value length and the kv head count:
# (GGUF value, intent key, the config key a pointer names).
MLA_DIMENSIONS = (
    ("block_count", "num_hidden_layers", "num_hidden_layers"), ("embedding_length", "hidden_size", "hidden_size"),
    ("head_count", "num_attention_heads", "num_attention_heads"), ("vocab_size", "vocab_size", "vocab_size"),
    ("key_length_mla", "qk_head_dim", "qk_nope_head_dim"), ("value_length_mla", "v_head_dim", "v_head_dim"),
    ("kv_lora_rank", "kv_lora_rank", "kv_lora_rank"), ("rope_dimension_count", "qk_rope_head_dim", "qk_rope_head_dim"),
)  # fmt: skip
EXPERTS = (("expert_count", ("num_local_experts", "num_experts")), ("expert_used_count", ("num_experts_per_tok",)))
GENERATION_OF_SAMPLING = {"sampling.temp": "temperature", "sampling.top_k": "top_k", "sampling.top_p": "top_p",
                          "sampling.min_p": "min_p", "sampling.penalty_repeat": "repetition_penalty"}
RECONVERT = "reconvert from the source checkpoint with a current llama.cpp converter (it reads rope_parameters since ggml-org/llama.cpp#18013)"


@dataclass(frozen=True)
class Difference:
    topic: str  # the rule it belongs to
    message: str
    gguf_key: str
    pointer: str = ""  # into the source config.json; "" when none is known or the value is not in it
    fix: str = ""  # what to do (a GGUF is never rewritten by cfglint)
    error: bool = True  # False: the difference is a warning
    runtime: str | None = None  # the runtime (consumer) it is about, when not llama.cpp reading the file


@dataclass
class Source:
    """The config a GGUF was converted from, as transformers 5 reads it."""

    values: dict[str, Any]  # intent values, dims and raw keys under transformers' names
    sources: dict[str, str]  # key -> JSON Pointer, or DEFAULT / DERIVED
    family: str | None  # the family its model_type names (the converter picks its model by it)
    root: str = ""
    generation: dict[str, Any] | None = None  # generate()'s settings written in generation_config.json
    generation_sources: dict[str, str] | None = None

    def pointer(self, key: str) -> str:
        where = self.sources.get(key, "")
        return where if where.startswith("/") else f"{self.root}/{key}"


SPECIAL_NAMES = {"tokenizer.ggml.bos_token_id": "bos", "tokenizer.ggml.eos_token_id": "eos", "tokenizer.ggml.eot_token_id": "eot"}


def set_metadata(ran: Ran, value: Any) -> str:
    """How to write the exact key and value with the `gguf` package's own tools (gguf-set-metadata changes
    only a key the file has; gguf-new-metadata writes a copy and adds special token ids)."""
    shown = str(value).lower() if isinstance(value, bool) else value
    if ran.origin == "file":
        return f"gguf-set-metadata {FILE_PLACEHOLDER} {ran.key} {shown}"
    if ran.key in SPECIAL_NAMES:
        return f"gguf-new-metadata --special-token-by-id {SPECIAL_NAMES[ran.key]} {shown} {FILE_PLACEHOLDER} FIXED.gguf"
    return f"write a copy adding {ran.key} = {shown} with the gguf package's GGUFWriter (gguf-set-metadata changes only keys the file has)"


def _or(fix: str) -> str:
    return f"{RECONVERT}, or {fix}"


def differences(runs: Runs, header_tensors: dict, source: Source | None) -> list[Difference]:
    out: list[Difference] = []
    for check in (_architecture, _rope_base, _rope_scaling, _context, _dimensions, _norm, _tied, _window, _softcap,
                  _special, _sampling):
        out.extend(check(runs, header_tensors, source))
    return out


def _ran(runs: Runs, name: str) -> str:
    ran = runs.get(name)
    if ran is None:
        return "nothing"
    note = {"default": " (its default: the key is absent)", "derived": " (derived: the key is absent)",
            "fixed": f" (its {runs.architecture} graph has none, whatever the file says)"}.get(ran.origin, "")
    return f"{shown(ran.value)}{note}"


def shown(value: Any) -> str:
    """GGUF floats are mostly float32: shown to the 7 digits they hold (1e-05, not 9.999999747378752e-06)."""
    return show(float(f"{value:.7g}")) if isinstance(value, float) else show(value)


def _architecture(runs: Runs, tensors: dict, source: Source | None) -> Iterator[Difference]:
    if source is None or runs.architecture is None:
        return
    expected = ARCH_OF_FAMILY.get(source.family or "")
    if expected is not None and runs.architecture != expected:
        yield Difference("architecture", f"general.architecture is {runs.architecture!r}, but the config is a {source.family} model, which llama.cpp runs as {expected!r}",
                         "general.architecture", source.pointer("model_type"), RECONVERT)


def _rope_base(runs: Runs, tensors: dict, source: Source | None) -> Iterator[Difference]:
    base = runs.get("rope_freq_base")
    if base is None:
        return
    if source is not None and "rope_theta" in source.values:
        want = source.values["rope_theta"]
        if finite(want) and not same("rope_theta", base.value, want):
            yield Difference("rope-base", f"{base.key}: llama.cpp runs RoPE base {_ran(runs, 'rope_freq_base')}, but the config means {show(want)}",
                             base.key, source.pointer("rope_theta"), _or(set_metadata(base, float(want))))
            return
    if not finite(base.value) or base.value <= 0:
        yield Difference("rope-base", f"{base.key} is {shown(base.value)}: llama.cpp computes RoPE with that base, which is no rotation the model was trained with",
                         base.key, source.pointer("rope_theta") if source else "", RECONVERT)
    elif base.origin == DEFAULT and source is None:
        yield Difference("rope-base", f"{base.key} is absent: llama.cpp runs RoPE base {show(DEFAULT_FREQ_BASE)} (its default); converters that lost the config's rope_theta wrote files like this",
                         base.key, "", f"find the source config's RoPE base, then {set_metadata(base, 'THETA')}", error=False)
    swa = runs.get("rope_freq_base_swa")
    if swa is not None and source is not None and "rope_local_base_freq" in source.values:
        want = source.values["rope_local_base_freq"]
        if finite(want) and not same("rope_theta", swa.value, want):
            yield Difference("rope-base", f"{swa.key}: llama.cpp runs the sliding layers' RoPE base {_ran(runs, 'rope_freq_base_swa')}, but the config means {show(want)}",
                             swa.key, source.pointer("rope_local_base_freq"), RECONVERT)


def _rope_scaling(runs: Runs, tensors: dict, source: Source | None) -> Iterator[Difference]:
    if source is None or "rope_scaling" not in runs.values:
        return
    found = source.values.get("rope_scaling")
    scaling: dict = found if isinstance(found, dict) else {}
    where = source.pointer("rope_scaling")
    kind = scaling.get("rope_type", "default")
    ran = runs["rope_scaling"].value
    factor = runs["rope_scaling_factor"]
    freqs = runs["rope_freqs"]
    if kind == "default":
        if ran != "none":
            yield Difference("rope-scaling", f"llama.cpp runs {ran} RoPE scaling with factor {show(factor.value)} ({factor.key}), but the config has none", factor.key, where, RECONVERT)
        elif freqs.value is not None:
            yield Difference("rope-scaling", "llama.cpp scales RoPE by the rope_freqs.weight tensor, but the config has no RoPE scaling", "rope_freqs.weight", where, RECONVERT)
        return
    if kind == "llama3":
        if freqs.value is None and runs.architecture == "llama":
            yield Difference("rope-scaling", f"the config's llama3 RoPE scaling (factor {show(scaling.get('factor'))}) is not in the file: without the rope_freqs.weight tensor llama.cpp runs unscaled RoPE",
                             "rope_freqs.weight", where, RECONVERT)
        return
    if kind in ("linear", "yarn"):
        if ran != kind:
            yield Difference("rope-scaling", f"{runs['rope_scaling_type'].key}: llama.cpp runs {'no' if ran == 'none' else ran} RoPE scaling{'' if ran == 'none' else f' (factor {show(factor.value)})'}, but the config means {kind} with factor {show(scaling.get('factor'))}",
                             runs["rope_scaling_type"].key if ran != "none" else factor.key, where, RECONVERT)
            return
        if not same("rope_theta", factor.value, scaling.get("factor")):
            yield Difference("rope-scaling", f"{factor.key}: llama.cpp scales RoPE by {_ran(runs, 'rope_scaling_factor')}, but the config means {show(scaling.get('factor'))}",
                             factor.key, where + "/factor", _or(set_metadata(factor, scaling.get('factor'))))
        original = runs["rope_original_context"]
        if kind == "yarn" and "original_max_position_embeddings" in scaling and original.value != scaling["original_max_position_embeddings"]:
            yield Difference("rope-scaling", f"{original.key}: llama.cpp's YaRN starts from a context of {_ran(runs, 'rope_original_context')}, but the config means {show(scaling['original_max_position_embeddings'])}",
                             original.key, where + "/original_max_position_embeddings", RECONVERT)
        for name, key in (("yarn_beta_fast", "beta_fast"), ("yarn_beta_slow", "beta_slow")):
            if kind == "yarn" and key in scaling and not same("rope_theta", runs[name].value, scaling[key]):
                yield Difference("rope-scaling", f"{runs[name].key}: llama.cpp runs YaRN {key} {_ran(runs, name)}, but the config means {show(scaling[key])}",
                                 runs[name].key, f"{where}/{key}", RECONVERT)
        if kind == "yarn" and not scaling.get("truncate", True):  # transformers' default is true
            # ggml's rope_yarn_corr_dims always floors and ceils the correction range (ggml/src/ggml.c:4482-4490)
            yield Difference("rope-scaling", "the config's YaRN keeps its correction range unrounded (truncate false), but llama.cpp always floors and ceils it; no GGUF key holds truncate",
                             runs["rope_scaling_type"].key, f"{where}/truncate", "no key of the file changes it: run the model in a runtime that honours truncate")
        return
    if kind == "longrope" and not {"rope_factors_long.weight", "rope_factors_short.weight"} <= set(tensors):
        yield Difference("rope-scaling", "the config's longrope factors are not in the file (no rope_factors_long.weight / rope_factors_short.weight): llama.cpp runs unscaled RoPE",
                         "rope_factors_long.weight", where, RECONVERT)


def _context(runs: Runs, tensors: dict, source: Source | None) -> Iterator[Difference]:
    context = runs.get("context_length")
    if context is None or context.origin == REFUSED:
        return
    if source is not None and "max_position_embeddings" in source.values:
        want = source.values["max_position_embeddings"]
        if isinstance(want, int) and context.value != want:
            yield Difference("context-length", f"{context.key} is {show(context.value)}, but the config's max_position_embeddings is {show(want)}: llama.cpp sizes its default context and YaRN's range from the file",
                             context.key, source.pointer("max_position_embeddings"), _or(set_metadata(context, want)), error=False)
            return
    if source is not None:  # the file says what its config says: a config's own inconsistency is not the conversion's
        return
    original = runs.get("rope_original_context")
    if original is not None and original.origin != "derived" and isinstance(original.value, int) and isinstance(context.value, int) and context.value < original.value:
        yield Difference("context-length", f"{context.key} {context.value} is below the RoPE scaling's original context {original.value} ({original.key}): the file claims less context than the model was trained on",
                         context.key, "", RECONVERT, error=False)


def _dimensions(runs: Runs, tensors: dict, source: Source | None) -> Iterator[Difference]:
    if source is not None:
        mla = runs.architecture in MLA_ARCHS
        dimensions = MLA_DIMENSIONS if mla else tuple((name, key, key) for name, key in DIMENSIONS)
        for name, key, written in dimensions:
            ran, want = runs.get(name), source.values.get(key)
            if ran is None or ran.value is None or not isinstance(want, int) or isinstance(want, bool):
                continue
            if ran.value != want:
                yield Difference("dimensions", f"{ran.key}: llama.cpp runs {name.replace('_', ' ')} {_ran(runs, name)}, but the config's {key} is {want}",
                                 ran.key, source.pointer(written), RECONVERT)
        for name, keys in EXPERTS:
            expert = runs.get(name)
            count_key = next((k for k in keys if k in source.values), None)
            if expert is not None and count_key is not None and isinstance(source.values[count_key], int) and expert.value != source.values[count_key]:
                yield Difference("dimensions", f"{expert.key}: llama.cpp runs {name.replace('_', ' ')} {_ran(runs, name)}, but the config's {count_key} is {source.values[count_key]}",
                                 expert.key, source.pointer(count_key), RECONVERT)
    yield from _against_tensors(runs, tensors, source)


def _against_tensors(runs: Runs, tensors: dict, source: Source | None) -> Iterator[Difference]:
    """The head counts and lengths llama.cpp derives must match the stored projections, or it refuses to load."""
    if runs.architecture in MLA_ARCHS:  # queries per head at the MLA size; keys and values come from the latent
        q = tensors.get("blk.0.attn_q.weight", tensors.get("blk.0.attn_q_b.weight"))
        checks: tuple[tuple[Any, str, str], ...] = ((q, "head_count", "key_length_mla"),)
    else:
        q, k = tensors.get("blk.0.attn_q.weight"), tensors.get("blk.0.attn_k.weight")
        checks = ((q, "head_count", "key_length"), (k, "head_count_kv", "key_length"))
    for tensor, heads_name, length_name in checks:
        heads, length = runs.get(heads_name), runs.get(length_name)
        if tensor is None or heads is None or length is None or len(tensor.shape) != 2:
            continue
        if isinstance(heads.value, int) and isinstance(length.value, int) and heads.value * length.value != tensor.shape[1]:
            yield Difference("dimensions", f"{heads.key} {heads.value} x {length.key} {_ran(runs, length_name)} = {heads.value * length.value}, but {tensor.name} has {tensor.shape[1]} outputs: llama.cpp refuses to load the file",
                             heads.key, source.pointer("num_attention_heads" if heads_name == "head_count" else "num_key_value_heads") if source else "", RECONVERT)
    twice = runs.get("tokens_held_twice")
    if twice is not None and twice.value:
        text, first, later = twice.value[0]
        more = f" ({len(twice.value) - 1} more texts are held twice)" if len(twice.value) > 1 else ""
        yield Difference("dimensions", f"{twice.key} holds {show(text)} at ids {first} and {later}{more}: llama.cpp aborts at load (its vocabulary maps each text to one id)",
                         twice.key, "", RECONVERT)
    embedding = tensors.get("token_embd.weight")
    vocab = runs.get("vocab_size")
    if embedding is not None and vocab is not None and isinstance(vocab.value, int) and len(embedding.shape) == 2 and embedding.shape[1] != vocab.value:
        yield Difference("dimensions", f"the tokenizer lists {vocab.value} tokens, but token_embd.weight holds {embedding.shape[1]} rows: llama.cpp refuses to load the file",
                         vocab.key, source.pointer("vocab_size") if source else "", RECONVERT)


def _norm(runs: Runs, tensors: dict, source: Source | None) -> Iterator[Difference]:
    eps = runs.get("norm_rms_eps")
    if eps is None or runs.architecture not in ARCH_OF_FAMILY.values():
        return
    if eps.origin == REFUSED:
        yield Difference("norm-eps", f"{eps.key} is absent: llama.cpp refuses to load the file (a required key)", eps.key,
                         source.pointer("rms_norm_eps") if source else "", RECONVERT)
    elif source is not None and finite(source.values.get("rms_norm_eps")) and not same("rms_norm_eps", eps.value, source.values["rms_norm_eps"]):
        want = source.values["rms_norm_eps"]
        yield Difference("norm-eps", f"{eps.key}: llama.cpp normalises with epsilon {shown(eps.value)}, but the config's rms_norm_eps is {show(want)}",
                         eps.key, source.pointer("rms_norm_eps"), _or(set_metadata(eps, want)), error=False)


def _tied(runs: Runs, tensors: dict, source: Source | None) -> Iterator[Difference]:
    tied = runs.get("tied_output")
    if tied is None:
        return
    if tied.origin == REFUSED:
        yield Difference("tied-output", f"output.weight is absent, which llama.cpp's {runs.architecture} requires: it refuses to load the file", "output.weight",
                         source.pointer("tie_word_embeddings") if source else "", RECONVERT)
        return
    if source is None or not isinstance(source.values.get("tie_word_embeddings"), bool):
        return
    want = source.values["tie_word_embeddings"]
    if tied.value != want:
        how = "reuses the token embedding as the output layer (output.weight is absent)" if tied.value else "runs the stored output.weight"
        yield Difference("tied-output", f"llama.cpp {how}, but the config's tie_word_embeddings is {show(want)}", "output.weight",
                         source.pointer("tie_word_embeddings"), RECONVERT)


def _window(runs: Runs, tensors: dict, source: Source | None) -> Iterator[Difference]:
    window = runs.get("sliding_window")
    if window is None or source is None or "sliding_window" not in source.values:
        return
    want = source.values["sliding_window"]
    want_n = want if isinstance(want, int) and not isinstance(want, bool) else 0
    if window.value != want_n:
        yield Difference("sliding-window", f"{window.key}: llama.cpp runs a sliding window of {_ran(runs, 'sliding_window')}, but the config's sliding_window is {show(want)}",
                         window.key, source.pointer("sliding_window"),
                         _or(set_metadata(window, want_n)) if window.origin != "fixed" else
                         f"none in the file: llama.cpp's {runs.architecture} graph attends to the whole context; keep prompts within {want_n} tokens, or use a runtime that applies the window")


def _softcap(runs: Runs, tensors: dict, source: Source | None) -> Iterator[Difference]:
    for name, key in (("attn_softcapping", "attn_logit_softcapping"), ("final_softcapping", "final_logit_softcapping")):
        ran = runs.get(name)
        if ran is None:
            continue
        if source is not None and key in source.values:
            want = source.values[key]
            runs_cap = ran.value if ran.value else None  # 0 is off in llama.cpp
            if (runs_cap is None) != (want is None) or (want is not None and not same(key, runs_cap, want)):
                yield Difference("softcapping", f"{ran.key}: llama.cpp caps {'attention' if name.startswith('attn') else 'final'} logits at {_ran(runs, name)}, but the config's {key} is {show(want)}",
                                 ran.key, source.pointer(key), _or(set_metadata(ran, want if want is not None else 0.0)))
        if ran.origin == DEFAULT and ran.value and (source is None or key not in source.values or same(key, ran.value, source.values[key])):
            yield Difference("softcapping", f"{ran.key} is absent: current llama.cpp caps at {show(ran.value)} (its default for {runs.architecture}), but builds before ggml-org/llama.cpp#8197 and readers that trust the file apply none",
                             ran.key, source.pointer(key) if source else "", set_metadata(ran, ran.value), error=False)


def _special(runs: Runs, tensors: dict, source: Source | None) -> Iterator[Difference]:
    vocab = runs.get("vocab_size")
    size = vocab.value if vocab is not None else None
    for name in ("bos_token_id", "eos_token_id", "eot_token_id", "eom_token_id"):
        ran = runs.get(name)
        if ran is None or ran.origin != "file" or not isinstance(size, int):
            continue
        if not isinstance(ran.value, int) or not 0 <= ran.value < size:
            yield Difference("special-tokens", f"{ran.key} {show(ran.value)} is outside the {size}-token vocabulary: llama.cpp ignores it and keeps its default",
                             ran.key, source.pointer(name) if source else "", set_metadata(ran, "ID"), error=False)
    if source is None:
        return
    eos = runs.get("eos_token_id")
    wanted = source.values.get("eos_token_id")
    wanted_set = {w for w in (wanted if isinstance(wanted, list) else [wanted]) if isinstance(w, int)}
    if eos is not None and isinstance(eos.value, int) and wanted_set and eos.value not in wanted_set:
        stops = set(runs["end_of_generation"].value)  # the eos, eot and eom ids and the end-of-turn texts
        if not wanted_set & stops:
            yield Difference("special-tokens", f"{eos.key}: llama.cpp ends generation at tokens {show(runs['end_of_generation'].value)} (EOS {_ran(runs, 'eos_token_id')}), but the config's eos_token_id is {show(wanted)}",
                             eos.key, source.pointer("eos_token_id"), set_metadata(eos, sorted(wanted_set)[0]), error=False)
    bos = runs.get("bos_token_id")
    want_bos = source.values.get("bos_token_id")
    if bos is not None and isinstance(want_bos, int) and not isinstance(want_bos, bool) and bos.value != want_bos:
        yield Difference("special-tokens", f"{bos.key}: llama.cpp's BOS token is {_ran(runs, 'bos_token_id')}, but the config's bos_token_id is {want_bos}",
                         bos.key, source.pointer("bos_token_id"), set_metadata(bos, want_bos), error=False)


def _sampling(runs: Runs, tensors: dict, source: Source | None) -> Iterator[Difference]:
    if source is None or not source.generation:
        return
    for name, key in GENERATION_OF_SAMPLING.items():
        ran: Ran | None = runs.get(name)
        if ran is None or key not in source.generation:
            continue
        want = source.generation[key]
        if want is not None and not same(key, ran.value, want):
            pointer = (source.generation_sources or {}).get(key, "")
            yield Difference("sampling", f"{ran.key}: llama.cpp samples with {shown(ran.value)} by default, but generation_config.json's {key} is {show(want)}",
                             ran.key, pointer, set_metadata(ran, want), error=False)
