"""Which command-line targets name a Hugging Face Hub model repository, and at which revision.

Accepted: `org/name`, `org/name@revision`, and the `hf://org/name[@revision][/config.json]` form that
cfglint prints (revisions with a slash are written percent-encoded there, as HfFileSystem does). A bare
`org/name` counts only when no such path exists here, and when its first part is not a local directory
either: `samples/typo` stays a missing local path, not a network request.
"""

from __future__ import annotations

import os
import re
from typing import NamedTuple
from urllib.parse import quote, unquote

DEFAULT_REVISION = "main"
SCHEME = "hf://"

# huggingface_hub's REPO_ID_REGEX with the namespace required: ASCII word characters, '-' and '.',
# not starting or ending with '-' or '.', at most 96 characters per part.
_PART = r"(?![-.])[A-Za-z0-9_.\-]{1,96}(?<![-.])"
_REPO_ID = re.compile(rf"{_PART}/{_PART}")


class RepoRef(NamedTuple):
    repo_id: str
    revision: str

    @property
    def url(self) -> str:
        """hf://org/name@revision, the prefix of every display path cfglint prints for this repository."""
        return f"{SCHEME}{self.repo_id}@{quote(self.revision, safe='')}"


def valid_repo_id(text: str) -> bool:
    return _REPO_ID.fullmatch(text) is not None and "--" not in text and ".." not in text and not text.endswith(".git")


def parse(arg: str, revision: str | None = None) -> RepoRef | None:
    """The repository an argument names, or None when it is a local path."""
    explicit = arg.startswith(SCHEME)
    text = arg[len(SCHEME):] if explicit else arg
    if explicit and text.endswith("/config.json"):
        text = text[: -len("/config.json")]
    repo_id, at, inline = text.partition("@")
    if not valid_repo_id(repo_id) or (at and not inline):
        return None
    if not explicit and _is_local(arg, repo_id):
        return None
    chosen = (unquote(inline) if explicit else inline) if at else (revision or DEFAULT_REVISION)
    return RepoRef(repo_id, chosen)


def _is_local(arg: str, repo_id: str) -> bool:
    return os.path.lexists(arg) or os.path.isdir(repo_id.split("/", 1)[0])
