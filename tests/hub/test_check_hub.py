"""`cfglint check org/name` against a Hub on 127.0.0.1: huggingface_hub's own code runs end to end."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

from tests.conftest import SAMPLES
from tests.hub.conftest import cfglint
from tests.hub.fake_hub import Fault
from tests.test_weights_header import TINY, llama_shapes, write_model

GENERATION = {"do_sample": True, "top_k": 0, "temperature": 0.7, "eos_token_id": 2}  # S004: top_k 0 breaks candle


def findings(proc) -> list[dict]:
    assert proc.returncode in (0, 1), proc.stderr
    return json.loads(proc.stdout)


def located(found: list[dict]) -> list[tuple]:
    return [(f["code"], f["line"], f["column"], f["message"]) for f in found]


def test_a_repository_is_checked_like_its_local_copy(hub, hf_env, tmp_path):
    local = tmp_path / "local-copy"
    shutil.copytree(SAMPLES / "weights-layers-missing", local)
    (local / "generation_config.json").write_text(json.dumps(GENERATION))
    commit = hub.add("acme/tiny-llama", local)
    cache = tmp_path / "custom-cache"

    remote = findings(cfglint(hf_env | {"HF_HUB_CACHE": str(cache)}, "check", "acme/tiny-llama", "--format", "json"))
    here = findings(cfglint(hf_env, "check", str(local), "--format", "json"))

    assert [f["code"] for f in remote] == ["S004", "S006", "S007", "W003"]  # generation and weights were read
    assert located(remote) == located(here)
    assert {f["path"] for f in remote} == {"hf://acme/tiny-llama@main/config.json"}
    assert {(f["repo"], f["revision"], f["commit"]) for f in remote} == {("acme/tiny-llama", "main", commit)}
    snapshot = cache / "models--acme--tiny-llama" / "snapshots" / commit
    assert sorted(p.name for p in snapshot.iterdir()) == ["config.json", "generation_config.json"]  # HF_HUB_CACHE, no weights
    # Everything after config.json is read at the commit config.json came from.
    assert all(f"/{commit}/" in p for p in hub.paths() if "config.json" in p and "generation" in p)


def test_weights_are_read_from_headers_by_range_request_never_whole(hub, hf_env, tmp_path):
    config = dict(TINY, vocab_size=8192)  # embeddings and head make the file ~0.5 MB, far past the first range
    model = write_model(tmp_path / "big", config, llama_shapes(config))
    size = (model / "model.safetensors").stat().st_size
    assert size > 400_000
    hub.add("acme/big", model)

    found = findings(cfglint(hf_env, "check", "acme/big", "--format", "json"))

    assert located(found) == located(findings(cfglint(hf_env, "check", str(model), "--format", "json")))
    assert not [f for f in found if f["code"].startswith(("W", "H"))]  # the headers were read, and agree
    weight_gets = [(p, h) for m, p, h in hub.requests if m == "GET" and ("/lfs/" in p or p.endswith(".safetensors"))]
    assert weight_gets, "the header was never fetched"
    assert all(h.get("range", "").startswith("bytes=0-") for _, h in weight_gets)
    assert all(int(h["range"].split("-")[1]) < size // 4 for _, h in weight_gets)
    assert not any((Path(hf_env["HF_HOME"]) / "hub").rglob("model.safetensors"))  # nothing of it was cached


def test_a_sharded_repository_reads_its_index_and_every_shard_header(hub, hf_env):
    hub.add("acme/sharded", SAMPLES / "weights-sharded-stray")

    found = findings(cfglint(hf_env, "check", "acme/sharded", "--format", "json"))

    assert [(f["code"], f["message"].split(":")[0]) for f in found] == [("W002", "model-00003-of-00003.safetensors is not named by model.safetensors.index.json")]
    lfs = [p for p in hub.paths("GET") if p.endswith(".safetensors")]
    assert sorted(p.rsplit("/", 1)[1] for p in lfs) == ["model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors", "model-00003-of-00003.safetensors"]


def test_revision_from_the_option_or_the_target(hub, hf_env):
    broken = SAMPLES / "weights-layers-missing"
    fixed = json.loads((broken / "config.json").read_text()) | {"num_hidden_layers": 2}
    hub.add("acme/model", broken)
    v2 = hub.add("acme/model", {"config.json": json.dumps(fixed).encode(), "model.safetensors": (broken / "model.safetensors").read_bytes()}, revision="v2")

    on_main = findings(cfglint(hf_env, "check", "acme/model", "--format", "json"))
    by_option = findings(cfglint(hf_env, "check", "acme/model", "--revision", "v2", "--format", "json"))
    hub.requests.clear()
    inline = findings(cfglint(hf_env, "check", "acme/model@v2", "--revision", "main", "--format", "json"))
    missing = findings(cfglint(hf_env, "check", "acme/model", "--revision", "v3", "--format", "json"))

    assert [f["code"] for f in on_main] == ["W003"]
    assert by_option == inline == []
    assert f"/api/models/acme/model/revision/{v2}" in hub.paths("GET")  # the headers were read at v2's commit
    assert [(f["path"], f["message"]) for f in missing] == [("hf://acme/model@v3/config.json", "acme/model has no revision 'v3' (HTTP 404)")]


def test_failing_repositories_are_findings_and_the_run_goes_on(hub, hf_env):
    hub.add("acme/good", SAMPLES / "weights-layers-missing")
    hub.add("acme/gated", SAMPLES / "weights-layers-missing", granted="hf_granted")
    hub.add("acme/readme-only", {"README.md": b"# no model here\n"})

    proc = cfglint(hf_env, "check", "acme/missing", "acme/gated", "acme/readme-only", "acme/good", "acme/good@nope", "--format", "json")

    assert proc.returncode == 1, proc.stderr
    found = findings(proc)
    by_path = {f["path"]: (f["code"], f["severity"], f["message"]) for f in found}
    assert [f["path"] for f in found] == [  # in the order given
        "hf://acme/missing@main/config.json", "hf://acme/gated@main/config.json", "hf://acme/readme-only@main/config.json",
        "hf://acme/good@main/config.json", "hf://acme/good@nope/config.json",
    ]
    assert by_path["hf://acme/missing@main/config.json"] == ("H001", "error", "acme/missing not found (HTTP 401): no such model repository, or it is private and the token sent has no access")
    assert by_path["hf://acme/gated@main/config.json"][2].startswith("acme/gated is gated (HTTP 401): request access")
    assert by_path["hf://acme/readme-only@main/config.json"][2] == "no config.json in acme/readme-only at revision 'main'"
    assert by_path["hf://acme/good@main/config.json"][0] == "W003"
    assert by_path["hf://acme/good@nope/config.json"][2] == "acme/good has no revision 'nope' (HTTP 404)"
    assert "Traceback" not in proc.stderr


def test_the_users_token_opens_a_gated_repository(hub, hf_env):
    hub.add("acme/gated", SAMPLES / "weights-layers-missing", granted="hf_granted")

    granted = findings(cfglint(hf_env | {"HF_TOKEN": "hf_granted"}, "check", "acme/gated", "--format", "json"))
    fresh_cache = {"HF_HUB_CACHE": str(Path(hf_env["HF_HOME"]) / "other-cache")}  # else the granted run's copy is used
    refused = findings(cfglint(hf_env | fresh_cache | {"HF_TOKEN": "hf_other"}, "check", "acme/gated", "--format", "json"))

    assert [f["code"] for f in granted] == ["W003"]
    assert {h.get("authorization") for m, p, h in hub.requests if "acme/gated" in p} >= {"Bearer hf_granted", "Bearer hf_other"}
    assert [(f["code"], f["message"]) for f in refused] == [("H001", "acme/gated is gated and the token sent has not been granted access (HTTP 403); request access on its Hub page")]


def test_a_connection_cut_inside_the_header_is_H001_and_the_config_is_still_checked(hub, hf_env, tmp_path):
    sample = SAMPLES / "weights-layers-missing"
    config = json.loads((sample / "config.json").read_text()) | {"rope_parameters": {"rope_theta": 10000.0, "rope_type": "default"}}
    del config["rope_theta"]
    hub.add("acme/cut", {"config.json": json.dumps(config).encode(), "model.safetensors": (sample / "model.safetensors").read_bytes()})
    hub.faults["model.safetensors"] = Fault(cut=True)

    found = findings(cfglint(hf_env, "check", "acme/cut", "--format", "json"))

    codes = [f["code"] for f in found]
    assert "R001" in codes and "W003" not in codes  # the config's own findings stay; the weights were not read
    [note] = [f for f in found if f["code"] == "H001"]
    assert note["severity"] == "error"
    assert note["message"].startswith("the weights could not be fetched: RemoteProtocolError")
    assert note["message"].endswith("; the config was not checked against them")


def test_a_short_range_response_is_an_unreadable_header(hub, hf_env):
    hub.add("acme/short", SAMPLES / "weights-layers-missing")
    hub.faults["model.safetensors"] = Fault(short=True)

    found = findings(cfglint(hf_env, "check", "acme/short", "--format", "json"))

    assert [(f["code"], f["message"].split(":")[0]) for f in found] == [("W001", "model.safetensors")]
    assert "header as served by the Hub is not a safetensors header" in found[0]["message"]


def test_a_server_error_on_a_header_is_H001_not_a_broken_file(hub, hf_env):
    hub.add("acme/flaky", SAMPLES / "weights-layers-missing")
    hub.faults["model.safetensors"] = Fault(status=400)

    found = findings(cfglint(hf_env, "check", "acme/flaky", "--format", "json"))

    assert [f["code"] for f in found] == ["H001"]
    assert found[0]["message"].startswith("the weights: the Hub answered HTTP 400")


def test_a_slow_server_times_out_into_a_finding(hub, hf_env):
    hub.add("acme/slow", SAMPLES / "weights-layers-missing")
    hub.faults["model.safetensors"] = Fault(delay=30)
    env = hf_env | {"HF_HUB_DOWNLOAD_TIMEOUT": "1", "HF_HUB_ETAG_TIMEOUT": "1"}

    started = time.monotonic()
    found = findings(cfglint(env, "check", "acme/slow", "--format", "json"))
    elapsed = time.monotonic() - started

    assert elapsed < 20, "the check waited for the slow server instead of timing out"
    [note] = found
    assert note["code"] == "H001"
    assert note["message"].startswith("the weights could not be fetched: timed out")
    assert "HF_HUB_DOWNLOAD_TIMEOUT" in note["message"]


def test_a_repository_past_the_deadline_is_reported_and_the_others_are_checked(hub, hf_env):
    hub.add("acme/stuck", SAMPLES / "weights-layers-missing")
    hub.add("acme/fine", SAMPLES / "llama-3.2-1b-tf5")
    hub.faults["model.safetensors"] = Fault(delay=40)  # within huggingface_hub's own timeouts below
    env = hf_env | {"HF_HUB_DOWNLOAD_TIMEOUT": "60", "HF_HUB_ETAG_TIMEOUT": "60"}

    started = time.monotonic()
    proc = cfglint(env, "check", "acme/stuck", "acme/fine", "--hub-timeout", "3", "--format", "json")
    elapsed = time.monotonic() - started

    assert elapsed < 25, "the check waited for the stuck repository past its deadline"
    found = findings(proc)
    stuck = [f for f in found if f["repo"] == "acme/stuck"]
    assert [f["code"] for f in stuck] == ["H001"]
    assert stuck[0]["message"] == "the Hub did not finish answering within 3 s (--hub-timeout); nothing was checked"
    assert sorted(f["code"] for f in found if f["repo"] == "acme/fine") == ["D001", "R001", "R002"]


def test_settings_come_from_the_working_directory_and_suppressions_name_the_repository(hub, hf_env, tmp_path):
    hub.add("acme/llama", SAMPLES / "llama-3.2-1b-tf5")
    project = tmp_path / "project"
    project.mkdir()
    (project / ".cfglint.toml").write_text('ignore = ["R002"]\n\n[[suppress]]\npath = "acme/llama"\ncodes = ["D001"]\nreason = "served by transformers 5 only"\n')

    here = findings(cfglint(hf_env, "check", "acme/llama", "--format", "json", cwd=project))
    elsewhere = findings(cfglint(hf_env, "check", "acme/llama", "--format", "json", cwd=tmp_path))

    assert [f["code"] for f in here] == ["R001"]
    assert [f["code"] for f in elsewhere] == ["D001", "R001", "R002"]
