"""How llama.cpp routes DeepSeek's experts, against what transformers 5 means.

llama.cpp reads no topk_method: it picks expert groups whenever the file has more than one (scoring a group
by its two best experts, as DeepSeek-V3's noaux_tc does), else plain top-k. So it agrees with V2-Lite
(greedy) and V3 (noaux_tc), and not with DeepSeek-V2's group_limited_greedy, which scores a group by its best.
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
