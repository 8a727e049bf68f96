"""A file transformers 5 refuses has no reading for a fix to keep: the findings that name its refusal keep
their fixes, every other fix is shown and not applied, and `cfglint fix` applies the rest once a round has
mended the refusal."""

from __future__ import annotations

import json

import pytest

import cfglint
from cfglint.cli import main
from cfglint.diagnostics import Applicability
from tests.families import resaved, variants


@pytest.fixture(scope="module")
def qwen2_tf5():
    pytest.importorskip("transformers")
    return resaved(variants("qwen2")["base"])


def test_a_file_transformers5_refuses_gets_no_fix_applied(qwen2_tf5, write_config, capsys):
    config = dict(qwen2_tf5, rope_parameters={"rope_type": "yarn", "rope_theta": 1e6})  # yarn without its factor
    directory = write_config(config)
    before = (directory / "config.json").read_bytes()
    findings = cfglint.check([directory]).findings
    refusal = [d for d in findings if any(e.consumer == "transformers-5" for e in d.effects)]
    assert refusal and all(d.fix is None for d in refusal)
    withheld = {d.code: d.fix for d in findings if d.fix is not None}
    assert {"R001", "R002"} <= set(withheld)  # they would write the theta and the scaling for older readers
    assert all(fix.applicability is Applicability.DISPLAY and "transformers-5 refuses this file" in fix.message
               for fix in withheld.values())

    assert main(["fix", str(directory), "--write", "--unsafe-fixes"]) == 0
    capsys.readouterr()
    assert (directory / "config.json").read_bytes() == before


def test_the_fix_that_mends_the_refusal_applies_and_then_the_others(qwen2_tf5, write_config, capsys):
    directory = write_config(dict(qwen2_tf5, rms_norm_eps=1))  # an integer transformers 5's float field refuses
    findings = cfglint.check([directory]).findings
    [mend] = [d for d in findings if d.code == "L001" and d.pointer == "/rms_norm_eps"]
    assert mend.fix.applicability is Applicability.SAFE
    assert any(d.code == "R001" and d.fix.applicability is Applicability.DISPLAY for d in findings)

    assert main(["fix", str(directory), "--write"]) in (0, 1)
    capsys.readouterr()
    written = json.loads((directory / "config.json").read_text())
    assert written["rms_norm_eps"] == 1.0 and type(written["rms_norm_eps"]) is float
    assert written["rope_theta"] == qwen2_tf5["rope_parameters"]["rope_theta"]  # R001's, in the next round
    assert not [d for d in cfglint.check([directory]).findings if d.code in ("R001", "L001") and d.pointer != "/sliding_window"]



def test_a_null_head_dim_the_attention_divides_by_is_removed_on_request(write_config, capsys):
    """Qwen2's attention takes the file's head_dim as it is; removing a null one lets every runtime derive
    hidden // heads, and the real transformers 5 then builds the model."""
    from transformers import AutoConfig, AutoModelForCausalLM

    from tests.families import BASES

    directory = write_config(dict(resaved(BASES["qwen2"]), head_dim=None))
    [refused] = [d for d in cfglint.check([directory]).findings if d.code == "L001" and d.pointer == "/head_dim"]
    assert {e.consumer for e in refused.effects} >= {"transformers-5", "transformers-4"}
    assert refused.fix.applicability is Applicability.UNSAFE and "hidden_size // num_attention_heads = 16" in refused.fix.message

    assert main(["fix", str(directory), "--write"]) in (0, 1)  # safe fixes only: the key stays
    assert "head_dim" in json.loads((directory / "config.json").read_text())
    assert main(["fix", str(directory), "--write", "--unsafe-fixes"]) in (0, 1)
    capsys.readouterr()
    assert "head_dim" not in json.loads((directory / "config.json").read_text())
    model = AutoModelForCausalLM.from_config(AutoConfig.from_pretrained(directory))
    assert model.model.layers[0].self_attn.head_dim == 16
    assert not [d for d in cfglint.check([directory]).findings if d.code == "L001" and d.pointer == "/head_dim"]
