"""Configuration: `[tool.cfglint]` in pyproject.toml, or a `.cfglint.toml`, found from the checked file upwards.

Every key is optional:
  runtimes       the runtimes to check (default: all); `consumers` is its older name
  select         rule codes or prefixes to run ("ALL", the default, is every rule)
  extend-select  more codes or prefixes on top of select
  ignore         codes or prefixes not to run; between select and ignore the more specific entry wins (ruff's rule)
  severity       a table {code or prefix = "error" | "warning" | "info"}
  plugins        true (every installed `cfglint.rules` entry point) or a list of entry-point names
  suppress       entries {path = glob, pointer = JSON Pointer (optional), codes = [...], reason = "..."}
  exclude        globs of folders a tree search skips (a name without `/` matches at any depth)

JSON has no comments, so a suppression lives here, next to the reason a reviewer needs to accept it.
Reading settings imports nothing heavy: `cfglint check` stays fast.
"""

from __future__ import annotations

import os
import re
import sys
from types import MappingProxyType
from functools import lru_cache
from pathlib import Path
from typing import Any, Collection, Mapping, NamedTuple

from cfglint.errors import UsageError

FILE_NAME = ".cfglint.toml"
PYPROJECT = "pyproject.toml"
KEYS = ("runtimes", "consumers", "select", "extend-select", "ignore", "severity", "plugins", "suppress", "exclude")
SUPPRESS_KEYS = ("path", "pointer", "codes", "reason")
SEVERITIES = ("error", "warning", "info")
ALL = "ALL"
_SELECTOR = re.compile(r"[A-Z]+[0-9]*")


class Suppression(NamedTuple):
    """Findings of `codes` at `pointer` (or anywhere, without one) in files matching `path` are not reported."""

    path: str
    codes: tuple[str, ...]
    reason: str
    pointer: str | None = None
    origin: str = ""  # where it is written, for messages: "pyproject.toml suppress #2"
    root: Path = Path(".")  # globs are relative to the configuration file's directory

    def matches_file(self, config_path: Path) -> bool:
        """True when the glob names the config file or its model directory."""
        pattern = glob_regex(self.path.rstrip("/"))
        absolute = Path(os.path.abspath(config_path))
        candidates = []
        for target in (absolute, absolute.parent):
            relative = os.path.relpath(target, os.path.abspath(self.root))
            candidates.append(target.as_posix() if relative.startswith("..") else Path(relative).as_posix())
        return any(pattern.fullmatch(c) for c in candidates)

    def names(self, code: str) -> bool:
        return any(c == ALL or code.startswith(c) for c in self.codes)

    def covers(self, code: str, pointer: str) -> bool:
        if not self.names(code):
            return False
        return self.pointer is None or pointer == self.pointer or pointer.startswith(self.pointer + "/")


class Settings(NamedTuple):
    source: Path | None = None  # None: no configuration file (defaults, or --isolated)
    consumers: tuple[str, ...] | None = None
    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    severity: Mapping[str, str] = MappingProxyType({})
    plugins: bool | tuple[str, ...] = False
    suppress: tuple[Suppression, ...] = ()
    exclude: tuple[str, ...] = ()

    def excludes(self, directory: Path) -> bool:
        """True when an `exclude` glob names this folder (relative to the configuration file's folder) or,
        for a glob without `/`, its name."""
        if not self.exclude:
            return False
        absolute = os.path.abspath(directory)
        relative = os.path.relpath(absolute, os.path.abspath(self.source.parent if self.source else "."))
        shown = Path(absolute if relative.startswith("..") else relative).as_posix()
        for pattern in self.exclude:
            bare = pattern.strip("/")
            subject = os.path.basename(absolute) if "/" not in bare else shown
            if glob_regex(bare.removeprefix("./")).fullmatch(subject):
                return True
        return False

    def selectors(self) -> dict[str, tuple[str, ...]]:
        """Every code or prefix the settings name, by the key that names it."""
        return {
            "select": self.select or (),
            "extend-select": self.extend_select,
            "ignore": self.ignore,
            "severity": tuple(self.severity),
            "suppress": tuple(c for s in self.suppress for c in s.codes),
        }


DEFAULT = Settings()


def read(path: Path) -> Settings:
    """Settings from an explicit file: pyproject.toml's [tool.cfglint] table, or any other TOML file whole."""
    data = _load_toml(path)
    if path.name == PYPROJECT:
        table = data.get("tool", {}).get("cfglint")
        if table is None:
            raise UsageError(f"{path}: no [tool.cfglint] table")
        return parse(table, path, "[tool.cfglint]")
    return parse(data, path, path.name)


def parse(table: Any, source: Path, where: str) -> Settings:
    if not isinstance(table, dict):
        raise UsageError(f"{source}: {where} must be a table")
    unknown = [k for k in table if k not in KEYS]
    if unknown:
        raise UsageError(f"{source}: unknown key{_s(unknown)} {_quoted(unknown)} in {where} (known: {', '.join(KEYS)})")
    strings = lambda key: _strings(table, key, source)  # noqa: E731
    severity = table.get("severity", {})
    if not isinstance(severity, dict) or any(v not in SEVERITIES for v in severity.values()):
        raise UsageError(f"{source}: severity must be a table of code = \"error\" | \"warning\" | \"info\"")
    plugins = table.get("plugins", False)
    if isinstance(plugins, list):
        plugins = strings("plugins")
    elif not isinstance(plugins, bool):
        raise UsageError(f"{source}: plugins must be true, false or a list of plugin names")
    suppress = table.get("suppress", [])
    if not isinstance(suppress, list):
        raise UsageError(f"{source}: suppress must be an array of tables ([[suppress]] entries)")
    if "runtimes" in table and "consumers" in table:
        raise UsageError(f"{source}: runtimes and consumers are one key under two names: keep runtimes")
    runtimes = "runtimes" if "runtimes" in table else "consumers"
    if runtimes in table and not strings(runtimes):
        raise UsageError(f"{source}: {runtimes} must name at least one runtime (leave it out to check all)")
    return Settings(
        source=source,
        consumers=strings(runtimes) if runtimes in table else None,
        select=strings("select") if "select" in table else None,
        extend_select=strings("extend-select"),
        ignore=strings("ignore"),
        severity={str(k): v for k, v in severity.items()},
        plugins=plugins,
        suppress=tuple(_suppression(entry, i, source) for i, entry in enumerate(suppress, 1)),
        exclude=strings("exclude"),
    )


def _suppression(entry: Any, number: int, source: Path) -> Suppression:
    shown = os.path.relpath(source)
    origin = f"{source if shown.startswith('..') else shown} suppress #{number}"
    if not isinstance(entry, dict):
        raise UsageError(f"{source}: suppress #{number} must be a table")
    unknown = [k for k in entry if k not in SUPPRESS_KEYS]
    if unknown:
        raise UsageError(f"{source}: unknown key{_s(unknown)} {_quoted(unknown)} in suppress #{number} (known: {', '.join(SUPPRESS_KEYS)})")
    path, reason, pointer, codes = entry.get("path"), entry.get("reason"), entry.get("pointer"), entry.get("codes")
    if not isinstance(path, str) or not path:
        raise UsageError(f"{source}: suppress #{number} needs a path (a glob such as \"models/*/config.json\")")
    if not isinstance(reason, str) or not reason.strip():
        raise UsageError(f"{source}: suppress #{number} needs a reason")
    if pointer is not None and (not isinstance(pointer, str) or (pointer and not pointer.startswith("/"))):
        raise UsageError(f"{source}: suppress #{number}: pointer must be a JSON Pointer such as \"/rope_scaling\"")
    if not isinstance(codes, list) or not codes or not all(isinstance(c, str) for c in codes):
        raise UsageError(f"{source}: suppress #{number} needs codes (a non-empty list of rule codes or prefixes)")
    return Suppression(path, tuple(codes), reason.strip(), pointer, origin, source.parent)


def _strings(table: dict, key: str, source: Path) -> tuple[str, ...]:
    value = table.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise UsageError(f"{source}: {key} must be a list of strings")
    return tuple(value)


def _read_bytes(path: Path) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError as err:
        raise UsageError(f"{path}: {err.strerror or err}") from None


def _load_toml(path: Path, raw: bytes | None = None) -> dict:
    # Imported here: most runs find no configuration file to parse.
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # Python 3.10: the same parser, as a package (a conditional dependency)
        import tomli as tomllib
    raw = _read_bytes(path) if raw is None else raw
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except tomllib.TOMLDecodeError as err:
        raise UsageError(f"{path}: invalid TOML: {err}") from None
    except UnicodeDecodeError:
        raise UsageError(f"{path}: invalid TOML: not valid UTF-8") from None
    except RecursionError:  # tomllib parses nested arrays and inline tables recursively
        raise UsageError(f"{path}: invalid TOML: nested too deeply") from None


class Finder:
    """The settings for each checked file: an explicit --config, none (--isolated), or the nearest file upwards."""

    def __init__(self, config: str | os.PathLike[str] | None = None, isolated: bool = False, explicit: Settings | None = None):
        if (config or explicit) and isolated:
            raise UsageError("--config and --isolated cannot be used together")
        self.isolated = isolated
        self.explicit = read(Path(config)) if config else explicit
        self._by_directory: dict[str, Settings] = {}  # absolute folder names: cheaper to hash than Paths

    def for_file(self, path: Path, listing: Collection[str] | None = None) -> Settings:
        """`listing`: the names of the files in the file's own folder, when the caller has them."""
        if self.isolated:
            return DEFAULT
        if self.explicit is not None:
            return self.explicit
        return self._discover(os.path.dirname(os.path.abspath(path)), listing)

    def _discover(self, directory: str, listing: Collection[str] | None = None) -> Settings:
        visited = []
        found = DEFAULT
        candidate = directory
        while True:  # up to the root, one parent at a time: most walks stop at a folder already seen
            if candidate in self._by_directory:
                found = self._by_directory[candidate]
                break
            visited.append(candidate)
            if candidate is directory and listing is not None and FILE_NAME not in listing and PYPROJECT not in listing:
                here = None  # a model directory without settings files: no need to look
            else:
                here = _settings_in(Path(candidate))
            if here is not None:
                found = here
                break
            parent = os.path.dirname(candidate)
            if parent == candidate:
                break
            candidate = parent
        for candidate in visited:
            self._by_directory[candidate] = found
        return found


# Where TOML can open the tool.cfglint table: a [tool.cfglint...] header, a tool.cfglint dotted key, an inline
# `tool = {cfglint = ...}`, or a cfglint key under a bare [tool] header. A file none of these match cannot
# configure cfglint (short of unicode escapes in a quoted key), so it is not parsed: a plain check then
# never imports the TOML parser, and a broken pyproject.toml of someone else's tools is none of its business.
_TOOL, _CFGLINT = rb"""["']?tool["']?""", rb"""["']?cfglint["']?"""
_TABLE = rb"(?m)^[ \t]*\[\[?[ \t]*" + _TOOL + rb"[ \t]*\.[ \t]*" + _CFGLINT + rb"[ \t\r]*(?:[.\]]|$)"  # a broken header too
_DOTTED = rb"(?m)^[ \t]*" + _TOOL + rb"[ \t]*\.[ \t]*" + _CFGLINT + rb"[ \t]*[.=]"
_INLINE = rb"(?m)^[ \t]*" + _TOOL + rb"[ \t]*=[ \t]*\{.*cfglint"
_BARE_TOOL = rb"(?m)^[ \t]*\[[ \t]*" + _TOOL + rb"[ \t]*\]"
_KEY = rb"(?m)^[ \t]*" + _CFGLINT + rb"[ \t]*[.=]"


def _may_configure_cfglint(raw: bytes) -> bool:
    """Compiled only for a file that names cfglint at all (re caches them)."""
    if b"cfglint" not in raw:
        return False
    if any(re.search(pattern, raw) for pattern in (_TABLE, _DOTTED, _INLINE)):
        return True
    return re.search(_BARE_TOOL, raw) is not None and re.search(_KEY, raw) is not None


def _settings_in(directory: Path) -> Settings | None:
    """A directory's own settings: .cfglint.toml first, then a pyproject.toml that has [tool.cfglint]."""
    dedicated = directory / FILE_NAME
    if dedicated.is_file():
        return parse(_load_toml(dedicated), dedicated, FILE_NAME)
    pyproject = directory / PYPROJECT
    if pyproject.is_file():
        raw = _read_bytes(pyproject)
        if not _may_configure_cfglint(raw):  # a project's own pyproject.toml, not parsed at all
            return None
        tool = _load_toml(pyproject, raw).get("tool", {})
        if isinstance(tool, dict) and "cfglint" in tool:
            return parse(tool["cfglint"], pyproject, "[tool.cfglint]")
    return None


@lru_cache(maxsize=1024)
def glob_regex(pattern: str) -> re.Pattern[str]:
    """A path glob: `*` and `?` stay within one folder, `**` spans folders, `[...]` is a character class,
    a backslash makes the next character literal."""
    out, i = [], 0
    while i < len(pattern):
        if pattern[i] == "\\" and i + 1 < len(pattern):
            out.append(re.escape(pattern[i + 1]))
            i += 2
        elif pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[" and "]" in pattern[i + 2:]:
            end = pattern.index("]", i + 2)
            body = pattern[i + 1:end]
            negate = body.startswith("!")
            body = (body[1:] if negate else body).replace("\\", "\\\\")
            if body.startswith("^"):
                body = "\\" + body
            out.append("[" + ("^" if negate else "") + body + "]")
            i = end + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out))


def is_selector(text: str) -> bool:
    return text == ALL or _SELECTOR.fullmatch(text) is not None


def _quoted(names) -> str:
    return ", ".join(repr(n) for n in names)


def _s(items) -> str:
    return "s" if len(items) != 1 else ""
