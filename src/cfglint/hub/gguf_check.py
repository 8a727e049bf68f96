"""A Hub repository of GGUF files through a session: one Result per file, against one source config.

The source config is `--against` (a local model directory or config.json, or a Hub repository id), else the
repository named by the model card's `base_model`; an info note on each file says which one it was compared
against, or that there was none (then only the file's own consistency is checked). Findings are located at
`hf://org/name@revision/FILE.gguf` and carry the repository, revision and commit like other Hub findings.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from cfglint import document, hub
from cfglint.document import Document
from cfglint.hub.remote import ERROR, INFO, Checkout, Note
from cfglint.rule import GGUF, Context


def check(session, checkout: Checkout) -> list:
    from cfglint.gguf.findings import lint
    from cfglint.gguf.target import GgufTarget
    from cfglint.session import Result

    remote = checkout.remote
    source, where, problem = _source(session, checkout)
    results = []
    for index, gguf in enumerate(checkout.ggufs):
        display = f"{remote.ref.url}/{gguf.name}"
        anchor = Path.cwd() / remote.ref.repo_id / gguf.name
        notes = list(remote.notes) if index == 0 else []  # the repository's own notes, once
        notes.append(problem or Note(f"compared against {where}" if source is not None else where, INFO))
        file_remote = replace(remote, notes=notes)
        target = GgufTarget(anchor, header=gguf.header, problem=gguf.problem, against=source)
        policy = session.policy_for(anchor)
        rules = policy.rules_for(anchor, GGUF)
        ctx = Context(Document(path=anchor, text=""), None, {}, gguf=target, remote=file_remote,
                      runtimes=frozenset(policy.consumer_names))
        extra = {**file_remote.to_json(), "config": where if source is not None else None, "bytes_read": gguf.fetched}
        found = [d._replace(extra={**d.extra, **extra}) for d in lint(ctx, rules, display)]
        results.append(Result(display, anchor, ctx, found, rules, []))
    return results


def _source(session, checkout: Checkout) -> tuple[Document | None, str, Note | None]:
    """(the source config, where it came from, a note when it could not be read)."""
    against = session.against
    named = against if against is not None else checkout.base_model
    how = "--against" if against is not None else "the model card's base_model"
    if named is None:
        return None, "no source config (the model card names no base_model; give one with --against): only the file's own consistency was checked", None
    ref = hub.parse(named, None)
    if ref is None:  # a local model directory or config.json
        path = Path(named)
        config = path / "config.json" if path.is_dir() else path
        try:
            return document.load(config), f"{config} ({how})", None
        except OSError as err:
            return None, str(config), Note(f"the source config {config} ({how}) cannot be read: {err.strerror or err}; only the file's own consistency was checked")
    source = _fetched(session, named)
    where = f"{source.remote.display} ({how})"
    if source.config is None:
        reasons = "; ".join(n.message for n in source.remote.notes if n.severity == ERROR) or "no config.json"
        return None, where, Note(f"the source config {where} could not be read: {reasons}; only the file's own consistency was checked")
    try:
        return document.load(source.config), where, None
    except OSError as err:
        return None, where, Note(f"the source config {where} cannot be read from the cache: {err.strerror or err}")


def _fetched(session, repo: str) -> Checkout:
    # Several GGUF repositories of one model share their base: fetched once per session.
    if repo not in session.hub_sources:
        session.hub_sources[repo] = hub.checkouts([repo])[repo]
    return session.hub_sources[repo]
