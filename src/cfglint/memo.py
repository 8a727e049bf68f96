"""What repeats within a run, worked out once: readings and the rules over them.

What transformers 5 means and what each runtime reads are functions of the keys they read. Fine-tunes of
one base model share nearly all of those and differ in keys no reading looks at (`_name_or_path`,
`transformers_version`, `use_cache`), so a run over many model directories reads the same values again
and again. Within one run (Session.check_all), for a family the runtimes read through entries
(cfglint.knowledge):
- the intent and the readings of a document are kept under the values of every key those entries can
  consult (their fields, the names their expressions and refusals use, the RoPE inputs), in the order
  written and with their JSON types, and which of the vocabulary files the converter looks for are beside
  it (with a tokenizer.model its vocabulary step reads no config); a later document with the same values
  gets the same ones, and the intent's serial names them; when those values are new, each runtime's
  reading is still kept under the keys its own entry consults, and the intent's if it consults the intent
  (most changes touch a key some runtimes never read);
- the findings of the rules that name their CONFIG_KEYS (cfglint.rule) are kept under the serial and the
  values of those of the keys the serial does not settle (cfglint.engine keeps them here: this module
  sits below the rules); the comparisons those rules make (Context.diverging) are made once with them.

A Llama file is read by hand-written readings that name no keys of their own: its intent and readings are
kept under every member but the few no reading looks at (LLAMA_UNREAD), unless a generation_config.json is
beside it (mlx-lm's reading takes its eos from there). Read afresh: a multimodal file, a file no family
models, a file that is not a directory's config.json, a document with a byte-order mark, a non-standard
literal or a duplicate key (readers word those by where they are written), and one with a value that
transformers 5's config class refuses in a field no reading consults otherwise (its refusal quotes it).
Kept readings are shared: nothing changes an intent or a reading once context_of has made it. The tables
are bounded, and emptied when one is full and when the run ends; serials are never reused. tests/test_memo.py holds a run's results
equal with and without them.
"""

from __future__ import annotations

import itertools
import string
from contextlib import contextmanager
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Callable, Iterator

from cfglint.reading import DIMS
from cfglint.tokenizer_names import VOCABULARY_FILES

if TYPE_CHECKING:
    from cfglint.consumers.base import Consumer, View
    from cfglint.document import Document
    from cfglint.intent import Intent
    from cfglint.knowledge.entry import Entry

# Entries a table keeps before all of them are emptied: a document's readings or its rules' findings take a
# few kilobytes.
LIMITS = {"readings": 2048, "findings": 4096}
# Keys the RoPE readings, the refusals and the converter consult besides an entry's own fields
# (cfglint.readers.rope, rope_families, converter; consumers.transformers5.family_refusal, which checks the
# layer types of every class).
ROPE_INPUTS = frozenset({
    "rope_theta", "rope_scaling", "rope_parameters", "rope_local_base_freq", "partial_rotary_factor",
    "max_position_embeddings", "original_max_position_embeddings", "head_dim", "num_key_value_heads",
    "tie_word_embeddings", "layer_types", "mlp_layer_types", "mtp_layer_types", *DIMS,
})
# RoPE readings that consult the intent (the converter sees transformers 5's resolution; Phi-3's longrope
# readings compare their horizon with transformers 5's): kept under the intent's keys too.
CONSULTS_INTENT = ("converter", "transformers-5", "phi3-")
# What the intent reads beyond transformers 5's fields: the family, the layout's keys, the architectures
# and the dtype.
INTENT_INPUTS = frozenset({"model_type", "architectures", "dtype", "torch_dtype", "text_config"})

# What fine-tunes of one base model differ in, and nothing reads: not the intent, not the Llama readings
# (consumers/), not the rules.
LLAMA_UNREAD = frozenset({"_name_or_path", "transformers_version"})

Readings = tuple["Intent", dict[str, "View"]]

_serials = itertools.count(1)
_tables: dict[str, dict[tuple, Any]] = {name: {} for name in LIMITS}
_entries: dict[tuple, View] = {}  # one runtime's reading, by the values its entry consults
_keyed_by: dict[int, frozenset[str] | None] = {}  # a kept intent's serial: the keys its values were kept under (None: Llama's)
_depth = {"runs": 0, "off": 0}  # kept within a run, unless disabled


def _on() -> bool:
    return _depth["runs"] > 0 and _depth["off"] == 0


@contextmanager
def run() -> Iterator[None]:
    """Keep what repeats for the length of one run (Session.check_all); it is dropped when the run ends."""
    clear()
    _depth["runs"] += 1
    try:
        yield
    finally:
        _depth["runs"] -= 1
        clear()


@contextmanager
def disabled() -> Iterator[None]:
    """Everything worked out afresh, runs included (what the kept results must equal)."""
    _depth["off"] += 1
    try:
        yield
    finally:
        _depth["off"] -= 1


def clear() -> None:
    for table in _tables.values():
        table.clear()
    _entries.clear()
    _keyed_by.clear()


def _store(table: dict, limit: int, key: tuple, value: Any) -> None:
    if len(table) >= limit:
        clear()
    table[key] = value


def kept(name: str, key: tuple, compute: Callable[[], Any]) -> Any:
    """What compute gives, kept in table `name` under key for the rest of the run (a key must name every
    input compute reads: a kept intent's serial, and the values of anything else)."""
    if not _on():
        return compute()
    table = _tables[name]
    found = table.get(key)
    if found is None:
        found = compute()
        _store(table, LIMITS[name], key, found)
    return found


_AS_IS = frozenset({str, int, type(None)})  # what frozen keeps as it is, tested in place where it counts


def frozen(value: Any) -> Any:
    """A JSON value as a key: strings, integers and null as they are; booleans with their type (true and 1
    are equal in Python, not to a runtime); floats, arrays and objects with their type and by repr, which
    keeps 1.0 apart from 1, -0.0 from 0.0 and an object's member order."""
    kind = type(value)
    if kind is str or kind is int or value is None:
        return value
    if kind is bool:
        return kind, value
    return kind, repr(value)


# ------------------------------------------------------------------------------------ what is consulted


_NAMES: dict[int, frozenset[str]] = {}  # entries live as long as the process


def entry_names(entry: Entry) -> frozenset[str]:
    """Every key a reading by this entry can consult."""
    if id(entry) not in _NAMES:
        from cfglint.knowledge.expr import names
        from cfglint.readers.values import IMPLIED

        found = set(entry.fields) | ROPE_INPUTS
        for expression in (*entry.derive.values(), *IMPLIED.values(), *(c.when for c in entry.checks)):
            found |= names(expression)
        for check in entry.checks:  # a refusal's message may quote a value
            found |= {name for _, name, _, _ in string.Formatter().parse(check.message) if name}
        if entry.reader == "converter":  # its own refusals consult what it writes (knowledge.llama_cpp.WRITES)
            from cfglint.readers.converter import consulted

            found |= consulted(entry.family)
        _NAMES[id(entry)] = frozenset(found)
    return _NAMES[id(entry)]


@lru_cache(maxsize=None)
def _checked_only(family: str, runtimes: tuple[str, ...]) -> tuple:
    """The fields transformers 5's config class type-checks that no reading consults otherwise (`use_cache`,
    `initializer_range`), with their checks: a value they take changes nothing, so it is no part of a key."""
    from cfglint.knowledge.strict_types import class_checks

    names = family_names(family, runtimes)
    return tuple(check for check in class_checks(family) if check[0] not in names)


def _reading_names(entry: Entry) -> frozenset[str]:
    """The keys an entry's reading consults: its own, and those of the intent when its RoPE reading
    consults the intent (which depends on nothing else)."""
    if id(entry) not in _READING_NAMES:
        from cfglint.knowledge.transformers5 import FAMILIES

        names = entry_names(entry)
        if entry.rope.startswith(CONSULTS_INTENT):
            names = names | entry_names(FAMILIES[entry.family]) | INTENT_INPUTS
        _READING_NAMES[id(entry)] = names
    return _READING_NAMES[id(entry)]


_READING_NAMES: dict[int, frozenset[str]] = {}


@lru_cache(maxsize=None)
def family_names(family: str, runtimes: tuple[str, ...]) -> frozenset[str]:
    """Every key the intent and these (built-in) runtimes' readings of a non-Llama family consult."""
    from cfglint import knowledge
    from cfglint.knowledge.transformers5 import FAMILIES

    found = set(entry_names(FAMILIES[family])) | INTENT_INPUTS
    for name in runtimes:
        entry = knowledge.entry(name, family)
        if entry is not None:
            found |= entry_names(entry)
    return frozenset(found)


def _family(doc: Document, listing: frozenset[str] | None) -> str | None:
    """The family whose readings are kept for doc (a config.json with these files beside it), or None to
    read it afresh."""
    data = doc.data
    if not _on() or listing is None or doc.bom or doc.literals or doc.duplicates or type(data) is not dict:
        return None
    family_of, multimodal, retyped = _families()
    kind = data.get("model_type")
    if isinstance(kind, str) and kind in multimodal:
        return None
    family = family_of(data)
    if family == "llama" and "generation_config.json" in listing:
        return None
    if family in retyped:
        return None  # a family AutoConfig builds from another model_type: each runtime takes the file for either
    return family


@lru_cache(maxsize=None)
def _families() -> tuple[Callable[[dict], str | None], Any, frozenset[str]]:
    """intent.family_of, the multimodal model types and the families AutoConfig retypes files to, imported
    once (a run asks for every file)."""
    from cfglint.intent import family_of
    from cfglint.knowledge.transformers5 import MULTIMODAL, RETYPED

    return family_of, MULTIMODAL, frozenset(built for built, _ in RETYPED.values())


# ----------------------------------------------------------------------------------------- the tables


def readings(
    doc: Document, consumers: list[Consumer], read: Callable[[], Readings], listing: frozenset[str] | None,
) -> Readings:
    """The intent and the consumers' readings of doc (a config.json with the files of `listing` beside it),
    made once for each distinct set of values they read."""
    family = _family(doc, listing)
    runtimes = tuple(c.name for c in consumers)
    if family is None or not _built_in(runtimes):  # another runtime's reading may consult anything
        return read()
    # in the order written: a serde reader names the first value it refuses
    names: frozenset[str] = frozenset()
    if family == "llama":
        members = [(k, v if type(v) in _AS_IS else frozen(v)) for k, v in doc.data.items() if k not in LLAMA_UNREAD]
    else:
        data = doc.data
        if any(key in data and not takes(data[key]) for key, takes in _checked_only(family, runtimes)):
            return read()  # a value the config class refuses, which the refusal quotes: rare, read afresh
        names = family_names(family, runtimes)
        members = [(k, v if type(v) in _AS_IS else frozen(v)) for k, v in doc.data.items() if k in names]

    def afresh() -> Readings:
        _current[0], _current[1] = doc.data, members  # each entry's keys are among the family's
        try:
            found = read()
        finally:
            _current[0], _current[1] = None, []
        serial = found[0].serial = next(_serials)
        _keyed_by[serial] = None if family == "llama" else names
        return found

    # The converter stops on a value the config class refuses unless the files its vocabulary step reads
    # instead spare it AutoTokenizer (knowledge.llama_cpp.VOCAB_READS_CONFIG): a family's readings are kept
    # under the route's answer (Phi-3's reads tokenizer_config.json), Llama's under the files it looks for (its
    # route needs no file read, and the converter's knowledge is not imported for it).
    if family == "llama":
        vocabulary: object = VOCABULARY_FILES & listing if listing is not None else None
    else:
        vocabulary = _vocab_reads_config()(family, doc, listing)
    return kept("readings", (family, runtimes, vocabulary, tuple(members)), afresh)


@lru_cache(maxsize=None)
def _vocab_reads_config() -> Callable[[str, Document, frozenset[str] | None], bool]:
    from cfglint.readers.converter import vocab_reads_config

    return vocab_reads_config


@lru_cache(maxsize=None)
def _built_in(runtimes: tuple[str, ...]) -> bool:
    from cfglint import consumers

    return all(name in consumers.names() for name in runtimes)


_current: list[Any] = [None, []]  # the document being read afresh, and its members as keys


def unsettled(serial: int, keys: tuple[str, ...]) -> tuple[str, ...]:
    """Those of `keys` whose values the readings kept under this serial do not settle: the intent's serial
    names the values of every key they were kept under, absent ones included (all of a Llama file's but
    LLAMA_UNREAD), so a table keyed by the serial needs the others' values only."""
    if serial not in _keyed_by:
        return keys  # emptied since: every key's value
    return _unsettled(_keyed_by[serial], keys)


@lru_cache(maxsize=256)
def _unsettled(names: frozenset[str] | None, keys: tuple[str, ...]) -> tuple[str, ...]:
    if names is None:
        return tuple(k for k in keys if k in LLAMA_UNREAD)
    return tuple(k for k in keys if k not in names)


def entry_reading(entry: Entry, doc: Document, read: Callable[[], View]) -> View:
    """One runtime's reading of a document whose values, all together, were not read before: often its own
    ones were (another runtime's key changed), so each entry's reading is kept under its own keys too, and
    under the intent's when it consults the intent."""
    if _current[0] is not doc.data:
        return read()
    names = _reading_names(entry)
    key = (id(entry), tuple([member for member in _current[1] if member[0] in names]))
    found = _entries.get(key)
    if found is None:
        found = _entries[key] = read()  # bounded with the readings table: emptied when it is
    view = object.__new__(type(found))  # a reading of its own: the caller may still fail it
    view.__dict__.update(found.__dict__)
    return view
