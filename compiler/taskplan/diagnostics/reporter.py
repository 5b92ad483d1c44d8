"""Collecting diagnostics: a Reporter locates findings in one document; the
Diagnostics collection sorts and deduplicates them deterministically."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING

from taskplan.diagnostics.diagnostic import Diagnostic, Location, Related, Severity
from taskplan.diagnostics.registry import REGISTRY

if TYPE_CHECKING:
    from taskplan.source.document import SourceDocument
    from taskplan.source.span import Span


class Diagnostics:
    """Every diagnostic of one run, over any number of documents."""

    def __init__(self) -> None:
        self._items: list[Diagnostic] = []

    def add(self, diagnostic: Diagnostic) -> None:
        self._items.append(diagnostic)

    def extend(self, diagnostics: Iterable[Diagnostic]) -> None:
        self._items.extend(diagnostics)

    def __len__(self) -> int:
        return len(self._items)

    def amend(self, start: int, amend: Callable[[Diagnostic], Diagnostic]) -> None:
        """Rewrite the diagnostics added since `start` (the first `start` are kept): for a
        later pass that knows what an earlier one could not (the reader reports before
        the plan's structure exists)."""
        items = self._items
        for i in range(start, len(items)):
            items[i] = amend(items[i])

    @property
    def has_errors(self) -> bool:
        return any(d.is_error for d in self._items)

    def errors(self) -> Iterator[Diagnostic]:
        """The errors collected so far, in the order reported."""
        return (d for d in self._items if d.is_error)

    def error_count(self) -> int:
        return sum(1 for d in self._items if d.is_error)

    def sorted(self) -> list[Diagnostic]:
        """Sorted by file, line, column, code; exact duplicates (same code, place and message) once."""
        seen: set[tuple] = set()
        out: list[Diagnostic] = []
        for d in sorted(self._items, key=lambda d: d.sort_key):
            key = (d.code, d.location.file, d.location.pointer, d.message)
            if key not in seen:
                seen.add(key)
                out.append(d)
        return out


class Reporter:
    """Reports findings about one document, by JSON pointer; resolves each pointer to
    the exact span through the document's source map."""

    def __init__(self, document: "SourceDocument", sink: Diagnostics):
        self.document = document
        self.sink = sink

    def locate(self, pointer: str, *, key: bool = False, span: "Span | None" = None) -> Location:
        if span is not None:
            # An explicit place, for findings that no pointer resolves to: a syntax
            # error at the parser's position, the second of two duplicate keys.
            return Location(self.document.path, pointer, span.line, span.column, span.end_line, span.end_column)
        resolved = self.document.map.resolve(pointer, key=key)
        span = resolved.span
        # A pointer to something absent names its nearest written ancestor: the
        # object or list that lacks it (diagnostics.md).
        return Location(
            self.document.path, resolved.pointer, span.line, span.column, span.end_line, span.end_column
        )

    def related(self, pointer: str, message: str, *, key: bool = False, span: "Span | None" = None) -> Related:
        return Related(message, self.locate(pointer, key=key, span=span))

    def report(
        self,
        code: str,
        pointer: str,
        message: str,
        *,
        key: bool = False,
        subject: Mapping[str, str] | None = None,
        hint: str | None = None,
        related: Iterable[Related] = (),
        severity: Severity | None = None,
        span: "Span | None" = None,
    ) -> Diagnostic:
        """Report `code` at `pointer` (at the key of that member with `key=True`;
        at `span` instead of the pointer's resolved place when one is given)."""
        info = REGISTRY[code]  # an unregistered code is a compiler bug
        diagnostic = Diagnostic(
            code=code,
            severity=severity or info.severity,
            message=message,
            location=self.locate(pointer, key=key, span=span),
            subject=tuple(subject.items()) if subject else (),
            related=tuple(related),
            hint=hint,
        )
        self.sink.add(diagnostic)
        return diagnostic

    error = report
