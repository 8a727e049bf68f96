"""A JSON list of findings: the contract scripts rely on."""

from __future__ import annotations

import json


def render(diagnostics, docs, style, rules=None) -> str:
    return json.dumps([d.to_json() for d in diagnostics], indent=2, ensure_ascii=False) + "\n"
