"""`cfglint view FILE.gguf`: what llama.cpp runs from the header, each value with the key it came from."""

from __future__ import annotations

from typing import Any


def _plain(value: Any) -> Any:
    if hasattr(value, "to_list"):  # a lazy array (a hostile file's array where a number belongs)
        return f"array of {len(value)} {value.item_type.name.lower()}"
    return list(value) if isinstance(value, tuple) else value


def as_json(target) -> dict:
    if target.runs is None:
        return {"problem": target.problem}
    return {
        "architecture": target.runs.architecture,
        "config": str(target.against.path) if target.against is not None else None,
        "runs": {name: {"value": _plain(ran.value), "key": ran.key, "origin": ran.origin} for name, ran in target.runs.values.items()},
    }


def lines(display: str, target) -> list[str]:
    from cfglint.gguf.compare import shown

    if target.runs is None:
        return [f"{display}: llama.cpp refuses this file: {target.problem}"]
    rows = [("llama.cpp runs", "value", "from")]
    rows += [(name, shown(_plain(ran.value)), f"{ran.key} ({ran.origin})") for name, ran in target.runs.values.items()]
    widths = [max(len(row[i]) for row in rows) for i in range(2)]
    against = f", source config {target.against.path}" if target.against is not None else ""
    out = [f"{display} (GGUF, architecture {target.runs.architecture}{against})"]
    out += [f"{a.ljust(widths[0])}  {b.ljust(widths[1])}  {c}" for a, b, c in rows]
    return out
