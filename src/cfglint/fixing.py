"""`cfglint fix`: apply the fixes that findings carry, until nothing more applies.

Like ruff, fixes are applied in rounds: each round lints the current text, applies every selected fix
(edits whose target another fix already changed in this round wait for the next), and stops when a round
changes nothing. Fixing twice therefore equals fixing once.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field

from cfglint.diagnostics import Applicability, Diagnostic
from cfglint.document import Document, tokens
from cfglint.edit import apply
from cfglint.engine import BESIDE, context_of, lint

MAX_ROUNDS = 10


@dataclass
class Outcome:
    before: Document
    after: Document
    applied: list[Diagnostic] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return self.after.text != self.before.text or self.after.bom != self.before.bom

    def diff(self, label: str) -> str:
        a = self.before.text.splitlines(keepends=True)
        b = self.after.text.splitlines(keepends=True)
        return "".join(difflib.unified_diff(a, b, fromfile=label, tofile=label))


def selected(diagnostic: Diagnostic, unsafe: bool) -> bool:
    fix = diagnostic.fix
    if fix is None or fix.applicability is Applicability.DISPLAY:
        return False
    return fix.applicability is Applicability.SAFE or unsafe


def fix_document(doc: Document, consumers, rules, display: str, *, unsafe: bool = False, weights=BESIDE) -> Outcome:
    outcome = Outcome(before=doc, after=doc)
    current = doc
    for _ in range(MAX_ROUNDS):
        diagnostics = lint(context_of(current, consumers, weights), rules, display)
        touched: set[str] = set()
        progressed = False
        for diagnostic in diagnostics:
            if diagnostic.fix is None or not selected(diagnostic, unsafe):
                continue
            edits = diagnostic.fix.edits
            if any(e.pointer in touched for e in edits):
                continue
            before = current
            for edit in edits:
                if edit.op == "set" and edit.pointer in current.spans and _same_json(current, edit):
                    continue  # another fix already wrote exactly this
                current = apply(current, edit)
                touched.add(edit.pointer)
            if current.text != before.text:
                progressed = True
                outcome.applied.append(diagnostic)
        if not progressed:
            break
    outcome.after = current
    return outcome


def _same_json(doc: Document, edit) -> bool:
    node = doc.data
    for part in tokens(edit.pointer):
        node = node[part] if isinstance(node, dict) else node[int(part)]
    return node == edit.value and type(node) is type(edit.value)
