"""Many repositories at once: a bounded thread pool (the work is waiting on the network), results in
input order, and a one-line progress count on stderr when stderr is a terminal."""

from __future__ import annotations

import sys
import threading
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Callable, Sequence, TextIO, TypeVar

T = TypeVar("T")
R = TypeVar("R")


class Progress:
    def __init__(self, total: int, stream: TextIO):
        self.total, self.done, self.stream = total, 0, stream
        self.lock = threading.Lock()

    def advance(self, label: str) -> None:
        with self.lock:
            self.done += 1
            self.stream.write(f"\r\x1b[Kcfglint: {self.done}/{self.total} {label}")
            self.stream.flush()

    def close(self) -> None:
        self.stream.write("\r\x1b[K")
        self.stream.flush()


def run_all(items: Sequence[T], work: Callable[[T], R], jobs: int, label: Callable[[T], str]) -> list[R]:
    """work(item) for every item, at most `jobs` at a time; exceptions propagate after all are done."""
    if not items:
        return []
    progress = Progress(len(items), sys.stderr) if sys.stderr.isatty() else None
    with ThreadPoolExecutor(max_workers=max(1, min(jobs, len(items)))) as pool:
        futures = {pool.submit(work, item): item for item in items}
        for future in as_completed(futures):
            if progress:
                progress.advance(label(futures[future]))
    if progress:
        progress.close()
    return [future.result() for future in futures]
