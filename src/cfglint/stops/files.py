"""The tokenizer files beside a config.json, read as far as stop tokens need them.

- tokenizer_config.json and special_tokens_map.json: read whole (they are kilobytes; the same 16 MiB cap as
  any JSON cfglint reads).
- tokenizer.json: only its `added_tokens` array. The file can be tens of megabytes (the model's vocabulary
  and merges come after), so at most READ_LIMIT bytes are read and the array is decoded from where its key
  starts; transformers and tokenizers write it before `model`.
- the chat template, where transformers 5 takes it from: chat_template.jinja, else tokenizer_config.json's
  `chat_template` (a string, or a list of {name, template} of which "default" is used), else
  chat_template.json (checked with transformers 5.24: the .jinja file wins over tokenizer_config.json).

A problem with a file (not JSON, not an object, a wrong type) is kept as a Problem for the rules to report;
nothing here raises.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Collection

from cfglint import document
from cfglint.document import Document
from cfglint.tokenizer_names import NAMES, SPECIAL_TOKENS_MAP, TEMPLATE_FILE, TEMPLATE_JSON, TOKENIZER, TOKENIZER_CONFIG


READ_LIMIT = 8 * 1024 * 1024  # of tokenizer.json: added_tokens comes first; the vocabulary is not needed
TEMPLATE_LIMIT = 1024 * 1024  # a chat template is a few kilobytes
SPECIAL_KEYS = ("bos_token", "eos_token", "unk_token", "pad_token")


@dataclass(frozen=True)
class Problem:
    file: str
    message: str


@dataclass
class Vocabulary:
    """Added tokens, text <-> id. `by_id` is tokenizer.json's when it was read, else added_tokens_decoder's."""

    by_id: dict[int, str] = field(default_factory=dict)
    by_text: dict[str, int] = field(default_factory=dict)
    from_tokenizer_json: bool = False  # the converter and candle look tokens up in tokenizer.json only

    def add(self, token_id: int, text: str) -> None:
        self.by_id.setdefault(token_id, text)
        self.by_text.setdefault(text, token_id)  # the first entry wins, as in the converter's lookup

    def id_of(self, text: str | None) -> int | None:
        return None if text is None else self.by_text.get(text)

    def text_of(self, token_id: int) -> str | None:
        return self.by_id.get(token_id)


@dataclass
class TokenizerFiles:
    directory: Path
    present: set[str] = field(default_factory=set)
    config: dict = field(default_factory=dict)  # tokenizer_config.json ({} when absent or unreadable)
    config_doc: Document | None = None
    special_map: dict = field(default_factory=dict)  # special_tokens_map.json
    vocabulary: Vocabulary = field(default_factory=Vocabulary)
    decoder: dict[int, str] = field(default_factory=dict)  # tokenizer_config.json's added_tokens_decoder
    template: str | None = None
    template_origin: str = ""
    problems: list[Problem] = field(default_factory=list)

    @property
    def any(self) -> bool:
        return bool(self.present)

    def special(self, key: str, *, map_wins: bool = True) -> str | None:
        """A special token's text. transformers 5 lets special_tokens_map.json override tokenizer_config.json
        (checked with 5.24); mistral.rs reads tokenizer_config.json only (map_wins=False)."""
        sources = (self.special_map, self.config) if map_wins else (self.config,)
        for source in sources:
            text = token_text(source.get(key))
            if text is not None:
                return text
        return None


def token_text(value: Any) -> str | None:
    """`"<eos>"` or `{"content": "<eos>", ...}` (AddedToken's form) -> "<eos>"."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and isinstance(value.get("content"), str):
        return value["content"]
    return None


def load(directory: Path, listing: Collection[str] | None = None) -> TokenizerFiles:
    """The tokenizer files of a model directory; `listing`, its files when already listed."""
    files = TokenizerFiles(directory)
    files.present = {n for n in NAMES if n in listing} if listing is not None else {n for n in NAMES if (directory / n).is_file()}
    if TOKENIZER_CONFIG in files.present:
        files.config_doc, files.config = _object(files, TOKENIZER_CONFIG)
        files.decoder = _decoder(files)
    if SPECIAL_TOKENS_MAP in files.present:
        files.special_map = _object(files, SPECIAL_TOKENS_MAP)[1]
    if TOKENIZER in files.present:
        _added_tokens(files)
    if not files.vocabulary.by_id:
        for token_id, text in sorted(files.decoder.items()):
            files.vocabulary.add(token_id, text)
    _template(files)
    return files


def _object(files: TokenizerFiles, name: str) -> tuple[Document | None, dict]:
    try:
        doc = document.load(files.directory / name)
    except OSError as err:
        files.problems.append(Problem(name, f"cannot be read ({err.strerror or err})"))
        return None, {}
    if not doc.ok:
        assert doc.syntax is not None
        line, column = doc.position(doc.syntax.offset)
        files.problems.append(Problem(name, f"is not valid JSON ({line}:{column}: {doc.syntax.message})"))
        return doc, {}
    if not isinstance(doc.data, dict):
        files.problems.append(Problem(name, f"is a JSON {type(doc.data).__name__}, not an object"))
        return doc, {}
    return doc, doc.data


def _decoder(files: TokenizerFiles) -> dict[int, str]:
    raw = files.config.get("added_tokens_decoder")
    out: dict[int, str] = {}
    if not isinstance(raw, dict):
        return out
    for key, entry in raw.items():
        text = token_text(entry)
        if key.isdigit() and text is not None:
            out[int(key)] = text
    return out


def _added_tokens(files: TokenizerFiles) -> None:
    try:
        with open(files.directory / TOKENIZER, "rb") as f:
            head = f.read(READ_LIMIT)
    except OSError as err:
        files.problems.append(Problem(TOKENIZER, f"cannot be read ({err.strerror or err})"))
        return
    text = head.decode("utf-8", errors="replace")
    if not text.lstrip().startswith("{"):
        files.problems.append(Problem(TOKENIZER, "is not a JSON object"))
        return
    at = text.find('"added_tokens"')
    if at < 0:
        if len(head) < READ_LIMIT:
            files.vocabulary.from_tokenizer_json = True  # read whole: there are none
        else:
            files.problems.append(Problem(TOKENIZER, f"has no added_tokens in its first {READ_LIMIT >> 20} MiB; not read further"))
        return
    colon = text.find(":", at + len('"added_tokens"'))
    start = colon + 1
    while start < len(text) and text[start] in " \t\r\n":
        start += 1
    try:
        tokens, _ = json.JSONDecoder().raw_decode(text, start)
    except (ValueError, RecursionError) as err:
        why = err.msg if isinstance(err, json.JSONDecodeError) else type(err).__name__
        files.problems.append(Problem(TOKENIZER, f"added_tokens is not valid JSON ({why})"))
        return
    if not isinstance(tokens, list):
        files.problems.append(Problem(TOKENIZER, "added_tokens is not a list"))
        return
    for entry in tokens:
        if isinstance(entry, dict) and type(entry.get("id")) is int and isinstance(entry.get("content"), str):
            files.vocabulary.add(entry["id"], entry["content"])
    files.vocabulary.from_tokenizer_json = True


def _template(files: TokenizerFiles) -> None:
    if TEMPLATE_FILE in files.present:
        try:
            with open(files.directory / TEMPLATE_FILE, "rb") as f:
                raw = f.read(TEMPLATE_LIMIT + 1)
        except OSError as err:
            files.problems.append(Problem(TEMPLATE_FILE, f"cannot be read ({err.strerror or err})"))
            return
        if len(raw) > TEMPLATE_LIMIT:
            files.problems.append(Problem(TEMPLATE_FILE, f"is larger than {TEMPLATE_LIMIT >> 20} MiB; not rendered"))
            return
        files.template, files.template_origin = raw.decode("utf-8", errors="replace"), TEMPLATE_FILE
        return
    value = files.config.get("chat_template")
    origin = TOKENIZER_CONFIG
    if value is None and TEMPLATE_JSON in files.present:
        value, origin = _object(files, TEMPLATE_JSON)[1].get("chat_template"), TEMPLATE_JSON
    if isinstance(value, list):  # named templates: generate() and apply_chat_template use "default"
        named = {t["name"]: t.get("template") for t in value if isinstance(t, dict) and isinstance(t.get("name"), str)}
        value = named.get("default")
    if value is None:
        return
    if not isinstance(value, str):
        files.problems.append(Problem(origin, f"chat_template is a JSON {type(value).__name__}, not a string"))
        return
    if len(value) > TEMPLATE_LIMIT:
        files.problems.append(Problem(origin, f"chat_template is larger than {TEMPLATE_LIMIT >> 20} MiB; not rendered"))
        return
    files.template, files.template_origin = value, origin
