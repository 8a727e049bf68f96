"""Where a config came from when it is not a local directory: a Hub repository, fetched or cached.

Standard library only (rules and the session import it); the network code lives in `fetch`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from cfglint.hub.refs import RepoRef

if TYPE_CHECKING:
    from cfglint.gguf.header import GgufHeader  # imports the gguf package: typing only
    from cfglint.weights import Weights

ERROR, INFO = "error", "info"


@dataclass(frozen=True)
class Note:
    """Something about the repository that cfglint could not read (error) or did not check (info)."""

    message: str
    severity: str = ERROR


@dataclass
class Remote:
    ref: RepoRef
    commit: str | None = None  # the commit the files were read at; None when nothing could be read
    cached: bool = False  # read from the local cache (offline, or --hf-cache) rather than the Hub
    notes: list[Note] = field(default_factory=list)
    readable: bool = True  # False when config.json itself could not be read: nothing was checked

    @property
    def display(self) -> str:
        return f"{self.ref.url}/config.json"

    def to_json(self) -> dict:
        """The fields a JSON report adds to each finding about this repository."""
        return {"repo": self.ref.repo_id, "revision": self.ref.revision, "commit": self.commit}


@dataclass
class HubGguf:
    """One GGUF file of a repository: its header read by range requests (never the tensors), or why not."""

    name: str
    header: GgufHeader | None = None
    problem: str | None = None  # why the header is unreadable (a finding of the file, like a local one's)
    fetched: int = 0  # bytes of the file that were read


@dataclass
class Checkout:
    """A repository's config.json on disk (in the Hugging Face cache), ready to lint like a local file;
    or, for a repository of GGUF files without a config.json, their headers."""

    remote: Remote
    config: Path | None = None  # None when the repository could not be read
    weights: Weights | None = None  # from the Hub's safetensors headers, or the cached snapshot's files
    ggufs: list[HubGguf] = field(default_factory=list)
    base_model: str | None = None  # the model card's base_model: where the GGUFs' source config is looked for

    @property
    def display(self) -> str:
        return self.remote.display
