"""What holds for every generated folder, as plain functions: the hypothesis tests and scripts/fuzz_campaign.py
both call them. Each writes the folder into a fresh directory and raises AssertionError when a property fails."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

from hypothesis import strategies as st

from cfglint.cli import main
from tests.fuzz.inputs import (Folder, baselines, configs, folders, generation_configs, logits_files, settings_files,
                               stop_folders, tokenizer_files, weights, write)


@contextlib.contextmanager
def written(folder: Folder) -> Iterator[Path]:
    root = Path(tempfile.mkdtemp(prefix="cfglint-fuzz-"))
    try:
        yield write(folder, root / "model")
    finally:
        shutil.rmtree(root, ignore_errors=True)


def run(argv: list[str]) -> tuple[int, str, str]:
    """main(argv) in this process: its exit code, stdout and stderr. An exception propagates: that is a failure."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def exits_cleanly(argv: list[str]) -> int:
    code, _, err = run(argv)
    assert code in (0, 1, 2), (argv, code)
    assert "Traceback" not in err, (argv, err[-2000:])
    return code


REPORTS = [["--format", "json"], ["--format", "full"], ["--format", "concise"], ["--format", "sarif"],
           ["--format", "github"], ["--format", "json-lines"], ["--statistics"]]


def commands_exit_cleanly(folder: Folder) -> None:
    """check, view, fix (safe and unsafe) and, with generation settings, sampling: 0, 1 or 2, never a traceback."""
    with written(folder) as model:
        target = str(model)
        # Every report format in turn, chosen by the input so that a failure replays with the same one.
        turn = sum(len(data) for data in folder.values())
        report = REPORTS[turn % len(REPORTS)]
        commands = [["check", target, *report], ["view", target, "--format", ("json", "table")[turn % 2]],
                    ["fix", target], ["fix", target, "--unsafe-fixes"]]
        if "generation_config.json" in folder:
            commands.append(["sampling", target, "--format", "json"])
        if "logits.json" in folder:
            commands.append(["sampling", target, "--logits-json", str(model / "logits.json"), "--format", "json"])
        if "baseline.json" in folder:
            commands.append(["check", target, "--baseline", str(model / "baseline.json")])
        for argv in commands:
            exits_cleanly(argv)
        assert _contents(model) == folder, "a command without --write changed a file"


def fix_write_is_idempotent(folder: Folder, unsafe: bool) -> None:
    """`fix --write` changes only config.json, and a second run changes nothing."""
    flags = ["--unsafe-fixes"] if unsafe else []
    with written(folder) as model:
        exits_cleanly(["fix", str(model), "--write", *flags])
        once = _contents(model)
        assert {k: v for k, v in once.items() if k != "config.json"} == {k: v for k, v in folder.items() if k != "config.json"}
        exits_cleanly(["fix", str(model), "--write", *flags])
        assert _contents(model) == once, "a second fix --write changed the file again"


def baseline_round_trip(folder: Folder) -> None:
    """Whatever check finds, a baseline it writes accepts: checking against it reports nothing new."""
    with written(folder) as model:
        baseline = model.parent / "written-baseline.json"
        code = exits_cleanly(["check", str(model), "--write-baseline", str(baseline)])
        if code == 2:
            return  # a usage error (the settings): nothing was recorded
        assert code == 0
        assert exits_cleanly(["check", str(model), "--baseline", str(baseline)]) == 0


def safe_fix_keeps_transformers5_reading(folder: Folder, reading: Callable[[Path], dict | None], flags: tuple[str, ...] = ()) -> bool:
    """When transformers 5 loads the config, it runs the model the same after `fix --write` (safe fixes only):
    `reading(directory)` is everything of transformers 5's reading a run uses, None when it refuses. True when
    the input was loaded. `flags` (--unsafe-fixes) is for showing that the property can fail."""
    with written(folder) as model:
        before = reading(model)
        if before is None:
            return False
        exits_cleanly(["fix", str(model), "--write", *flags])
        assert reading(model) == before, (model / "config.json").read_text(errors="replace")[:2000]
        return True


def _contents(model: Path) -> Folder:
    return {p.name: p.read_bytes() for p in model.iterdir() if p.is_file()}


def _causal_lm_class(config, architectures):
    from transformers.models.auto.auto_factory import _get_model_class
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING

    try:
        return _get_model_class(config, MODEL_FOR_CAUSAL_LM_MAPPING).__name__
    except (KeyError, ValueError):  # a class with no causal LM (it loads no model to compare)
        return architectures


def transformers5_reading(directory: Path) -> dict | None:
    """What real transformers 5 runs the model with, or None when it refuses: AutoConfig (everything but its
    own version, `architectures` as the model class AutoModelForCausalLM picks by it) and, under `generate_eos`, the ids generate() stops on, from the generation config
    from_pretrained gives the model (generation_config.json, else one made from config.json).

    config.json's eos_token_id is left out of the AutoConfig part when the model type's modeling code does
    not read it: generate() is then its only reader, and generate_eos says what generate() does with it."""
    import logging

    import transformers

    transformers.logging.set_verbosity_error()
    logging.disable(logging.WARNING)
    try:
        config = transformers.AutoConfig.from_pretrained(str(directory), local_files_only=True)
        generation = _generation_config(transformers.GenerationConfig, directory)
    except Exception:  # noqa: BLE001 - any refusal means the input is not one transformers 5 loads
        return None
    finally:
        logging.disable(logging.NOTSET)
    reading = config.to_dict()
    reading.pop("transformers_version", None)
    # `architectures` as the model class AutoModelForCausalLM builds for it (names only pick among several)
    reading["architectures"] = _causal_lm_class(config, reading.get("architectures"))
    if not _modeling_reads_eos(config.model_type):
        reading.pop("eos_token_id", None)
    eos = generation.eos_token_id
    ids = eos if isinstance(eos, list) else [] if eos is None else [eos]
    # as a set of texts: a fuzzed generation config may hold lists or objects where ids belong
    reading["generate_eos"] = sorted({json.dumps(i, sort_keys=True, default=repr) for i in ids})
    _drop_legacy_type(reading.get("rope_parameters"))
    return json.loads(json.dumps(reading, default=repr))  # compared as text: NaN != NaN


def _generation_config(cls, directory: Path):
    """As GenerationMixin's loading does it (transformers 5.24 generation/utils.py): generation_config.json,
    and on an OSError (no such file, or not JSON) one made from config.json."""
    try:
        return cls.from_pretrained(str(directory), local_files_only=True)
    except OSError:
        return cls.from_pretrained(str(directory), config_file_name="config.json", _from_model_config=True, local_files_only=True)


def _modeling_reads_eos(model_type: str) -> bool:
    """Whether the installed transformers' modeling code for this model type reads config.eos_token_id."""
    import transformers
    from transformers.models.auto.configuration_auto import model_type_to_module_name

    folder = Path(transformers.__file__).parent / "models" / model_type_to_module_name(model_type)
    return any("config.eos_token_id" in f.read_text(encoding="utf-8") for f in folder.glob("modeling_*.py"))


def _drop_legacy_type(parameters: object) -> None:
    """A legacy `type` key beside a `rope_type` is inert: transformers 5's RoPE standardisation, validation and
    functions read `type` only in place of an absent rope_type (modeling_rope_utils.py 5.24), and no modelled
    family's classes read it. Olmo2Config copies a top-level rope_scaling's `type` in, a fix writes DeepSeek's
    beside its rope_type: neither is a different reading."""
    if isinstance(parameters, dict):
        if "type" in parameters and "rope_type" in parameters:
            del parameters["type"]
        for nested in parameters.values():
            _drop_legacy_type(nested)


LOADED: list[bool] = []  # per transformers 5 example: did it load (the property says something only then)


def _generation_only(generation: bytes) -> Folder:
    return {"config.json": b'{"model_type": "llama", "vocab_size": 128}', "generation_config.json": generation}


# name -> (the strategy of one example's folder and options, the property, examples per CI run). The tests run
# each with its CI budget; scripts/fuzz_campaign.py runs them for as long as it is given.
CHECKS: dict[str, tuple[st.SearchStrategy, Callable[..., object], int]] = {
    "any-folder": (st.tuples(folders()), commands_exit_cleanly, 800),
    "any-generation-config": (st.tuples(generation_configs().map(_generation_only)), commands_exit_cleanly, 350),
    "any-logits": (st.tuples(st.builds(lambda g, lo: dict(_generation_only(g), **{"logits.json": lo}), generation_configs(), logits_files())),
                   commands_exit_cleanly, 200),
    "any-weights": (st.tuples(st.builds(lambda c, w: {"config.json": c, **w}, configs(most=1), weights())), commands_exit_cleanly, 350),
    "any-tokenizer-files": (st.tuples(st.builds(lambda c, g, t: {"config.json": c, "generation_config.json": g, **t},
                                                configs(most=1), generation_configs(), tokenizer_files())),
                            commands_exit_cleanly, 150),
    "any-settings": (st.tuples(st.builds(lambda c, s: {"config.json": c, **s}, configs(most=1), settings_files())), commands_exit_cleanly, 250),
    "any-baseline": (st.tuples(st.builds(lambda c, b: {"config.json": c, "baseline.json": b}, configs(most=1), baselines())), commands_exit_cleanly, 200),
    "fix-write-idempotent": (st.tuples(folders(), st.booleans()), fix_write_is_idempotent, 200),
    "baseline-round-trip": (st.tuples(folders(most=3)), baseline_round_trip, 150),
    "safe-fix-keeps-transformers5": (
        st.tuples(st.builds(lambda c: {"config.json": c}, configs(most=2))),
        lambda folder: LOADED.append(safe_fix_keeps_transformers5_reading(folder, transformers5_reading)),
        150,
    ),
    "safe-fix-keeps-transformers5-stops": (
        st.tuples(stop_folders()),
        lambda folder: LOADED.append(safe_fix_keeps_transformers5_reading(folder, transformers5_reading)),
        60,
    ),
}
