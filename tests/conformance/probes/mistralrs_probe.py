"""Probe: whether mistral.rs (the `mistralrs` wheel) loads a Llama model dir, and what it computes.

Usage: python mistralrs_probe.py MODEL_DIR [--prompt-ids 1,38,9 [--logprobs] [--greedy N]]

mistral.rs keeps its parsed config inside Rust, so the only config value reported is the one its
Python API exposes: `max_position_embeddings` (the runner's maximum sequence length, taken from it).
Behaviour is observable through generation instead:
- `--logprobs` adds `values["logprobs"]`: the log-softmax of the last-position logits for the
  prompt, one float per vocabulary id (the full top-logprobs list of the first generated token).
- `--greedy N` adds `values["greedy_ids"]`: N token ids generated at temperature 0, eos ignored.
Both add `values["prompt_ids"]`. mistral.rs only takes text prompts, and adds the tokenizer's BOS
itself: the ids (with that BOS first, when the tokenizer adds one) are decoded to text, and the
probe insists that mistral.rs tokenizes that text back to exactly the given ids.
Prints one JSON object (see the values contract) and exits 0, also when mistral.rs fails to load.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
from pathlib import Path

from probe_io import reserve_stdout_for_json

# The prompt is passed through verbatim, without role markup; mistral.rs itself adds only the BOS.
_VERBATIM_TEMPLATE = "{% for message in messages %}{{ message['content'] }}{% endfor %}"


def main(argv: list[str]) -> int:
    options = _parse_args(argv)
    json_out = reserve_stdout_for_json()
    # No hub access; one-line Rust errors; a float32 KV cache so log-probs compare with other
    # runtimes at float32 precision (the CPU default is f16).
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["RUST_BACKTRACE"] = "0"
    os.environ["MISTRALRS_CPU_KV_F32"] = "1"
    from importlib.metadata import version

    import mistralrs

    result = {
        "runtime": "mistral.rs",
        "version": version("mistralrs"),
        "outcome": "loads",
        "message": None,
        "values": {},
    }
    with tempfile.TemporaryDirectory(prefix="mistralrs-probe-") as scratch:
        template = Path(scratch) / "verbatim.jinja"
        template.write_text(_VERBATIM_TEMPLATE, encoding="utf-8")
        try:
            runner = mistralrs.Runner(
                which=mistralrs.Which.Plain(
                    model_id=options.model_dir,
                    arch=mistralrs.Architecture.Llama,
                    dtype=mistralrs.ModelDType.F32,
                ),
                token_source="none",
                jinja_explicit=str(template),
            )
        except BaseException as exc:  # Rust panics surface as pyo3's BaseException subclass
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
            result["outcome"] = "panic" if _is_panic(exc) else "error"
            result["message"] = _one_line(exc)
        else:
            # Outside the try: an exception here is a probe bug and must exit non-zero.
            result["values"] = {"max_position_embeddings": runner.max_sequence_length()}
            if options.prompt_ids is not None:
                result["values"].update(_generation_values(runner, options))
    json_out.write(json.dumps(result) + "\n")
    json_out.flush()
    return 0


def _parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model_dir")
    parser.add_argument(
        "--prompt-ids",
        type=lambda text: [int(token) for token in text.split(",")],
        help="comma-separated prompt token ids, needed by --logprobs and --greedy",
    )
    parser.add_argument(
        "--logprobs", action="store_true", help="add the last-position log-probabilities"
    )
    parser.add_argument(
        "--greedy", type=int, default=0, metavar="N", help="add N greedily generated token ids"
    )
    options = parser.parse_args(argv)
    if (options.logprobs or options.greedy) and not options.prompt_ids:
        parser.error("--logprobs and --greedy need --prompt-ids")
    if options.greedy < 0:
        parser.error("--greedy must be >= 0")
    return options


def _generation_values(runner, options: argparse.Namespace) -> dict:
    import mistralrs

    prompt = _prompt_text(runner, options.prompt_ids)
    steps = max(options.greedy, 1)
    response = runner.send_chat_completion_request(
        mistralrs.ChatCompletionRequest(
            messages=[{"role": "user", "content": prompt}],
            model="default",
            max_tokens=steps,
            temperature=0.0,
            logprobs=True,
            # More than the vocabulary is clamped to it: the whole distribution comes back.
            top_logprobs=1 << 30 if options.logprobs else 1,
            ignore_eos=True,
        )
    )
    if response.usage.prompt_tokens != len(options.prompt_ids):
        raise RuntimeError(
            f"mistral.rs saw {response.usage.prompt_tokens} prompt tokens, "
            f"expected {len(options.prompt_ids)}"
        )
    positions = response.choices[0].logprobs.content
    if len(positions) != steps:
        raise RuntimeError(f"mistral.rs generated {len(positions)} tokens, expected {steps}")
    values: dict = {"prompt_ids": options.prompt_ids}
    if options.logprobs:
        values["logprobs"] = _full_distribution(positions[0].top_logprobs)
    if options.greedy:
        values["greedy_ids"] = [_chosen_id(position) for position in positions]
    return values


def _prompt_text(runner, prompt_ids: list[int]) -> str:
    # Tokenizers that add a BOS need it left out of the text: decoding it too would put a space
    # after it that re-encodes as an extra token.
    for skipped in (0, 1):
        text = runner.detokenize_text(prompt_ids[skipped:], False)
        if runner.tokenize_text(text, True, None) == prompt_ids:
            return text
    raise SystemExit(
        f"mistral.rs cannot be given prompt ids {prompt_ids}: no decoded text encodes back to "
        "exactly them (include the BOS id when the tokenizer adds one)"
    )


def _full_distribution(top_logprobs) -> list[float]:
    by_id = {entry.token: entry.logprob for entry in top_logprobs}
    if sorted(by_id) != list(range(len(by_id))):
        raise RuntimeError("mistral.rs returned log-probabilities for only part of the vocabulary")
    total = sum(math.exp(logprob) for logprob in by_id.values())
    if not math.isclose(total, 1.0, rel_tol=1e-3):
        raise RuntimeError(f"mistral.rs log-probabilities sum to {total}, not 1")
    return [by_id[token_id] for token_id in range(len(by_id))]


def _chosen_id(position) -> int:
    # At temperature 0 the sampled token is the most likely one, listed first.
    best = position.top_logprobs[0]
    if not math.isclose(position.logprob, best.logprob, rel_tol=0, abs_tol=1e-6):
        raise RuntimeError(f"temperature 0 picked a token that is not the most likely: {position}")
    return best.token


def _is_panic(exc: BaseException) -> bool:
    # pyo3 turns a Rust panic into PanicException, which derives from BaseException.
    return type(exc).__name__ == "PanicException"


def _one_line(exc: BaseException) -> str:
    # The Rust error text, e.g. "missing field `rope_theta` at line 22 column 1".
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
