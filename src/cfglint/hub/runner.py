"""Many repositories at once: a bounded thread pool (the work is waiting on the network), results in
input order, a deadline per repository, and a one-line progress count on stderr when stderr is a terminal."""

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


def bounded(work: Callable[[T], R], seconds: float, late: Callable[[T], R]) -> Callable[[T], R]:
    """work(item), or late(item) once it has run `seconds` without finishing.

    A network call cannot be cancelled from outside, so the late one is left to finish in a daemon
    thread, which does not keep the process alive; its result is dropped.
    """

    def run(item: T) -> R:
        results: list[R] = []
        errors: list[BaseException] = []

        def target() -> None:
            try:
                results.append(work(item))
            except BaseException as err:  # noqa: BLE001 - re-raised in the caller's thread
                errors.append(err)

        thread = threading.Thread(target=target, daemon=True)
        thread.start()
        thread.join(seconds)
        if thread.is_alive():
            return late(item)
        if errors:
            raise errors[0]
        return results[0]

    return run
