"""Read one Hub repository through huggingface_hub, the way huggingface_hub reads it for transformers.

config.json and generation_config.json go through `hf_hub_download` and its cache (so HF_HUB_OFFLINE,
HF_HOME / HF_HUB_CACHE, HF_ENDPOINT, the timeouts and the user's token all apply as they do there);
safetensors headers come from `HfApi.parse_safetensors_file_metadata`, which fetches the first bytes of
each file by HTTP range request and never the tensors. Every file after config.json is read at the
commit config.json came from, so a push in the middle of a check cannot mix two versions.

A repository that cannot be read is a Note for rule H001, never an exception: network libraries raise
a wide family of errors, so the calls that touch the network are guarded broadly.
"""

from __future__ import annotations

import json
from pathlib import Path

from huggingface_hub import HfApi, constants, hf_hub_download, try_to_load_from_cache
from huggingface_hub.errors import (
    EntryNotFoundError,
    GatedRepoError,
    HfHubHTTPError,
    LocalEntryNotFoundError,
    RepositoryNotFoundError,
    RevisionNotFoundError,
    SafetensorsParsingError,
)
from huggingface_hub.utils import disable_progress_bars

from cfglint.generation import FILENAME as GENERATION
from cfglint.hub import checkpoint
from cfglint.hub.refs import RepoRef
from cfglint.hub.remote import INFO, Checkout, Note, Remote
from cfglint.weights import INDEX, Weights
from cfglint.weights.header import Header, parse_header

CONFIG = "config.json"

# cfglint draws its own progress line; a bar per small file would bury it.
disable_progress_bars()


def fetch(ref: RepoRef) -> Checkout:
    remote = Remote(ref, cached=constants.HF_HUB_OFFLINE)
    try:
        config = Path(hf_hub_download(ref.repo_id, CONFIG, revision=ref.revision))
    except Exception as err:  # noqa: BLE001 - any failure is this repository's finding
        ggufs = _gguf_files(remote) if isinstance(err, EntryNotFoundError) and not isinstance(err, LocalEntryNotFoundError) else None
        if ggufs is not None:
            return ggufs
        remote.notes.append(Note(explain(err, ref, CONFIG)))
        return Checkout(remote)
    remote.commit = config.parent.name  # hf_hub_download returns snapshots/<commit>/config.json
    _generation(remote)
    weights = _cached_weights(remote, config.parent) if remote.cached else _hub_weights(remote, config.parent)
    return Checkout(remote, config, weights)


def _gguf_files(remote: Remote) -> Checkout | None:
    """No config.json: a repository of GGUF files is checked by their headers instead (None when it has none)."""
    from cfglint.gguf import gguf_available
    from cfglint.hub.gguf_files import gguf_checkout

    if not gguf_available():
        return None
    try:
        return gguf_checkout(remote)
    except Exception as err:  # noqa: BLE001
        remote.notes.append(Note(explain(err, remote.ref, "the GGUF files")))
        return Checkout(remote)


def _generation(remote: Remote) -> None:
    """Put generation_config.json beside config.json in the snapshot, where cfglint.generation reads it."""
    ref, commit = remote.ref, remote.commit
    if remote.cached:
        if try_to_load_from_cache(ref.repo_id, GENERATION, revision=commit) is None:  # neither cached nor known absent
            remote.notes.append(Note(f"{GENERATION} is not in the local cache (HF_HUB_OFFLINE is set): generation settings were read from config.json alone", INFO))
        return
    try:
        hf_hub_download(ref.repo_id, GENERATION, revision=commit)
    except EntryNotFoundError:
        pass  # the repository has none: transformers then reads them from config.json, and so does cfglint
    except Exception as err:  # noqa: BLE001
        remote.notes.append(Note(f"{explain(err, ref, GENERATION)}; generation settings were read from config.json alone"))


def _cached_weights(remote: Remote, snapshot: Path) -> Weights | None:
    weights = checkpoint.cached(snapshot)
    if weights is None:
        remote.notes.append(Note("the weights are not in the local cache (HF_HUB_OFFLINE is set): the config was not checked against them", INFO))
    return weights


def _hub_weights(remote: Remote, snapshot: Path) -> Weights | None:
    ref, commit = remote.ref, remote.commit
    api = HfApi()

    def read_index() -> bytes:
        return Path(hf_hub_download(ref.repo_id, INDEX, revision=commit)).read_bytes()

    def read_header(name: str) -> Header:
        try:
            metadata = api.parse_safetensors_file_metadata(ref.repo_id, name, revision=commit, timeout=constants.HF_HUB_DOWNLOAD_TIMEOUT)
        except HfHubHTTPError:
            raise  # the Hub's answer, not the file's content (BadRequestError is also a ValueError)
        except (SafetensorsParsingError, TypeError, ValueError) as err:  # malformed entries raise the latter two
            return Header(problems=[f"header as served by the Hub is not a safetensors header: {_first_line(err)}"], readable=False)
        return header_of(metadata)

    try:
        info = api.model_info(ref.repo_id, revision=commit, timeout=constants.HF_HUB_DOWNLOAD_TIMEOUT)
        names = {s.rfilename for s in info.siblings or [] if "/" not in s.rfilename}
        return checkpoint.assemble(snapshot, names, read_index, read_header)
    except Exception as err:  # noqa: BLE001
        remote.notes.append(Note(f"{explain(err, ref, 'the weights')}; the config was not checked against them"))
        return None


def header_of(metadata) -> Header:
    """huggingface_hub's parsed header, checked by cfglint's own header rules.

    The API returns tensors, not the file size, so the data area is taken to end where the last tensor
    does: byte counts, overlaps and gaps are checked; a file cut short on the Hub is not.
    """
    entries = {
        name: {"dtype": t.dtype, "shape": list(t.shape), "data_offsets": list(t.data_offsets)}
        for name, t in metadata.tensors.items()
    }
    ends = [e["data_offsets"][-1] for e in entries.values() if e["data_offsets"] and type(e["data_offsets"][-1]) is int]
    return parse_header(json.dumps(entries).encode("utf-8"), max(ends, default=0))


def explain(err: Exception, ref: RepoRef, what: str) -> str:
    """One line on why `what` could not be read from the repository."""
    where = f"revision {ref.revision!r}"
    if isinstance(err, GatedRepoError):
        status = _status(err)
        if status == 403:
            return f"{ref.repo_id} is gated and the token sent has not been granted access (HTTP 403); request access on its Hub page"
        return f"{ref.repo_id} is gated (HTTP {status}): request access on its Hub page, then log in (`hf auth login`) or set HF_TOKEN"
    if isinstance(err, RevisionNotFoundError):
        return f"{ref.repo_id} has no {where} (HTTP {_status(err)})"
    if isinstance(err, RepositoryNotFoundError):
        return f"{ref.repo_id} not found (HTTP {_status(err)}): no such model repository, or it is private and the token sent has no access"
    if isinstance(err, LocalEntryNotFoundError):
        if constants.HF_HUB_OFFLINE:
            return f"{what} at {where} is not in the local cache, and HF_HUB_OFFLINE is set"
        cause = err.__cause__ or err.__context__
        reason = _first_line(cause) if cause is not None else "the Hub could not be reached"
        return f"{what} at {where} could not be fetched ({_transport(cause, reason)}) and is not in the local cache"
    if isinstance(err, EntryNotFoundError):
        return f"no {what} in {ref.repo_id} at {where}"
    if isinstance(err, HfHubHTTPError):
        detail = getattr(err, "server_message", None) or _first_line(err)  # the Hub's own words, when it sent some
        return f"{what}: the Hub answered HTTP {_status(err)}: {_first_line(Exception(detail))}"
    return f"{what} could not be fetched: {_transport(err, _first_line(err))}"


def _transport(err: BaseException | None, reason: str) -> str:
    name = type(err).__name__ if err is not None else ""
    if "Timeout" in name:
        detail = "" if "timed out" in reason.lower() else f": {reason}"
        return f"timed out{detail} (the limits are HF_HUB_ETAG_TIMEOUT and HF_HUB_DOWNLOAD_TIMEOUT, in seconds)"
    return f"{name}: {reason}" if name and name not in reason else reason


def _status(err: Exception) -> int | None:
    response = getattr(err, "response", None)
    return getattr(response, "status_code", None)


def _first_line(err: BaseException) -> str:
    lines = [line.strip() for line in str(err).splitlines() if line.strip()]
    return lines[0] if lines else type(err).__name__
