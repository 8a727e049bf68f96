"""Probe: the stop tokens a runtime itself takes from a model directory.

Usage: python stops_probe.py MODEL_DIR...

Reports what the installed runtime computes, never a prediction: `generation_eos` is transformers'
GenerationConfig for the directory (generation_config.json, else from config.json, as from_pretrained
builds it), `tokenizer_eos` AutoTokenizer's eos_token_id, `chat` the template rendered by
apply_chat_template for a user and an assistant message, and, where mlx-lm is installed, `mlx_lm_eos`
the ids its TokenizerWrapper stops on after mlx_lm.utils.load_config. Prints one JSON object, per
directory, exits 0.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from probe_io import one_line, reserve_stdout_for_json

MARKER = "cfglint-assistant-marker-3f9c"


def main(directories: list[str]) -> int:
    json_out = reserve_stdout_for_json()
    json_out.write(json.dumps({d: probe(d) for d in directories}))
    json_out.flush()
    return 0


def probe(directory: str) -> dict:
    from importlib.metadata import version

    from transformers import AutoConfig, AutoTokenizer, GenerationConfig

    path = Path(directory)
    result: dict = {"transformers": version("transformers")}
    try:
        if (path / "generation_config.json").is_file():
            generation = GenerationConfig.from_pretrained(directory)
        else:
            generation = GenerationConfig.from_model_config(AutoConfig.from_pretrained(directory))
        result["generation_eos"] = generation.eos_token_id
    except Exception as exc:  # noqa: BLE001 - reported, not raised
        result["generation_error"] = one_line(exc)
    tokenizer = AutoTokenizer.from_pretrained(directory)
    result["tokenizer_eos"] = tokenizer.eos_token_id
    messages = [{"role": "user", "content": "Hello"}, {"role": "assistant", "content": MARKER}]
    try:
        result["chat"] = tokenizer.apply_chat_template(messages, tokenize=False)
    except Exception as exc:  # noqa: BLE001
        result["chat_error"] = one_line(exc)
    try:
        from mlx_lm.tokenizer_utils import load as load_tokenizer
        from mlx_lm.utils import load_config
    except ImportError:
        pass
    else:
        config = load_config(path)
        wrapper = load_tokenizer(path, eos_token_ids=config.get("eos_token_id", None))
        result["mlx_lm"] = version("mlx-lm")
        result["mlx_lm_eos"] = sorted(wrapper.eos_token_ids)
    return result


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
