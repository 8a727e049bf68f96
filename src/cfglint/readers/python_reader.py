"""The Python readers: a dataclass fed the keys it declares (mlx-lm), keyword arguments that keep every key
(transformers 4). json.load reads the file; nothing is type-checked; null passes through as None."""

from __future__ import annotations

from typing import Any

from cfglint.consumers.base import Failure, View
from cfglint.consumers.python_reader import missing_arguments, unreadable
from cfglint.document import Document
from cfglint.knowledge.entry import REQUIRED, Entry
from cfglint.readers.values import defaults, fill


def read(entry: Entry, doc: Document, intent: Any) -> View:
    view = View(consumer=entry.runtime)
    failure = unreadable(doc)
    if failure:
        return view.fail(failure)
    data = doc.data
    if entry.reader == "dataclass":
        missing = [k for k, f in entry.fields.items() if f.default is REQUIRED and k not in data]
        if missing:
            return view.fail(Failure(missing_arguments(entry.struct, missing), "/" + missing[0], "missing"))
        env = {**defaults(entry), **{k: v for k, v in data.items() if k in entry.fields}}
    else:  # kwargs: every key becomes an attribute
        env = {**defaults(entry), **data}
    present = {k for k in env if k in data and data[k] is not None}
    return fill(view, entry, env, present, data, intent)
