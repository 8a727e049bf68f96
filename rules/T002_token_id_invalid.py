"""A stop or special token id points outside the vocabulary, or two files name a different token for it.

## What it does
Checks every `eos_token_id` in config.json and generation_config.json against `vocab_size` and against
tokenizer.json's added tokens (a stop that is an ordinary piece of text is reported as a warning), and
compares the text each added token has in tokenizer.json with the one tokenizer_config.json's
`added_tokens_decoder` gives it.

## Why it matters
A model never produces an id at or past `vocab_size`, so a stop on it never fires; transformers 5's
generate() and vLLM carry it silently, llama.cpp's converter drops it. Two texts for one id mean the
tokenizer that loads decides which token a stop is, and each runtime loads a different file: candle and
the converter read tokenizer.json, mistral.rs tokenizer_config.json.

## Example
`"vocab_size": 32000` with `"eos_token_id": 32007` in generation_config.json.

## Fix safety
No fix: which id was meant cannot be told from the files.
"""

from cfglint.diagnostics import Effect, Finding, Severity

CODE = "T002"
NAME = "token-id-invalid"
SEVERITY = "error"
REQUIRES = ("tokenizer",)


def check(ctx):
    if (stops := ctx.stops) is None:
        return
    from cfglint.stops.findings import ids_of
    inputs = stops.inputs
    size = inputs.vocab_size
    written = [("config.json", ctx.at("eos_token_id"), inputs.config_eos)]
    if inputs.generation_file:
        written.append(("generation_config.json", "", inputs.generation_eos))
    for file, pointer, value in written:
        if value is None:
            continue
        values = value if isinstance(value, list) else [value]
        bad = [v for v in values if type(v) is not int or v < 0]
        outside = [v for v in ids_of(value) if size is not None and v >= size]
        at = pointer if file == "config.json" else ""
        if bad:
            yield Finding(f"{file}'s eos_token_id holds {', '.join(map(repr, bad))}, which is not a token id", at)
        if outside:
            effects = tuple(Effect(n, "uses", outside, "never generated, so never stops") for n, s in stops.sets.items()
                            if set(outside) & set(s.ids))
            yield Finding(f"{file}'s eos_token_id {', '.join(map(str, outside))} is outside the vocabulary "
                          f"(vocab_size {size}): no model output can match it", at, effects)
        plain = [v for v in ids_of(value) if v not in outside and stops.files.vocabulary.from_tokenizer_json
                 and stops.files.vocabulary.by_id and v not in stops.files.vocabulary.by_id]
        if plain:
            yield Finding(f"{file}'s eos_token_id {', '.join(map(str, plain))} is no added token of tokenizer.json: "
                          "generation stops wherever the model writes that ordinary piece of text", at,
                          severity=Severity.WARNING)
    files = stops.files
    if not files.vocabulary.from_tokenizer_json:
        return
    for token_id, text in sorted(files.decoder.items()):
        other = files.vocabulary.by_id.get(token_id)
        if other is not None and other != text:
            yield Finding(f"token {token_id} is {other!r} in tokenizer.json but {text!r} in tokenizer_config.json's "
                          "added_tokens_decoder: candle and llama.cpp's converter read the first, mistral.rs the second", "")
