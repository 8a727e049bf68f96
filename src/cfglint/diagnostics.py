"""What a rule reports: a diagnostic, the consumers it affects, and an optional fix."""

from __future__ import annotations

from types import MappingProxyType
from enum import Enum
from typing import Any, Mapping, NamedTuple


NO_EXTRA: Mapping[str, Any] = MappingProxyType({})


class Severity(str, Enum):
    ERROR = "error"  # a consumer fails to load, or silently computes a different model
    WARNING = "warning"  # a consumer may behave differently than the producer meant
    INFO = "info"  # worth knowing; never fails a run

    @property
    def rank(self) -> int:
        return {"error": 2, "warning": 1, "info": 0}[self.value]


class Applicability(str, Enum):
    """As in ruff: safe fixes apply by default, unsafe ones on request, display-only ones never."""

    SAFE = "safe"
    UNSAFE = "unsafe"
    DISPLAY = "display-only"


class Edit(NamedTuple):
    """A JSON-level change: set (add or replace) or remove the member at pointer."""

    op: str  # "set" | "remove"
    pointer: str
    value: Any = None

    def to_json(self) -> dict:
        out: dict[str, Any] = {"op": self.op, "pointer": self.pointer}
        if self.op == "set":
            out["value"] = self.value
        return out


class Fix(NamedTuple):
    message: str
    applicability: Applicability
    edits: tuple[Edit, ...]

    def to_json(self) -> dict:
        return {
            "message": self.message,
            "applicability": self.applicability.value,
            "edits": [e.to_json() for e in self.edits],
        }


class Effect(NamedTuple):
    """What one consumer does about the problem: the value it uses, or how it fails."""

    consumer: str
    outcome: str  # "uses" | "ignores" | "error" | "panic" | "reads"
    value: Any = None
    detail: str = ""

    def to_json(self) -> dict:
        return {"consumer": self.consumer, "outcome": self.outcome, "value": self.value, "detail": self.detail}


class Finding(NamedTuple):
    """What a rule yields; the engine adds the code, severity and location."""

    message: str
    pointer: str = ""
    effects: tuple[Effect, ...] = ()
    fix: Fix | None = None
    severity: Severity | None = None  # overrides the rule's default when set
    offset: int | None = None  # for problems located by offset rather than pointer (syntax)
    key: str = ""  # where a target JSON Pointers do not address has it: a GGUF file's metadata key


class Diagnostic(NamedTuple):
    code: str
    name: str
    severity: Severity
    message: str
    path: str
    line: int
    column: int
    pointer: str
    effects: tuple[Effect, ...] = ()
    fix: Fix | None = None
    extra: Mapping[str, Any] = NO_EXTRA  # what a target adds: a GGUF key, a Hub repository, measured logits

    @property
    def consumers(self) -> list[str]:
        return list(dict.fromkeys(e.consumer for e in self.effects))

    @classmethod
    def from_json(cls, data: dict) -> Diagnostic:
        """A finding as `to_json` wrote it (`check --format json`); keys it does not know stay in `extra`."""
        fix = data.get("fix")
        known = ("code", "name", "severity", "message", "path", "line", "column", "pointer", "consumers", "effects", "fix")
        return cls(
            code=data["code"], name=data["name"], severity=Severity(data["severity"]), message=data["message"],
            path=data["path"], line=data["line"], column=data["column"], pointer=data["pointer"],
            effects=tuple(Effect(**e) for e in data["effects"]),
            fix=None if fix is None else Fix(
                fix["message"], Applicability(fix["applicability"]),
                tuple(Edit(e["op"], e["pointer"], e.get("value")) for e in fix["edits"]),
            ),
            extra={k: v for k, v in data.items() if k not in known},
        )

    def to_json(self) -> dict:
        out = {**self.place_json(), **self.substance_json()}
        out.update(self.extra)
        return out

    def place_json(self) -> dict:
        """What names the finding and where it is: the first members of to_json."""
        return {
            "code": self.code,
            "name": self.name,
            "severity": self.severity.value,
            "message": self.message,
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "pointer": self.pointer,
        }

    def substance_json(self) -> dict:
        """What the runtimes do and the fix: the members after place_json, the same for every diagnostic
        that shares these effects and this fix (a finding kept for many files, cfglint.memo)."""
        return {
            "consumers": self.consumers,
            "effects": [e.to_json() for e in self.effects],
            "fix": self.fix.to_json() if self.fix else None,
        }
