"""The rule API and the loader for built-in and third-party rules.

A rule is one small module (yamllint's shape): a docstring that is its documentation, `CODE`, `NAME`,
`SEVERITY`, and `check(ctx)` yielding Findings; optionally `TARGETS`, the kinds of target it checks
(CONFIG, a model's config.json and the files beside it, the default; GGUF, a .gguf file). Built-in rules live in the top-level rules/ folder of the
source tree and ship inside the package as cfglint/rules. Every rule module is loaded on every run, so a
rule whose helpers only matter for some files (the weights and stop-token rules) imports them inside
`check`, after the test that returns early for other files.

A rule whose findings depend only on the intent, the readings and a few keys of the config names those keys
in `CONFIG_KEYS` (an empty tuple for none): a run then checks it once for each distinct set of kept readings
and values of those keys (cfglint.memo), instead of once per file. A rule that reads anything else (the
document's text, the files beside it, keys it does not name) leaves CONFIG_KEYS out.

A rule that has nothing to say without some part of its context (the weights, the tokenizer files, the
generation settings, a Hub repository) names those parts in `REQUIRES`: it is not run for a context that
lacks one. It still tests for them itself; REQUIRES only spares the call for the many files that have
none.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Callable, Iterable, Iterator, NamedTuple, TYPE_CHECKING

from cfglint.consumers.base import LOADS, PANIC, View
from cfglint.diagnostics import Effect, Finding, Severity
from cfglint.document import Document
from cfglint.intent import Intent
from cfglint.once import once
from cfglint.reading import same_as
from cfglint.tokenizer_names import NAMES as TOKENIZER_FILES

if TYPE_CHECKING:
    from cfglint.generation import Generation
    from cfglint.gguf.target import GgufTarget
    from cfglint.hub.remote import Remote
    from cfglint.stops import Stops
    from cfglint.weights import Weights


CONFIG, GGUF = "config", "gguf"  # the kinds of target a rule checks (its module's TARGETS)


@dataclass
class Context:
    """Everything a rule may look at; rules never read the file themselves."""

    doc: Document
    intent: Intent | None  # None when the document is not a JSON object
    views: dict[str, View] = field(default_factory=dict)
    weights: Weights | None = None  # the checkpoint beside config.json (headers only); None when there is none
    generation: Generation | None = None  # generate()'s settings, from generation_config.json or config.json
    remote: Remote | None = None  # the Hub repository the files come from; None for a local directory
    listing: frozenset[str] | None = None  # the files beside config.json, when it is a file in a directory
    gguf: GgufTarget | None = None  # a GGUF file checked as the target (its header and source config)
    # The runtimes this run reports on, for a GGUF target (which has no views); None: every one.
    runtimes: frozenset[str] | None = None

    @property
    def root(self) -> str:
        """Where the model's own config is: "/text_config" in a multimodal file, "" otherwise."""
        return self.intent.root if self.intent is not None else ""

    @once  # every rule asks; the document does not change within one context
    def config(self) -> dict:
        """The model's config object (a multimodal file's text_config); the whole file is `doc.data`."""
        data = self.doc.data if isinstance(self.doc.data, dict) else {}
        if self.root:
            node = data.get(self.root.lstrip("/"))
            return node if isinstance(node, dict) else {}
        return data

    def at(self, key: str) -> str:
        """The JSON Pointer of a key of the model's config."""
        return f"{self.root}/{key}"

    def loaded(self) -> Iterator[tuple[str, View]]:
        """Consumers that get as far as building the model (a panic at weight load still reads the config)."""
        return iter(self._loaded)

    @once
    def _loaded(self) -> list[tuple[str, View]]:  # every rule asks; the views do not change within one context
        return [
            (name, view) for name, view in self.views.items()
            if view.outcome in (LOADS, PANIC) or (view.failure is not None and view.failure.kind == "shape")
        ]

    @once  # the stop-token rules share one reading of the tokenizer files and one render
    def stops(self) -> Stops | None:
        """Each runtime's stop tokens and the chat template's end of turn (None outside a model directory)."""
        if not _has_tokenizer_files(self):
            return None  # what analyse answers too, without importing the analysis
        from cfglint.stops import analyse

        return analyse(self)

    def diverging(self, key: str) -> list[tuple[str, View]]:
        """Consumers whose value for key differs from what transformers means (several rules ask for a key)."""
        assert self.intent is not None
        if key not in self._diverging:
            self._diverging[key] = self._compare(key) if key in self.intent.values else []
        return list(self._diverging[key])

    def _compare(self, key: str) -> list[tuple[str, View]]:
        assert self.intent is not None
        agrees = same_as(key, self.intent.values[key])
        return [(n, v) for n, v in self._loaded if key in v.values and not agrees(v.values[key])]

    @once
    def _diverging(self) -> dict[str, list[tuple[str, View]]]:
        return {}

    def from_layer_type(self, view: View, key: str) -> bool:
        """Whether a view takes key from one layer type's RoPE parameters (`rope_parameters.full_attention`)
        where transformers 5 runs one set for every layer: R007 speaks for that reading, not the rules about
        where a key is written."""
        assert self.intent is not None
        return _under_layer_type(view.sources.get(key, ""), self) and not _under_layer_type(self.intent.sources.get(key, ""), self)

    def differing(self, keys: Iterable[str]) -> Iterator[tuple[str, tuple[Effect, ...]]]:
        """Each of keys the intent states that some consumer reads otherwise, with what those consumers use."""
        if self.intent is None:
            return
        for key in keys:
            effects = tuple(uses(n, v, key) for n, v in self.diverging(key))
            if effects:
                yield key, effects

    def failures(self, kinds: Iterable[str], under: str | None = None) -> list[tuple[str, View]]:
        kinds = set(kinds)
        out = []
        for name, view in self.views.items():
            failure = view.failure
            if failure is None or failure.kind not in kinds:
                continue
            if under is not None and not (failure.pointer == under or failure.pointer.startswith(under + "/")):
                continue
            out.append((name, view))
        return out


LAYER_TYPES = ("full_attention", "sliding_attention")  # the keys transformers 5 nests RoPE parameters under


def _under_layer_type(pointer: str, ctx: Context) -> bool:
    return any(pointer.startswith(f"{ctx.at(holder)}/{layer}") for holder in ("rope_parameters", "rope_scaling") for layer in LAYER_TYPES)


def _has_tokenizer_files(ctx: Context) -> bool:
    return ctx.listing is not None and not ctx.listing.isdisjoint(TOKENIZER_FILES)


# The parts of a context a rule may require (its module's REQUIRES), each with the test that it is there.
PARTS: dict[str, Callable[[Context], bool]] = {
    "weights": lambda ctx: ctx.weights is not None,
    "tokenizer": _has_tokenizer_files,
    "generation": lambda ctx: ctx.generation is not None and ctx.generation.has_settings,
    "remote": lambda ctx: ctx.remote is not None,
}


def parts_of(ctx: Context) -> frozenset[str]:
    """The parts of PARTS this context has."""
    return frozenset(name for name, present in PARTS.items() if present(ctx))


def uses(name: str, view: View, key: str, detail: str = "") -> Effect:
    return Effect(name, "uses", view.values.get(key), detail or view.sources.get(key, ""))


def fails(name: str, view: View) -> Effect:
    assert view.failure is not None
    return Effect(name, view.outcome, None, view.failure.message)


class Rule(NamedTuple):
    code: str
    name: str
    severity: Severity
    check: Callable[[Context], Iterable[Finding]]
    doc: str
    origin: str = "cfglint"
    targets: frozenset[str] = frozenset({CONFIG})
    config_keys: tuple[str, ...] | None = None  # its module's CONFIG_KEYS; None: checked for every file
    requires: frozenset[str] = frozenset()  # its module's REQUIRES: the parts of a context (PARTS) it needs

    @property
    def summary(self) -> str:
        return self.doc.strip().splitlines()[0] if self.doc.strip() else self.name

    def sections(self) -> dict[str, str]:
        """The docstring's `## Heading` sections (what it does, why it matters, example, fix safety)."""
        parts = re.split(r"^## +(.+)$", self.doc, flags=re.M)
        return {parts[i].strip(): parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}


def builtin_rules_dir() -> Path:
    packaged = Path(__file__).with_name("rules")
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[2] / "rules"  # a source checkout


def _from_module(module: ModuleType, origin: str) -> Rule:
    requires = frozenset(getattr(module, "REQUIRES", ()))
    if not requires <= PARTS.keys():
        unknown = ", ".join(sorted(requires - PARTS.keys()))
        raise ValueError(f"rule {module.CODE}: REQUIRES names no part of a context: {unknown} (known: {', '.join(PARTS)})")
    return Rule(
        code=module.CODE,
        name=module.NAME,
        severity=Severity(module.SEVERITY),
        check=module.check,
        doc=module.__doc__ or "",
        origin=origin,
        targets=frozenset(getattr(module, "TARGETS", (CONFIG,))),
        config_keys=tuple(module.CONFIG_KEYS) if hasattr(module, "CONFIG_KEYS") else None,
        requires=requires,
    )


def load_builtin() -> list[Rule]:
    rules = []
    for path in sorted(builtin_rules_dir().glob("[A-Z]*.py")):
        name = f"cfglint.rules.{path.stem}"
        module = sys.modules.get(name)
        if module is None:
            spec = importlib.util.spec_from_file_location(name, path)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            spec.loader.exec_module(module)
        rules.append(_from_module(module, "cfglint"))
    return sorted(rules, key=lambda r: r.code)


def load_plugins(names: list[str] | None = None) -> list[Rule]:
    """Third-party rules registered under the `cfglint.rules` entry-point group (all, or those named)."""
    from importlib.metadata import entry_points

    rules = []
    for ep in entry_points(group="cfglint.rules"):
        if names is not None and ep.name not in names:
            continue
        module = ep.load()
        rules.append(_from_module(module, ep.value))
    return rules


def describe(effects: Iterable[Effect]) -> str:
    """'candle and mlx-lm will use 10000.0; mistralrs refuses to load (missing field `rope_theta`)'."""
    from cfglint.reading import show

    groups: dict[tuple[str, str], list[str]] = {}
    for e in effects:
        if e.outcome == "uses":
            why = {"default": " (default)", "fixed": " (hard-coded)", "derived": " (derived)"}.get(e.detail, "")
            verb, rest = "will use", f" {show(e.value)}{why}"
        elif e.outcome == "panic":
            verb, rest = "panic", f" at load ({e.detail})"
        elif e.outcome == "error" and str(e.detail).startswith("at "):  # it loads, and fails later
            verb, rest = "fail", f" {e.detail}"
        elif e.outcome == "error":
            verb, rest = "refuse", f" to load ({e.detail})"
        elif e.outcome == "ignores":
            verb, rest = "ignore", f" it{f' ({e.detail})' if e.detail else ''}"
        else:
            verb, rest = "read", f" {show(e.value)}"
        groups.setdefault((verb, rest), []).append(e.consumer)
    phrases = []
    for (verb, rest), names in groups.items():
        agreed = verb if len(names) > 1 or verb.startswith("will") else verb + "s"
        phrases.append(f"{_join(names)} {agreed}{rest}")
    return "; ".join(phrases)


def _join(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
