"""One GGUF file through a session: its rules (those whose TARGETS include GGUF), its settings and suppressions, one Result."""

from __future__ import annotations

from pathlib import Path

from cfglint.document import Document
from cfglint.gguf import INSTALL_HINT, gguf_available
from cfglint.rule import GGUF, Context


def check(session, path: Path):
    """The Result for one GGUF file, or None after reporting (one line, exit 2) why it cannot be checked."""
    from cfglint.session import Result

    if not path.is_file():
        session.error(f"{path}: no such file" if not path.exists() else f"{path}: is not a file")
        return None
    if not gguf_available():
        session.error(f"{path}: {INSTALL_HINT}")
        return None
    against = None
    if session.against is not None:
        against = Path(session.against)
        if not (against / "config.json" if against.is_dir() else against).is_file():
            session.error(f"{session.against}: --against names no config.json (give a model directory or its config.json)")
            return None
    from cfglint.gguf.findings import lint
    from cfglint.gguf.target import load

    target = load(path, against)
    for note in target.notes:
        session.error(note)
    display = str(path)
    policy = session.policy_for(path)
    rules = policy.rules_for(path, GGUF)
    ctx = Context(Document(path=path, text=""), None, {}, gguf=target, runtimes=frozenset(policy.consumer_names))
    return Result(display, path, ctx, lint(ctx, rules, display), rules, [])
