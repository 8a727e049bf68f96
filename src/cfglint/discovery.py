"""Tree search: the model directories under a folder that is not one itself, in a stable order.

A model directory is a folder holding one of MARKERS (or GGUF files); it is checked as a whole and not searched further.
Left out, as ruff leaves them out: hidden folders (`.git`, `.venv`, `.cache`), `node_modules`, Python's
caches, virtual environments (a folder with `pyvenv.cfg` or `conda-meta`), what `.gitignore` files ignore
(unless told not to) and what the settings `exclude`. A folder reached twice (through a symlink, or a
symlink loop) is searched once.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from cfglint import gitignore

MARKERS = ("config.json", "generation_config.json")
GGUF = ".gguf"  # a folder holding GGUF files (and no marker) is a model directory too
SKIPPED_NAMES = frozenset({"node_modules", "__pycache__", "__pypackages__"})
ENVIRONMENT_MARKERS = ("pyvenv.cfg", "conda-meta")


@dataclass
class Found:
    files: list[Path] = field(default_factory=list)  # each model directory's first marker, in sorted path order
    problems: list[str] = field(default_factory=list)  # folders that could not be listed, one line each


def model_directories(
    root: Path, *, respect_gitignore: bool = True, excluded: Callable[[Path], bool] = lambda folder: False,
) -> Found:
    found = Found()
    seen: set[tuple[int, int]] = set()
    start = gitignore.above(os.path.abspath(root)) if respect_gitignore else ()
    pending: list[tuple[Path, tuple[gitignore.IgnoreFile, ...]]] = [(root, start)]
    while pending:
        folder, ignores = pending.pop()
        try:
            info = folder.stat()
            if (info.st_dev, info.st_ino) in seen:
                continue
            seen.add((info.st_dev, info.st_ino))
            with os.scandir(folder) as listing:
                entries = sorted(listing, key=lambda entry: entry.name)
        except OSError as err:
            found.problems.append(f"{folder}: cannot be searched: {err.strerror or err}")
            continue
        absolute = os.path.abspath(folder)
        if respect_gitignore:
            here = gitignore.read(absolute)
            ignores = ignores + (here,) if here is not None else ignores
        names = {entry.name: entry for entry in entries}
        marker = next((m for m in MARKERS if _is_file(names.get(m)) and not gitignore.ignored(ignores, os.path.join(absolute, m), False)), None)
        if marker is not None:
            found.files.append(folder / marker)
            continue
        ggufs = [folder / n for n, e in names.items() if n.lower().endswith(GGUF) and _is_file(e) and not gitignore.ignored(ignores, os.path.join(absolute, n), False)]
        if ggufs:  # a folder of GGUF files without their config: each is checked on its own
            found.files += ggufs
            continue
        children = [
            folder / entry.name for entry in entries
            if _is_dir(entry) and not _skipped(entry) and not gitignore.ignored(ignores, os.path.join(absolute, entry.name), True)
        ]
        pending += [(child, ignores) for child in reversed(children) if not excluded(child)]
    return found


def _skipped(entry: os.DirEntry) -> bool:
    if entry.name.startswith(".") or entry.name in SKIPPED_NAMES:
        return True
    return any(os.path.exists(os.path.join(entry.path, m)) for m in ENVIRONMENT_MARKERS)


def _is_dir(entry: os.DirEntry) -> bool:
    try:
        return entry.is_dir()  # follows a symlink; the search remembers folders it has seen
    except OSError:
        return False


def _is_file(entry: os.DirEntry | None) -> bool:
    try:
        return entry is not None and entry.is_file()
    except OSError:
        return False
