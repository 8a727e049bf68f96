"""How llama.cpp routes DeepSeek's experts, against what transformers 5 means.

llama.cpp reads no topk_method: it picks expert groups whenever the file has more than one (scoring a group
by its two best experts, as DeepSeek-V3's noaux_tc does), else plain top-k. So it agrees with V2-Lite
(greedy) and V3 (noaux_tc), and not with DeepSeek-V2's group_limited_greedy, which scores a group by its best.
Rule A010 reports that difference, and nothing on the published mixture-of-experts configs.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cfglint import consumers, document
from cfglint.engine import context_of
from tests.conftest import ROOT


def _topk(config: dict) -> tuple[str, str]:
    doc = document.parse(Path("config.json"), json.dumps(config).encode())
    views = context_of(doc, [consumers.get("transformers-5"), consumers.get("llama-cpp")]).views
    return views["transformers-5"].values.get("topk_method"), views["llama-cpp"].values.get("topk_method")


@pytest.mark.parametrize("sample", ["deepseek-v2-lite", "deepseek-r1"])
def test_llama_cpp_routes_the_published_deepseek_configs_as_transformers_does(sample):
    meant, run = _topk(json.loads((ROOT / "samples" / sample / "config.json").read_text()))
    assert meant == run and run == ("greedy" if "v2" in sample else "noaux_tc")


def test_llama_cpp_scores_deepseek_v2_groups_otherwise():
    config = json.loads((ROOT / "samples" / "deepseek-v2-lite" / "config.json").read_text())
    config.update(n_group=8, topk_group=3, topk_method="group_limited_greedy")  # DeepSeek-V2's own routing
    assert _topk(config) == ("group_limited_greedy", "noaux_tc")


def test_mlx_lm_routes_its_own_default_greedily():
    # deepseek_v2.py's ModelArgs default is "gready"; MoEGate groups only for "group_limited_greedy"
    config = {k: v for k, v in json.loads((ROOT / "samples" / "deepseek-v2-lite" / "config.json").read_text()).items() if k != "topk_method"}
    doc = document.parse(Path("config.json"), json.dumps(config).encode())
    assert context_of(doc, [consumers.get("mlx-lm")]).views["mlx-lm"].values["topk_method"] == "greedy"


def _routing_findings(config: dict, folder: Path) -> list:
    """Rule A010's findings on the config, written to folder/config.json."""
    import cfglint

    folder.mkdir(exist_ok=True)
    (folder / "config.json").write_text(json.dumps(config, indent=2))
    return [(f.pointer, f.consumers, f.message) for f in cfglint.check(str(folder), select=["A010"], isolated=True).findings]


def test_a010_names_llama_cpp_for_deepseek_v2_group_limited_routing(tmp_path):
    from cfglint.compat import FAMILY_BASES

    v2 = dict(FAMILY_BASES["deepseek_v2"], n_routed_experts=16, n_group=8, topk_group=3, topk_method="group_limited_greedy")
    assert _routing_findings(v2, tmp_path) == [("/topk_method", ["llama-cpp"],
                                                'expert routing: topk_method is "group_limited_greedy" in transformers, but llama-cpp will use "noaux_tc" (derived)')]


@pytest.mark.parametrize("family", ["deepseek_v3", "deepseek_v2", "qwen2_moe", "qwen3_moe", "mixtral", "gpt_oss"])
def test_a010_is_quiet_where_every_runtime_routes_as_transformers(family, tmp_path):
    from cfglint.compat import FAMILY_BASES, tf5_layout

    assert _routing_findings(FAMILY_BASES[family], tmp_path) == []
    assert _routing_findings(tf5_layout(FAMILY_BASES[family]), tmp_path) == []


@pytest.mark.parametrize("sample", ["qwen1.5-moe-a2.7b", "qwen3-30b-a3b", "mixtral-8x7b-v0.1", "gpt-oss-120b", "deepseek-r1", "deepseek-v2-lite"])
def test_a010_is_quiet_on_the_published_moe_configs(sample, tmp_path):
    for folder in (sample, sample + "-tf5"):
        assert _routing_findings(json.loads((ROOT / "samples" / folder / "config.json").read_text()), tmp_path) == [], folder


def test_a010_points_at_moe_layer_freq_that_transformers_does_not_read(tmp_path):
    from cfglint.compat import FAMILY_BASES

    found = _routing_findings(dict(FAMILY_BASES["deepseek_v3"], first_k_dense_replace=0, moe_layer_freq=2), tmp_path)
    assert [(pointer, consumers) for pointer, consumers, _ in found] == [("/moe_layer_freq", ["mlx-lm"])]
