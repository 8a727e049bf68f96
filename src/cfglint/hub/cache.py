"""`--hf-cache`: every model snapshot in the local Hugging Face cache, read where it lies.

The cache is found and listed by huggingface_hub's `scan_cache_dir` (HF_HUB_CACHE, or HF_HOME/hub).
Nothing is downloaded and nothing in the cache is written: its files are symlinks into content-addressed
blobs that other snapshots share.
"""

from __future__ import annotations

import sys

from huggingface_hub import constants, scan_cache_dir
from huggingface_hub.errors import CacheNotFound

from cfglint.errors import UsageError
from cfglint.hub import checkpoint
from cfglint.hub.refs import RepoRef
from cfglint.hub.remote import Checkout, Remote


def cached_checkouts() -> list[Checkout]:
    """One checkout per cached model snapshot that holds a config.json, by repository then revision."""
    try:
        info = scan_cache_dir()
    except (CacheNotFound, ValueError) as err:
        raise UsageError(f"no Hugging Face cache at {constants.HF_HUB_CACHE} ({type(err).__name__}; the cache is HF_HUB_CACHE, or HF_HOME/hub)") from None
    found, skipped = [], 0
    for repo in sorted(info.repos, key=lambda r: r.repo_id):
        if repo.repo_type != "model":
            continue
        for revision in sorted(repo.revisions, key=lambda r: (_label(r.refs, r.commit_hash), r.commit_hash)):
            config = revision.snapshot_path / "config.json"
            if not config.is_file():
                skipped += 1  # a snapshot of other files (a tokenizer, a GGUF): nothing for cfglint
                continue
            ref = RepoRef(repo.repo_id, _label(revision.refs, revision.commit_hash))
            remote = Remote(ref, commit=revision.commit_hash, cached=True)
            found.append(Checkout(remote, config, checkpoint.cached(revision.snapshot_path)))
    if skipped:
        sys.stderr.write(f"cfglint: {skipped} cached model snapshot{'s' if skipped != 1 else ''} without config.json skipped\n")
    return found


def _label(refs, commit: str) -> str:
    """The snapshot's name in display paths: main when main points at it, else another ref, else its commit."""
    if "main" in refs:
        return "main"
    return min(refs) if refs else commit
