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
        elif path.name == "generation_config.json":
            # It is read together with the config.json beside it (pre-commit hands over either file).
            config = path.parent / "config.json"
            if not config.exists():
                raise TargetError(f"{arg}: no config.json beside it")
            path = config
        if path.is_dir():
            raise TargetError(f"{path}: is a directory, not a config file")
    except PermissionError:
        raise TargetError(f"{arg}: permission denied") from None
    return path


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
