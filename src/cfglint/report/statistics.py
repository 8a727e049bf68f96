"""`check --statistics`: how many findings each rule produced, most frequent first."""

from __future__ import annotations

import json
from collections import Counter

from cfglint.diagnostics import Applicability
from cfglint.report.full_format import headline


def render_statistics(diagnostics, *, as_json: bool, unreadable: int = 0) -> str:
    counts = Counter(d.code for d in diagnostics)
    fixable = {d.code for d in diagnostics if d.fix and d.fix.applicability is Applicability.SAFE}
    names = {d.code: d.name for d in diagnostics}
    rows = [
        {"code": code, "name": names[code], "count": count, "fixable": code in fixable}
        for code, count in sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    ]
    if as_json:
        return json.dumps(rows, indent=2) + "\n"
    width = max((len(str(r["count"])) for r in rows), default=1)
    lines = [f"{r['count']:>{width}}  {r['code']}  {'[*]' if r['fixable'] else '   '} {r['name']}" for r in rows]
    total = sum(counts.values())
    lines.append(headline(total, unreadable))
    return "\n".join(lines) + "\n"
