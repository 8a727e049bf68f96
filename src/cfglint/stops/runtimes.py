"""Which token ids each runtime stops generating on, and where each id comes from: one entry per runtime,
its precedence written as its own code reads the files, with the source it was read from.

A runtime that looks a token up by its text finds it among the added tokens (tokenizer.json's, else
tokenizer_config.json's added_tokens_decoder); a text that is not there makes the set incomplete rather
than wrong, since cfglint does not read the base vocabulary.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from cfglint.knowledge.llama_cpp_eog import BY_TEXT, end_of_generation
from cfglint.stops.files import TokenizerFiles
from cfglint.stops.gguf_vocab import GgufVocabulary


@dataclass(frozen=True)
class Stop:
    id: int
    origin: str  # where the runtime takes it from, e.g. "generation_config.json eos_token_id"


@dataclass
class StopSet:
    runtime: str
    consumer: str  # the --consumer it is reported under
    stops: list[Stop] = field(default_factory=list)
    complete: bool = True  # False: a token the runtime looks up by text is not among the added tokens read
    failure: str | None = None  # the runtime refuses to generate at all

    @property
    def ids(self) -> tuple[int, ...]:
        return tuple(sorted({s.id for s in self.stops}))

    def add(self, token_id: Any, origin: str) -> None:
        if type(token_id) is int and token_id >= 0:
            self.stops.append(Stop(token_id, origin))

    def add_all(self, value: Any, origin: str) -> None:
        for token_id in value if isinstance(value, list) else [value]:
            self.add(token_id, origin)

    def add_named(self, files: TokenizerFiles, text: str | None, origin: str) -> bool:
        token_id = files.vocabulary.id_of(text)
        if token_id is None:
            self.complete = False
            return False
        self.add(token_id, f"{origin} {text!r}")
        return True

    def to_json(self) -> dict:
        return {
            "ids": list(self.ids),
            "from": [{"id": s.id, "origin": s.origin} for s in self.stops],
            "complete": self.complete,
            "failure": self.failure,
        }


@dataclass(frozen=True)
class Inputs:
    """Everything a runtime's stop set depends on."""

    files: TokenizerFiles
    model_type: str | None
    config_eos: Any  # config.json's eos_token_id, at its top level (mlx-lm's load_config reads no text_config)
    generation_file: bool  # generation_config.json exists and parses as an object
    generation_eos: Any  # generation_config.json's eos_token_id, or config.json's without that file
    vocab_size: int | None
    gguf: GgufVocabulary | None = None  # a GGUF beside config.json, which llama.cpp then runs from
    text_config_eos: Any = None  # a multimodal file's text_config eos_token_id

    @property
    def generation_origin(self) -> str:
        return "generation_config.json eos_token_id" if self.generation_file else "config.json eos_token_id"

    def tokenizer_eos(self, stops: StopSet) -> None:
        """AutoTokenizer's eos_token_id: special_tokens_map.json's eos_token, else tokenizer_config.json's."""
        text = self.files.special("eos_token")
        if text is not None:
            stops.add_named(self.files, text, "tokenizer eos_token")


@dataclass(frozen=True)
class Runtime:
    name: str
    consumer: str
    source: str
    resolve: Callable[[Inputs, StopSet], None]


def _generate(inputs: Inputs, stops: StopSet) -> None:
    stops.add_all(inputs.generation_eos, inputs.generation_origin)


def _vllm(inputs: Inputs, stops: StopSet) -> None:
    inputs.tokenizer_eos(stops)
    stops.add_all(inputs.generation_eos, inputs.generation_origin)


def _mlx_lm(inputs: Inputs, stops: StopSet) -> None:
    if inputs.generation_file and inputs.generation_eos:  # `if eos := generation_config.get("eos_token_id")`
        stops.add_all(inputs.generation_eos, "generation_config.json eos_token_id")
    elif inputs.config_eos:  # `set(eos_token_ids or [])`
        stops.add_all(inputs.config_eos, "config.json eos_token_id")
    inputs.tokenizer_eos(stops)  # added whenever the tokenizer has one


# candle's examples stop on tokens they name; (text, fallback): no fallback means the example bails out
# when the tokenizer lacks the text.
CANDLE_NAMED: dict[str, tuple[tuple[str, str | None], ...]] = {
    "qwen2": (("<|endoftext|>", None), ("<|im_end|>", None)),
    "qwen2_moe": (("<|endoftext|>", None), ("<|im_end|>", None)),
    "qwen3": (("<|endoftext|>", None), ("<|im_end|>", None)),
    "qwen3_moe": (("<|endoftext|>", None), ("<|im_end|>", None)),
    "gemma": (("<eos>", None), ("<end_of_turn>", "<eos>")),
    "gemma2": (("<eos>", None), ("<end_of_turn>", "<eos>")),
    "gemma3_text": (("<eos>", None), ("<end_of_turn>", "<eos>")),
    "mistral": (("</s>", None),),
    "phi3": (("<|endoftext|>", None),),
}


def _candle(inputs: Inputs, stops: StopSet) -> None:
    if inputs.model_type == "llama":  # LlamaConfig.eos_token_id, else tokenizer.token_to_id("</s>")
        if inputs.config_eos is not None:
            stops.add_all(inputs.config_eos, "config.json eos_token_id")
        else:
            stops.add_named(inputs.files, "</s>", "by name")
        return
    for text, fallback in CANDLE_NAMED.get(inputs.model_type or "", ()):
        if stops.add_named(inputs.files, text, "by name"):
            continue
        if fallback is None and inputs.files.vocabulary.from_tokenizer_json:
            stops.failure = f"cannot find the {text} token"
            return
        if fallback is not None:
            stops.add_named(inputs.files, fallback, f"by name ({text} is absent)")


# mistral.rs also stops on these when the vocabulary has them and the chat template writes them.
MISTRALRS_ALTERNATES = ("<|im_end|>", "<end_of_turn>", "<|end_of_text|>", "<|end|>", "<|eot_id|>")


def _mistralrs(inputs: Inputs, stops: StopSet) -> None:
    files = inputs.files
    text = files.special("eos_token", map_wins=False)
    if text is not None:
        stops.add_named(files, text, "tokenizer_config.json eos_token")
    template = files.template or ""
    for alternate in MISTRALRS_ALTERNATES:
        if alternate in files.vocabulary.by_text and alternate in template:
            stops.add_named(files, alternate, "alternate end of turn")
    stops.add_all(inputs.generation_eos, inputs.generation_origin)


# Ids a converter class writes whatever the tokenizer says (conversion/gemma.py GemmaModel.set_vocab).
LLAMA_CPP_CONVERTER_EOT = {"gemma": 107}


def _llama_cpp(inputs: Inputs, stops: StopSet) -> None:
    files, gguf = inputs.files, inputs.gguf
    if gguf is not None and gguf.problem is None:  # a converted file says itself what it holds
        origins: dict[str, str] = {kind: f"{gguf.file} {kind} (tokenizer.ggml.{kind}_token_id)"
                         + (" (absent: the tokenizer model's default)" if kind in gguf.defaulted else "")
                   for kind in gguf.special}
        tokens = gguf.tokens
        _end_of_generation(stops, gguf.special, origins, gguf.by_text(),
                           lambda i: tokens[i] if 0 <= i < len(tokens) else None, f"{gguf.file} end-of-generation text")
        return
    special: dict[str, int] = {}
    origins = {}
    text = files.special("eos_token", map_wins=False)
    if files.vocabulary.from_tokenizer_json and text is not None and text in files.vocabulary.by_text:
        special["eos"], origins["eos"] = files.vocabulary.by_text[text], f"GGUF eos (tokenizer_config.json eos_token) {text!r}"
    elif type(eos := _config_json_eos(inputs)) is int and (inputs.vocab_size is None or eos < inputs.vocab_size):
        special["eos"], origins["eos"] = eos, "GGUF eos (config.json eos_token_id)"  # a list is skipped
    if inputs.model_type in LLAMA_CPP_CONVERTER_EOT:
        special["eot"], origins["eot"] = LLAMA_CPP_CONVERTER_EOT[inputs.model_type], "GGUF eot (written by the converter)"
    _end_of_generation(stops, special, origins, files.vocabulary.by_text, files.vocabulary.text_of, "end-of-generation text")


def _config_json_eos(inputs: Inputs) -> Any:
    """gguf-py's SpecialVocab._try_load_from_config_json: the top level's eos_token_id, else text_config's."""
    return inputs.config_eos if inputs.config_eos is not None else inputs.text_config_eos


def _end_of_generation(stops: StopSet, special: dict[str, int], origins: dict[str, str], by_text: dict[str, int],
                       text_of: Callable[[int], str | None], where: str) -> None:
    """llama.cpp's set (cfglint.knowledge.llama_cpp_eog), each id with where it comes from."""
    for eog in end_of_generation(special, by_text, text_of):
        if eog.text is None:
            stops.add(eog.id, origins[eog.kind])
        else:
            stops.add(eog.id, f"{where} {eog.text!r}" + (f" ({eog.kind})" if eog.kind != BY_TEXT else ""))


RUNTIMES: tuple[Runtime, ...] = (
    Runtime("transformers-5", "transformers-5",
            "transformers 5.24 generation/utils.py: generate() stops on its generation config's eos_token_id, "
            "read from generation_config.json, else from config.json (GenerationConfig.from_model_config)", _generate),
    Runtime("transformers-4", "transformers-4", "transformers 4.57.6 generation/utils.py: as transformers 5", _generate),
    Runtime("vllm", "transformers-4",
            "vllm sampling_params.py update_from_generation_config: the tokenizer's eos_token_id and the "
            "generation config's eos_token_id (generation_config.json, else config.json)", _vllm),
    Runtime("mlx-lm", "mlx-lm",
            "mlx-lm 0.32.2 utils.load_config (a truthy generation_config.json eos_token_id replaces config.json's) "
            "and tokenizer_utils.TokenizerWrapper (those ids and the tokenizer's eos_token_id)", _mlx_lm),
    Runtime("candle", "candle",
            "candle-examples llama/main.rs (config.json eos_token_id, else '</s>'), qwen/main.rs ('<|endoftext|>' "
            "and '<|im_end|>'), gemma/main.rs ('<eos>' and '<end_of_turn>', else '<eos>'), mistral/main.rs "
            "('</s>'), phi/main.rs ('<|endoftext|>')", _candle),
    Runtime("mistralrs", "mistralrs",
            "mistral.rs chat_template.rs calculate_eos_tokens: tokenizer_config.json's eos_token, the "
            "alternates the vocabulary and the template both hold, and generation_config.json's eos_token_id "
            "(config.json's when that file is absent); observed with mistral.rs 0.9.5", _mistralrs),
    Runtime("llama-cpp", "llama-cpp",
            "gguf-py vocab.py SpecialVocab (eos: tokenizer_config.json's eos_token among tokenizer.json's "
            "added_tokens, else an integer config.json eos_token_id below the vocabulary size, text_config's "
            "where the top level has none) and "
            "llama-vocab.cpp's end-of-generation set (llama-cpp-python 0.3.36's llama.cpp); a GGUF beside "
            "config.json: its own tokenizer.ggml ids and tokens", _llama_cpp),
)
# Model types whose transformers 5.24 modeling code reads config.json's eos_token_id itself, outside generate()
# (CLIP pools at the EOS, BART's classification head finds it, ...): `config.eos_token_id` in
# models/<module>/modeling_*.py. For the others generate() is the only reader, and it takes the ids from
# generation_config.json when that file exists. tests/conformance/test_stops_runtimes.py recomputes the list.
TRANSFORMERS5_EOS_IN_FORWARD = frozenset({
    "aimv2", "aimv2_text_model", "aimv2_vision_model", "bark", "bart", "bigbird_pegasus", "blip", "blip_text_model",
    "blip_vision_model", "clip", "clip_text_model", "clip_vision_model", "clipseg", "clipseg_text_model",
    "clipseg_vision_model", "clvp", "clvp_decoder", "clvp_encoder", "esmfold2", "groupvit", "groupvit_text_model",
    "groupvit_vision_model", "mbart", "metaclip_2", "metaclip_2_text_model", "metaclip_2_vision_model", "moshi",
    "moshi_depth", "mt5", "mvp", "plbart", "qwen2_5_omni", "qwen2_5_omni_audio_encoder", "qwen2_5_omni_bigvgan",
    "qwen2_5_omni_dit", "qwen2_5_omni_talker", "qwen2_5_omni_text", "qwen2_5_omni_thinker", "qwen2_5_omni_token2wav",
    "qwen2_5_omni_vision_encoder", "qwen4_exp", "qwen4_exp_text", "qwen4_exp_vision", "seamless_m4t_v2", "t5", "umt5",
})
# Runtimes whose stop set is only known for these families (the others read the files the same way for all).
FAMILIES: dict[str, set[str]] = {"candle": {"llama", *CANDLE_NAMED}}


def stop_sets(inputs: Inputs, consumers: set[str]) -> dict[str, StopSet]:
    out = {}
    for runtime in RUNTIMES:
        if runtime.consumer not in consumers:
            continue
        if runtime.name in FAMILIES and inputs.model_type not in FAMILIES[runtime.name]:
            continue
        stops = StopSet(runtime.name, runtime.consumer)
        runtime.resolve(inputs, stops)
        out[runtime.name] = stops
    return out
