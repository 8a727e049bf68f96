"""Many repositories in one run: a targets file, bounded concurrency, progress on a terminal only."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys

from tests.conftest import SAMPLES
from tests.hub.conftest import cfglint
from tests.hub.fake_hub import Fault

SAMPLE = SAMPLES / "weights-layers-missing"


def test_targets_file_order_and_bounded_concurrency(hub, hf_env, tmp_path):
    names = [f"acme/model-{i}" for i in range(4)]
    for name in names:
        hub.add(name, SAMPLE)
    hub.faults["config.json"] = Fault(delay=0.5, methods=("HEAD",))  # long enough for fetches to overlap
    listing = tmp_path / "targets.txt"
    listing.write_text("# models to check\n\n" + "\n".join(reversed(names)) + "\n")

    parallel = cfglint(hf_env, "check", "--targets-file", str(listing), "--jobs", "4", "--format", "json")
    overlap = hub.max_waiting
    hub.max_waiting = 0
    serial = cfglint(hf_env | {"HF_HOME": str(tmp_path / "other-home")}, "check", "--targets-file", str(listing), "-j", "1", "--format", "json")

    assert [f["repo"] for f in json.loads(parallel.stdout)] == list(reversed(names))  # the file's order
    assert json.loads(serial.stdout) == json.loads(parallel.stdout)
    assert overlap > 1
    assert hub.max_waiting == 1


def test_an_unreadable_targets_file_is_a_usage_error(hf_env, tmp_path):
    proc = cfglint(hf_env, "check", "--targets-file", str(tmp_path / "absent.txt"))
    assert proc.returncode == 2
    assert proc.stderr == f"cfglint: error: {tmp_path / 'absent.txt'}: cannot read the targets file: No such file or directory\n"


def test_progress_goes_to_a_terminal_and_nowhere_else(hub, hf_env, tmp_path):
    hub.add("acme/one", SAMPLE)
    hub.add("acme/two", SAMPLE)
    args = [sys.executable, "-m", "cfglint", "check", "acme/one", "acme/two", "--format", "json"]

    main, secondary = pty.openpty()
    proc = subprocess.run(args, env=hf_env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=secondary, timeout=60)
    os.close(secondary)
    terminal = _drain(main)
    piped = cfglint(hf_env, "check", "acme/one", "acme/two", "--format", "json")

    assert proc.returncode == 1
    assert "cfglint: 1/2 acme/" in terminal and "cfglint: 2/2 acme/" in terminal
    assert terminal.endswith("\r\x1b[K")  # the line is cleared once done
    assert "1/2" not in piped.stderr and "\x1b" not in piped.stderr
    assert json.loads(proc.stdout) == json.loads(piped.stdout)  # stdout carries only the report


def _drain(fd: int) -> str:
    out = b""
    while True:
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # the other end is closed
            break
        if not chunk:
            break
        out += chunk
    os.close(fd)
    return out.decode()


def test_without_huggingface_hub_a_repository_id_is_a_usage_error(tmp_path):
    """An install without the hub extra: local checks work, a repository id says what to install."""
    blocker = (
        "import sys, importlib.abc\n"
        "class Block(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] == 'huggingface_hub':\n"
        "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "from cfglint.cli import main\n"
        f"print(main(['check', {str(SAMPLE)!r}, '--format', 'concise']), main(['check', 'acme/model']))\n"
    )
    proc = subprocess.run([sys.executable, "-c", blocker], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert proc.stdout.strip().splitlines()[-1] == "1 2"
    assert "cfglint: error: checking Hub repositories needs huggingface_hub: pip install 'hf-cfglint[hub]'" in proc.stderr
