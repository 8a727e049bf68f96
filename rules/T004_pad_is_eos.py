"""The padding token is the EOS token, so training on these files masks every EOS.

## What it does
Reports a tokenizer whose `pad_token` has the id of its `eos_token`, or of the token the chat template
ends a turn with.

## Why it matters
transformers' DataCollatorForLanguageModeling (the causal-LM collator Trainer and TRL use) sets every
label equal to the pad id to -100 (checked with 5.24), so every EOS in the training data is left out of
the loss: a model fine-tuned from these files is never taught to stop, and then runs on in every runtime.
The files serve inference as they are (official instruct models ship this way), so it is reported as
information for whoever fine-tunes from them, not as a failure.

## Example
SmolLM2-135M-Instruct: `"pad_token": "<|im_end|>"` and `"eos_token": "<|im_end|>"`.

## Fix safety
No fix: choosing a pad token (an unused added token) changes the tokenizer.
"""

from cfglint.diagnostics import Effect, Finding

CODE = "T004"
NAME = "pad-is-eos"
SEVERITY = "info"
REQUIRES = ("tokenizer",)


def check(ctx):
    if (stops := ctx.stops) is None:
        return
    from cfglint.stops.findings import token
    files = stops.files
    pad_id = files.vocabulary.id_of(files.special("pad_token"))
    if pad_id is None:
        return
    ends = {files.vocabulary.id_of(files.special("eos_token")), stops.turn_end_id} - {None}
    if pad_id not in ends:
        return
    effect = Effect("transformers-5", "uses", -100, "DataCollatorForLanguageModeling masks pad ids in the labels")
    yield Finding(f"the pad token is {token(stops, pad_id)}, the token that ends a turn: a causal-LM collator masks it in "
                  "the labels, so fine-tuning on these files never trains the model to stop", "", (effect,))
