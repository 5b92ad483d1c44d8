from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from taskplan.source.sourcemap import SourceMap

Format = Literal["yaml", "json"]


@dataclass(slots=True)
class SourceDocument:
    """One file as read: its text (for rendering), its tree and its source map.

    `tree` is plain data (dict with str keys, list, str, int, float, bool, None).
    `ok` is False when the text could not be read at all (the read diagnostics
    say why); the text is still there so that diagnostics can show it.
    """

    path: str
    text: str
    format: Format
    digest: str
    tree: Any = None
    map: SourceMap = field(default_factory=lambda: SourceMap(None))
    ok: bool = False
    _lines: list[str] | None = None

    def line_text(self, line: int) -> str:
        """The text of a 1-based line, without its line break ('' when out of range)."""
        if self._lines is None:
            self._lines = self.text.splitlines()
        if 1 <= line <= len(self._lines):
            return self._lines[line - 1]
        return ""
