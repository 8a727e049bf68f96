"""`cfglint fix` on a Hub repository: refused in place, proposed as a pull request through huggingface_hub."""

from __future__ import annotations

import shutil

from tests.conftest import SAMPLES
from tests.hub.conftest import cache_dir, cfglint

SAMPLE = SAMPLES / "llama-3.2-1b-tf5"  # D001, R001 and R002 carry safe fixes


def test_fix_shows_the_diff_and_refuses_to_write_the_repository(hub, hf_env):
    hub.add("acme/llama", SAMPLE)

    shown = cfglint(hf_env, "fix", "acme/llama")
    refused = cfglint(hf_env, "fix", "acme/llama", "--write")

    assert shown.returncode == 1, shown.stderr
    assert shown.stdout.startswith("--- hf://acme/llama@main/config.json\n+++ hf://acme/llama@main/config.json\n")
    assert refused.returncode == 2
    assert refused.stderr.strip() == (
        "cfglint: error: hf://acme/llama@main/config.json: not written: this is acme/llama on the Hub (the file here is a "
        "blob in the Hugging Face cache); propose the fix as a pull request with `cfglint fix acme/llama --pr`, or fix a "
        "local copy: `hf download acme/llama --local-dir DIR`, then `cfglint fix DIR --write`"
    )
    [cached] = cache_dir(hf_env).rglob("snapshots/*/config.json")
    assert cached.read_bytes() == (SAMPLE / "config.json").read_bytes()


def test_pull_request_is_a_dry_run_until_write(hub, hf_env, tmp_path):
    commit = hub.add("acme/llama", SAMPLE)
    local = tmp_path / "local"
    shutil.copytree(SAMPLE, local)
    assert cfglint(hf_env, "fix", str(local), "--write").returncode == 0
    expected = (local / "config.json").read_bytes()

    dry = cfglint(hf_env, "fix", "acme/llama", "--pr")
    assert dry.returncode == 1, dry.stderr
    assert f"would open a pull request on acme/llama (from commit {commit[:12]})" in dry.stderr
    assert hub.paths("POST") == [] and hub.commits == []

    opened = cfglint(hf_env | {"HF_TOKEN": "hf_writer"}, "fix", "acme/llama", "--pr", "--write")
    assert opened.returncode == 0, opened.stderr
    [pr] = hub.commits
    assert pr["create_pr"] and pr["token"] == "hf_writer"
    assert pr["header"]["parentCommit"] == commit  # based on what was checked, not whatever main is now
    assert pr["files"] == {"config.json": expected}  # byte for byte what `fix --write` writes locally
    assert pr["header"]["summary"] == "Fix 3 cfglint findings in config.json"
    assert "- R001 (rope-theta-only-nested)" in pr["header"]["description"]
    assert f"opened a pull request on acme/llama (from commit {commit[:12]}): {hub.url}/acme/llama/discussions/1" in opened.stderr


def test_a_repository_that_cannot_be_read_is_not_fixed(hub, hf_env):
    proc = cfglint(hf_env, "fix", "acme/missing", "--pr", "--write")
    assert proc.returncode == 2
    assert "hf://acme/missing@main/config.json: not fixed: acme/missing not found (HTTP 401)" in proc.stderr
    assert hub.commits == []
