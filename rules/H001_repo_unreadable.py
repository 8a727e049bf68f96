"""A Hub repository, or part of it, could not be read, so it was not (fully) checked.

## What it does
For targets given as a Hub repository id (`org/name`) or found in the local cache (`--hf-cache`),
reports what could not be fetched: a repository that does not exist or is private (HTTP 404/401), a
gated one the token has no access to (HTTP 401/403), an unknown revision, a repository without a
config.json, a timeout or a dropped connection. These are errors. With HF_HUB_OFFLINE set, the files
the local cache does not hold (generation_config.json, the weights) are reported as info: those
checks were skipped, and nothing is wrong with the model for that. For a repository of GGUF files (no
config.json), an info note on each file names the source config it was compared against (`--against`, else
the model card's `base_model`), or says there was none; a source that cannot be read is an error.

## Why it matters
A repository that cannot be read has not been checked: reporting it as a finding keeps a batch run
going and makes the gap visible, instead of a crash or a silent pass.

## Example
`cfglint check meta-llama/Llama-3.2-1B` without a token:
`hf://meta-llama/Llama-3.2-1B@main/config.json:1:1: H001 meta-llama/Llama-3.2-1B is gated (HTTP 401):
request access on its Hub page, then log in (`hf auth login`) or set HF_TOKEN`.

## Fix safety
No fix: request access, log in, correct the repository id or revision, or go online.
"""

from cfglint.diagnostics import Finding, Severity
from cfglint.rule import CONFIG, GGUF

CODE = "H001"
NAME = "repo-unreadable"
SEVERITY = "error"
REQUIRES = ("remote",)
TARGETS = (CONFIG, GGUF)  # a repository of GGUF files is read from the Hub too


def check(ctx):
    if ctx.remote is None:
        return
    for note in ctx.remote.notes:
        yield Finding(note.message, severity=Severity(note.severity))
