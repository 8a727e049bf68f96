"""A one-line status display on stderr while weights load and tokens are generated.

It draws only on a terminal: piped or redirected output (CI logs, `2> file`) stays free of control
characters. A long step with no progress of its own (loading the weights) shows its elapsed time, ticked
by a background thread, so the line never looks frozen.
"""

from __future__ import annotations

import shutil
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

_CLEAR_LINE = "\r\033[K"
_TICK_S = 0.25


class Progress:
    def __init__(self, stream: TextIO | None = None, enabled: bool | None = None):
        self.stream = stream if stream is not None else sys.stderr
        if enabled is None:
            isatty = getattr(self.stream, "isatty", None)
            enabled = bool(isatty and isatty())
        self.enabled = enabled
        self._lock = threading.Lock()
        self._drawn = False

    def show(self, text: str) -> None:
        """Replace the status line with text (cut to the terminal's width)."""
        if not self.enabled:
            return
        width = shutil.get_terminal_size((80, 24)).columns - 1
        with self._lock:
            self.stream.write(_CLEAR_LINE + text[:width])
            self.stream.flush()
            self._drawn = True

    def clear(self) -> None:
        if not self.enabled:
            return
        with self._lock:
            if self._drawn:
                self.stream.write(_CLEAR_LINE)
                self.stream.flush()
                self._drawn = False

    @contextmanager
    def waiting(self, text: str) -> Iterator[None]:
        """Show text with a running count of seconds until the block ends."""
        if not self.enabled:
            yield
            return
        started = time.monotonic()
        done = threading.Event()

        def tick() -> None:
            while not done.wait(_TICK_S):
                self.show(f"{text} {time.monotonic() - started:.0f}s")

        self.show(text)
        ticker = threading.Thread(target=tick, daemon=True)
        ticker.start()
        try:
            yield
        finally:
            done.set()
            ticker.join()
            self.clear()

    def tokens(self, label: str, done: int, total: int) -> None:
        self.show(f"{label}: token {done}/{total}")
