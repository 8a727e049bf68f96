"""Regenerate the transformers-5 samples from their transformers-4 sources.

Each ``samples/<name>-tf5/config.json`` is what real transformers 5 writes when it loads
``samples/<name>/config.json`` with ``AutoConfig.from_pretrained`` and saves it again with
``save_pretrained``. Running this script under the same transformers version reproduces the
committed files byte for byte; ``--check`` reports any difference without writing.

Usage (in an environment with transformers 5 and no network):

    python scripts/make_samples.py            # rewrite the -tf5 samples
    python scripts/make_samples.py --check    # exit 1 if a committed file differs
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

SAMPLES_DIR = Path(__file__).resolve().parent.parent / "samples"

# target directory -> source directory, both under samples/
TF5_SAMPLES = {
    "smollm2-135m-instruct-tf5": "smollm2-135m-instruct",
    "llama-3.2-1b-tf5": "llama-3.2-1b",
    "qwen2.5-0.5b-instruct-tf5": "qwen2.5-0.5b-instruct",
    "mistral-7b-v0.3-tf5": "mistral-7b-v0.3",
    "mixtral-8x7b-v0.1-tf5": "mixtral-8x7b-v0.1",
    "gemma-2b-tf5": "gemma-2b",
    "gemma-2-2b-tf5": "gemma-2-2b",
    "gemma-3-1b-it-tf5": "gemma-3-1b-it",
    "phi-3-mini-4k-instruct-tf5": "phi-3-mini-4k-instruct",
    "qwen1.5-moe-a2.7b-tf5": "qwen1.5-moe-a2.7b",
    "qwen3-0.6b-tf5": "qwen3-0.6b",
    "qwen3-30b-a3b-tf5": "qwen3-30b-a3b",
    "deepseek-v2-lite-tf5": "deepseek-v2-lite",
    "deepseek-r1-tf5": "deepseek-r1",
    "gpt-oss-120b-tf5": "gpt-oss-120b",
}

# The committed files were written by this version; another 5.x writes a different
# "transformers_version" and may change the layout, so it is reported, not hidden.
PRODUCED_WITH = "5.24.0"


def require_transformers_5() -> str:
    """Return the installed transformers version, or exit if it is not 5.x."""
    try:
        import transformers
    except ImportError:
        sys.exit("make_samples: transformers is not installed; install transformers 5.x")
    version = transformers.__version__
    if version.split(".")[0] != "5":
        sys.exit(f"make_samples: needs transformers 5.x, found {version}")
    if version != PRODUCED_WITH:
        print(
            f"make_samples: warning: committed samples were made with {PRODUCED_WITH}, "
            f"running {version}; expect a different transformers_version",
            file=sys.stderr,
        )
    return version


def resave(source_dir: Path) -> bytes:
    """Load a model directory with transformers 5 and return the config.json it saves."""
    from transformers import AutoConfig

    config = AutoConfig.from_pretrained(source_dir)
    with tempfile.TemporaryDirectory() as out:
        config.save_pretrained(out)
        return (Path(out) / "config.json").read_bytes()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check", action="store_true", help="compare with the committed files, write nothing"
    )
    args = parser.parse_args(argv)

    # The sources are local directories; nothing may be fetched from a hub.
    os.environ["HF_HUB_OFFLINE"] = "1"
    require_transformers_5()

    differing = []
    for target_name, source_name in TF5_SAMPLES.items():
        produced = resave(SAMPLES_DIR / source_name)
        target = SAMPLES_DIR / target_name / "config.json"
        unchanged = target.is_file() and target.read_bytes() == produced
        if args.check:
            print(f"{'same' if unchanged else 'DIFFERS'}  {target.relative_to(SAMPLES_DIR.parent)}")
            if not unchanged:
                differing.append(target)
        elif not unchanged:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(produced)
            print(f"wrote  {target.relative_to(SAMPLES_DIR.parent)}")
        else:
            print(f"same   {target.relative_to(SAMPLES_DIR.parent)}")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
