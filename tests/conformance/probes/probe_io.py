"""What every probe shares: one JSON object on stdout, and errors as one line.

Probes run as scripts in other interpreters (each runtime's venv), so this module is imported from the
script's own folder, which Python puts first on sys.path; it needs only the standard library.
"""

from __future__ import annotations

import os
import sys


def reserve_stdout_for_json():
    """A writer for the real stdout; everything else printed there (by Python or by C/Rust code through
    file descriptor 1) goes to stderr, so the JSON object is the only thing on stdout."""
    json_out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return json_out


def one_line(exc: BaseException, limit: int = 400) -> str:
    """The exception as `Type: message` on one line: some messages put the cause on a second line
    (strict dataclass validation) and some list hundreds of names (unknown model_type)."""
    text = " ".join(line.strip() for line in str(exc).splitlines() if line.strip())
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
