"""Baselines: accept today's findings, and fail only on new ones.

A finding is keyed by its file (relative to the baseline file's folder, so the baseline works from any
working directory), its code and its JSON Pointer; never by line, so reformatting a config or adding keys
above a finding does not make it new. A key that occurs n times in the baseline absorbs n findings.

    {"cfglint-baseline": 1, "findings": [{"path": "...", "code": "R001", "pointer": "/rope_theta", "count": 1}]}
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

from cfglint.diagnostics import Diagnostic
from cfglint.errors import UsageError

FORMAT_KEY = "cfglint-baseline"
VERSION = 1


def _key(diagnostic: Diagnostic, folder: Path) -> tuple[str, str, str]:
    relative = os.path.relpath(os.path.abspath(diagnostic.path), os.path.abspath(folder))
    return Path(relative).as_posix(), diagnostic.code, diagnostic.pointer


def write(path: Path, diagnostics: list[Diagnostic]) -> int:
    """Record the findings in `path`; returns how many were recorded."""
    counts = Counter(_key(d, path.parent) for d in diagnostics)
    entries = [{"path": p, "code": c, "pointer": q, "count": n} for (p, c, q), n in sorted(counts.items())]
    text = json.dumps({FORMAT_KEY: VERSION, "findings": entries}, indent=2, ensure_ascii=False) + "\n"
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as err:
        raise UsageError(f"{path}: cannot write: {err.strerror or err}") from None
    return len(diagnostics)


class Baseline:
    def __init__(self, path: Path, counts: Counter):
        self.path = path
        self.counts = counts

    def new(self, diagnostics: list[Diagnostic]) -> list[Diagnostic]:
        """The findings the baseline does not account for, in their original order."""
        left = Counter(self.counts)
        out = []
        for d in diagnostics:
            key = _key(d, self.path.parent)
            if left[key] > 0:
                left[key] -= 1
            else:
                out.append(d)
        return out


def load(path: Path) -> Baseline:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise UsageError(f"{path}: {err.strerror or err}") from None
    except (ValueError, UnicodeDecodeError) as err:
        raise UsageError(f"{path}: not a cfglint baseline (invalid JSON: {err})") from None
    except RecursionError:
        raise UsageError(f"{path}: not a cfglint baseline (nested too deeply)") from None
    if not isinstance(data, dict) or data.get(FORMAT_KEY) != VERSION or not isinstance(data.get("findings"), list):
        raise UsageError(f"{path}: not a cfglint baseline (expected {{\"{FORMAT_KEY}\": {VERSION}, \"findings\": [...]}})")
    counts: Counter = Counter()
    for entry in data["findings"]:
        try:
            key = (entry["path"], entry["code"], entry["pointer"])
            count = entry.get("count", 1)
        except (TypeError, KeyError):
            raise UsageError(f"{path}: not a cfglint baseline (each finding needs path, code and pointer)") from None
        if not all(isinstance(k, str) for k in key) or not isinstance(count, int) or count < 1:
            raise UsageError(f"{path}: not a cfglint baseline (bad entry {entry!r})")
        counts[key] += count
    return Baseline(path, counts)
