"""What the stop-token rules share: how a token and a stop set are said, and the config.json eos fix."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from cfglint.diagnostics import Applicability, Edit, Effect, Fix
from cfglint.stops import Stops
from cfglint.stops.runtimes import TRANSFORMERS5_EOS_IN_FORWARD, stop_sets


def token(stops: Stops, token_id: int) -> str:
    """'128009 <|eot_id|>', or the bare id when its text is unknown."""
    text = stops.files.vocabulary.text_of(token_id)
    return f"{token_id} {text}" if text is not None else str(token_id)


def said(stops: Stops, ids: tuple[int, ...]) -> str:
    if not ids:
        return "no token"
    return "[" + ", ".join(token(stops, i) for i in ids) + "]"


def runs_on(stops: Stops, name: str) -> Effect:
    stop_set = stops.sets[name]
    return Effect(name, "uses", list(stop_set.ids), f"stops on {said(stops, stop_set.ids)}")


def ids_of(value: Any) -> list[int]:
    values = value if isinstance(value, list) else [value]
    return [v for v in values if type(v) is int]


def config_eos_fix(stops: Stops, pointer: str, token_id: int, missing: set[str]) -> Fix | None:
    """Add token_id to config.json's eos_token_id, when that makes a runtime in `missing` stop on it.

    Safe when transformers 5 runs the model as before and no runtime loses a stop: generate() stops on the
    same ids (a generation_config.json sets them; without one it reads config.json's), and the model type's
    own code does not read config.json's eos_token_id (TRANSFORMERS5_EOS_IN_FORWARD). Unsafe otherwise."""
    inputs = stops.inputs
    current = ids_of(inputs.config_eos)
    if token_id in current:
        return None
    value: Any = [*current, token_id] if current else token_id
    changed = replace(inputs, config_eos=value, generation_eos=inputs.generation_eos if inputs.generation_file else value)
    # transformers 5 is the reference whether or not it is among the runtimes checked
    after = stop_sets(changed, {s.consumer for s in stops.sets.values()} | {"transformers-5"})
    if not any(token_id in after[n].ids for n in missing if n in after):
        return None  # those runtimes do not read config.json's eos
    kept = all(set(stops.sets[n].ids) <= set(s.ids) for n, s in after.items() if n in stops.sets)
    unchanged = after["transformers-5"].ids == stop_sets(inputs, {"transformers-5"})["transformers-5"].ids
    generate_only = inputs.model_type not in TRANSFORMERS5_EOS_IN_FORWARD
    safety = Applicability.SAFE if kept and unchanged and generate_only else Applicability.UNSAFE
    return Fix(f"set config.json's eos_token_id to {value}", safety, (Edit("set", pointer, value),))
