"""Command-line paths -> the config.json files to read."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path


class TargetError(Exception):
    """A path that cannot be checked; the message is one line, naming the path."""


class NoConfigHere(TargetError):
    """A folder without config.json: on the command line, it stands for the model directories below it."""


Located = tuple[Path, os.stat_result]  # a config file, and its stat


def resolve(arg: str) -> Path:
    return located(arg)[0]


def located(arg: str) -> Located:
    """The config file an argument names, and its stat (which also identifies it). A model directory (an
    argument not named like a file) is tried first as the folder holding config.json: one stat."""
    if not arg.endswith((".json", ".gguf")):
        inside = os.path.join(arg, "config.json")
        try:
            held = os.stat(inside)
        except (OSError, ValueError):
            pass  # not such a folder: worded below
        else:
            if stat.S_ISREG(held.st_mode):
                return Path(inside), held
    path = Path(arg)
    try:
        info = _stat(path)
        if info is None:
            raise TargetError(f"{arg}: no such file or directory")
        if stat.S_ISDIR(info.st_mode):
            path = path / "config.json"
            info = _stat(path)
            if info is None:
                raise NoConfigHere(f"{arg}: no config.json in this directory")
        elif path.name == "generation_config.json":
            # It is read together with the config.json beside it (pre-commit hands over either file).
            path = path.parent / "config.json"
            info = _stat(path)
            if info is None:
                raise TargetError(f"{arg}: no config.json beside it")
        if stat.S_ISDIR(info.st_mode):
            raise TargetError(f"{path}: is a directory, not a config file")
        if not stat.S_ISREG(info.st_mode):  # a pipe or a device: reading it may never end
            raise TargetError(f"{path}: not a regular file")
    except PermissionError:
        raise TargetError(f"{arg}: permission denied") from None
    return path, info


_ABSENT = {errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP}  # what pathlib's exists() answers False to


def _stat(path: Path) -> os.stat_result | None:
    """None where pathlib's exists() says False; any other OSError (permission denied) propagates."""
    try:
        return os.stat(path)
    except OSError as err:
        if err.errno in _ABSENT:
            return None
        raise
    except ValueError:  # a name the file system cannot encode
        return None


def is_cache_blob(path: Path) -> bool:
    """A file of the Hugging Face cache's content-addressed store (`models--org--name/blobs/HASH`), which
    every snapshot holding the same bytes links to: writing it would change them all and break its name."""
    parent = path.parent
    return parent.name == "blobs" and parent.parent.name.startswith(("models--", "datasets--", "spaces--"))


def read_list(path: str) -> list[str]:
    """`--targets-file`: one target per line (a path or a Hub repository id); blank lines and # comments skipped."""
    try:
        with open(path, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except (OSError, UnicodeDecodeError) as err:
        raise TargetError(f"{path}: cannot read the targets file: {getattr(err, 'strerror', None) or err}") from None
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]
