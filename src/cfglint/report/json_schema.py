"""`cfglint schema CONSUMER`: a runtime's profile (a pydantic model of what it reads) as JSON Schema."""

from __future__ import annotations

import json

from cfglint import consumers
from cfglint.errors import UsageError

DIALECT = "https://json-schema.org/draft/2020-12/schema"
# What a JSON Schema validator cannot see: it validates the parsed value, after the JSON parser has already
# kept the last of two duplicate keys and (in Python) accepted NaN and Infinity.
LIMITS = (
    "Not expressible in JSON Schema: duplicate keys and NaN/Infinity literals (check them with `cfglint check`, "
    "rules J002 and J003); integers written as 1.0 pass `type: integer` here, and integers pass `type: number` "
    "where a runtime's float refuses them (transformers 5's strict dataclass: use `cfglint check`)."
)


def consumer_schema(name: str, family: str | None = None) -> str:
    name = consumers.canonical(name)
    if name not in consumers.names():
        raise UsageError(f"unknown consumer {name!r} (known: {', '.join(consumers.names())})")
    consumer = consumers.get(name)
    title, source = consumer.title, consumer.source
    model = getattr(consumer, "schema", None)
    if family not in (None, "llama"):
        from cfglint import knowledge
        from cfglint.readers.schema import model_of

        entry = knowledge.entry(name, family)
        if entry is None:
            raise UsageError(f"{name} has no {family!r} entry (families: {', '.join(sorted(knowledge.entries(name)))})")
        model = model_of(entry)
        title, source = entry.title, str(entry.source)
    if model is None:
        raise UsageError(f"consumer {name!r} has no schema")
    body = model.model_json_schema()
    schema = {
        "$schema": DIALECT,
        "$comment": f"{name}: {title}; source: {source}. {LIMITS}",
        **body,
    }
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"
