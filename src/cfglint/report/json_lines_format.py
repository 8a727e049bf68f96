"""One JSON object per line (the `json` format's objects): streams and appends well, greps well."""

from __future__ import annotations

import json


def render(diagnostics, docs, style, rules=None) -> str:
    return "".join(json.dumps(d.to_json(), ensure_ascii=False) + "\n" for d in diagnostics)
