"""Probe: what llama.cpp's convert_hf_to_gguf.py writes into a GGUF for model directories of any family.

Usage: python llama_cpp_family_probe.py --converter PATH/convert_hf_to_gguf.py MODEL_DIR [MODEL_DIR ...]

The converter is imported once and run in this process for every directory (torch's import costs
seconds), exactly as its main() does with `--outtype f32`, except that a failure of the vocabulary step
is passed over unless it is a refusal of the config (transformers' AutoTokenizer loads the config first):
the tiny checkpoints' tokenizer is not one the converter's per-family vocab code accepts, and the
vocabulary is not what is being tested (so `eos_token_id` is not reported). The GGUF is read back with
the converter's own gguf-py. The values of llama_cpp_probe.py (`rope_theta` = `rope.freq_base`, or the
runtime default 10000 when absent; `rope_scaling`, head_dim, kv heads, tie/biases from tensors, context,
eps), plus what the GGUF carries for the family keys:
- `attention_bias`: True (q/k/v/o bias tensors), "q/k/v" or False;
- `rope_scaling` longrope: from the `rope_factors_long/short` tensors (Phi-3 writes no scaling type);
- `rope_local_base_freq`: `rope.freq_base_swa`, only when written;
- `partial_rotary_factor`: `rope.dimension_count` / head_dim (not for latent attention);
- latent attention (DeepSeek): the MLA sizes and the experts' counts, see _latent_values;
- `sliding_window`: `attention.sliding_window` (0, the "no window" value, and no key are both None);
- `layer_types`: only from a per-layer `attention.sliding_window_pattern` array;
- `query_pre_attn_scalar`: `attention.scale ** -2`, only when `attention.scale` is written;
- softcaps: `attn_logit_softcapping` / `final_logit_softcapping`, only when written.
Values the C++ runtime hard-codes per architecture (e.g. a window pattern or a scale not in the GGUF)
are not observable here and are left out.
Prints one JSON object {"results": {MODEL_DIR: {outcome, message, values}}} and exits 0.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import sys
import tempfile
import traceback
from importlib.metadata import version
from pathlib import Path

from probe_io import one_line, reserve_stdout_for_json


class _LastError(logging.Handler):
    def __init__(self):
        super().__init__(logging.ERROR)
        self.messages: list[str] = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def main(argv: list[str]) -> int:
    if len(argv) < 3 or argv[0] != "--converter":
        print(__doc__.splitlines()[2], file=sys.stderr)
        return 2
    converter, dirs = Path(argv[1]), argv[2:]
    json_out = reserve_stdout_for_json()
    sys.path.insert(0, str(converter.parent))
    sys.path.insert(0, str(converter.parent / "gguf-py"))
    import gguf
    import convert_hf_to_gguf as cli
    import llama_cpp_probe as base_probe

    handler = _LastError()
    logging.getLogger().addHandler(handler)
    results = {}
    for model_dir in dirs:
        handler.messages.clear()
        with tempfile.TemporaryDirectory(prefix="llama-cpp-family-probe-") as scratch:
            gguf_path = Path(scratch) / "model.gguf"
            log = io.StringIO()
            result = {"outcome": "loads", "message": None, "values": {}}
            try:
                _convert(cli, Path(model_dir), gguf_path, log, set_vocab=_config_refusals_only)
            except SystemExit:
                result["outcome"] = "error"
                result["message"] = handler.messages[-1] if handler.messages else "converter exited"
            except Exception as exc:  # the converter's refusal is the observation
                result["outcome"] = "error"
                result["message"] = one_line(exc)
            else:
                reader = gguf.GGUFReader(gguf_path)
                values = base_probe._values(reader, base_probe._config_json(Path(model_dir)))
                values.pop("eos_token_id", None)  # vocabulary stubbed: not observed
                values.update(_family_values(reader, values, base_probe._float32))

                values["hparams_source"] = base_probe._hparams_source(log.getvalue())
                result["values"] = values
            results[model_dir] = result
    payload = {"runtime": "llama.cpp-convert", "transformers": version("transformers"), "results": results}
    json_out.write(json.dumps(payload) + "\n")
    json_out.flush()
    return 0


def _config_refusals_only(model, family_vocab) -> None:
    """The family's own vocabulary step, whose failures on these tiny tokenizers are not what is tested,
    except where it failed on the config: a vocabulary read through AutoTokenizer loads the config with
    transformers first, and a refusal there (the strict dataclass's, or one raised while the config is
    built) stops the converter, raw-JSON fallback or not."""
    from huggingface_hub.errors import StrictDataclassError

    try:
        family_vocab(model)
    except Exception as exc:  # noqa: BLE001  (sorted below: the config's refusal or the tokenizer's)
        frames = traceback.extract_tb(exc.__traceback__)
        if isinstance(exc, StrictDataclassError) or any(f.filename.endswith("configuration_utils.py") for f in frames):
            raise


def _convert(cli, model_dir: Path, gguf_path: Path, log: io.StringIO, *, set_vocab=None, file_type=None) -> None:
    """Run the converter's model class on model_dir; `set_vocab(model, family_vocab)` stands for the
    family's vocabulary step (default: none written), `file_type` the output type (default: all float32)."""
    import torch

    log_handler = logging.StreamHandler(log)
    logging.getLogger().addHandler(log_handler)
    logging.getLogger().setLevel(logging.INFO)
    try:
        with torch.inference_mode():
            hparams = cli.ModelBase.load_hparams(model_dir, False)
            architecture = cli.get_model_architecture(hparams, cli.ModelType.TEXT)
            try:
                model_class = cli.get_model_class(architecture, mmproj=False)
            except NotImplementedError:
                cli.logger.error(f"Model {architecture} is not supported")
                raise SystemExit(1) from None
            own = model_class.__dict__.get("set_vocab")
            family_vocab = model_class.set_vocab
            model_class.set_vocab = (  # restored below
                (lambda self: set_vocab(self, family_vocab)) if set_vocab is not None else (lambda self: None)
            )
            try:
                _write(cli, model_class, model_dir, gguf_path, file_type or cli.gguf.LlamaFileType.ALL_F32)
            finally:
                if own is None:
                    del model_class.set_vocab
                else:
                    model_class.set_vocab = own
    finally:
        logging.getLogger().removeHandler(log_handler)


def _write(cli, model_class, model_dir: Path, gguf_path: Path, file_type) -> None:
    instance = model_class(
        model_dir, file_type, gguf_path,
        is_big_endian=False, use_temp_file=False, eager=False, metadata_override=None,
        model_name=None, split_max_tensors=0, split_max_size=0, dry_run=False,
        small_first_shard=False, remote_hf_model_id=None,
        disable_mistral_community_chat_template=False,
        sentence_transformers_dense_modules=False, target_model_dir=None,
        fuse_gate_up_exps=False, fp8_as_q8=False, fuse_qkv=False,
    )  # fmt: skip
    with contextlib.redirect_stdout(sys.stderr):
        instance.write()


def _family_values(reader, values: dict, f32) -> dict:
    fields = {name: field.contents() for name, field in reader.fields.items()}
    arch = fields["general.architecture"]

    def key(name: str):
        return fields.get(f"{arch}.{name}")

    out: dict = {"gguf_architecture": arch}
    biases = set(values.get("tensors", {}).get("biases", []))
    qkv = {"attn_q.bias", "attn_k.bias", "attn_v.bias"} <= biases or "attn_qkv.bias" in biases
    output = "attn_output.bias" in biases
    out["attention_bias"] = True if qkv and output else "q/k/v" if qkv else False if not output else "o"
    if key("rope.freq_base_swa") is not None:
        out["rope_local_base_freq"] = f32(key("rope.freq_base_swa"))
    dims = key("rope.dimension_count")
    if dims is not None and values.get("head_dim") and key("attention.kv_lora_rank") is None:
        out["partial_rotary_factor"] = dims / values["head_dim"]
    window = key("attention.sliding_window")
    out["sliding_window"] = window or None
    pattern = key("attention.sliding_window_pattern")
    if isinstance(pattern, list):
        out["layer_types"] = ["sliding_attention" if p else "full_attention" for p in pattern]
    tensors = {tensor.name: tensor for tensor in reader.tensors}
    long, short = tensors.get("rope_factors_long.weight"), tensors.get("rope_factors_short.weight")
    if long is not None and short is not None:
        # Phi-3 longrope: no rope.scaling.type, the factors travel as tensors (phi.py).
        out["rope_scaling"] = {
            "rope_type": "longrope",
            "long_factor": [f32(v) for v in long.data.tolist()],
            "short_factor": [f32(v) for v in short.data.tolist()],
        }
        context = key("rope.scaling.original_context_length")
        if context is not None:
            out["rope_scaling"]["original_max_position_embeddings"] = context
    if key("attention.kv_lora_rank") is not None:
        out.update(_latent_values(key, values, dims))
    scale = key("attention.scale")
    if scale is not None:
        out["query_pre_attn_scalar"] = round(float(scale) ** -2, 3)
    for name in ("attn_logit_softcapping", "final_logit_softcapping"):
        if key(name) is not None:
            out[name] = f32(key(name))
    return out


def _latent_values(key, values: dict, dims) -> dict:
    """DeepSeek's MLA and experts as the GGUF carries them. The attention is written in its MQA form
    (head_count_kv 1, key_length kv_lora_rank + rope), which llama.cpp runs as per-head keys and values:
    those MQA numbers are not the heads transformers builds, so head_dim and kv heads are not reported."""
    for name in ("head_dim", "num_key_value_heads"):
        values.pop(name, None)
    dense = key("leading_dense_block_count") or 0
    layers = key("block_count")
    return {
        "qk_head_dim": key("attention.key_length_mla"),
        "v_head_dim": key("attention.value_length_mla"),
        "qk_rope_head_dim": dims,
        "kv_lora_rank": key("attention.kv_lora_rank"),
        "q_lora_rank": key("attention.q_lora_rank"),  # not written without a query latent
        "n_routed_experts": key("expert_count"),
        "n_shared_experts": key("expert_shared_count"),
        "num_experts_per_tok": key("expert_used_count"),
        "n_group": key("expert_group_count"),
        "topk_group": key("expert_group_used_count"),
        "routed_scaling_factor": key("expert_weights_scale"),
        "mlp_layers": ["dense" if i < dense else "moe" for i in range(layers)] if key("expert_count") else None,
    }


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
