"""A JSON document that remembers where everything is.

The standard library's parser throws positions away and silently keeps the last of two duplicate keys; a
linter needs both. This parser is iterative (a 100,000-deep file cannot blow the stack), accepts the
non-standard literals Python's json module accepts (NaN, Infinity) so that it reads what transformers
reads, and records them so rules can say who else will not.
"""

from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

MAX_BYTES = 16 * 1024 * 1024  # configs are kilobytes; anything this big is not one
MAX_DEPTH = 512
_INDEX = re.compile(r"0|[1-9][0-9]*")  # an array index as a JSON Pointer writes it
_COUNTED_POSITIONS = 16  # then a table of line starts: a file asked for many positions has it built once


class Span(NamedTuple):
    """Character offsets of one member: its key (objects only) and its value. A tuple: a config has a span
    per member, and building thousands of frozen dataclasses costs more than parsing them."""

    key_start: int | None
    start: int
    end: int


class Duplicate(NamedTuple):
    pointer: str  # the member's pointer; the document keeps the last occurrence
    earlier: tuple[Span, ...]


class Literal(NamedTuple):
    pointer: str
    text: str  # NaN, Infinity or -Infinity
    offset: int


class SyntaxProblem(NamedTuple):
    """Why the bytes are not a JSON document; offset is in characters when the text decoded."""

    message: str
    offset: int


@dataclass
class Document:
    path: Path
    text: str
    data: Any = None
    duplicates: list[Duplicate] = field(default_factory=list)
    literals: list[Literal] = field(default_factory=list)
    syntax: SyntaxProblem | None = None
    bom: bool = False
    _line_starts: list[int] | None = None
    _counted: int = 0  # positions found by counting newlines, before the line table
    # Member spans, found on first use: most files need no position at all. A document `at` another's
    # root takes its part of the other's spans.
    _spans: dict[str, Span] | None = None
    _within: tuple[Document, str] | None = None
    _keys: _KeyIndex | None = None  # see locate

    @property
    def spans(self) -> dict[str, Span]:
        if self._spans is None:
            if self._within is not None:
                outer, root = self._within
                cut = len(root)
                self._spans = {p[cut:]: s for p, s in outer.spans.items() if p == root or p.startswith(root + "/")}
            elif self.ok and self.data is not None:
                self._spans = _scan_spans(self.text, 1 if self.bom else 0)
            else:
                self._spans = {}
        return self._spans

    @property
    def ok(self) -> bool:
        return self.syntax is None

    def at(self, root: str) -> "Document":
        """The object at `root` as a document of its own (a multimodal config's text_config): the same text
        and offsets, pointers relative to root."""
        if not root:
            return self
        node: Any = self.data
        for key in tokens(root):
            node = node.get(key) if isinstance(node, dict) else None
        cut = len(root)
        inside = lambda pointer: pointer == root or pointer.startswith(root + "/")  # noqa: E731
        return Document(
            path=self.path,
            text=self.text,
            data=node,
            _within=(self, root),
            duplicates=[Duplicate(d.pointer[cut:], d.earlier) for d in self.duplicates if inside(d.pointer)],
            literals=[Literal(lit.pointer[cut:], lit.text, lit.offset) for lit in self.literals if inside(lit.pointer)],
            syntax=self.syntax,
            bom=self.bom,
        )

    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of a character offset; columns count characters."""
        if self._line_starts is None and self._counted < _COUNTED_POSITIONS and "\r" not in self.text:
            # Most files are asked for a position or two: counting newlines is cheaper than the table.
            self._counted += 1
            text = self.text
            return text.count("\n", 0, offset) + 1, offset - text.rfind("\n", 0, offset)
        starts = self._lines()
        line = bisect.bisect_right(starts, offset) - 1
        return line + 1, offset - starts[line] + 1

    def _lines(self) -> list[int]:
        """Where each line starts."""
        if self._line_starts is None:
            self._line_starts = [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", self.text)]
        return self._line_starts

    def has(self, pointer: str) -> bool:
        """Whether pointer names a value of the document (`pointer in spans`, without finding any span)."""
        if self.data is None:
            return False
        node: Any = self.data
        for key in tokens(pointer):
            if type(node) is dict:
                if key not in node:
                    return False
                node = node[key]
            elif type(node) is list and _INDEX.fullmatch(key) and int(key) < len(node):
                node = node[int(key)]
            else:
                return False
        return True

    def locate(self, pointer: str) -> tuple[int, int]:
        """Where a pointer's key is written; for a missing key, its nearest existing parent."""
        if self._spans is None and self._within is None and self.ok and self.data is not None:
            if self._keys is None:
                self._keys = _KeyIndex(self.text, 1 if self.bom else 0, self.data)
            offset = self._keys.offset(pointer)
            if offset is not None:
                return self.position(offset)
        while True:
            span = self.spans.get(pointer)
            if span is not None:
                return self.position(span.key_start if span.key_start is not None else span.start)
            if pointer == "":
                return 1, 1
            pointer = pointer.rsplit("/", 1)[0]

    def line_text(self, line: int) -> str:
        starts = self._lines()
        start = starts[line - 1]
        end = starts[line] if line < len(starts) else len(self.text)
        return self.text[start:end].rstrip("\r\n")


def _string(token: str) -> str:
    """A JSON string token's text: most have no escape, and slicing them is much cheaper than decoding."""
    return token[1:-1] if "\\" not in token else json.loads(token)


def escape(key: str) -> str:
    if "~" not in key and "/" not in key:
        return key
    return key.replace("~", "~0").replace("/", "~1")


def unescape(token: str) -> str:
    """The key a JSON Pointer reference token names (RFC 6901: `~1` is `/`, then `~0` is `~`)."""
    return token.replace("~1", "/").replace("~0", "~") if "~" in token else token


def tokens(pointer: str) -> list[str]:
    """The keys (or array indices) a JSON Pointer names, outermost first."""
    return [unescape(token) for token in pointer.split("/")[1:]]


def pointer_of(*keys: str | int) -> str:
    return "".join("/" + escape(str(k)) for k in keys)


def load(path: Path, size: int | None = None) -> Document:
    """Read and parse one file (`size` from a stat the caller took); OSError propagates so the caller can
    report an unreadable path."""
    if size is None:
        size = path.stat().st_size
    if size > MAX_BYTES:
        doc = Document(path=path, text="")
        doc.syntax = SyntaxProblem(f"file is {size / 2**20:.1f} MiB, larger than any config ({MAX_BYTES >> 20} MiB); not parsed", 0)
        return doc
    with open(path, "rb", buffering=0) as handle:  # one read of the whole file, no buffer in between
        return parse(path, handle.read())


def parse(path: Path, raw: bytes) -> Document:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        # Report the position in the text that did decode, so line:col points at the bad byte.
        good = raw[: err.start].decode("utf-8")
        doc = Document(path=path, text=good)
        doc.syntax = SyntaxProblem(f"not valid UTF-8: byte 0x{raw[err.start]:02x}", len(good))
        return doc
    doc = Document(path=path, text=text)
    start = 0
    if text.startswith("\ufeff"):
        doc.bom = True
        start = 1
    fast = _fast_parse(text, start)
    if fast is not None:
        doc.data = fast
        return doc
    doc._spans = {}  # the full parser records them as it goes
    try:
        doc.data = _Parser(doc, start).parse()
    except _Error as err:
        doc.syntax = SyntaxProblem(err.message, err.offset)
        doc.data = None
        doc.spans.clear()
    return doc


class _Duplicate(Exception):
    pass


def _pairs(pairs: list) -> dict:
    out = dict(pairs)
    if len(out) != len(pairs):
        raise _Duplicate
    return out


def _constant(name: str) -> Any:
    raise _Duplicate  # NaN or Infinity: the full parser records where


# One match per member of an object (its key, then a scalar or the opening of a container), per element of an
# array, or per closing: about a third of the matches a token-per-match pass needs. Only ever run on text
# json's parser accepted, so it need not validate anything.
_STRING_TOKEN = r'"(?:[^"\\]|\\.)*"'
_SCALAR_TOKEN = r'[^\s{}\[\],:"]+'


def _members(value: str) -> re.Pattern[str]:
    return re.compile(
        rf'({_STRING_TOKEN})\s*:\s*(?:({value})|([{{\[]))'  # 1 key, 2 value, 3 opening
        r'|([{\[])'  # 4: a container in an array, or the root
        r'|([}\]])'  # 5
        rf'|({_STRING_TOKEN}|{_SCALAR_TOKEN})'  # 6: a scalar in an array
    )


_MEMBERS = _members(f"{_STRING_TOKEN}|{_SCALAR_TOKEN}")


# json.loads with hooks builds a decoder and its scanner at every call: one serves every file.
_DECODER = json.JSONDecoder(object_pairs_hook=_pairs, parse_constant=_constant)


def _fast_parse(text: str, start: int) -> Any:
    """The common case, a well-formed config: json's C parser. Anything else (bad syntax, duplicate keys,
    NaN, deep nesting) returns None for the full parser, which says exactly where. The spans are found
    later, and only if something asks for a position (`_scan_spans`)."""
    try:
        data = _DECODER.decode(text[start:] if start else text)
    except (ValueError, _Duplicate, RecursionError):
        return None
    if not isinstance(data, (dict, list)):
        return None
    if text.count("{") + text.count("[") > MAX_DEPTH and _depth_over(data):  # too few brackets to be that deep
        return None
    return data


def _scan_spans(text: str, start: int) -> dict[str, Span]:
    """Every member's span, in one pass over text json's parser accepted."""
    spans: dict[str, Span] = {}
    span = tuple.__new__  # Span(...) without its Python-level __new__: configs have a span per member
    # One frame per open container: [its pointer, its start, next index (arrays) or None, its key start]
    stack: list[list] = []
    for m in _MEMBERS.finditer(text, start):
        group = m.lastindex
        if group == 2 or group == 3:
            frame = stack[-1]
            key = m.group(1)
            if "\\" in key or "~" in key or "/" in key:
                key = escape(_string(key))
            else:  # most keys: the token without its quotes
                key = key[1:-1]
            pointer = frame[0] + "/" + key
            if group == 2:
                spans[pointer] = span(Span, (m.start(1), m.start(2), m.end(2)))
            else:
                stack.append([pointer, m.start(3), None if m.group(3) == "{" else 0, m.start(1)])
        elif group == 4:
            if stack:
                frame = stack[-1]
                pointer = f"{frame[0]}/{frame[2]}"
                frame[2] += 1
            else:
                pointer = ""
            stack.append([pointer, m.start(), None if m.group(4) == "{" else 0, None])
        elif group == 5:
            frame = stack.pop()
            spans[frame[0]] = span(Span, (frame[3], frame[1], m.end()))
        else:
            frame = stack[-1]
            spans[f"{frame[0]}/{frame[2]}"] = span(Span, (None, m.start(), m.end()))
            frame[2] += 1
    return spans


# Every string token, a key when a colon follows. Outside a string the next quote always opens one, so a
# search from the start never lands inside a string.
_STRINGS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"(\s*:)?')


class _KeyIndex:
    """Where an object member's key is written, without a span per member. In text json's parser accepted
    without duplicate keys, the keys appear in the order a depth-first walk of the parsed value meets them,
    so the n-th key token is the n-th key of the walk, and the n-th token of a given key is the n-th key of
    that name. Both are counted along the pointer's path alone. In a text without a backslash every quote
    opens or closes a string, so a key's token is found by searching for it (the common case); otherwise the
    key tokens are scanned, only as far as the furthest one asked for. Answers None (ask the full spans) for
    a pointer at or below an array element, and for a text the walk does not match (never, but then it is
    safe)."""

    def __init__(self, text: str, start: int, data: Any):
        blank = _WS.match(text, start)  # matches everywhere, if only the empty string
        self.root = blank.end() if blank is not None else start
        self.text, self.start, self.data = text, start, data
        self.plain = "\\" not in text
        self.offsets: list[int] = []  # of the key tokens scanned so far (a text with a backslash)
        self._tokens = _STRINGS.finditer(text, start)

    def offset(self, pointer: str) -> int | None:
        path = self._path(pointer)
        if not path:
            return None if path is None else self.root
        if self.plain:
            name = path[-1]
            # a name written once is this key's token: nothing to count
            return self._search(name, 0 if self.text.count(f'"{name}"') == 1 else _preceding(self.data, path, name))
        return self._scan(_preceding(self.data, path, None))

    def _path(self, pointer: str) -> list[str] | None:
        """The keys of pointer that the document has, outermost first (a missing key's nearest parent), or
        None for a pointer at or below an array element."""
        node: Any = self.data
        path: list[str] = []
        for key in tokens(pointer):
            if type(node) is not dict:
                return None if type(node) is list else path
            if key not in node:
                break
            path.append(key)
            node = node[key]
        return path

    def _search(self, name: str, before: int) -> int | None:
        """The offset of the key token of `name` that has `before` keys of that name ahead of it."""
        text, needle = self.text, f'"{name}"'
        quotes, counted = 0, self.start
        at = text.find(needle, self.start)
        while at >= 0:
            quotes += text.count('"', counted, at)
            counted = at
            if quotes % 2 == 0:  # an opening quote: this string is the name, and a key if a colon follows
                after = _WS.match(text, at + len(needle))
                if after is not None and text.startswith(":", after.end()):
                    if before == 0:
                        return at
                    before -= 1
            at = text.find(needle, at + 1)
        return None

    def _scan(self, ordinal: int) -> int | None:
        offsets = self.offsets
        if ordinal >= len(offsets):
            for m in self._tokens:
                if m.lastindex:
                    offsets.append(m.start())
                    if len(offsets) > ordinal:
                        break
            else:
                return None
        return offsets[ordinal]


def _preceding(data: Any, path: list[str], name: str | None) -> int:
    """The keys a depth-first walk meets before the last key of path (only those called `name`, unless it
    is None): the ones before each key of path in its object, everything inside them, and its parents."""
    count, node, last = 0, data, len(path) - 1
    for depth, key in enumerate(path):
        for member, value in node.items():
            if member == key:
                break
            if name is None or member == name:
                count += 1
            if type(value) is dict or type(value) is list:
                count += _keys_within([value], name)
        if depth < last and (name is None or key == name):
            count += 1
        node = node[key]
    return count


def _keys_within(array: list, name: str | None = None) -> int:
    """The object keys anywhere inside an array (only those called `name`, unless it is None)."""
    count = 0
    stack: list[Any] = [array]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            count += len(node) if name is None else name in node
            node = node.values()
        stack.extend(v for v in node if isinstance(v, (dict, list)))
    return count


def _depth_over(data: Any) -> bool:
    """Deeper than MAX_DEPTH: the full parser reports it as a syntax problem."""
    level = [data]
    for _ in range(MAX_DEPTH):
        level = [v for node in level for v in (node.values() if isinstance(node, dict) else node) if isinstance(v, (dict, list))]
        if not level:
            return False
    return True


class _Error(Exception):
    def __init__(self, message: str, offset: int):
        self.message, self.offset = message, offset


_WS = re.compile(r"[ \t\n\r]*")
_STRING = re.compile(r'"(?:[^"\\\x00-\x1f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"')
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_LITERALS = {"true": True, "false": False, "null": None}
_NONSTANDARD = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}


class _Frame:
    """An object or array being built, with the pointer and span bookkeeping for its members."""

    __slots__ = ("container", "pointer", "start", "key", "key_start", "seen", "member")

    def __init__(self, container: dict | list, pointer: str, start: int):
        self.container = container
        self.pointer = pointer
        self.start = start
        self.key: str | None = None
        self.key_start: int | None = None
        self.seen: dict[str, list[Span]] = {}
        self.member = ""


class _Parser:
    def __init__(self, doc: Document, pos: int):
        self.doc = doc
        self.text = doc.text
        self.pos = pos

    def skip_ws(self) -> None:
        blank = _WS.match(self.text, self.pos)  # matches everywhere, if only the empty string
        if blank is not None:
            self.pos = blank.end()

    def fail(self, message: str, offset: int | None = None) -> _Error:
        return _Error(message, self.pos if offset is None else offset)

    def parse(self) -> Any:
        self.skip_ws()
        value = self.parse_value()
        self.skip_ws()
        if self.pos != len(self.text):
            raise self.fail("extra data after the top-level value")
        return value

    def scalar(self) -> tuple[bool, Any]:
        """Parse a scalar at pos; (False, None) when the next value is a container."""
        text, pos = self.text, self.pos
        if pos >= len(text):
            raise self.fail("unexpected end of file: expected a value")
        ch = text[pos]
        if ch in "{[":
            return False, None
        if ch == '"':
            m = _STRING.match(text, pos)
            if not m:
                raise self.fail("unterminated string or invalid escape")
            self.pos = m.end()
            return True, _string(m.group())
        m = _NUMBER.match(text, pos)
        if m and not text.startswith("-Infinity", pos):
            self.pos = m.end()
            token = m.group()
            if any(c in token for c in ".eE"):
                return True, float(token)
            try:
                return True, int(token)
            except ValueError:  # Python's json refuses the same (sys.get_int_max_str_digits, 4300 by default)
                raise self.fail(f"an integer of {len(token.lstrip('-'))} digits, more than Python's json reads", pos) from None
        for word, value in (*_LITERALS.items(), *_NONSTANDARD.items()):
            if text.startswith(word, pos):
                self.pos = pos + len(word)
                if word in _NONSTANDARD:
                    self.doc.literals.append(Literal(self.current_pointer, word, pos))
                return True, value
        raise self.fail(f"expected a value, found {text[pos]!r}")

    def parse_value(self) -> Any:
        # An explicit stack of open containers instead of recursion.
        stack: list[_Frame] = []
        self.current_pointer = ""
        while True:
            start = self.pos
            is_scalar, value = self.scalar()
            if not is_scalar:
                if len(stack) >= MAX_DEPTH:
                    raise self.fail(f"nesting deeper than {MAX_DEPTH} levels")
                frame = _Frame({} if self.text[start] == "{" else [], self.current_pointer, start)
                self.pos += 1
                stack.append(frame)
                if self.open_member(frame):
                    continue
                stack.pop()
                value = frame.container
            # A value is complete: attach it, closing every container that ends here, until a member opens.
            while stack:
                parent = stack[-1]
                self.attach(parent, value, start, self.pos)
                self.skip_ws()
                closing = "}" if isinstance(parent.container, dict) else "]"
                if self.text.startswith(",", self.pos):
                    self.pos += 1
                    self.skip_ws()
                    if self.text.startswith(closing, self.pos):
                        raise self.fail(f"trailing comma before '{closing}'")
                    self.begin_member(parent)
                    break
                if not self.text.startswith(closing, self.pos):
                    raise self.fail(f"expected ',' or '{closing}'")
                self.pos += 1
                stack.pop()
                self.record_duplicates(parent)
                value, start = parent.container, parent.start
            else:
                self.doc.spans[""] = Span(None, start, self.pos)
                return value

    def open_member(self, frame: _Frame) -> bool:
        """After '{' or '[': True when a first member follows, False for an empty container."""
        self.skip_ws()
        closing = "}" if isinstance(frame.container, dict) else "]"
        if self.text.startswith(closing, self.pos):
            self.pos += 1
            return False
        self.begin_member(frame)
        return True

    def begin_member(self, frame: _Frame) -> None:
        if isinstance(frame.container, dict):
            key_start = self.pos
            m = _STRING.match(self.text, self.pos)
            if not m:
                raise self.fail("expected a property name in double quotes")
            frame.key, frame.key_start = _string(m.group()), key_start
            self.pos = m.end()
            self.skip_ws()
            if not self.text.startswith(":", self.pos):
                raise self.fail("expected ':' after property name")
            self.pos += 1
            self.current_pointer = frame.member = frame.pointer + "/" + escape(frame.key)
        else:
            frame.key, frame.key_start = str(len(frame.container)), None
            self.current_pointer = frame.member = frame.pointer + "/" + frame.key
        self.skip_ws()

    def attach(self, frame: _Frame, value: Any, start: int, end: int) -> None:
        assert frame.key is not None
        pointer = frame.member
        span = Span(frame.key_start, start, end)
        if isinstance(frame.container, dict):
            frame.seen.setdefault(frame.key, []).append(span)
            frame.container[frame.key] = value
        else:
            frame.container.append(value)
        self.doc.spans[pointer] = span

    def record_duplicates(self, frame: _Frame) -> None:
        for key, spans in frame.seen.items():
            if len(spans) > 1:
                self.doc.duplicates.append(Duplicate(frame.pointer + "/" + escape(key), tuple(spans[:-1])))
