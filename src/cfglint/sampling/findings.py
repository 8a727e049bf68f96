"""What the sampling rules share: which runtimes to speak for, and where a generation setting is written.

No numpy here: rules run on the `cfglint check` path. The sampler models are imported only for a model
that configures generation at all, so a config without any pays nothing for them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from cfglint.diagnostics import Effect
from cfglint.generation import FROM_CONFIG, Generation

if TYPE_CHECKING:
    from cfglint.sampling.samplers import TransformersSampler
    from cfglint.sampling.translate import Translation


@dataclass
class SamplingContext:
    generation: Generation
    sampler: TransformersSampler
    consumers: list[str]  # the sampling runtimes among the consumers being checked, in CONSUMERS order
    vocab_size: int | None

    def translation(self, consumer: str) -> Translation:
        from cfglint.sampling.translate import translate

        return translate(self.generation, consumer, self.vocab_size)

    def at(self, key: str) -> tuple[str, str]:
        """(pointer into config.json, message prefix): generation_config.json positions go in the message."""
        g = self.generation
        if g.origin == FROM_CONFIG:
            return ("/" + key if key in g.doc.data else ""), ""
        if not g.written(key):
            return "", "generation_config.json: "
        line, column = g.doc.locate("/" + key)
        return "", f"generation_config.json:{line}:{column}: "


def sampling_context(ctx) -> SamplingContext | None:
    """None when there is nothing to say: no readable config, no generation settings written anywhere (every
    sampling rule is about a written setting or generation_config.json), or none of candle and mlx-lm
    is checked."""
    if ctx.intent is None or ctx.generation is None or not ctx.generation.has_settings:
        return None
    from cfglint.sampling.samplers import TransformersSampler
    from cfglint.sampling.translate import CONSUMERS

    loaded = {name for name, _ in ctx.loaded()}
    consumers = [c for c in CONSUMERS if c in loaded]
    if not consumers:
        return None
    g = ctx.generation
    vocab = ctx.intent.dims.get("vocab_size")
    return SamplingContext(g, TransformersSampler.of(g), consumers, vocab if isinstance(vocab, int) else None)


def effect(consumer: str, what: str) -> Effect:
    return Effect(consumer, "uses", None, what)
