"""Probe: what real llama.cpp (llama-cpp-python's libllama) loads from GGUF files, and the logits it computes.

Usage: python llama_cpp_runtime_probe.py TOKEN_IDS GGUF [GGUF ...]     (TOKEN_IDS: comma-separated)

For each file, with llama.cpp's own loader (llama_model_load_from_file, CPU, one thread):
- `hparams`: what the loaded model runs with. From the C API where it has a getter (n_ctx_train, n_embd,
  n_layer, n_head, n_head_kv, n_swa, n_vocab, rope type, freq_scale_train, BOS/EOS/EOT ids); from
  llama.cpp's verbose load log (`print_info: <name> = <value>`) for the rest: freq_base_train,
  rope scaling, n_rot, n_embd_head_k/v, n_ctx_orig_yarn, f_norm_rms_eps / f_norm_eps (printed as %.1e).
  `tensors` says which of `output.weight` and `rope_freqs.weight` the file has (looked up with ggml's gguf
  reader, libggml-base's gguf_find_tensor): without the first llama.cpp computes the output with the token
  embeddings; the second carries Llama 3's per-frequency RoPE factors.
- `metadata`: every key-value as llama.cpp's reader renders it (llama_model_meta_*; token arrays left out).
- `logits`: one row per token of TOKEN_IDS, decoded as one batch with every output requested, a float32
  K/V cache and flash attention off (the default f16 cache would round K and V).
- `print_info`: the raw `print_info:` lines, name -> text, for whoever reads a mismatch.
A file llama.cpp refuses is outcome "error" with the last error line of its log.
Prints one JSON object {"runtime", "version", "results": {GGUF: {outcome, message, values}}} and exits 0.
"""

from __future__ import annotations

import ctypes
import json
import re
import sys
from pathlib import Path

from probe_io import reserve_stdout_for_json

_PRINT_INFO = re.compile(r"^print_info: (\S.*?)\s*= (.*)$")
_GGML_LOG_LEVEL_ERROR = 4  # ggml.h enum ggml_log_level: NONE, DEBUG, INFO, WARN, ERROR, CONT
_TENSORS = ("output.weight", "rope_freqs.weight")
_META_SKIPPED = ("tokenizer.ggml.tokens", "tokenizer.ggml.scores", "tokenizer.ggml.token_type", "tokenizer.ggml.merges")


class _Log:
    """llama.cpp's log lines, collected through llama_log_set (the callback must outlive every call)."""

    def __init__(self, llama_cpp):
        self.lines: list[str] = []
        self.errors: list[str] = []
        self._partial = ""

        @llama_cpp.llama_log_callback
        def callback(level, text, _user_data):
            self._partial += text.decode("utf-8", errors="replace")
            *complete, self._partial = self._partial.split("\n")
            self.lines.extend(complete)
            if level == _GGML_LOG_LEVEL_ERROR:
                self.errors.extend(line.strip() for line in complete if line.strip())

        self.callback = callback
        llama_cpp.llama_log_set(callback, ctypes.c_void_p(0))

    def clear(self) -> None:
        self.lines.clear()
        self.errors.clear()
        self._partial = ""

    def print_info(self) -> dict[str, str]:
        out = {}
        for line in self.lines:
            match = _PRINT_INFO.match(line.strip())
            if match:
                out.setdefault(match.group(1), match.group(2).strip())
        return out


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__.splitlines()[2], file=sys.stderr)
        return 2
    tokens = [int(t) for t in argv[0].split(",") if t]
    json_out = reserve_stdout_for_json()
    import llama_cpp

    log = _Log(llama_cpp)
    llama_cpp.llama_backend_init()
    gguf_api = _GgufApi(Path(llama_cpp.__file__).parent / "lib")
    results = {}
    for path in argv[1:]:
        log.clear()
        results[path] = _probe_file(llama_cpp, gguf_api, log, path, tokens)
    payload = {"runtime": "llama.cpp", "version": llama_cpp.__version__, "results": results}
    json_out.write(json.dumps(payload) + "\n")
    json_out.flush()
    return 0


def _probe_file(llama_cpp, gguf_api, log: _Log, path: str, tokens: list[int]) -> dict:
    params = llama_cpp.llama_model_default_params()
    params.n_gpu_layers = 0
    model = llama_cpp.llama_model_load_from_file(path.encode(), params)
    if not model:
        return {"outcome": "error", "message": (log.errors or ["llama_model_load_from_file returned NULL"])[0], "values": {}}
    try:
        values = {
            "hparams": _hparams(llama_cpp, model, log.print_info()),
            "metadata": _metadata(llama_cpp, model),
            "tensors": {name: gguf_api.has_tensor(path, name) for name in _TENSORS},
        }
        logits, message = _logits(llama_cpp, model, tokens, log)
        if message:
            return {"outcome": "error", "message": message, "values": values}
        values["logits"] = logits
        values["print_info"] = log.print_info()
        return {"outcome": "loads", "message": None, "values": values}
    finally:
        llama_cpp.llama_model_free(model)


def _hparams(llama_cpp, model, info: dict[str, str]) -> dict:
    vocab = llama_cpp.llama_model_get_vocab(model)
    return {
        "arch": info.get("arch"),
        "n_ctx_train": llama_cpp.llama_model_n_ctx_train(model),
        "n_embd": llama_cpp.llama_model_n_embd(model),
        "n_layer": llama_cpp.llama_model_n_layer(model),
        "n_head": llama_cpp.llama_model_n_head(model),
        "n_head_kv": llama_cpp.llama_model_n_head_kv(model),
        "n_swa": llama_cpp.llama_model_n_swa(model),
        "n_vocab": llama_cpp.llama_vocab_n_tokens(vocab),
        "rope_type": llama_cpp.llama_model_rope_type(model),
        "freq_scale_train": llama_cpp.llama_model_rope_freq_scale_train(model),
        "bos": llama_cpp.llama_vocab_bos(vocab),
        "eos": llama_cpp.llama_vocab_eos(vocab),
        "eot": llama_cpp.llama_vocab_eot(vocab),
        "eog": [i for i in range(llama_cpp.llama_vocab_n_tokens(vocab)) if llama_cpp.llama_vocab_is_eog(vocab, i)],
        # Only printed in the load log:
        "freq_base_train": _number(info.get("freq_base_train"), float),
        "freq_base_swa": _number(info.get("freq_base_swa"), float),
        "rope_scaling": info.get("rope scaling"),
        "n_rot": _number(info.get("n_rot"), int),
        "n_embd_head_k": _number(info.get("n_embd_head_k"), int),
        "n_embd_head_v": _number(info.get("n_embd_head_v"), int),
        "n_ctx_orig_yarn": _number(info.get("n_ctx_orig_yarn"), int),
        "f_norm_rms_eps": _number(info.get("f_norm_rms_eps"), float),
        "f_norm_eps": _number(info.get("f_norm_eps"), float),
    }


def _number(text: str | None, kind):
    if text is None:
        return None
    try:
        return kind(text)
    except ValueError:
        return None


def _metadata(llama_cpp, model) -> dict[str, str]:
    out = {}
    buffer = ctypes.create_string_buffer(1 << 16)
    for index in range(llama_cpp.llama_model_meta_count(model)):
        if llama_cpp.llama_model_meta_key_by_index(model, index, buffer, len(buffer)) < 0:
            continue
        key = buffer.value.decode("utf-8", errors="replace")
        if key in _META_SKIPPED:
            continue
        if llama_cpp.llama_model_meta_val_str_by_index(model, index, buffer, len(buffer)) >= 0:
            out[key] = buffer.value.decode("utf-8", errors="replace")
    return out


def _logits(llama_cpp, model, tokens: list[int], log: _Log) -> tuple[list[list[float]] | None, str | None]:
    params = llama_cpp.llama_context_default_params()
    params.n_ctx = max(len(tokens), 16)
    params.n_batch = params.n_ubatch = max(len(tokens), 16)
    params.n_threads = params.n_threads_batch = 1
    params.type_k = params.type_v = llama_cpp.GGML_TYPE_F32
    params.flash_attn_type = llama_cpp.LLAMA_FLASH_ATTN_TYPE_DISABLED
    context = llama_cpp.llama_init_from_model(model, params)
    if not context:
        return None, (log.errors or ["llama_init_from_model returned NULL"])[0]
    batch = llama_cpp.llama_batch_init(len(tokens), 0, 1)
    try:
        for position, token in enumerate(tokens):
            batch.token[position] = token
            batch.pos[position] = position
            batch.n_seq_id[position] = 1
            batch.seq_id[position][0] = 0
            batch.logits[position] = 1
        batch.n_tokens = len(tokens)
        status = llama_cpp.llama_decode(context, batch)
        if status != 0:
            return None, f"llama_decode returned {status}: {(log.errors or [''])[-1]}".rstrip(": ")
        n_vocab = llama_cpp.llama_vocab_n_tokens(llama_cpp.llama_model_get_vocab(model))
        rows = []
        for position in range(len(tokens)):
            row = llama_cpp.llama_get_logits_ith(context, position)
            rows.append([float(row[i]) for i in range(n_vocab)])
        return rows, None
    finally:
        llama_cpp.llama_batch_free(batch)
        llama_cpp.llama_free(context)


class _GgufApi:
    """ggml's own GGUF reader (libggml-base), for what the loader's C API does not expose: the tensor names."""

    class _Params(ctypes.Structure):
        _fields_ = [("no_alloc", ctypes.c_bool), ("ctx", ctypes.c_void_p)]

    def __init__(self, lib_dir: Path):
        library = ctypes.CDLL(str(next(lib_dir.glob("libggml-base.*"))))
        self._init = library.gguf_init_from_file
        self._init.argtypes = [ctypes.c_char_p, self._Params]
        self._init.restype = ctypes.c_void_p
        self._find = library.gguf_find_tensor
        self._find.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        self._find.restype = ctypes.c_int64
        self._free = library.gguf_free
        self._free.argtypes = [ctypes.c_void_p]

    def has_tensor(self, path: str, name: str) -> bool | None:
        context = self._init(path.encode(), self._Params(True, None))
        if not context:
            return None
        try:
            return self._find(context, name.encode()) >= 0
        finally:
            self._free(context)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
