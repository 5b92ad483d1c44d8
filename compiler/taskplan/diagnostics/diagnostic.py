"""The diagnostic contract of diagnostics.md, as immutable values."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, slots=True)
class Location:
    file: str
    pointer: str
    line: int
    column: int
    end_line: int
    end_column: int

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "pointer": self.pointer,
            "line": self.line,
            "column": self.column,
            "endLine": self.end_line,
            "endColumn": self.end_column,
        }


@dataclass(frozen=True, slots=True)
class Related:
    message: str
    location: Location

    def to_json(self) -> dict[str, Any]:
        return {"message": self.message, "location": self.location.to_json()}


@dataclass(frozen=True, slots=True)
class Diagnostic:
    code: str
    severity: Severity
    message: str
    location: Location
    subject: tuple[tuple[str, str], ...] = ()
    """The business address, as ordered (key, value) pairs: task, port, group, choice, input."""
    related: tuple[Related, ...] = ()
    hint: str | None = None

    @property
    def sort_key(self) -> tuple:
        loc = self.location
        return (loc.file, loc.line, loc.column, self.code, loc.pointer, self.message)

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "code": self.code,
            "severity": self.severity.value,
            "message": self.message,
            "location": self.location.to_json(),
        }
        if self.subject:
            out["subject"] = dict(self.subject)
        if self.related:
            out["related"] = [r.to_json() for r in self.related]
        if self.hint:
            out["hint"] = self.hint
        return out
