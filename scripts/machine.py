"""The first line every benchmark prints: the processor, cores, memory, load and platform it ran on."""

from __future__ import annotations

import os
import platform
from pathlib import Path


def hardware() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = ""
    try:
        total_kib = int(Path("/proc/meminfo").read_text().split("MemTotal:")[1].split()[0])
        memory = f", {total_kib / 2**20:.0f} GiB RAM"
    except (OSError, IndexError, ValueError):
        pass
    load = ", load average %.1f" % os.getloadavg()[0] if hasattr(os, "getloadavg") else ""
    return f"{cpu} ({os.cpu_count()} logical cores){memory}{load}; {platform.system()} {platform.machine()}, Python {platform.python_version()}"
