"""Probe: which token ids real mistral.rs stops generating on, for echo checkpoints (echo_checkpoint.py).

Usage: python mistralrs_stops_probe.py IDS MODEL_DIR [IDS MODEL_DIR ...]   (IDS: 128001,128009)

Each directory is loaded as a plain Llama with its own tokenizer files, chat template and
generation_config.json (no template of the probe's: mistral.rs takes end-of-turn tokens from the model's
template). For each id the prompt is that token's text; the echo model then writes the same token again and
again, so `finish_reason` "stop" after one token means mistral.rs stops on it and "length" means it ran on.
Reports, per directory and id, the prompt's ids as mistral.rs tokenized them, finish_reason and the
number of completion tokens. Prints one JSON object {"results": {MODEL_DIR: {outcome, message, values}}},
exits 0.
"""

from __future__ import annotations

import gc
import json
import os
import sys

from mistralrs_probe import _is_panic, _one_line
from probe_io import reserve_stdout_for_json

MAX_TOKENS = 3


def main(argv: list[str]) -> int:
    pairs = [(argv[i], argv[i + 1]) for i in range(0, len(argv), 2)]
    json_out = reserve_stdout_for_json()
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["RUST_BACKTRACE"] = "0"
    from importlib.metadata import version

    import mistralrs

    results = {}
    for ids, model_dir in pairs:
        try:
            runner = mistralrs.Runner(
                which=mistralrs.Which.Plain(model_id=model_dir, arch=mistralrs.Architecture.Llama, dtype=mistralrs.ModelDType.F32),
                token_source="none",
            )
        except BaseException as exc:  # Rust panics surface as pyo3's BaseException subclass
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
            results[model_dir] = {"outcome": "panic" if _is_panic(exc) else "error", "message": _one_line(exc), "values": {}}
            continue
        values = {token_id: _generation(mistralrs, runner, int(token_id)) for token_id in ids.split(",")}
        results[model_dir] = {"outcome": "loads", "message": None, "values": values}
        del runner
        gc.collect()
    json_out.write(json.dumps({"runtime": "mistral.rs", "version": version("mistralrs"), "results": results}) + "\n")
    json_out.flush()
    return 0


def _generation(mistralrs, runner, token_id: int) -> dict:
    text = runner.detokenize_text([token_id], False)
    response = runner.send_completion_request(
        mistralrs.CompletionRequest(prompt=text, model="default", max_tokens=MAX_TOKENS, temperature=0.0)
    )
    choice = response.choices[0]
    return {
        "prompt_ids": runner.tokenize_text(text, True, None),
        "finish_reason": choice.finish_reason,
        "completion_tokens": response.usage.completion_tokens,
    }


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
