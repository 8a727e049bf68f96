"""The README's rule table is the rules' own list, not a copy that drifts."""

import re

from cfglint.rule import load_builtin
from tests.conftest import ROOT


def test_rule_table_lists_every_rule_as_documented():
    text = (ROOT / "README.md").read_text()
    rows = re.findall(r"^\| `([A-Z]\d{3})` \| (\S+) \| (\w+) \| (.+) \|$", text, flags=re.M)
    expected = [(r.code, r.name, r.severity.value, r.summary) for r in load_builtin()]
    assert rows == expected


def test_readme_opens_with_the_two_commands_ci_runs():
    text = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text().strip().splitlines()[-1]
    assert ci in text
    assert "cfglint check samples/" in text.split("```")[1]


def test_compatibility_table_is_generated_from_the_profiles():
    from cfglint.compat import table

    text = (ROOT / "README.md").read_text()
    start, end = "<!-- compat-table:start -->\n", "<!-- compat-table:end -->"
    assert text[text.index(start) + len(start): text.index(end)] == table()
