"""GGUF files as targets: the header, what llama.cpp runs from it, and how that compares with config.json.

The `gguf` package (the optional extra `hf-cfglint[gguf]`) is imported only when a .gguf file is checked.
"""

from __future__ import annotations

FILE_PLACEHOLDER = "{gguf}"  # in a finding's fix text: replaced by the GGUF file's path
INSTALL_HINT = "checking a GGUF file needs the gguf package: pip install 'hf-cfglint[gguf]'"


def checker(topic: str):
    """A GGUF rule's `check`: the findings of its topic. The findings module is imported for a GGUF target
    only, since every rule is loaded on every run."""

    def check(ctx):
        if ctx.gguf is None:
            return iter(())
        from cfglint.gguf.findings import findings

        return findings(ctx, topic)

    return check


def gguf_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("gguf") is not None
