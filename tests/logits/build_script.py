"""Import scripts/build_smollm2.py as a module (scripts/ is not a package)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "build_smollm2.py"


def load_build_script():
    spec = importlib.util.spec_from_file_location("build_smollm2", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
