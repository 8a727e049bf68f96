"""`cfglint sampling PATH`: each runtime's setting for the sampler transformers 5 builds, with numbers.

Exit codes: 0 when every runtime asked about can reproduce transformers' sampler with a setting of its own,
1 when one cannot (or when transformers itself refuses the settings), 2 on usage errors.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cfglint import document, generation as generation_module
from cfglint.errors import UsageError
from cfglint.generation import Generation
from cfglint.reading import DEFAULT, show
from cfglint.sampling.samplers import TransformersSampler
from cfglint.sampling.translate import CONSUMERS, Translation, translate
from cfglint.targets import TargetError, resolve


@dataclass
class Logits:
    source: str
    vector: Any  # numpy float32 vector


@dataclass
class Report:
    path: str
    generation: Generation
    translations: list[Translation]
    logits: Logits | None
    measurements: dict[str, Any]  # consumer -> measure.Measurement
    reference: Any = None  # dist.Outcome of transformers on the logits
    reference_error: str | None = None

    @property
    def reproducible(self) -> bool:
        return all(t.exact for t in self.translations)


def run(path: str, consumers: list[str] | None, logits_file: str | None, logits_json: str | None,
        prompt: str | None, output_format: str) -> int:
    if output_format not in ("table", "json"):
        raise UsageError(f"unknown format {output_format!r} (choose from table, json)")
    chosen = consumers or list(CONSUMERS)
    unknown = [c for c in chosen if c not in CONSUMERS]
    if unknown:
        raise UsageError(f"no sampler profile for {', '.join(map(repr, unknown))} (known: {', '.join(CONSUMERS)})")
    if sum(x is not None for x in (logits_file, logits_json, prompt)) > 1:
        raise UsageError("give at most one of --logits, --logits-json and --prompt")
    try:
        config_path = resolve(path)
        doc = document.load(config_path)
    except TargetError as err:
        raise UsageError(str(err)) from None
    except OSError as err:
        raise UsageError(f"{path}: {err.strerror or err}") from None
    if not doc.ok or not isinstance(doc.data, dict):
        raise UsageError(f"{config_path}: not a readable config (run `cfglint check`)")
    generation = generation_module.load(doc)
    logits = _logits(config_path, logits_file, logits_json, prompt)
    declared = doc.data.get("vocab_size")
    vocab = len(logits.vector) if logits else declared if type(declared) is int else None
    report = Report(str(config_path), generation, [translate(generation, c, vocab) for c in chosen], logits, {})
    if logits is not None:
        from cfglint.sampling import measure

        for t in report.translations:
            report.measurements[t.consumer] = measure.measure(t, generation, logits.vector)
        first = next(iter(report.measurements.values()), None)
        if first is not None:
            report.reference, report.reference_error = first.reference, first.reference_error
    sys.stdout.write(render_json(report) if output_format == "json" else render_table(report))
    return 0 if report.reproducible else 1


def _logits(config_path: Path, npy: str | None, json_file: str | None, prompt: str | None) -> Logits | None:
    if npy is None and json_file is None and prompt is None:
        return None
    try:
        from cfglint.sampling import logits_input
    except ImportError:
        raise UsageError("measuring needs numpy: pip install 'hf-cfglint[sampling]'") from None
    if npy is not None:
        return Logits(npy, logits_input.from_npy(npy))
    if json_file is not None:
        return Logits(json_file, logits_input.from_json(json_file))
    assert prompt is not None
    return Logits(f"transformers 5's next-token logits for {prompt!r}", logits_input.from_model(config_path.parent, prompt))


def transformers_line(generation: Generation) -> str:
    sampler = TransformersSampler.of(generation)
    values, sources = generation.values, generation.sources

    def shown(key: str, value: Any) -> str:
        return f"{key}={show(value)}" + (" (default)" if sources[key] == DEFAULT else "")

    if not sampler.do_sample:
        return "greedy (" + shown("do_sample", values["do_sample"]) + ")"
    parts = [shown("temperature", values["temperature"])]
    parts.append(shown("top_k", values["top_k"]) if sampler.k is not None else f"top_k={show(values['top_k'])} (off)")
    if sampler.p is not None:
        parts.append(shown("top_p", values["top_p"]))
    if sampler.minp is not None:
        parts.append(shown("min_p", values["min_p"]))
    return "sample with " + ", ".join(parts)


def render_table(report: Report) -> str:
    g = report.generation
    lines = [f"{report.path}: settings from {g.origin}", f"transformers 5: {transformers_line(g)}"]
    if report.logits is not None:
        size = len(report.logits.vector)
        if report.reference is not None:
            lines.append(f"  measured on {report.logits.source} ({size} tokens): keeps {report.reference.count}")
        else:
            lines.append(f"  measured on {report.logits.source} ({size} tokens): {report.reference_error}")
    for t in report.translations:
        lines.append("")
        lines.extend(_table_block(t, report.measurements.get(t.consumer)))
    return "\n".join(lines) + "\n"


def _table_block(t: Translation, m) -> list[str]:
    lines = []
    if t.literal is None:
        return [f"{t.consumer}: nothing to set"]
    if t.exact:
        lines.append(f"{t.consumer}: reproduces it with {t.literal.code}")
        lines.append(f"  command line: {t.literal.flags}")
    else:
        lines.append(f"{t.consumer}: cannot be expressed with its own settings")
        lines.extend(f"  why: {w}" for w in t.why)
        lines.append(f"  closest literal setting: {t.literal.code}  (command line: {t.literal.flags})")
    if m is not None:
        lines.append(f"  {_measured('literal', m.literal)}")
        if not t.exact and m.nearest is not None and m.nearest.code != m.literal.code:
            lines.append(f"  {_measured('nearest', m.nearest)}")
    if t.recipe:
        lines.append(f"  exact: {t.recipe}")
        if m is not None and m.recipe is not None:
            lines.append(f"  {_measured('exact', m.recipe)}")
    if t.as_written is not None:
        lines.append(f"  not {t.as_written.code} ({t.as_written.flags}): that ports only the written values, without the top_k 50 transformers adds")
        if m is not None and m.as_written is not None:
            lines.append(f"  {_measured('as written', m.as_written)}")
    lines.extend(f"  caveat: {c}" for c in t.caveats)
    lines.extend(f"  {n}" for n in t.notes)
    return lines


def _measured(label: str, m) -> str:
    if m.error:
        return f"{label}: {m.code} fails: {m.error}"
    tv = "n/a" if m.tv is None else f"{m.tv:.4f}"
    return f"{label}: {m.code} keeps {m.kept}, total variation {tv} from transformers"


def render_json(report: Report) -> str:
    g = report.generation
    data = {
        "path": report.path,
        "origin": g.origin,
        "transformers": {
            "sampler": transformers_line(g),
            "values": g.values,
            "sources": g.sources,
            "error": TransformersSampler.of(g).error,
        },
        "logits": None if report.logits is None else {
            "source": report.logits.source,
            "size": len(report.logits.vector),
            "kept": report.reference.count if report.reference is not None else None,
            "error": report.reference_error,
        },
        "consumers": [
            {
                "consumer": t.consumer,
                "exact": t.exact,
                "setting": t.literal.code if t.literal else None,
                "command_line": t.literal.flags if t.literal else None,
                "why": t.why,
                "caveats": t.caveats,
                "recipe": t.recipe,
                "as_written": t.as_written.code if t.as_written else None,
                "notes": t.notes,
                "measured": report.measurements[t.consumer].to_json() if t.consumer in report.measurements else None,
            }
            for t in report.translations
        ],
    }
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
