"""SARIF 2.1.0, for code-scanning dashboards: the rules that fired with their documentation, each finding's
location and JSON Pointer, and safe fixes as text replacements.

Columns count Unicode code points (as every cfglint format does), which the run declares in `columnKind`.
Relative paths are relative to the working directory, given as the `%SRCROOT%` base.
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote

from cfglint import __version__
from cfglint.diagnostics import Applicability

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
_LEVEL = {"error": "error", "warning": "warning", "info": "note"}
_ROOT = "%SRCROOT%"


def render(diagnostics, docs, style, rules=None) -> str:
    rules = rules or {}
    fired = sorted({d.code for d in diagnostics})
    index = {code: i for i, code in enumerate(fired)}
    run = {
        "tool": {"driver": {
            "name": "cfglint",
            "version": __version__,
            "rules": [_descriptor(code, rules.get(code), diagnostics) for code in fired],
        }},
        "columnKind": "unicodeCodePoints",
        "originalUriBaseIds": {_ROOT: {"uri": Path.cwd().as_uri() + "/"}},
        "results": [_result(d, index[d.code], docs.get(d.path)) for d in diagnostics],
    }
    log = {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


def _descriptor(code: str, rule, diagnostics) -> dict:
    if rule is None:  # a diagnostic from a rule not in this run's list: name only
        name = next(d.name for d in diagnostics if d.code == code)
        return {"id": code, "name": name}
    sections = rule.sections()
    return {
        "id": code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": sections.get("What it does", rule.summary)},
        "help": {"text": rule.doc.strip(), "markdown": rule.doc.strip()},
        "defaultConfiguration": {"level": _LEVEL[rule.severity.value]},
        "properties": {"origin": rule.origin},
    }


def _result(d, rule_index: int, doc) -> dict:
    artifact = _artifact(d.path)
    result = {
        "ruleId": d.code,
        "ruleIndex": rule_index,
        "level": _LEVEL[d.severity.value],
        "message": {"text": d.message},
        "locations": [{"physicalLocation": {
            "artifactLocation": artifact,
            "region": {"startLine": d.line, "startColumn": d.column},
        }}],
        # Stable across line moves, so dashboards keep tracking a finding when lines are added above it.
        "partialFingerprints": {"cfglint/v1": f"{d.code}:{d.pointer}"},
        "properties": {"pointer": d.pointer, "consumers": d.consumers},
    }
    if d.extra.get("gguf_key"):  # a binary file has no lines: the key names the place, logically
        result["locations"][0]["logicalLocations"] = [{"name": d.extra["gguf_key"], "kind": "member"}]
        result["properties"]["gguf_key"] = d.extra["gguf_key"]
    fix = _fix(d, doc, artifact) if doc is not None else None
    if fix is not None:
        result["fixes"] = [fix]
    return result


def _artifact(path: str) -> dict:
    if Path(path).is_absolute():
        return {"uri": Path(path).as_uri()}
    return {"uri": quote(Path(path).as_posix()), "uriBaseId": _ROOT}


def _fix(d, doc, artifact: dict) -> dict | None:
    """A safe fix as one text replacement of the whole lines that change."""
    if d.fix is None or d.fix.applicability is not Applicability.SAFE or not doc.ok:
        return None
    from cfglint.edit import EditError, apply

    after = doc
    try:
        for edit in d.fix.edits:
            after = apply(after, edit)
    except EditError:
        return None
    start, end_before, inserted = _changed_lines(doc.text, after.text)
    if start == end_before and not inserted:
        return None  # the fix would not change the file
    start_line, start_column = doc.position(start)
    end_line, end_column = doc.position(end_before)
    return {
        "description": {"text": d.fix.message},
        "artifactChanges": [{
            "artifactLocation": artifact,
            "replacements": [{
                "deletedRegion": {"startLine": start_line, "startColumn": start_column, "endLine": end_line, "endColumn": end_column},
                "insertedContent": {"text": inserted},
            }],
        }],
    }


def _changed_lines(before: str, after: str) -> tuple[int, int, str]:
    """(start, end) offsets of the lines of `before` that differ from `after`, and the lines replacing them."""
    old, new = before.splitlines(keepends=True), after.splitlines(keepends=True)
    prefix = 0
    while prefix < min(len(old), len(new)) and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < min(len(old), len(new)) - prefix and old[-1 - suffix] == new[-1 - suffix]:
        suffix += 1
    start = sum(len(line) for line in old[:prefix])
    end = len(before) - sum(len(line) for line in old[len(old) - suffix:])
    return start, end, "".join(new[prefix:len(new) - suffix])
