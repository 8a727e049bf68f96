"""The cycle collector during a batch of checks.

A check allocates thousands of small dicts and lists per file and frees nearly all of them at once. At the
default first-generation threshold (700) the collector runs every few files, and over everything the
results hold. A batch raises that threshold, as mypy does for its build, and puts the caller's back
afterwards.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator

THRESHOLD = 50_000  # allocations between first-generation collections


@contextmanager
def fewer_collections() -> Iterator[None]:
    before = gc.get_threshold()
    gc.set_threshold(max(before[0], THRESHOLD), *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)
