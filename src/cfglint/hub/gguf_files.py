"""A Hub repository of GGUF files (no config.json): each file's header, and the source model its card names.

The file list comes from the repository's model info, each header from range requests (gguf_range), the
source from the model card's `base_model` (README.md's YAML front matter, as the Hub reads it). Only the
first shard of a split GGUF (`-00001-of-0000N.gguf`) holds the metadata; the other shards and multimodal
projectors (`mmproj*.gguf`) are named in an info note and not read.
"""

from __future__ import annotations

import re
from pathlib import Path

from huggingface_hub import HfApi, constants, hf_hub_download
from huggingface_hub.errors import EntryNotFoundError
from huggingface_hub.repocard import metadata_load

from cfglint.hub import gguf_range
from cfglint.hub.remote import INFO, Checkout, HubGguf, Note, Remote

CARD = "README.md"
_SHARD = re.compile(r"-(\d{5})-of-(\d{5})\.gguf$", re.IGNORECASE)


def gguf_checkout(remote: Remote) -> Checkout | None:
    """The repository's GGUF headers, or None when it holds no GGUF file (then it simply lacks config.json)."""
    ref = remote.ref
    info = HfApi().model_info(ref.repo_id, revision=ref.revision, timeout=constants.HF_HUB_DOWNLOAD_TIMEOUT)
    names = sorted(s.rfilename for s in info.siblings or [] if s.rfilename.lower().endswith(".gguf"))
    if not names:
        return None
    commit = info.sha or ref.revision or "main"  # the Hub always answers a sha; the fallback is for typing
    remote.commit = commit
    read: list[str] = []
    skipped: list[str] = []
    for name in names:
        (skipped if _not_a_model_header(name) else read).append(name)
    if skipped:
        remote.notes.append(Note(f"not read (a later shard or a multimodal projector): {', '.join(skipped)}", INFO))
    checkout = Checkout(remote, base_model=base_model(ref.repo_id, commit))
    checkout.ggufs = [_header(ref.repo_id, name, commit) for name in read]
    return checkout


def _not_a_model_header(name: str) -> bool:
    shard = _SHARD.search(name)
    return Path(name).name.lower().startswith("mmproj") or (shard is not None and int(shard.group(1)) != 1)


def _header(repo_id: str, name: str, commit: str) -> HubGguf:
    from cfglint.gguf.header import GgufError, HeaderIncomplete

    try:
        header, fetched = gguf_range.read_header(repo_id, name, commit)
    except (GgufError, gguf_range.HeaderTooLarge) as err:
        return HubGguf(name, problem=str(err))
    except HeaderIncomplete as err:
        return HubGguf(name, problem=f"the file ends inside its header ({err})")
    return HubGguf(name, header=header, fetched=fetched)


def base_model(repo_id: str, commit: str) -> str | None:
    """The model card's base_model (the first, when it lists several), or None without a card or the key."""
    try:
        card = Path(hf_hub_download(repo_id, CARD, revision=commit))
    except EntryNotFoundError:
        return None
    try:
        value = (metadata_load(card) or {}).get("base_model")
    except Exception:  # noqa: BLE001 - a card whose front matter is not YAML names no source
        return None
    if isinstance(value, list):
        value = next((item for item in value if isinstance(item, str)), None)
    return value.strip() if isinstance(value, str) and value.strip() else None
