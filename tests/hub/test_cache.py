"""Offline checks from a Hugging Face cache laid out by the test, and `--hf-cache`."""

from __future__ import annotations

import json

from tests.conftest import SAMPLES
from tests.hub.conftest import cache_dir, cfglint, files_of, lay_out_snapshot
from tests.hub.fake_hub import commit_id

LAYERS = SAMPLES / "weights-layers-missing"  # W003: num_hidden_layers 3, weights for 2
GENERATION = json.dumps({"do_sample": True, "top_k": 0, "temperature": 0.7}).encode()


def offline(env: dict[str, str]) -> dict[str, str]:
    return env | {"HF_HUB_OFFLINE": "1"}


def test_offline_reads_the_cache_and_says_what_it_could_not_check(hub, hf_env):
    commit = commit_id("cached")
    lay_out_snapshot(cache_dir(hf_env), "acme/cached", {"config.json": (LAYERS / "config.json").read_bytes()}, commit)

    proc = cfglint(offline(hf_env), "check", "acme/cached", "--format", "json")

    assert proc.returncode == 0, proc.stderr  # what was skipped is info: nothing is wrong with the model
    found = json.loads(proc.stdout)
    assert [(f["code"], f["severity"], f["commit"]) for f in found] == [("H001", "info", commit)] * 2
    assert "generation_config.json is not in the local cache (HF_HUB_OFFLINE is set)" in found[0]["message"]
    assert found[1]["message"].startswith("the weights are not in the local cache")
    assert hub.requests == []  # HF_ENDPOINT points at the fake Hub: offline means it heard nothing


def test_offline_with_everything_cached_matches_the_local_check(hub, hf_env, tmp_path):
    files = files_of(LAYERS) | {"generation_config.json": GENERATION}
    lay_out_snapshot(cache_dir(hf_env), "acme/cached", files, commit_id("full"))
    local = tmp_path / "local"
    local.mkdir()
    for name, data in files.items():
        (local / name).write_bytes(data)

    remote = json.loads(cfglint(offline(hf_env), "check", "acme/cached", "--format", "json").stdout)
    here = json.loads(cfglint(hf_env, "check", str(local), "--format", "json").stdout)

    assert [f["code"] for f in remote] == ["S004", "S006", "S007", "S008", "W003"]
    assert [(f["code"], f["line"], f["message"]) for f in remote] == [(f["code"], f["line"], f["message"]) for f in here]
    assert hub.requests == []


def test_a_generation_config_known_to_be_absent_is_not_reported(hf_env):
    commit = commit_id("no-generation")
    snapshot = lay_out_snapshot(cache_dir(hf_env), "acme/cached", files_of(LAYERS), commit)
    marker = snapshot.parents[1] / ".no_exist" / commit / "generation_config.json"  # what hf_hub_download leaves after a 404
    marker.parent.mkdir(parents=True)
    marker.touch()

    found = json.loads(cfglint(offline(hf_env), "check", "acme/cached", "--format", "json").stdout)

    assert [f["code"] for f in found] == ["W003"]


def test_hf_cache_checks_every_model_snapshot_with_a_config(hub, hf_env):
    cache = cache_dir(hf_env)
    current, old = commit_id("a-current"), commit_id("a-old")
    lay_out_snapshot(cache, "acme/a", files_of(LAYERS), current)
    lay_out_snapshot(cache, "acme/a", {"config.json": (SAMPLES / "llama-3.2-1b-tf5" / "config.json").read_bytes()}, old, refs=())
    sharded = files_of(SAMPLES / "weights-sharded")  # index cached, shards not: a partial download, not a broken model
    lay_out_snapshot(cache, "acme/b", {n: sharded[n] for n in ("config.json", "model.safetensors.index.json")}, commit_id("b"))
    lay_out_snapshot(cache, "acme/tokenizer-only", {"tokenizer.json": b"{}"}, commit_id("t"))
    lay_out_snapshot(cache, "acme/data", {"config.json": (LAYERS / "config.json").read_bytes()}, commit_id("d"), repo_type="dataset")

    proc = cfglint(hf_env, "check", "--hf-cache", "--format", "json")  # online: it still asks the Hub nothing

    assert proc.returncode == 1, proc.stderr
    found = json.loads(proc.stdout)
    assert sorted({(f["path"], f["code"]) for f in found}) == [
        (f"hf://acme/a@{old}/config.json", "D001"),
        (f"hf://acme/a@{old}/config.json", "R001"),
        (f"hf://acme/a@{old}/config.json", "R002"),
        ("hf://acme/a@main/config.json", "W003"),
    ]
    assert {f["commit"] for f in found} == {current, old}
    assert "1 cached model snapshot without config.json skipped" in proc.stderr
    assert hub.requests == []


def test_fix_never_writes_into_the_cache(hf_env):
    snapshot = lay_out_snapshot(cache_dir(hf_env), "acme/a", {"config.json": (SAMPLES / "llama-3.2-1b-tf5" / "config.json").read_bytes()}, commit_id("a"))
    blob = (snapshot / "config.json").resolve()
    before = blob.read_bytes()

    shown = cfglint(offline(hf_env), "fix", "--hf-cache")
    refused = cfglint(offline(hf_env), "fix", "--hf-cache", "--write", "--follow-symlinks")

    assert shown.returncode == 1 and "+++ hf://acme/a@main/config.json" in shown.stdout
    assert refused.returncode == 2
    assert "hf://acme/a@main/config.json: not written: this is acme/a on the Hub" in refused.stderr
    assert "`hf download acme/a --local-dir DIR`, then `cfglint fix DIR --write`" in refused.stderr
    assert blob.read_bytes() == before
    assert sorted(p.name for p in blob.parent.iterdir()) == [blob.name]  # no temporary file left beside it


def test_no_cache_is_a_usage_error(hf_env):
    proc = cfglint(offline(hf_env), "check", "--hf-cache")
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"cfglint: error: no Hugging Face cache at {cache_dir(hf_env)}")
