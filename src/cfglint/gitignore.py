"""`.gitignore` files read as git reads them, so a tree search leaves out what the repository ignores.

Within one file the last matching pattern wins (`!` re-includes); a deeper file speaks before the ones
above it; a pattern with a `/` before its end is relative to its file's folder, one without matches a
name at any depth; a trailing `/` matches folders only. As in git, nothing inside an ignored folder is
looked at again, so a `!` cannot re-include it.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from cfglint.settings import glob_regex

FILE_NAME = ".gitignore"
_MAX_BYTES = 1 << 20  # a larger .gitignore is not a real one; it is read no further than this


@dataclass(frozen=True)
class Pattern:
    regex: re.Pattern[str]
    negated: bool
    folders_only: bool


@dataclass(frozen=True)
class IgnoreFile:
    base: str  # the absolute folder its patterns are relative to
    patterns: tuple[Pattern, ...]

    def verdict(self, absolute: str, is_dir: bool) -> bool | None:
        """True: ignored; False: re-included by a `!` pattern; None: no pattern here speaks of it."""
        relative = Path(os.path.relpath(absolute, self.base)).as_posix()
        if relative == ".." or relative.startswith("../"):
            return None  # a file speaks only of what is below its folder
        for pattern in reversed(self.patterns):
            if pattern.folders_only and not is_dir:
                continue
            if pattern.regex.fullmatch(relative):
                return not pattern.negated
        return None


def parse(text: str, base: str) -> IgnoreFile:
    return IgnoreFile(base, tuple(p for p in map(_pattern, text.splitlines()) if p is not None))


def read(folder: str, name: str = FILE_NAME, base: str | None = None) -> IgnoreFile | None:
    """The ignore file `name` in `folder` (patterns relative to `base`, default the folder), if it is there."""
    try:
        with open(os.path.join(folder, name), "rb") as handle:
            data = handle.read(_MAX_BYTES)
    except OSError:  # absent, a folder, or unreadable: git skips it too
        return None
    return parse(data.decode("utf-8", errors="replace"), base or folder)


def ignored(files: tuple[IgnoreFile, ...], absolute: str, is_dir: bool) -> bool:
    for ignore_file in reversed(files):
        verdict = ignore_file.verdict(absolute, is_dir)
        if verdict is not None:
            return verdict
    return False


def above(folder: str) -> tuple[IgnoreFile, ...]:
    """The ignore files that govern `folder` from above it: `.git/info/exclude` and each `.gitignore` from
    the repository's top down to the folder's parent. Outside a git repository, none."""
    chain = [folder]
    while not os.path.exists(os.path.join(chain[-1], ".git")):
        parent = os.path.dirname(chain[-1])
        if parent == chain[-1]:
            return ()
        chain.append(parent)
    top = chain[-1]
    found = [read(os.path.join(top, ".git", "info"), "exclude", base=top)]
    found += [read(directory) for directory in reversed(chain[1:])]
    return tuple(f for f in found if f is not None)


def _pattern(line: str) -> Pattern | None:
    if not line or line.startswith("#"):
        return None
    line = _without_trailing_spaces(line)
    negated = line.startswith("!")
    if negated:
        line = line[1:]
    folders_only = line.endswith("/")
    line = line.rstrip("/")
    if not line:
        return None
    anchored = "/" in line  # a slash at the start or in the middle ties the pattern to the file's folder
    body = glob_regex(line.lstrip("/")).pattern
    return Pattern(re.compile(body if anchored else "(?:.*/)?" + body), negated, folders_only)


def _without_trailing_spaces(line: str) -> str:
    stripped = line.rstrip(" ")
    if stripped.endswith("\\") and len(stripped) < len(line):
        return stripped + " "  # "\ " keeps one escaped space
    return stripped
