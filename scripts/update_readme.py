"""Regenerate the README sections that are computed from the code: the rule table and the compatibility
table. tests/test_readme.py fails when they are stale; run `python scripts/update_readme.py` to refresh."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from cfglint.compat import family_table, table  # noqa: E402
from cfglint.rule import load_builtin  # noqa: E402


def rule_table() -> str:
    rows = ["| code | name | severity | summary |", "|---|---|---|---|"]
    rows += [f"| `{r.code}` | {r.name} | {r.severity.value} | {r.summary} |" for r in load_builtin()]
    return "\n".join(rows) + "\n"


SECTIONS = {"rule-table": rule_table, "compat-table": table, "family-table": family_table}


def replace(text: str, name: str, body: str) -> str:
    start, end = f"<!-- {name}:start -->\n", f"<!-- {name}:end -->"
    head, rest = text.split(start, 1)
    return head + start + body + end + rest.split(end, 1)[1]


def current(text: str, name: str) -> str:
    start, end = f"<!-- {name}:start -->\n", f"<!-- {name}:end -->"
    return text.split(start, 1)[1].split(end, 1)[0]


def main() -> int:
    path = ROOT / "README.md"
    text = path.read_text()
    for name, build in SECTIONS.items():
        text = replace(text, name, build())
    path.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
