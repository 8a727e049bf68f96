"""`cfglint fix` on a Hub repository: never written in place, optionally proposed as a pull request.

A repository's config.json here is a blob in the Hugging Face cache, shared by every snapshot that holds
the same bytes: writing it would corrupt the cache and change nothing on the Hub. The fix either goes
back as a pull request (through huggingface_hub's create_commit, based on the commit that was checked)
or into a local copy the user downloads.
"""

from __future__ import annotations

from cfglint import __version__
from cfglint.hub.remote import Remote


def refusal(remote: Remote) -> str:
    repo = remote.ref.repo_id
    return (
        f"not written: this is {repo} on the Hub (the file here is a blob in the Hugging Face cache); "
        f"propose the fix as a pull request with `cfglint fix {repo} --pr`, or fix a local copy: "
        f"`hf download {repo} --local-dir DIR`, then `cfglint fix DIR --write`"
    )


def describe(applied, unsafe: bool) -> tuple[str, str]:
    """The pull request's title and description: the findings it repairs."""
    n = len(applied)
    title = f"Fix {n} cfglint finding{'s' if n != 1 else ''} in config.json"
    lines = [f"`cfglint fix` {__version__} rewrote config.json so that other runtimes read the model the way transformers 5 does:", ""]
    lines += [f"- {d.code} ({d.name}): {d.fix.message}" for d in applied]
    lines += ["", "Includes unsafe fixes: review what transformers reads." if unsafe else "Only safe fixes: transformers 5 reads the same model before and after."]
    return title, "\n".join(lines)


def open_pull_request(remote: Remote, data: bytes, applied, unsafe: bool, *, dry_run: bool) -> str:
    """The pull request's URL, or (dry run) a line saying what would be opened."""
    title, body = describe(applied, unsafe)
    where = f"{remote.ref.repo_id} (from commit {remote.commit[:12] if remote.commit else '?'})"
    if dry_run:
        return f"would open a pull request on {where}: {title!r} (add --write to open it)"
    from huggingface_hub import CommitOperationAdd, HfApi

    info = HfApi().create_commit(
        remote.ref.repo_id,
        [CommitOperationAdd(path_in_repo="config.json", path_or_fileobj=data)],
        commit_message=title,
        commit_description=body,
        create_pr=True,
        parent_commit=remote.commit,
    )
    return f"opened a pull request on {where}: {info.pr_url}"
