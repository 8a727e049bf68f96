"""The chat template ends an assistant turn with a token that a runtime does not stop on.

## What it does
Renders the chat template (sandboxed, bounded) for a short conversation to find the token written right
after the assistant's message, then checks it against the stop set of every runtime: transformers 5's and
4's generate(), vLLM, mlx-lm, candle's examples, mistral.rs and llama.cpp, each read from the files that
runtime reads, in its own precedence (`cfglint view` shows the sets).

## Why it matters
A runtime that does not stop on the end-of-turn token writes it and goes on: the model answers, then
writes the user's next turn and answers that too. Llama 3 Instruct lists `<|eot_id|>` only in
generation_config.json, so runtimes that read config.json's eos never stop; a Qwen-style template ends turns
with `<|im_end|>` while a generation_config.json may list only `<|endoftext|>`.

## Example
tokenizer.json has `<|eot_id|>` = 128009, the template writes it after each turn, config.json has
`"eos_token_id": 128001` and generation_config.json `[128001, 128009]`: candle's Llama example stops on
128001 only.

## Fix safety
Where config.json's `eos_token_id` is what the runtime reads, the fix adds the end-of-turn id to it. That
changes what transformers 5's AutoConfig reads, so it is safe only when transformers 5 still runs the model
the same: generate() stops on the same ids afterwards (a generation_config.json sets them), the model type's
own code does not read config.json's eos_token_id (CLIP, BART, T5 and a few others do), and no runtime loses
a stop; unsafe otherwise. When transformers 5 itself lacks the token, the id belongs in
generation_config.json, which `cfglint fix` does not write: the fix is shown only.
"""

from cfglint.diagnostics import Applicability, Finding, Fix

CODE = "T001"
NAME = "turn-end-not-a-stop"
SEVERITY = "error"
REQUIRES = ("tokenizer",)


def check(ctx):
    if (stops := ctx.stops) is None:
        return
    from cfglint.stops.findings import config_eos_fix, runs_on, said, token
    missing = stops.missing_turn_end()
    if not missing:
        return
    end_id = stops.turn_end_id
    assert end_id is not None
    effects = tuple(runs_on(stops, name) for name in missing)
    where = stops.files.template_origin
    message = (
        f"the chat template ({where}) ends an assistant turn with {token(stops, end_id)}, but "
        + "; ".join(f"{e.consumer} {e.detail}" for e in effects)
        + ": generation runs on into the next turn"
    )
    pointer = ctx.at("eos_token_id") if "eos_token_id" in ctx.config else ""
    fix = None
    if "transformers-5" in missing and stops.inputs.generation_file:
        ids = [*stops.sets["transformers-5"].ids, end_id]
        fix = Fix(f"add {end_id} to generation_config.json's eos_token_id: {said(stops, tuple(ids))}", Applicability.DISPLAY, ())
    else:
        fix = config_eos_fix(stops, ctx.at("eos_token_id"), end_id, set(missing))
    yield Finding(message, pointer, effects, fix)
