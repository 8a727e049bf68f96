"""Runs rules over one document: bytes -> document -> intent -> views -> diagnostics."""

from __future__ import annotations

import os
from dataclasses import replace
from enum import Enum
from typing import TYPE_CHECKING, Callable, NamedTuple

from cfglint import memo
from cfglint.consumers import REFERENCE
from cfglint.consumers.base import Consumer, View
from cfglint.diagnostics import Applicability, Diagnostic, Finding, Fix
from cfglint.document import Document
from cfglint.generation import load as load_generation
from cfglint.intent import Intent, intent_of
from cfglint.rule import Context, Rule, parts_of

if TYPE_CHECKING:
    from cfglint.weights import Weights
from cfglint.weights import find as find_weights


class _Where(Enum):
    BESIDE = "beside"


BESIDE = _Where.BESIDE  # context_of's default: read the weights and the listing from the config's own directory


def context_of(
    doc: Document, consumers: list[Consumer], weights: Weights | None | _Where = BESIDE,
    listing: frozenset[str] | None | _Where = BESIDE,
) -> Context:
    """`weights` replaces the files beside config.json when they are read elsewhere (a Hub repository's
    headers); `listing` is the directory's, when the caller has read it already."""
    if not doc.ok or not isinstance(doc.data, dict):
        return Context(doc, None, {})
    if listing is BESIDE:
        listing = model_directory_listing(doc)
    intent, views = memo.readings(doc, consumers, lambda: _readings(doc, consumers), listing)
    if weights is BESIDE:
        found = find_weights(doc.path.parent, listing) if listing is not None else None
    else:  # shared across contexts (fix rounds): each gets its own cache, since plans depend on the config
        found = replace(weights, cache={}) if weights is not None else None
    return Context(doc, intent, views, found, generation=load_generation(doc, listing), listing=listing)


def _readings(doc: Document, consumers: list[Consumer]) -> tuple[Intent, dict[str, View]]:
    intent = intent_of(doc.data)
    return intent, {c.name: c.view(doc, intent) for c in consumers}


def model_directory_listing(doc: Document) -> frozenset[str] | None:
    """The names of the files beside a config.json that is a file on disk (one directory read for the
    weights, the generation settings and the tokenizer files); None for any other document."""
    path = doc.path
    if path.name != "config.json":
        return None
    try:
        names = frozenset(e.name for e in os.scandir(path.parent) if e.is_file())
    except OSError:
        return None
    return names if path.name in names else None


def lint(ctx: Context, rules: list[Rule], display_path: str) -> list[Diagnostic]:
    doc = ctx.doc
    plan = _plan(rules)
    serial = ctx.intent.serial if ctx.intent is not None else None
    if serial is None:
        found = [(rule, rule.check(ctx)) for rule in plan.running(parts_of(ctx), False)]
    else:  # the kept rules' findings, worked out once for their values, and the other rules run
        found = [(rule, rule.check(ctx)) for rule in plan.running(parts_of(ctx), True)]
        found += _kept_findings(serial, plan, ctx)
    reference = ctx.views.get(REFERENCE)
    refused = reference is not None and reference.failure is not None
    out = []
    for rule, findings in found:
        for finding in findings:
            fix = finding.fix
            if refused and fix is not None and not any(e.consumer == REFERENCE for e in finding.effects):
                fix = _withheld(fix)
            if finding.offset is not None:
                line, column = doc.position(finding.offset)
            else:
                line, column = doc.locate(finding.pointer)
            out.append(
                Diagnostic(
                    code=rule.code,
                    name=rule.name,
                    severity=finding.severity or rule.severity,
                    message=finding.message,
                    path=display_path,
                    line=line,
                    column=column,
                    pointer=finding.pointer,
                    effects=finding.effects,
                    fix=fix,
                )
            )
    return sorted(out, key=lambda d: (d.line, d.column, d.code))


def _withheld(fix: Fix) -> Fix:
    """A fix keeps what transformers 5 reads, and a file it refuses has no reading to keep: until the
    refusal is mended (by the findings that name it, whose fixes stay), the others are shown, not applied."""
    if fix.applicability is Applicability.DISPLAY:
        return fix
    return fix._replace(message=f"{fix.message} (withheld: {REFERENCE} refuses this file, mend that first)",
                        applicability=Applicability.DISPLAY)


class _Plan(NamedTuple):
    """How a list of rules runs: the rules whose findings are kept (they name their CONFIG_KEYS, cfglint.memo,
    and require no part of a context), their checks and all the keys they name; and, for each set of
    context parts, the rules whose REQUIRES it meets, in order, with or without the kept ones."""

    rules: list[Rule]
    kept: tuple[Rule, ...]
    checks: tuple[Callable, ...]
    keys: tuple[str, ...]
    by_parts: dict[tuple[frozenset[str], bool], list[Rule]]

    def running(self, parts: frozenset[str], without_kept: bool) -> list[Rule]:
        key = parts, without_kept
        if key not in self.by_parts:
            left_out = self.kept if without_kept else ()
            self.by_parts[key] = [rule for rule in self.rules if rule.requires <= parts and rule not in left_out]
        return self.by_parts[key]


_last: list[_Plan] = []  # for the last list of rules: a policy gives every file no suppression covers the same one


def _plan(rules: list[Rule]) -> _Plan:
    plan = _last[0] if _last else None
    if plan is None or plan.rules is not rules:
        kept = tuple(rule for rule in rules if rule.config_keys is not None and not rule.requires)
        keys = tuple(sorted({k for rule in kept for k in rule.config_keys or ()}))
        plan = _Plan(rules, kept, tuple(rule.check for rule in kept), keys, {})
        _last[:] = [plan]
    return plan


def _kept_findings(serial: int, plan: _Plan, ctx: Context) -> tuple[tuple[Rule, tuple[Finding, ...]], ...]:
    """The kept rules that find something, with their findings: worked out once per run for the kept
    readings of this serial and the values of the keys they name that the serial does not settle
    (cfglint.memo)."""
    config = ctx.config
    keys = memo.unsettled(serial, plan.keys)
    key = (serial, plan.checks, tuple([(k, memo.frozen(config[k])) for k in keys if k in config]))
    return memo.kept("findings", key, lambda: _findings(plan.kept, ctx))


def _findings(rules: tuple[Rule, ...], ctx: Context) -> tuple[tuple[Rule, tuple[Finding, ...]], ...]:
    found = ((rule, tuple(rule.check(ctx))) for rule in rules)
    return tuple(pair for pair in found if pair[1])
