from __future__ import annotations

from typing import NamedTuple


class Span(NamedTuple):
    """A region of a source text. Lines and columns are 1-based and count Unicode
    code points; the end is exclusive (the position just after the last character),
    as in SARIF regions."""

    line: int
    column: int
    end_line: int
    end_column: int

    @classmethod
    def point(cls, line: int, column: int) -> "Span":
        return cls(line, column, line, column + 1)


UNKNOWN_SPAN = Span(1, 1, 1, 1)
