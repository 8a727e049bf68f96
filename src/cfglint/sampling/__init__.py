"""Sampling semantics: the sampler transformers 5 builds from generate()'s settings, and each runtime's equivalent.

- samplers.py: the settings as each runtime spells them (transformers, candle's `Sampling`, mlx-lm's
  `make_sampler`); translate.py: which setting reproduces transformers, or why none does. Neither imports
  numpy, so rules can use them.
- distributions.py and measure.py (numpy): kept tokens, distributions and total-variation distance on a
  logits vector; logits_input.py reads one; command.py is `cfglint sampling`.
"""
