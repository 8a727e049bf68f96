"""transformers' generate() stops on different tokens than the runtimes that read config.json's eos.

## What it does
Compares the stop tokens generate() uses (generation_config.json's `eos_token_id` when that file exists)
with config.json's `eos_token_id`, and reports who stops where.

## Why it matters
transformers stops on the generation settings' eos alone; a generation_config.json without one stops on
nothing. candle's llama example stops on config.json's eos only; mlx-lm takes generation_config.json's
eos when it has one, else config.json's. Chat models often list their end-of-turn token only in
generation_config.json (Llama 3 Instruct: `[128001, 128009]` there, `128001` in config.json), so candle
runs past the end of the answer.

## Example
config.json `"eos_token_id": 128001`, generation_config.json `"eos_token_id": [128001, 128009]`.

## Fix safety
Unsafe: sets config.json's eos_token_id to generation_config.json's. transformers 5 reads the model
config's eos for nothing that generate() uses, but other tools may.
"""

from cfglint.diagnostics import Applicability, Edit, Finding, Fix
from cfglint.generation import FROM_GENERATION_FILE
from cfglint.reading import same, show
from cfglint.sampling.findings import effect, sampling_context

CODE = "S008"
NAME = "eos-mismatch"
SEVERITY = "warning"
REQUIRES = ("generation",)


def check(ctx):
    s = sampling_context(ctx)
    if s is None or s.generation.origin != FROM_GENERATION_FILE:
        return
    wanted, config_eos = s.generation.values["eos_token_id"], s.generation.config_eos
    if same("eos_token_id", wanted, config_eos):
        return
    readers = {"candle": config_eos, "mlx-lm": wanted if wanted else config_eos}
    stops = ctx.stops  # with tokenizer files beside config.json, candle's examples of other families stop on named tokens
    if stops is not None and "candle" in stops.sets and stops.sets["candle"].failure is None:
        ids = stops.sets["candle"].ids
        readers["candle"] = ids[0] if len(ids) == 1 else list(ids) or None
    effects = tuple(
        effect(n, f"stops on {show(readers[n])}") for n in s.consumers if not same("eos_token_id", readers[n], wanted)
    )
    if not effects:
        return
    if wanted is None:
        message = (
            f"generation_config.json has no eos_token_id, so transformers' generate() stops on no token; "
            f"config.json's eos {show(config_eos)} stops " + " and ".join(e.consumer for e in effects)
        )
        fix = None
    else:
        message = (
            f"generation_config.json's eos_token_id {show(wanted)} is what generate() stops on, but config.json says "
            f"{show(config_eos)}: " + "; ".join(f"{e.consumer} {e.detail}" for e in effects)
        )
        fix = Fix(f"set config.json's eos_token_id to {show(wanted)}", Applicability.UNSAFE, (Edit("set", "/eos_token_id", wanted),))
    pointer = "/eos_token_id" if "eos_token_id" in ctx.config else ""
    yield Finding(message, pointer, effects, fix)
