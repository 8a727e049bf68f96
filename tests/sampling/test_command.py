"""`cfglint sampling`: settings per runtime, measured numbers, exit codes and usage errors."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from cfglint.cli import main
from cfglint.sampling import distributions as dist
from cfglint.sampling.samplers import CandleSampling, MlxSampler, TransformersSampler
from tests.conftest import ROOT, SAMPLES

from .helpers import real_transformers

SMOLLM2 = (SAMPLES / "smollm2-135m-instruct" / "config.json").read_text()


@pytest.fixture
def model(tmp_path):
    def make(generation: dict | None) -> str:
        directory = tmp_path / f"m{len(list(tmp_path.iterdir()))}"
        directory.mkdir()
        (directory / "config.json").write_text(SMOLLM2)
        if generation is not None:
            (directory / "generation_config.json").write_text(json.dumps(generation))
        return str(directory)

    return make


def run(capsys, *args) -> tuple[int, str]:
    code = main(["sampling", *args])
    return code, capsys.readouterr().out


def peaked_logits(size: int = 49152, seed: int = 5) -> np.ndarray:
    rng = np.random.default_rng(seed)
    logits = rng.standard_normal(size).astype(np.float32)
    logits[:60] += np.linspace(9, 5, 60, dtype=np.float32)  # a head of likely tokens, a long tail
    return logits


def test_greedy_by_default(model, capsys):
    code, out = run(capsys, model(None))
    assert code == 0
    assert "transformers 5: greedy (do_sample=false (default))" in out
    assert "candle: reproduces it with Sampling::ArgMax" in out
    assert "mlx-lm: reproduces it with make_sampler(temp=0.0)" in out


def test_exact_translation_with_the_implicit_top_k(model, capsys):
    code, out = run(capsys, model({"do_sample": True, "temperature": 0.7, "eos_token_id": 2}), "--format", "json")
    report = json.loads(out)
    assert code == 0
    assert report["transformers"]["sources"]["top_k"] == "default"
    candle, mlx = report["consumers"]
    assert candle["exact"] and candle["setting"] == "Sampling::TopK { k: 50, temperature: 0.7 }"
    assert candle["command_line"] == "--temperature 0.7 --top-k 50"
    assert candle["as_written"] == "Sampling::All { temperature: 0.7 }"
    assert mlx["exact"] and mlx["setting"] == "make_sampler(temp=0.7, top_k=50)"
    assert report["logits"] is None and candle["measured"] is None


def test_measured_numbers_match_the_math_and_transformers(model, capsys, tmp_path):
    logits = peaked_logits()
    path = tmp_path / "logits.npy"
    np.save(path, logits[None, None, :])  # (batch, positions, vocab): the last position is used
    directory = model({"do_sample": True, "temperature": 0.8, "top_k": 40, "top_p": 0.9, "eos_token_id": 2})
    code, out = run(capsys, directory, "--logits", str(path), "--format", "json")
    report = json.loads(out)
    assert code == 1
    kept, _ = real_transformers(logits, 0.8, 40, 0.9)
    assert report["logits"] == {"source": str(path), "size": 49152, "kept": int(kept.sum()), "error": None}
    reference = dist.transformers(logits, TransformersSampler(True, 0.8, 40, 0.9))
    candle, mlx = (c["measured"] for c in report["consumers"])
    literal = dist.candle(logits, CandleSampling("TopKThenTopP", 0.8, 40, 0.9))
    assert candle["literal"]["kept"] == literal.count
    assert candle["literal"]["tv"] == pytest.approx(dist.total_variation(literal, reference), abs=1e-9)
    assert candle["recipe"]["kept"] == int(kept.sum()) and candle["recipe"]["tv"] < 1e-5
    assert candle["nearest"]["tv"] <= candle["literal"]["tv"]
    mlx_literal = dist.mlx(logits, MlxSampler(0.8, 0.9, 0.0, 40))
    assert mlx["literal"]["kept"] == mlx_literal.count
    assert mlx["literal"]["tv"] == pytest.approx(dist.total_variation(mlx_literal, reference), abs=1e-9)


def test_table_with_json_logits(model, capsys, tmp_path):
    logits = peaked_logits(200)
    path = tmp_path / "logits.json"
    path.write_text(json.dumps(logits.tolist()))
    code, out = run(capsys, model({"do_sample": True}), "--logits-json", str(path), "--consumer", "candle")
    assert code == 0
    reference = dist.transformers(logits, TransformersSampler(True, 1.0, 50, 1.0))
    whole = dist.candle(logits, CandleSampling("All", 1.0))
    assert f"keeps {reference.count}" in out
    assert f"as written: Sampling::All {{ temperature: 1.0 }} keeps 200, total variation {dist.total_variation(whole, reference):.4f}" in out
    assert "mlx-lm" not in out


def test_top_k_zero_is_left_out_of_the_candle_setting(model, capsys):
    code, out = run(capsys, model({"do_sample": True, "top_k": 0, "top_p": 0.95}), "--format", "json")
    candle = json.loads(out)["consumers"][0]
    assert code == 0 and candle["setting"] == "Sampling::TopP { p: 0.95, temperature: 1.0 }"


def test_settings_transformers_refuses(model, capsys, tmp_path):
    path = tmp_path / "logits.npy"
    np.save(path, peaked_logits(100))
    code, out = run(capsys, model({"do_sample": True, "temperature": 0.0}), "--logits", str(path), "--format", "json")
    report = json.loads(out)
    assert code == 1
    assert "strictly positive float" in report["transformers"]["error"]
    assert report["logits"]["kept"] is None and "ValueError" in report["logits"]["error"]
    assert all(not c["exact"] for c in report["consumers"])


@pytest.mark.parametrize(
    "args, message",
    [
        (["--consumer", "mistralrs"], "no sampler profile for 'mistralrs'"),
        (["--format", "xml"], "unknown format 'xml'"),
        (["--logits", "a.npy", "--logits-json", "b.json"], "at most one of"),
        (["--logits", "missing.npy"], "missing.npy"),
    ],
)
def test_usage_errors(model, capsys, args, message):
    assert main(["sampling", model(None), *args]) == 2
    assert message in capsys.readouterr().err


def test_pickled_npy_is_refused(model, capsys, tmp_path):
    path = tmp_path / "objects.npy"
    np.save(path, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    assert main(["sampling", model(None), "--logits", str(path)]) == 2
    assert "not a plain .npy array" in capsys.readouterr().err


def test_no_numpy_without_logits():
    probe = (
        "import sys; from cfglint.cli import main; "
        "main(['sampling', 'samples/llama-3.2-1b']); "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'numpy', 'torch', 'transformers'}), file=sys.stderr)"
    )
    proc = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == "[]"
