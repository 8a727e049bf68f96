"""What the Python runtimes share: `json.load` reads the file (NaN allowed, the last duplicate wins, a
byte-order mark refused), and nothing checks types unless the runtime does."""

from __future__ import annotations

from typing import Any

from cfglint.consumers.base import Failure
from cfglint.document import Document
from cfglint.reading import DEFAULT, Reading

BOM_ERROR = "JSONDecodeError: Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)"


def unreadable(doc: Document) -> Failure | None:
    if doc.bom:
        return Failure(BOM_ERROR, "", "syntax")
    return None


def missing_arguments(struct: str, missing: list[str]) -> str:
    """The TypeError a dataclass raises when keys it requires are absent, worded as CPython words it
    (format_missing in ceval.c): 'a'; 'a' and 'b'; 'a', 'b', and 'c'."""
    quoted = [f"'{name}'" for name in missing]
    if len(quoted) <= 2:
        names = " and ".join(quoted)
    else:
        names = ", ".join(quoted[:-1]) + ", and " + quoted[-1]
    plural = "s" if len(missing) > 1 else ""
    return f"TypeError: {struct}.__init__() missing {len(missing)} required positional argument{plural}: {names}"


def take(reading: Reading, data: dict, key: str, default: Any) -> Any:
    """data[key] when present (even null: Python passes it on), else the runtime's default."""
    if key in data:
        reading.set(key, data[key], "/" + key)
    else:
        reading.set(key, default, DEFAULT)
    return reading.values[key]


def set_text(keys: set[str]) -> str:
    """A set as Python prints it, in sorted order: the runtime's own order changes with string hashing
    from one run to the next, and a report must not."""
    return "{" + ", ".join(repr(k) for k in sorted(keys)) + "}"
