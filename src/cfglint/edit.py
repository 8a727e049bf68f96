"""Apply JSON-level edits to a document's text, changing only the bytes that must change.

The file keeps its indentation, key order (a new key goes to its sorted place when the object's keys are
sorted, as transformers writes them, and last otherwise), line endings, trailing newline or its absence, and
every character it already had. Writes are atomic: temp file in the same directory, fsync, original mode,
os.replace.
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
from pathlib import Path
from typing import Any

from cfglint.diagnostics import Edit
from cfglint.document import Document, Span, parse, unescape


class EditError(Exception):
    pass


def apply(doc: Document, edit: Edit) -> Document:
    """The document after one edit (re-parsed, so positions stay exact for the next one)."""
    if edit.op == "set":
        text = _set(doc, edit.pointer, edit.value)
    elif edit.op == "remove":
        text = _remove(doc, edit.pointer)
    else:
        raise EditError(f"unknown edit {edit.op!r}")
    new = parse(doc.path, ("\ufeff" if doc.bom else "").encode() + text[1 if doc.bom else 0 :].encode("utf-8"))
    if new.syntax is not None:
        raise EditError(f"edit at {edit.pointer} produced invalid JSON: {new.syntax.message}")
    return new


def _children(doc: Document, parent: str) -> list[tuple[str, Span]]:
    prefix = parent + "/"
    out = [(p[len(prefix):], s) for p, s in doc.spans.items() if p.startswith(prefix) and "/" not in p[len(prefix):]]
    return sorted(out, key=lambda item: item[1].start)


def _newline(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


def _line_indent(text: str, offset: int) -> str:
    start = max(text.rfind("\n", 0, offset), text.rfind("\r", 0, offset)) + 1
    end = start
    while end < len(text) and text[end] in " \t":
        end += 1
    return text[start:end]


def _indent_unit(doc: Document) -> str:
    """The file's indentation step, read off the top-level members."""
    members = _children(doc, "")
    for _, span in members:
        if span.key_start is not None:
            indent = _line_indent(doc.text, span.key_start)
            line_start = span.key_start - len(indent)
            if indent and doc.text[line_start: span.key_start] == indent:
                return indent
    return "  "


def _sorted_keys(doc: Document) -> bool:
    top = [key for key, _ in _children(doc, "")]
    return len(top) > 1 and top == sorted(top)


def _serialize(doc: Document, value: Any, indent: str) -> str:
    unit = _indent_unit(doc)
    text = json.dumps(value, indent=unit if isinstance(value, (dict, list)) and value else None,
                      ensure_ascii=False, sort_keys=_sorted_keys(doc))
    return text.replace("\n", _newline(doc.text) + indent)


def _set(doc: Document, pointer: str, value: Any) -> str:
    text = doc.text
    span = doc.spans.get(pointer)
    if span is not None:
        indent = _line_indent(text, span.key_start if span.key_start is not None else span.start)
        return text[: span.start] + _serialize(doc, value, indent) + text[span.end:]
    parent, _, key = pointer.rpartition("/")
    parent_span = doc.spans.get(parent)
    if parent_span is None or not text.startswith("{", parent_span.start):
        raise EditError(f"cannot add {pointer}: {parent or 'the top level'} is not an object")
    key = unescape(key)
    members = [(k, s) for k, s in _children(doc, parent) if s.key_start is not None]
    sample = text[members[0][1].key_start: members[0][1].start] if members else '"": '
    name = json.dumps(key, ensure_ascii=False) + (": " if ": " in sample else ":")
    if not members:
        inner_indent = _line_indent(text, parent_span.start) + _indent_unit(doc)
        nl = _newline(text)
        closing_indent = _line_indent(text, parent_span.start)
        body = f"{nl}{inner_indent}{name}{_serialize(doc, value, inner_indent)}{nl}{closing_indent}"
        return text[: parent_span.start + 1] + body + text[parent_span.end - 1:]
    first = members[0][1]
    multiline = any(c in text[parent_span.start: first.key_start] for c in "\r\n")
    indent = _line_indent(text, first.key_start if first.key_start is not None else first.start) if multiline else ""
    separator = "," + (_newline(text) + indent if multiline else " ")
    member = name + _serialize(doc, value, indent)
    keys = [k for k, _ in members]
    position = len(members)
    if keys == sorted(keys) and len(keys) > 1:
        position = sum(1 for k in keys if k < key)
    if position == 0:
        return text[: first.key_start] + member + separator + text[first.key_start:]
    after = members[position - 1][1]
    return text[: after.end] + separator + member + text[after.end:]


def _remove(doc: Document, pointer: str) -> str:
    text = doc.text
    span = doc.spans.get(pointer)
    if span is None or span.key_start is None:
        raise EditError(f"cannot remove {pointer}: no such member")
    parent = pointer.rpartition("/")[0]
    members = [s for _, s in _children(doc, parent) if s.key_start is not None]
    index = members.index(span)
    if index > 0:
        return text[: members[index - 1].end] + text[span.end:]
    if len(members) > 1:
        return text[: span.key_start] + text[members[1].key_start:]
    parent_span = doc.spans[parent]
    return text[: parent_span.start + 1] + text[parent_span.end - 1:]


def write_atomic(path: Path, data: bytes) -> None:
    """Replace path's content with data, so that a crash leaves the old file or the new one, never a mix."""
    mode = stat.S_IMODE(path.stat().st_mode)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    try:
        dir_fd = os.open(path.parent, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)

