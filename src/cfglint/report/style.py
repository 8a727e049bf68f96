"""Terminal color, only where a person is looking."""

from __future__ import annotations

import os
import sys
from typing import TextIO

_CODES = {"bold": "1", "red": "31", "yellow": "33", "blue": "34", "cyan": "36", "dim": "2"}


def use_color(stream: TextIO) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return hasattr(stream, "isatty") and stream.isatty()


class Style:
    def __init__(self, enabled: bool):
        self.enabled = enabled

    def __call__(self, text: str, *styles: str) -> str:
        if not self.enabled or not styles:
            return text
        return "\x1b[" + ";".join(_CODES[s] for s in styles) + "m" + text + "\x1b[0m"


def for_stream(stream: TextIO | None = None) -> Style:
    return Style(use_color(stream or sys.stdout))
