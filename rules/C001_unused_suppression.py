"""A suppression in the configuration that no longer suppresses anything.

## What it does
Reports each `suppress` entry of the configuration that covers this file (its `path` glob matches) but
silenced no finding in it: the problem it was written for is gone, or the key it points at has moved.
Entries whose codes are all disabled by `select`/`ignore` are not judged.

## Why it matters
JSON cannot carry comments, so cfglint's suppressions live in pyproject.toml or .cfglint.toml, away from
the config they silence. Once the config is fixed or rewritten (transformers 5 moves `rope_theta` into
`rope_parameters` when it saves), a stale entry stays behind and quietly hides the next, different
problem at the same place.

## Example
```toml
[[tool.cfglint.suppress]]
path = "legacy/config.json"
pointer = "/rope_parameters/rope_theta"
codes = ["R001"]
reason = "served only by transformers 5"
```
After `cfglint fix --write` adds the top-level `rope_theta`, R001 no longer fires there and C001 reports
the entry.

## Fix safety
No automatic fix: delete the entry from the configuration file.
"""

from cfglint.diagnostics import Finding

CODE = "C001"
NAME = "unused-suppression"
SEVERITY = "warning"


def check(ctx, suppressions=()):
    # An unparseable file hides every other finding, so whether an entry is still needed is unknown.
    if ctx.intent is None:
        return
    for applied in suppressions:
        if applied.used:
            continue
        entry = applied.suppression
        where = f" at {entry.pointer}" if entry.pointer else ""
        message = f"{entry.origin} ({', '.join(entry.codes)}{where}) no longer suppresses anything here; remove it"
        if entry.pointer and not ctx.doc.has(entry.pointer):
            message += f" ({entry.pointer} is not in this file)"
        yield Finding(message, entry.pointer or "")
