"""`cfglint check --logits`: measure each checked model directory and attach the figures to the findings.

Imported by the CLI only when --logits (or one of its options) is given; torch and transformers are
imported later still, once the options are known to be valid, so a missing extra costs one line.
"""

from __future__ import annotations

import importlib
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from cfglint.errors import UsageError
from cfglint.logits.readings import DIVERGES, FAILS

if TYPE_CHECKING:
    from cfglint.diagnostics import Diagnostic
    from cfglint.logits.check import LogitsCheck
    from cfglint.session import Result, Session

DEFAULT_PROMPT = "The capital of France is"
DEFAULT_TOKENS = 20
DEFAULT_TOLERANCE = 1e-4
MISSING_EXTRA = "--logits needs torch, transformers and safetensors: pip install 'hf-cfglint[logits]'"
TEXT_FORMATS = ("full", "concise")  # machine formats carry the figures inside each finding instead
_NEEDED = ("torch", "transformers", "safetensors")


def require_extra() -> None:
    """Raise a one-line UsageError unless the logits extra can be imported."""
    # Idle OpenMP workers spin by default; on a busy 2-core machine that made 2-thread forwards 5-10x
    # slower than passive waiting, which costs little on an idle one. OpenMP reads this once, when torch
    # first loads it, so it is set before the first import.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    for module in _NEEDED:
        try:
            importlib.import_module(module)
        except ImportError:
            raise UsageError(MISSING_EXTRA) from None


@dataclass
class LogitsRun:
    prompt: str
    tokens: int
    tolerance: float
    checks: dict[str, LogitsCheck] = field(default_factory=dict)  # result display path -> its figures
    unexplained: list[str] = field(default_factory=list)  # lines naming consumers no finding accounts for

    @classmethod
    def from_options(cls, enabled: bool, prompt: str | None, tokens: int | None, tolerance: float | None) -> LogitsRun:
        given = [name for name, value in (("--prompt", prompt), ("--tokens", tokens), ("--tolerance", tolerance)) if value is not None]
        if not enabled:
            raise UsageError(f"{', '.join(given)} only make{'s' if len(given) == 1 else ''} sense with --logits")
        run = cls(
            DEFAULT_PROMPT if prompt is None else prompt,
            DEFAULT_TOKENS if tokens is None else tokens,
            DEFAULT_TOLERANCE if tolerance is None else tolerance,
        )
        if not run.prompt:
            raise UsageError("--prompt must not be empty")
        if run.tokens < 1:
            raise UsageError(f"--tokens must be at least 1, got {run.tokens}")
        if not run.tolerance >= 0:  # also refuses NaN
            raise UsageError(f"--tolerance must be a number >= 0, got {run.tolerance}")
        require_extra()
        return run

    def measure(self, results: list[Result], session: Session) -> None:
        """Run every readable model directory among results; problems go through session.error."""
        from cfglint.logits import check, readings

        for result in results:
            model_dir, problem = _model_dir(result)
            if model_dir is None:
                session.error(f"{result.display}: --logits: {problem}")
                continue
            try:
                self.checks[result.display] = check.run(model_dir, readings.plan(result.ctx), self.prompt, self.tokens, self.tolerance)
            except check.LogitsError as err:
                session.error(f"{result.display}: --logits: {err}")

    def annotate(self, diagnostics: list[Diagnostic]) -> list[Diagnostic]:
        """Each finding gains a "logits" field with the figures of the consumers it names."""
        out = []
        explained: dict[str, set[str]] = {path: set() for path in self.checks}
        for d in diagnostics:
            measured = self.checks.get(d.path)
            named = [c for c in d.consumers if measured is not None and c in measured.comparisons]
            if measured is None or not named:
                out.append(d)
                continue
            explained[d.path].update(named)
            out.append(d._replace(extra={**d.extra, "logits": measured.to_json(named)}))
        self.unexplained = [
            f"{path}: {name} {c.verdict} ({_figure(c)}) and no finding names it"
            for path, measured in self.checks.items()
            for name, c in measured.comparisons.items()
            if c.verdict in (DIVERGES, FAILS) and name not in explained[path]
        ]
        return out

    def write_summary(self, fmt: str, output: str | None, statistics: bool) -> None:
        """The per-consumer table after a text report; unexplained divergences on stderr in every format."""
        from cfglint.logits.summary import render

        for line in self.unexplained:
            sys.stderr.write(f"cfglint: --logits: {line}\n")
        if fmt not in TEXT_FORMATS or statistics or not self.checks:
            return
        text = "".join(render(path, measured) for path, measured in self.checks.items())
        if output is None:
            sys.stdout.write(text)
            return
        with open(output, "a", encoding="utf-8") as handle:
            handle.write(text)

    def exit_code(self, code: int) -> int:
        """A divergence no finding explains fails the run like a finding would."""
        return max(code, 1) if self.unexplained else code


def _figure(c) -> str:
    if c.message:
        return c.message
    return f"max |logit diff| {c.all_positions:.3g}" if c.all_positions is not None else "non-finite logits"


def _model_dir(result: Result) -> tuple[Path | None, str | None]:
    """The local directory holding config.json and its safetensors weights, or why there is none."""
    ctx = result.ctx
    if ctx.intent is None:
        return None, "the config is not readable"
    if ctx.intent.family is None:
        return None, f"not run: cfglint models no family for model_type {ctx.intent.model_type!r}"
    if ctx.intent.root:
        return None, f"not run: the multimodal {ctx.intent.model_type} (only text models' checkpoints are run)"
    if "quantization_config" in ctx.config:
        return None, "quantized checkpoints are not supported"
    weights = ctx.weights
    if weights is None or not weights.safetensors:
        return None, "no safetensors weights beside config.json"
    directory = Path(weights.directory)
    if not all((directory / name).is_file() for name in weights.files):
        return None, "the weights are not on this machine"
    return directory, None
