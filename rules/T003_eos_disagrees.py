"""The tokenizer files disagree about the EOS token, or the tokenizer's EOS is not what generate() stops on.

## What it does
Compares the `eos_token` of tokenizer_config.json with the one in special_tokens_map.json, and the
tokenizer's EOS id with the `eos_token_id` that transformers 5's generate() stops on (unless that EOS is
the template's end of turn, which T001 reports).

## Why it matters
transformers 5 lets special_tokens_map.json win (checked with 5.24), and so do vLLM and mlx-lm, which load
the tokenizer through it; mistral.rs and llama.cpp's converter read tokenizer_config.json only. Runtimes
that stop on the tokenizer's EOS (vLLM always, mlx-lm when config.json has none, llama.cpp through the GGUF
eos) stop somewhere else than generate() does when that EOS is not in its set.

## Example
tokenizer_config.json `"eos_token": "<|im_end|>"`, special_tokens_map.json `"eos_token": "<|endoftext|>"`.

## Fix safety
No fix: which file is right is the model author's call.
"""

from cfglint.diagnostics import Effect, Finding

CODE = "T003"
NAME = "eos-disagrees"
SEVERITY = "warning"
REQUIRES = ("tokenizer",)


def check(ctx):
    if (stops := ctx.stops) is None:
        return
    from cfglint.stops.findings import said, token
    files = stops.files
    in_config = files.special("eos_token", map_wins=False)
    in_map = files.special_map and files.special("eos_token")
    if in_config is not None and in_map and in_map != in_config:
        effects = (
            Effect("transformers-5", "uses", in_map, "special_tokens_map.json wins"),
            Effect("mistralrs", "uses", in_config, "reads tokenizer_config.json"),
            Effect("llama-cpp", "uses", in_config, "the converter reads tokenizer_config.json"),
        )
        yield Finding(f"tokenizer_config.json's eos_token is {in_config!r} but special_tokens_map.json's is {in_map!r}: "
                      "transformers, vLLM and mlx-lm use the second, mistral.rs and llama.cpp's converter the first", "", effects)
    eos_id = files.vocabulary.id_of(files.special("eos_token"))
    generate = stops.sets.get("transformers-5")
    if eos_id is None or generate is None or not generate.ids or eos_id in generate.ids or eos_id == stops.turn_end_id:
        return  # the template's end of turn missing from generate()'s set is T001's
    yield Finding(f"the tokenizer's eos_token is {token(stops, eos_id)}, which transformers 5's generate() does not stop on "
                  f"(it stops on {said(stops, generate.ids)} from {stops.inputs.generation_origin}): vLLM stops on both",
                  ctx.at("eos_token_id") if "eos_token_id" in ctx.config and not stops.inputs.generation_file else "",
                  (Effect("vllm", "uses", eos_id, "adds the tokenizer's eos"),))
