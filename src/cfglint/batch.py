"""The cycle collector during a batch of checks.

A check allocates thousands of small dicts and lists per file and frees nearly all of them at once, by
reference counting: a run over 3,000 model directories leaves no garbage in cycles (scripts/bench_families.py's
corpus; `gc.collect()` after it finds nothing). The collector still scans every object that survives into
the results, each time its generation fills: at the default first threshold (700) every few files, at 50,000
a few times a run, about 7% of it. A run of checks (Session.check_all) raises that threshold, as mypy does
for its build, high enough that thousands of files are not scanned at all, and bounded, so that cycles a
plugin's rule may leave are still collected. A whole command raises it less: its imports do leave garbage
in cycles, cheaper to collect while the heap is small than at exit (a cold start measured 15 ms slower at
the run's threshold). When a batch ends, what it kept joins the oldest generation unscanned (as a
collection would have moved it), and the caller's threshold is back.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator

THRESHOLD = 1_000_000  # allocations between first-generation collections, in a run of checks
COMMAND_THRESHOLD = 50_000  # around a whole command (cli.run)


@contextmanager
def fewer_collections(threshold: int = THRESHOLD) -> Iterator[None]:
    before = gc.get_threshold()
    gc.set_threshold(max(before[0], threshold), *before[1:])
    try:
        yield
    finally:
        # Otherwise the first collection at the caller's threshold scans everything the batch allocated.
        gc.freeze()
        gc.unfreeze()
        gc.set_threshold(*before)
