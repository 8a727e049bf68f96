"""Probe: whether mistral.rs (the `mistralrs` wheel) loads model directories of a family, and its RoPE base.

Usage: python mistralrs_family_probe.py [--fingerprint] MODEL_DIR [MODEL_DIR ...]

The plain `Architecture` is picked from config.json's model_type (qwen2 -> Qwen2, gemma2 -> Gemma2, ...);
a model_type without a plain architecture in this wheel is outcome "not-applicable".
mistral.rs keeps its parsed config inside Rust; what is observed:
- outcome ("loads", "error", "panic") and the first line of the error;
- `max_position_embeddings`: the runner's maximum sequence length;
- with --fingerprint, `rope_theta` by log-prob fingerprint: the top-8 log-probs of the first greedy token
  are recorded, then the same weights are reloaded with a config whose `rope_parameters` / `rope_scaling`
  are removed and a single top-level `rope_theta` candidate set (every rope_theta number in the file, plus
  10000 and 1e6); `rope_theta` is reported only when exactly one candidate reproduces the log-probs
  bit for bit (`values["theta_fingerprint"]` lists the matching candidates as evidence). Not attempted for
  a file with any RoPE scaling (the candidate would change more than theta).
Head size, tie, activation, window and softcaps stay inside Rust and are not reported.
Prints one JSON object {"results": {MODEL_DIR: {outcome, message, values}}} and exits 0.
"""

from __future__ import annotations

import gc
import json
import os
import sys
import tempfile
from pathlib import Path

from probe_io import reserve_stdout_for_json

_ARCHITECTURES = {
    "llama": "Llama", "mistral": "Mistral", "mixtral": "Mixtral", "qwen2": "Qwen2", "qwen3": "Qwen3",
    "qwen3_moe": "Qwen3Moe", "gemma": "Gemma", "gemma2": "Gemma2", "phi3": "Phi3", "deepseek_v2": "DeepseekV2",
    "deepseek_v3": "DeepseekV3", "gpt_oss": "GptOss",
}  # fmt: skip
_VERBATIM_TEMPLATE = "{% for message in messages %}{{ message['content'] }}{% endfor %}"
_PROMPT = "abc def ghi"
_DEFAULT_CANDIDATES = (10000.0, 1000000.0)


def main(argv: list[str]) -> int:
    fingerprint = "--fingerprint" in argv
    dirs = [a for a in argv if a != "--fingerprint"]
    json_out = reserve_stdout_for_json()
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["RUST_BACKTRACE"] = "0"
    os.environ["MISTRALRS_CPU_KV_F32"] = "1"
    from importlib.metadata import version

    import mistralrs

    results = {}
    with tempfile.TemporaryDirectory(prefix="mistralrs-family-probe-") as scratch:
        template = Path(scratch) / "verbatim.jinja"
        template.write_text(_VERBATIM_TEMPLATE, encoding="utf-8")
        for model_dir in dirs:
            results[model_dir] = _probe(mistralrs, Path(model_dir), template, Path(scratch), fingerprint)
    json_out.write(json.dumps({"runtime": "mistral.rs", "version": version("mistralrs"), "results": results}) + "\n")
    json_out.flush()
    return 0


def _probe(mistralrs, model_dir: Path, template: Path, scratch: Path, fingerprint: bool) -> dict:
    config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    model_type = config.get("model_type")
    arch_name = _ARCHITECTURES.get(model_type)
    if arch_name is None or not hasattr(mistralrs.Architecture, arch_name):
        return {"outcome": "not-applicable", "message": f"no plain Architecture for {model_type}", "values": {}}
    arch = getattr(mistralrs.Architecture, arch_name)
    result = {"outcome": "loads", "message": None, "values": {}, "architecture": arch_name}
    try:
        runner = _load(mistralrs, model_dir, arch, template)
    except BaseException as exc:  # Rust panics surface as pyo3's BaseException subclass
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        result["outcome"] = "panic" if type(exc).__name__ == "PanicException" else "error"
        text = str(exc).strip().splitlines()
        result["message"] = text[0] if text else type(exc).__name__
        return result
    # Outside the try: an exception here is a probe bug and must exit non-zero.
    result["values"]["max_position_embeddings"] = runner.max_sequence_length()
    try:
        reference = _top_logprobs(mistralrs, runner)
    except ValueError as exc:  # the model built, but its first forward fails: the runtime's own error
        result["outcome"], result["message"] = "error", f"at the first forward: {str(exc).strip().splitlines()[0]}"
        return result
    del runner
    gc.collect()
    if fingerprint and not _has_scaling(config):
        matches = []
        for candidate in _candidates(config):
            probe_dir = scratch / f"theta-{model_dir.name}-{candidate:g}"
            _candidate_dir(model_dir, probe_dir, config, candidate)
            runner = _load(mistralrs, probe_dir, arch, template)
            if _top_logprobs(mistralrs, runner) == reference:
                matches.append(candidate)
            del runner
            gc.collect()
        result["values"]["theta_fingerprint"] = matches
        if len(matches) == 1:
            result["values"]["rope_theta"] = matches[0]
    return result


def _load(mistralrs, model_dir: Path, arch, template: Path):
    return mistralrs.Runner(
        which=mistralrs.Which.Plain(model_id=str(model_dir), arch=arch, dtype=mistralrs.ModelDType.F32),
        token_source="none",
        jinja_explicit=str(template),
    )


def _top_logprobs(mistralrs, runner) -> list:
    response = runner.send_chat_completion_request(
        mistralrs.ChatCompletionRequest(
            messages=[{"role": "user", "content": _PROMPT}],
            model="default",
            max_tokens=1,
            temperature=0.0,
            logprobs=True,
            top_logprobs=8,
            ignore_eos=True,
        )
    )
    position = response.choices[0].logprobs.content[0]
    return [(entry.token, entry.logprob) for entry in position.top_logprobs]


def _has_scaling(config: dict) -> bool:
    if config.get("rope_scaling"):
        return True
    params = config.get("rope_parameters")
    if isinstance(params, dict):
        nested = [v for v in params.values() if isinstance(v, dict)] or [params]
        return any(p.get("rope_type", p.get("type", "default")) != "default" for p in nested)
    return False


def _candidates(config: dict) -> list[float]:
    found: set[float] = set(_DEFAULT_CANDIDATES)

    def walk(node):
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "rope_theta" and isinstance(value, (int, float)) and not isinstance(value, bool):
                    found.add(float(value))
                walk(value)

    walk(config)
    return sorted(found)


def _candidate_dir(model_dir: Path, probe_dir: Path, config: dict, theta: float) -> None:
    probe_dir.mkdir()
    for entry in model_dir.iterdir():
        if entry.name != "config.json":
            (probe_dir / entry.name).symlink_to(entry.resolve())
    candidate = {k: v for k, v in config.items() if k not in ("rope_parameters", "rope_scaling")}
    candidate["rope_theta"] = theta
    (probe_dir / "config.json").write_text(json.dumps(candidate, indent=2), encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
