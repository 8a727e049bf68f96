""".gitignore patterns as git matches them (the cases `git check-ignore` answers the same way)."""

from __future__ import annotations

import pytest

from cfglint import gitignore

BASE = "/repo"


@pytest.mark.parametrize(
    "pattern, path, is_dir, expected",
    [
        ("out", "a/b/out", True, True),  # no slash: a name at any depth
        ("out/", "a/out", False, None),  # a trailing slash: folders only
        ("/out", "a/out", True, None),  # a leading slash: this folder only
        ("/out", "out", True, True),
        ("a/out", "x/a/out", True, None),  # a slash in the middle anchors too
        ("**/out", "x/y/out", True, True),
        ("a/**/b", "a/b", True, True),
        ("a/**/b", "a/x/y/b", True, True),
        ("a/**", "a/x", True, True),
        ("*.bak", "m/config.json.bak", False, True),
        ("m*", "x/model", True, True),
        ("m?", "m1/x", True, None),  # * and ? never cross a folder
        ("[ab]x", "bx", True, True),
        ("\\!keep", "!keep", True, True),  # an escaped ! is a name, not a negation
        ("\\#x", "#x", True, True),
        ("# comment", "# comment", True, None),
        ("trail   ", "trail", True, True),  # unescaped trailing spaces are dropped
        ("sp\\ ", "sp ", True, True),
    ],
)
def test_one_pattern(pattern, path, is_dir, expected):
    assert gitignore.parse(pattern + "\n", BASE).verdict(f"{BASE}/{path}", is_dir) is expected


def test_the_last_match_wins_and_deeper_files_speak_first():
    top = gitignore.parse("*.json\n!config.json\n", BASE)
    assert gitignore.ignored((top,), f"{BASE}/m/config.json", False) is False
    assert gitignore.ignored((top,), f"{BASE}/m/other.json", False) is True
    deeper = gitignore.parse("config.json\n", f"{BASE}/m")
    assert gitignore.ignored((top, deeper), f"{BASE}/m/config.json", False) is True
    assert gitignore.ignored((top, deeper), f"{BASE}/n/config.json", False) is False
