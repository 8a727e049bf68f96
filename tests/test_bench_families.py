"""scripts/bench_families.py prints the corpus throughput and the cold start, with numbers, in one run."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys

import pytest

from tests.conftest import ROOT

SCRIPT = ROOT / "scripts" / "bench_families.py"
FAMILIES = ("deepseek_v2", "deepseek_v3", "gemma", "gemma2", "gemma3_text", "gpt_oss", "llama", "mistral", "mixtral", "phi3", "qwen2",
            "qwen2_moe", "qwen3", "qwen3_moe")
NUMBER = r"[\d.]+"


def _module():
    spec = importlib.util.spec_from_file_location("bench_families", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_corpus_is_deterministic_and_mixes_every_family(tmp_path):
    bench = _module()
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    paths, per_family = bench.build_corpus(first, 56, seed=3)
    again, _ = bench.build_corpus(second, 56, seed=3)
    assert len(paths) == 56 and set(per_family) == set(FAMILIES) and all(n == 4 for n in per_family.values())
    texts = [(first / p.rsplit("/", 1)[-1] / "config.json").read_text() for p in paths]
    assert texts == [(second / p.rsplit("/", 1)[-1] / "config.json").read_text() for p in again]
    types = {json.loads(t)["model_type"] for t in texts}
    assert types == set(FAMILIES)
    assert len(set(texts)) > 40  # perturbed, not 56 copies of 14 files


def test_fine_tunes_repeat_the_samples_values_under_other_names(tmp_path):
    bench = _module()
    paths = bench.build_fine_tunes(tmp_path / "tunes", 60)
    configs = [json.loads((tmp_path / "tunes" / p.rsplit("/", 1)[-1] / "config.json").read_text()) for p in paths]
    assert len({c["_name_or_path"] for c in configs}) == 60
    consulted = [{k: v for k, v in c.items() if k not in ("_name_or_path", "transformers_version")} for c in configs]
    samples = [{k: v for k, v in data.items() if k not in ("_name_or_path", "transformers_version")}
               for family in bench.samples_by_family().values() for _, data in family]
    assert {json.dumps(c, sort_keys=True) for c in consulted} == {json.dumps(c, sort_keys=True) for c in samples}


def test_bench_prints_throughput_and_startup_lines():
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--count", "300", "--runs", "1", "--starts", "1", "--profile"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert re.search(r"^machine: .*\(\d+ logical cores\).*Python [\d.]+, cfglint ", out, re.M), out
    corpus = re.search(r"^corpus: 300 model directories, config.json only, seed 0: (.*)$", out, re.M)
    assert corpus, out
    assert {name for name, n in re.findall(r"(\w+) (\d+)", corpus.group(1)) if int(n) > 0} == set(FAMILIES)
    assert re.search(
        rf"^  cfglint check \(Session\(\)\.check_all \+ json report to .+\): +{NUMBER} ms = +\d+ configs/s "
        r"\[target >= 2000 configs/s: (met|NOT met)\]; \d+ findings$", out, re.M), out
    assert re.search(
        rf"^  floor \(read \+ json\.loads \+ one pydantic model_validate\): +{NUMBER} ms = +\d+ configs/s; "
        rf"cfglint / floor {NUMBER}x the time$", out, re.M), out
    assert re.search(
        rf"^  the same count of fine-tunes \(each sample under other names, same values\): +{NUMBER} ms = +\d+ configs/s$", out, re.M), out
    # On a loaded machine 300 files can take less than the noise of check-jsonschema's start: the script says so.
    assert re.search(
        rf"^  check-jsonschema, one schema per file, its start left out: {NUMBER} ms a file = +\d+ configs/s; "
        rf"cfglint / check-jsonschema {NUMBER}x the time a file$", out, re.M) or re.search(
        r"^  check-jsonschema: 300 files take no more than its start-up's noise; no per-file figure$", out, re.M), out
    assert re.search(r"^profile of one run \(.*\), cfglint's functions, top 15 by cumulative time:$", out, re.M), out
    assert re.search(rf"^ +{NUMBER}s +{NUMBER}% +{NUMBER}s +1  session\.py:\d+\(check_all\)$", out, re.M), out
    assert re.search(r"^cold start, median of 1 round-robin start on samples/\S+:$", out, re.M), out
    for name in ("python -c pass", "typer + pydantic floor", "cfglint check", "cfglint check, Llama"):
        assert re.search(rf"^  {re.escape(name)} +{NUMBER} ms$", out, re.M), out
    assert re.search(rf"^  cfglint check / typer \+ pydantic floor {NUMBER}x \[target <= 1\.1x: (met|NOT met)\]$", out, re.M), out
    assert re.search(rf"^  cfglint check, Llama \(samples/\S+\) / typer \+ pydantic floor {NUMBER}x \[target <= 1.1x: (NOT )?met\]$", out, re.M), out


def test_bench_refuses_a_llama_sample_for_the_cold_start():
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--count", "1", "--sample", "samples/llama-3.2-1b"],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 2 and "Llama" in proc.stderr


def test_compare_times_two_checkouts_over_one_corpus():
    """scripts/bench_compare.py, this checkout against itself: both best times and the two ratios, near 1."""
    out = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "bench_compare.py"), str(ROOT), str(ROOT), "--count", "28", "--rounds", "2"],
        capture_output=True, text=True, check=True, timeout=600,
    ).stdout
    assert re.search(rf"before .*: best {NUMBER} ms a file", out) and re.search(rf"after .*: best {NUMBER} ms a file", out)
    ratios = [float(x) for x in re.findall(rf"(?:ratios|times) ({NUMBER})", out)]
    assert len(ratios) == 2 and all(0.3 < r < 3 for r in ratios), out


@pytest.mark.runtimes  # valgrind runs the whole corpus under instrumentation: a minute
def test_compare_counts_the_instructions_of_two_checkouts():
    """`--instructions`: this checkout against itself under valgrind, one run each, counted alike."""
    out = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "bench_compare.py"), str(ROOT), str(ROOT), "--instructions", "--count", "14"],
        capture_output=True, text=True, check=True, timeout=900,
    ).stdout
    counts = [float(x.replace(",", "")) for x in re.findall(r": ([\d,]+\.\d) million", out)]
    assert len(counts) == 2 and all(c > 1 for c in counts), out
    ratio = float(re.search(rf"after / before: ({NUMBER})", out).group(1))
    assert 0.97 < ratio < 1.03, out  # the same code and corpus, PYTHONHASHSEED=0: nearly the same count
