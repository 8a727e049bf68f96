"""A tokenizer file or the chat template cannot be read or rendered, so its stop tokens were not checked.

## What it does
Reports a tokenizer_config.json, special_tokens_map.json, tokenizer.json or chat template that is not
valid JSON, has the wrong shape, or (for a template) does not render for a two-message conversation within
the bounds cfglint renders it in (5 seconds, 1 GiB, 64 KiB of output), in jinja2's sandbox as transformers
renders it.

## Why it matters
transformers refuses to load a tokenizer whose files do not parse, and apply_chat_template raises on a
template that does not render; what cfglint cannot read it cannot compare, so it says so instead of
reporting the stop tokens clean.

## Example
A tokenizer_config.json cut off in the middle, or `{% for i in range(99999) %}{% for j in range(99999) %}`.

## Fix safety
No fix.
"""

from cfglint.diagnostics import Finding

CODE = "T005"
NAME = "tokenizer-file-unreadable"
SEVERITY = "error"
REQUIRES = ("tokenizer",)


def check(ctx):
    if (stops := ctx.stops) is None:
        return
    for problem in stops.files.problems:
        yield Finding(f"{problem.file} {problem.message}: its stop tokens were not checked", "")
    turn = stops.turn
    if turn is not None and turn.error is not None:
        yield Finding(f"the chat template ({stops.files.template_origin}) {turn.error}: its end-of-turn token was not checked", "")
