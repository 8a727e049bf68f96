"""Probe: what llama.cpp's convert_hf_to_gguf.py writes into a GGUF for a Llama model directory.

Usage: python llama_cpp_probe.py MODEL_DIR [--converter PATH/convert_hf_to_gguf.py]

Runs the real converter (float32 output, into a temporary folder) with this interpreter, so the
installed transformers is the one the converter reads hparams through, then reads the GGUF back with
the converter's own gguf-py. Values are what the llama.cpp runtime would load from that file:
- `rope_theta`: `llama.rope.freq_base`; when the converter wrote none, the runtime's default
  10000.0, and `rope_theta_written` is false.
- `rope_scaling`: from `llama.rope.scaling.*`, or for llama3 from the `rope_freqs` tensor: the
  parameters (among those in config.json and the converter's defaults) that reproduce it exactly.
- `head_dim`, `num_key_value_heads`, `max_position_embeddings`, `rms_norm_eps`, `eos_token_id`.
- `tie_word_embeddings`, `attention_bias`, `mlp_bias`: from the tensors present (the runtime falls
  back to the token embeddings without `output.weight`, and uses any bias tensor it finds).
`values["tensors"]` lists the evidence: `output.weight`, the bias tensors, the `rope_freqs` values
and `rope.dimension_count`;
`values["hparams_source"]` says whether the converter read hparams through transformers' AutoConfig
or, after AutoConfig refused the directory, from the raw config.json.
Without --converter, the converter is fetched into the test cache (see llama_cpp_converter.py).
A failed conversion is outcome "error" with the converter's last error line; the probe exits 0.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import subprocess
import sys
import tempfile
from importlib.metadata import version
from pathlib import Path

from probe_io import reserve_stdout_for_json

RUNTIME_DEFAULT_ROPE_THETA = 10000.0  # llama.cpp's rope_freq_base_train when the GGUF has none
# Defaults of the converter's llama3 rope_freqs computation (LlamaModel.generate_extra_tensors).
_LLAMA3_DEFAULTS = {
    "factor": 8.0,
    "low_freq_factor": 1.0,
    "high_freq_factor": 4.0,
    "original_max_position_embeddings": 8192,
}
_ATTENTION_BIASES = (
    "attn_q.bias",
    "attn_k.bias",
    "attn_v.bias",
    "attn_output.bias",
    "attn_qkv.bias",
)
# a dense MLP's, or the experts' (gpt-oss: llama.cpp's openai-moe graph requires them)
_MLP_BIASES = ("ffn_gate.bias", "ffn_up.bias", "ffn_down.bias", "ffn_gate_exps.bias", "ffn_up_exps.bias", "ffn_down_exps.bias")
_CONVERT_TIMEOUT_S = 900


def main(argv: list[str]) -> int:
    options = _parse_args(argv)
    json_out = reserve_stdout_for_json()
    converter = Path(options.converter) if options.converter else _ensure_converter()
    if not converter.is_file():
        raise FileNotFoundError(f"no converter script at {converter}")
    # Read the GGUF with the gguf-py the converter itself wrote it with.
    sys.path.insert(0, str(converter.parent / "gguf-py"))
    import gguf

    result = {
        "runtime": "llama.cpp-convert",
        "version": _converter_version(converter),
        "transformers": version("transformers"),
        "outcome": "loads",
        "message": None,
        "values": {},
    }
    with tempfile.TemporaryDirectory(prefix="llama-cpp-probe-") as scratch:
        gguf_path = Path(scratch) / "model.gguf"
        converted = _convert(converter, Path(options.model_dir), gguf_path)
        log = converted.stderr + converted.stdout
        if converted.returncode != 0 or not gguf_path.is_file():
            result["outcome"] = "error"
            result["message"] = _last_error_line(log) or (
                f"converter exited with status {converted.returncode} and no output"
            )
        else:
            reader = gguf.GGUFReader(gguf_path)
            result["values"] = _values(reader, _config_json(Path(options.model_dir)))
            result["values"]["hparams_source"] = _hparams_source(log)
    json_out.write(json.dumps(result) + "\n")
    json_out.flush()
    return 0


def _parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model_dir")
    parser.add_argument("--converter", help="path of convert_hf_to_gguf.py (default: test cache)")
    return parser.parse_args(argv)


def _ensure_converter() -> Path:
    repo_root = Path(__file__).resolve().parents[3]
    sys.path.insert(0, str(repo_root))
    from tests.conformance.llama_cpp_converter import ensure_converter

    return ensure_converter()


def _converter_version(converter: Path) -> str:
    # ensure_converter() records the sdist it came from; a hand-picked script has no version.
    marker = converter.parent / ".cfglint-ready"
    if marker.is_file():
        name = marker.read_text(encoding="utf-8").strip()
        return name.removeprefix("llama_cpp_python-").removesuffix(".tar.gz")
    return "unknown"


def _convert(converter: Path, model_dir: Path, gguf_path: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    env.pop("NO_LOCAL_GGUF", None)  # that would make it use an installed gguf instead of its own
    command = [
        sys.executable, str(converter), str(model_dir),
        "--outfile", str(gguf_path), "--outtype", "f32",
    ]  # fmt: skip
    completed = subprocess.run(
        command, capture_output=True, text=True, timeout=_CONVERT_TIMEOUT_S, env=env, check=False
    )
    sys.stderr.write(completed.stderr)  # the converter's log, for whoever reads the probe's stderr
    return completed


def _hparams_source(log: str) -> str:
    # ModelBase.load_hparams logs this when transformers' AutoConfig refused the directory and it
    # fell back to the raw JSON (no rope standardisation, no defaults filled in).
    if "Trying to load config.json instead" in log:
        return "config.json"
    return "transformers"


def _last_error_line(output: str) -> str | None:
    # A traceback ends with the exception; a logged refusal ends with an ERROR: line.
    lines = [line.strip() for line in output.replace("\r", "\n").splitlines() if line.strip()]
    return lines[-1] if lines else None


def _config_json(model_dir: Path) -> dict:
    try:
        config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return config if isinstance(config, dict) else {}


def _values(reader, config: dict) -> dict:
    fields = {name: field.contents() for name, field in reader.fields.items()}
    tensors = {tensor.name: tensor for tensor in reader.tensors}
    arch = fields["general.architecture"]

    def key(name: str):
        return fields.get(f"{arch}.{name}")

    heads = key("attention.head_count")
    rope_dims = key("rope.dimension_count")
    # llama.cpp's n_embd_head_k; for LLAMA it refuses a rope.dimension_count that differs.
    key_length = key("attention.key_length")  # 0 is a size too: llama.cpp reads it as written
    head_dim = key_length if key_length is not None else key("embedding_length") // heads
    freq_base = key("rope.freq_base")
    rope_theta = RUNTIME_DEFAULT_ROPE_THETA if freq_base is None else _float32(freq_base)
    bias_names = sorted({_per_layer_name(name) for name in tensors if name.endswith(".bias")})
    evidence: dict = {
        "output.weight": "output.weight" in tensors,
        "biases": bias_names,
        "rope.dimension_count": rope_dims,
    }
    rope_freqs = tensors.get("rope_freqs.weight")
    if rope_freqs is not None:
        evidence["rope_freqs"] = [_float32(value) for value in rope_freqs.data.tolist()]
    eps = key("attention.layer_norm_rms_epsilon")
    return {
        "rope_theta": rope_theta,
        "rope_theta_written": freq_base is not None,
        "rope_scaling": _rope_scaling(
            key, evidence.get("rope_freqs"), rope_theta, rope_dims, config
        ),
        "head_dim": head_dim,
        "num_key_value_heads": key("attention.head_count_kv") or heads,
        "max_position_embeddings": key("context_length"),
        "rms_norm_eps": None if eps is None else _float32(eps),
        "eos_token_id": fields.get("tokenizer.ggml.eos_token_id"),
        "tie_word_embeddings": "output.weight" not in tensors,
        "attention_bias": any(name in bias_names for name in _ATTENTION_BIASES),
        "mlp_bias": any(name in bias_names for name in _MLP_BIASES),
        "tensors": evidence,
    }


def _rope_scaling(key, rope_freqs, rope_theta, rope_dims, config) -> dict | None:
    scaling_type = key("rope.scaling.type")
    if scaling_type in ("linear", "yarn", "longrope"):
        scaling = {"rope_type": scaling_type}
        optional = {
            "factor": key("rope.scaling.factor"),
            "original_max_position_embeddings": key("rope.scaling.original_context_length"),
            "attention_factor": key("rope.scaling.attn_factor"),
            "extrapolation_factor": key("rope.scaling.yarn_ext_factor"),
            "beta_fast": key("rope.scaling.yarn_beta_fast"),
            "beta_slow": key("rope.scaling.yarn_beta_slow"),
        }
        for name, value in optional.items():
            if value is not None:
                scaling[name] = _float32(value) if isinstance(value, float) else value
        return scaling
    if rope_freqs is not None:
        return {
            "rope_type": "llama3",
            **_llama3_parameters(rope_freqs, rope_theta, rope_dims, config),
        }
    if scaling_type not in (None, "none"):
        raise RuntimeError(f"unexpected rope scaling type {scaling_type!r} in the GGUF")
    return None


def _llama3_parameters(rope_freqs: list[float], theta: float, dims: int, config: dict) -> dict:
    """The llama3 parameters that reproduce the rope_freqs tensor, as far as it pins them down.

    The tensor only depends on factor and on original_max_position_embeddings divided by each of
    low/high_freq_factor, so it is matched against the values config.json holds anywhere plus the
    converter's defaults; a parameter is reported only when every matching combination agrees.
    """
    candidates = _llama3_candidates(config)
    candidates["factor"].add(max(rope_freqs))
    matches = [
        combination
        for combination in (
            dict(zip(candidates, values, strict=True))
            for values in itertools.product(*candidates.values())
        )
        if _llama3_factors_match(rope_freqs, theta, dims, **combination)
    ]
    return {
        name: matches[0][name]
        for name in _LLAMA3_DEFAULTS
        if matches and len({match[name] for match in matches}) == 1
    }


def _llama3_candidates(config: dict) -> dict[str, set]:
    places = [config]
    for name in ("rope_scaling", "rope_parameters"):
        nested = config.get(name)
        if isinstance(nested, dict):
            places.append(nested)
            if isinstance(nested.get("full_attention"), dict):
                places.append(nested["full_attention"])
    candidates = {name: {default} for name, default in _LLAMA3_DEFAULTS.items()}
    candidates["original_max_position_embeddings"].add(config.get("max_position_embeddings"))
    for place, name in itertools.product(places, _LLAMA3_DEFAULTS):
        candidates[name].add(place.get(name))
    return {
        name: {value for value in values if _is_number(value) and value > 0}
        for name, values in candidates.items()
    }


def _llama3_factors_match(
    rope_freqs: list[float],
    theta: float,
    dims: int,
    *,
    factor: float,
    low_freq_factor: float,
    high_freq_factor: float,
    original_max_position_embeddings: float,
) -> bool:
    """Meta's llama3 frequency-smoothing factors (1 for high, `factor` for low frequencies)."""
    import numpy as np

    if high_freq_factor == low_freq_factor or len(rope_freqs) != dims // 2:
        return False
    exponents = np.arange(0, dims, 2, dtype=np.float32) / np.float32(dims)
    wavelengths = np.float32(2 * math.pi) * np.float32(theta) ** exponents
    context = np.float32(original_max_position_embeddings)
    smooth = (context / wavelengths - low_freq_factor) / (high_freq_factor - low_freq_factor)
    expected = np.where(
        wavelengths < context / high_freq_factor,
        1.0,
        np.where(
            wavelengths > context / low_freq_factor,
            factor,
            1.0 / ((1.0 - smooth) / factor + smooth),
        ),
    )
    return bool(np.allclose(np.array(rope_freqs), expected, rtol=1e-5, atol=0.0))


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _per_layer_name(tensor_name: str) -> str:
    # "blk.3.attn_q.bias" -> "attn_q.bias": which kinds of bias exist, not in how many layers.
    parts = tensor_name.split(".")
    return ".".join(parts[2:]) if parts[0] == "blk" else tensor_name


def _float32(value: float) -> float:
    # GGUF stores float32: report the shortest decimal that is the same float32 (1e-05, not
    # 9.999999747378752e-06), which is what the config most likely said.
    import numpy as np

    return float(str(np.float32(value)))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
