"""Output formats for `check`; each renders a list of diagnostics to text."""

from __future__ import annotations

import importlib
from typing import Callable

FORMATS = ("full", "concise", "json")


def renderer(fmt: str) -> Callable:
    return importlib.import_module(f"cfglint.report.{fmt}_format").render
