"""The progress display: drawn on a terminal while weights load and tokens are generated, silent elsewhere."""

from __future__ import annotations

import io
import os
import pty
import subprocess
import sys
import threading
import time

from cfglint.logits import check
from cfglint.logits.progress import Progress
from cfglint.logits.readings import RUNS, Plan
from tests.conftest import ROOT


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_nothing_is_written_when_the_stream_is_not_a_terminal():
    stream = io.StringIO()
    progress = Progress(stream)
    with progress.waiting("loading weights"):
        time.sleep(0.3)
    progress.tokens("mlx-lm", 1, 2)
    progress.clear()
    assert not progress.enabled and stream.getvalue() == ""


def test_on_a_terminal_each_update_rewrites_one_line_and_clear_erases_it():
    stream = FakeTerminal()
    progress = Progress(stream)
    progress.tokens("mlx-lm", 3, 20)
    progress.clear()
    progress.clear()  # a second clear has nothing left to erase
    assert stream.getvalue() == "\r\033[Kmlx-lm: token 3/20\r\033[K"


def test_waiting_ticks_the_elapsed_seconds_and_clears_at_the_end():
    stream = FakeTerminal()
    with Progress(stream).waiting("loading weights"):
        time.sleep(0.7)
    written = stream.getvalue()
    assert written.startswith("\r\033[Kloading weights")
    assert "\r\033[Kloading weights 0s" in written  # ticks every quarter second
    assert written.endswith("\r\033[K")


def test_compare_reports_each_generated_token(tiny_llama, prompt_ids):
    directory = tiny_llama("default")
    reference = check.TransformersReference(directory)
    plans = {name: Plan(name, RUNS, values=reference.values) for name in ("transformers-5", "llama-cpp")}
    stream = FakeTerminal()
    check.compare(reference, plans, prompt_ids, 3, 1e-4, progress=Progress(stream))
    shown = [part for part in stream.getvalue().split("\r\033[K") if part]
    assert shown == [
        "transformers-5 (reference): token 1/3",
        "transformers-5 (reference): token 2/3",
        "transformers-5 (reference): token 3/3",
        "transformers-5, llama-cpp: token 1/3",  # one forward serves both readings, and says so
        "transformers-5, llama-cpp: token 2/3",
        "transformers-5, llama-cpp: token 3/3",
    ]
    assert stream.getvalue().endswith("\r\033[K")  # the line is gone once the comparison is done


def read_all(fd: int, sink: list[bytes]) -> None:
    while True:
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # the other end closed
            return
        if not chunk:
            return
        sink.append(chunk)


def test_the_command_draws_progress_on_a_terminal_stderr_only(tiny_model_dir):
    directory = tiny_model_dir("progress", rope_parameters={"rope_type": "default", "rope_theta": 100000.0})
    master, slave = pty.openpty()
    received: list[bytes] = []
    reader = threading.Thread(target=read_all, args=(master, received), daemon=True)
    reader.start()
    proc = subprocess.run(
        [sys.executable, "-m", "cfglint", "check", str(directory), "--logits", "--tokens", "3", "--format", "json"],
        stdout=subprocess.PIPE,
        stderr=slave,
        cwd=ROOT,
        timeout=300,
    )
    os.close(slave)
    reader.join(timeout=10)
    os.close(master)
    terminal = b"".join(received).decode()
    assert proc.returncode == 1
    assert "loading weights (" in terminal and "MB, memory-mapped)" in terminal
    assert "transformers-5 (reference): token 3/3" in terminal and "candle, transformers-4, mlx-lm: token 3/3" in terminal
    assert terminal.endswith("\r\033[K")  # nothing is left on the line
    assert b"\033[K" not in proc.stdout  # the report itself stays clean
