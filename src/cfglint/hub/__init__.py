"""Hugging Face Hub repositories as check targets: `cfglint check org/name`, and `--hf-cache`.

Importing this package is light (the `check` path of local files imports it): huggingface_hub is
imported only once a target is a repository, by `fetch` and `cache`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cfglint.errors import UsageError
from cfglint.hub.refs import RepoRef, parse

if TYPE_CHECKING:
    from cfglint.hub.remote import Checkout, Note, Remote

RULE = "H001"  # the rule that reports what could not be read from a repository
DEFAULT_JOBS = 8
# huggingface_hub retries a failing request with back-off, each try with its own timeouts, so a Hub that
# answers too slowly can hold one repository for minutes; past this, it is reported instead (H001).
DEFAULT_DEADLINE = 120.0

__all__ = ["DEFAULT_DEADLINE", "DEFAULT_JOBS", "RULE", "Checkout", "Note", "Remote", "RepoRef", "cached_checkouts", "checkouts", "parse"]


def checkouts(args: list[str], revision: str | None = None, jobs: int = DEFAULT_JOBS, deadline: float = DEFAULT_DEADLINE) -> dict[str, Checkout]:
    """The arguments that name Hub repositories, each fetched (concurrently) into the local cache, each
    within `deadline` seconds (0: no deadline)."""
    refs = {arg: ref for arg in args if (ref := parse(arg, revision)) is not None}
    if not refs:
        return {}
    from cfglint.hub.runner import bounded, run_all

    fetch = _needs_hub("fetch").fetch
    if deadline > 0:
        fetch = bounded(fetch, deadline, lambda ref: _abandoned(ref, deadline))
    unique = list(dict.fromkeys(refs.values()))
    fetched = dict(zip(unique, run_all(unique, fetch, jobs, label=lambda r: r.repo_id)))
    return {arg: fetched[ref] for arg, ref in refs.items()}


def __getattr__(name: str):
    """Checkout, Note and Remote, imported on first use: a check of local files never needs them."""
    if name in ("Checkout", "Note", "Remote"):
        from cfglint.hub import remote

        return getattr(remote, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _abandoned(ref: RepoRef, seconds: float) -> Checkout:
    from cfglint.hub.remote import Checkout, Note, Remote

    message = f"the Hub did not finish answering within {seconds:g} s (--hub-timeout); nothing was checked"
    return Checkout(Remote(ref, notes=[Note(message)]))


def cached_checkouts() -> list[Checkout]:
    return _needs_hub("cache").cached_checkouts()


def _needs_hub(module: str):
    import importlib

    try:
        return importlib.import_module(f"cfglint.hub.{module}")
    except ModuleNotFoundError as err:
        if err.name and err.name.split(".")[0] == "huggingface_hub":
            raise UsageError("checking Hub repositories needs huggingface_hub: pip install 'hf-cfglint[hub]'") from None
        raise
