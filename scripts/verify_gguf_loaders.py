"""Check cfglint's GGUF loader data (cfglint.knowledge.gguf_loaders) against the loaders' source text.

Usage: python scripts/verify_gguf_loaders.py --candle CANDLE_GIT_DIR --mistralrs MISTRALRS_GIT_DIR

For every loader entry, the source file is read at the entry's tag or commit (`git show REF:PATH`, so bare
mirrors work) and every GGUF key the entry says the loader reads must appear in it as a string literal:
candle spells the full key ("qwen2.rope.freq_base"), mistral.rs the key without its architecture
("rope.freq_base"). A key the entry says the loader never reads (a Fixed value) must not appear.
Prints one line per entry and exits 1 when any entry disagrees with its source.
"""

from __future__ import annotations

import argparse
import subprocess
import sys

from cfglint.knowledge.gguf_loaders import LOADERS, Fixed, FirstOf, Key, Quotient, Same

# Keys a Fixed value stands for: the loader must not read them (quantity -> key).
_FIXED_KEYS = {"rope_theta": "rope.freq_base", "context_length": "context_length"}


def keys_read(read) -> list[str]:
    if isinstance(read, Key):
        return [read.name]
    if isinstance(read, Quotient):
        return [read.numerator, read.denominator]
    if isinstance(read, FirstOf):
        return [key for option in read.options for key in keys_read(option)]
    return []  # Fixed, Same, NoTensor: no metadata key


def spellings(loader, key: str) -> tuple[str, ...]:
    if loader.runtime == "candle":  # the full key, or the bare one where the loader prefixes it (quantized_gemma3)
        return (f'"{loader.architecture}.{key}"', f'md_get("{key}")')
    return (f'"{key}"',)


def problems(loader, text: str) -> list[str]:
    def found(key: str) -> bool:
        return any(spelling in text for spelling in spellings(loader, key))

    out = []
    for quantity, read in loader.reads.items():
        out += [f"{quantity}: {spellings(loader, key)[0]} not in the source" for key in keys_read(read) if not found(key)]
        if isinstance(read, Fixed) and quantity in _FIXED_KEYS and found(_FIXED_KEYS[quantity]):
            out.append(f"{quantity}: said to be fixed, but the source reads {_FIXED_KEYS[quantity]}")
        if isinstance(read, Same) and read.quantity not in loader.reads:
            out.append(f"{quantity}: the same as {read.quantity}, which the entry does not say")
    return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--candle", required=True, help="a clone (or bare mirror) of huggingface/candle")
    parser.add_argument("--mistralrs", required=True, help="a clone (or bare mirror) of EricLBuehler/mistral.rs")
    options = parser.parse_args(argv)
    checkouts = {"candle": options.candle, "mistralrs": options.mistralrs}
    failed = False
    for (runtime, architecture), loader in sorted(LOADERS.items()):
        source = loader.source
        shown = subprocess.run(["git", "--git-dir", checkouts[runtime], "show", f"{source.ref}:{source.path}"],
                               capture_output=True, text=True, check=False)  # fmt: skip
        found = [f"cannot read {source}: {shown.stderr.strip()}"] if shown.returncode else problems(loader, shown.stdout)
        failed |= bool(found)
        print(f"{runtime} {architecture} ({source.path} @ {source.ref[:12]}): {'; '.join(found) or 'ok'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
