"""llama.cpp's end-of-generation set: the token ids its runtime stops generating on.

Taken from `llama_vocab::impl::load` in src/llama-vocab.cpp, as vendored by the llama-cpp-python 0.3.36
sdist. The set (special_eog_ids) holds the file's eos, eot and eom ids, its FIM pad, repo and file-separator
tokens (the tokenizer.ggml key, else a token found by its text), and every token whose text names an end
of generation; then two workarounds drop a token that other tokens in the set show to be an ordinary one.
Texts are looked up in token_to_id, the text -> id map llama.cpp builds from the token list (for a text
held twice, the later id). The GGUF header prediction (cfglint.gguf.runs) and the stop-token reading
(cfglint.stops.runtimes) both compute the set with `end_of_generation`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

# Tokens with these texts end generation whatever the keys say (the `t.first == ...` list).
EOG_TEXTS = (
    "<|eot_id|>", "<|im_end|>", "<|end|>", "<|return|>", "<|call|>", "<|flush|>", "<|calls|>", "<end_of_turn>",
    "<|endoftext|>", "</s>", "<|eom_id|>", "<EOT>", "_<EOT>", "[EOT]", "[EOS]", "<|end_of_text|>",
    "<end_of_utterance>", "<eos>", "<turn|>", "<|tool_response>", "<\uff5cend\u2581of\u2581sentence\uff5c>", "[e~[",
)
# Without tokenizer.ggml.eot_token_id, the end-of-turn token is the first token with one of these texts that
# token_to_id (an unordered map) yields; one such token is predictable, several are not.
EOT_TEXTS = frozenset({"<|eot_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>", "<|endoftext|>", "<|end_of_text|>", "<EOT>",
                       "_<EOT>", "[EOT]", "<\uff5cend\u2581of\u2581sentence\uff5c>", "<end_of_utterance>"})
# Without the tokenizer.ggml.<kind>_token_id key, the FIM token is the first token with one of these texts
# that token_to_id yields; vocabularies hold one of them at most, so the lowest id stands for it.
FIM_TEXTS = {
    "fim_pad": ("<|fim_pad|>", "<fim-pad>", "<fim_pad>", "<PAD>", "[PAD]"),
    "fim_rep": ("<|fim_repo|>", "<|repo_name|>", "<fim-repo>", "<REPO>", "<reponame>"),
    "fim_sep": ("<|file_sep|>",),
}
# The workarounds: the token with the first text leaves the set when the set also holds every text of one
# of the groups (o200k_harmony and solar-open: <|end|>; gemma4 and plamo: </s>). Of several ids with that
# text, the last in id order leaves (special_eog_ids is a std::set). For <|end|>, llama.cpp's condition is
# `(has_return && has_call) || (has_call && has_flush)` with has_call either of <|call|> and <|calls|>.
DROPPED = (("<|end|>", ({"<|return|>", "<|call|>"}, {"<|return|>", "<|calls|>"}, {"<|call|>", "<|flush|>"}, {"<|calls|>", "<|flush|>"})),
           ("</s>", ({"<|tool_response>"}, {"<|plamo:eos|>"})))
# The kinds of tokenizer.ggml.<kind>_token_id whose id is in the set.
SPECIAL_KINDS = ("eos", "eot", "eom", "fim_pad", "fim_rep", "fim_sep")
BY_TEXT = "text"


@dataclass(frozen=True)
class EndOfGeneration:
    """One id in the set and why: `kind` is a SPECIAL_KINDS key given by the file, or BY_TEXT; `text` is
    the token text it was found by (None: by its key)."""

    id: int
    kind: str
    text: str | None = None


def end_of_generation(special: Mapping[str, int], token_to_id: Mapping[str, int],
                      text_of: Callable[[int], str | None]) -> list[EndOfGeneration]:
    """The set, in this order: the ids `special` gives (kind -> id), the tokens named like an end of
    generation, the FIM tokens found by text for the kinds `special` lacks; an id may stand more than once,
    for each reason. `text_of` is an id's text (None when there is none)."""
    found = [EndOfGeneration(token_id, kind) for kind, token_id in special.items()]
    found += [EndOfGeneration(token_to_id[text], BY_TEXT, text) for text in EOG_TEXTS if text in token_to_id]
    for kind, texts in FIM_TEXTS.items():
        matches = sorted((token_to_id[text], text) for text in texts if text in token_to_id)
        if kind not in special and matches:
            found.append(EndOfGeneration(matches[0][0], kind, matches[0][1]))
    dropped = _dropped(sorted({e.id for e in found}), text_of)
    return [e for e in found if e.id not in dropped]


def _dropped(ids: list[int], text_of: Callable[[int], str | None]) -> set[int]:
    held = {text_of(token_id): token_id for token_id in ids}  # the last id per text
    return {held[text] for text, groups in DROPPED if text in held and any(group <= held.keys() for group in groups)}
