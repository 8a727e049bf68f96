"""Command-line paths -> the config.json files to read."""

from __future__ import annotations

from pathlib import Path


class TargetError(Exception):
    """A path that cannot be checked; the message is one line, naming the path."""


def resolve(arg: str) -> Path:
    path = Path(arg)
    try:
        if path.is_dir():
            config = path / "config.json"
            if not config.exists():
                raise TargetError(f"{arg}: no config.json in this directory")
            path = config
        elif not path.exists():
            raise TargetError(f"{arg}: no such file or directory")
        if path.is_dir():
            raise TargetError(f"{path}: is a directory, not a config file")
    except PermissionError:
        raise TargetError(f"{arg}: permission denied") from None
    return path
