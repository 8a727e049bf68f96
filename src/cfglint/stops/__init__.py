"""Stop tokens: which token ends a turn, and which ids each runtime stops generating on.

Each runtime takes its stop set from a different file (runtimes.py says which, with its source); the chat
template says which token ends an assistant turn (template.py renders it to find out). The rules T001-T005
compare them; `cfglint view` shows every runtime's set.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from cfglint.generation import FROM_GENERATION_FILE
from cfglint.stops import files as tokenizer_files
from cfglint.stops import gguf_vocab
from cfglint.stops.files import SPECIAL_KEYS, Problem, TokenizerFiles
from cfglint.stops.runtimes import Inputs, StopSet, stop_sets
from cfglint.stops.template import TurnEnd, turn_end

if TYPE_CHECKING:
    from cfglint.rule import Context


@dataclass
class Stops:
    files: TokenizerFiles
    inputs: Inputs
    sets: dict[str, StopSet] = field(default_factory=dict)
    turn: TurnEnd | None = None  # None: no chat template (or one that could not be read)

    @property
    def turn_end_id(self) -> int | None:
        if self.turn is None:
            return None
        return self.files.vocabulary.id_of(self.turn.token)

    def missing_turn_end(self) -> dict[str, StopSet]:
        """Runtimes whose (complete) stop set lacks the template's end-of-turn id."""
        token_id = self.turn_end_id
        if token_id is None:
            return {}
        return {n: s for n, s in self.sets.items() if s.complete and s.failure is None and token_id not in s.ids}


def analyse(ctx: Context) -> Stops | None:
    """None for a file that is not a model directory's config.json, not a readable config, or one without
    tokenizer files beside it (the stop sets would only repeat the eos_token_id that `view` shows)."""
    if ctx.intent is None or ctx.listing is None:
        return None
    files = tokenizer_files.load(ctx.doc.path.parent, ctx.listing)
    if not files.any:
        return None
    gguf = gguf_vocab.read(ctx.doc.path.parent, ctx.listing)
    if gguf is not None and gguf.problem is not None:
        files.problems.append(Problem(gguf.file, f"cannot be read as a GGUF ({gguf.problem})"))
    generation = ctx.generation
    generation_file = generation is not None and generation.origin == FROM_GENERATION_FILE
    generation_eos = generation.values.get("eos_token_id") if generation is not None else None
    if ctx.intent.root and not generation_file and generation_eos is None:
        # GenerationConfig.from_model_config: the outer config's attributes, then the text model's where unset
        # (its class default included)
        generation_eos = ctx.intent.values.get("eos_token_id")
    vocab = ctx.intent.dims.get("vocab_size")
    inputs = Inputs(
        files=files,
        model_type=ctx.intent.model_type,
        config_eos=ctx.doc.data.get("eos_token_id"),  # config.json's top level, a multimodal file's too
        text_config_eos=ctx.config.get("eos_token_id") if ctx.intent.root else None,
        generation_file=generation_file,
        generation_eos=generation_eos,
        vocab_size=vocab if type(vocab) is int else None,
        gguf=gguf,
    )
    stops = Stops(files, inputs, stop_sets(inputs, set(ctx.views)))
    if files.template is not None:
        variables = {k: t for k in SPECIAL_KEYS if (t := files.special(k)) is not None}
        names = set(files.vocabulary.by_text) | set(variables.values())
        stops.turn = turn_end(files.template, variables, names)
    return stops
