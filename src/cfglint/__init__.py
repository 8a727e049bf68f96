"""cfglint: find where model runtimes read a Hugging Face config.json differently from transformers.

The Python API (`cfglint.check`, `cfglint.view`, `cfglint.fix` and their results) lives in cfglint.api and is
imported on first use, so `import cfglint` costs no more than the version string and the error class.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cfglint.errors import UsageError

__version__ = "0.1.0"
__all__ = ["FileFix", "FixResult", "Report", "UsageError", "View", "check", "fix", "view", "__version__"]
_API = ("FileFix", "FixResult", "Report", "View", "check", "fix", "view")

if TYPE_CHECKING:
    from cfglint.api import FileFix, FixResult, Report, View, check, fix, view


def __getattr__(name: str) -> Any:
    if name in _API:
        from cfglint import api

        return getattr(api, name)
    raise AttributeError(f"module 'cfglint' has no attribute {name!r}")
