"""The `text` rendering: diagnostics for people, in the style of rustc and actionlint.

```
error[TASK_ID_DUPLICATE]: task ID `fetch` is declared twice
  --> plans/triage.taskplan.yaml:14:9
   |
14 |   - id: fetch
   |         ^^^^^
   = note: the first declaration at plans/triage.taskplan.yaml:6:9
   |
 6 |   - id: fetch
   |         -----
   = help: rename one of the tasks

error: 1 error in 1 file
```

Columns are code points (as in the contract); on screen, tabs are expanded,
wide characters take two cells and combining marks none, so the caret stays
under the node. Control and bidirectional-override characters of the source
are shown as visible placeholders: a plan cannot drive the terminal. Very
long lines (minified JSON) are cut to a window around the span. Colour is
decided by the caller (`color=True`): the renderer never looks at the terminal.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from taskplan.diagnostics.diagnostic import Diagnostic, Location, Severity
from taskplan.diagnostics.render_json import sort_diagnostics

if TYPE_CHECKING:
    from taskplan.diagnostics.stale import StaleWorkflow
    from taskplan.source.document import SourceDocument

TAB_WIDTH = 4
WINDOW = 100
"""Most code points of one source line shown; longer lines are cut around the span."""
CONTEXT = 30
"""Code points shown before the span when a long line is cut."""

# A compiler failure located at a whole file (no pointer) shows no source: no node is to blame.
_INTERNAL = "COMPILER_INTERNAL"

_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


class _Style:
    RESET = "\x1b[0m"

    def __init__(self, color: bool):
        self.color = color

    def _wrap(self, code: str, text: str) -> str:
        return f"\x1b[{code}m{text}{self.RESET}" if self.color and text else text

    def severity(self, severity: Severity, text: str) -> str:
        return self._wrap("1;31" if severity is Severity.ERROR else "1;33", text)

    def bold(self, text: str) -> str:
        return self._wrap("1", text)

    def frame(self, text: str) -> str:
        return self._wrap("1;34", text)

    def ok(self, text: str) -> str:
        return self._wrap("1;32", text)


def render(
    diagnostics: Sequence[Diagnostic],
    *,
    documents: Mapping[str, "SourceDocument"] | None = None,
    files: int = 0,
    unreadable: int = 0,
    color: bool = False,
    noun: str = "plan",
    stale: Sequence["StaleWorkflow"] | None = None,
) -> str:
    """Render `diagnostics` (sorted and deduplicated here) and a summary line. `documents` (display
    path -> document) supply the source lines; `files` is how many `noun`s were
    checked, `unreadable` how many inputs could not be read at all. `stale` is part of
    every renderer's signature: in text, the commands write those lines on stderr, after
    the diff."""
    style = _Style(color)
    docs = documents or {}
    diagnostics = sort_diagnostics(diagnostics)
    blocks = [_render_one(d, docs, style) for d in diagnostics]
    blocks.append(summary(diagnostics, files=files, unreadable=unreadable, noun=noun, style=style))
    return "\n\n".join(blocks) + "\n"


def summary(
    diagnostics: Sequence[Diagnostic],
    *,
    files: int,
    unreadable: int = 0,
    noun: str = "plan",
    style: _Style | None = None,
) -> str:
    """`error: 3 errors in 2 files` or `ok: 2 plans checked` (with warnings counted)."""
    style = style or _Style(False)
    errors = sum(1 for d in diagnostics if d.severity is Severity.ERROR)
    warnings = len(diagnostics) - errors
    warned = f", {_count(warnings, 'warning')}" if warnings else ""
    unread = f"{_count(unreadable, 'file')} could not be read" if unreadable else ""
    head = style.severity(Severity.ERROR, "error")
    if errors:
        in_files = len({d.location.file for d in diagnostics if d.severity is Severity.ERROR})
        tail = f"; {unread}" if unread else ""
        return head + style.bold(f": {_count(errors, 'error')}{warned} in {_count(in_files, 'file')}{tail}")
    if unread:
        return head + style.bold(f": {unread}; {_count(files, noun)} checked{warned}")
    return style.ok("ok") + style.bold(f": {_count(files, noun)} checked{warned}")


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _render_one(d: Diagnostic, documents: Mapping[str, "SourceDocument"], style: _Style) -> str:
    loc = d.location
    snippets: list[tuple[Location, bool]] = []  # (where, primary)
    if loc.file in documents and not (d.code == _INTERNAL and not loc.pointer):
        snippets.append((loc, True))
    for related in d.related:
        if related.location.file in documents:
            snippets.append((related.location, False))
    width = max((len(str(s.line)) for s, _ in snippets), default=1)
    pad = " " * width
    bar = style.frame(f"{pad} |")

    lines = [f"{style.severity(d.severity, f'{d.severity.value}[{d.code}]')}{style.bold(': ' + clean(d.message))}"]
    lines.append(f"{pad}{style.frame('-->')} {clean(loc.file)}:{loc.line}:{loc.column}")
    if snippets and snippets[0][1]:
        lines.append(bar)
        lines.extend(_snippet(loc, documents[loc.file], width, True, d.severity, style))
    for related in d.related:
        rloc = related.location
        where = f"{clean(rloc.file)}:{rloc.line}:{rloc.column}"
        lines.append(f"{pad} {style.frame('=')} {style.bold('note')}: {clean(related.message)} at {where}")
        if rloc.file in documents:
            lines.append(bar)
            lines.extend(_snippet(rloc, documents[rloc.file], width, False, d.severity, style))
    if d.hint:
        lines.append(f"{pad} {style.frame('=')} {style.bold('help')}: {clean(d.hint)}")
    return "\n".join(lines)


def _snippet(
    loc: Location, document: "SourceDocument", width: int, primary: bool, severity: Severity, style: _Style
) -> list[str]:
    """The source line of `loc` and the marker line under its span."""
    text = document.line_text(loc.line) if loc.line >= 1 else ""
    start = max(loc.column, 1) - 1  # 0-based code point index
    end_line, end_col = loc.end_line, loc.end_column
    if end_line > loc.line and end_col <= 1:
        end_line -= 1  # a block ends at the start of the next line: it is through the line before
        end_col = len(text) + 1 if end_line == loc.line else end_col
    label = ""
    if end_line > loc.line:
        end = max(len(text.rstrip()), start + 1)
        label = f" (through line {end_line})"
    elif end_line == loc.line:
        end = max(end_col - 1, start + 1)
    else:  # a malformed span: mark one character
        end = start + 1

    # A window of the line around the span, so a minified document stays readable.
    lo, hi = 0, len(text)
    if hi > WINDOW:
        lo = max(0, min(start - CONTEXT, hi - WINDOW))
        hi = min(len(text), lo + WINDOW)
    shown, offsets = _expand(text[lo:hi])
    prefix = "…" if lo > 0 else ""
    suffix = "…" if hi < len(text) else ""

    def cell(index: int) -> int:  # display cell of the code point at `index` of the line
        i = index - lo
        if i <= 0:
            return 0
        if i < len(offsets):
            return offsets[i]
        return offsets[-1] + (i - len(offsets) + 1)

    a, b = cell(start), cell(min(end, hi) if start < hi else end)
    marks = ("^" if primary else "-") * max(b - a, 1)
    paint = (lambda s: style.severity(severity, s)) if primary else style.frame
    number = style.frame(f"{loc.line:>{width}} |")
    under = " " * (len(prefix) + a)
    return [
        f"{number} {prefix}{shown}{suffix}".rstrip(),
        f"{style.frame(' ' * width + ' |')} {under}{paint(marks + label)}",
    ]


def _expand(text: str) -> tuple[str, list[int] | range]:
    """The text as shown, and the display cell of each code point (plus one past the end)."""
    if text.isascii() and text.isprintable():  # the common case: one cell per code point
        return text, range(len(text) + 1)
    out: list[str] = []
    offsets: list[int] = []
    col = 0
    for ch in text:
        offsets.append(col)
        shown, cells = _cell(ch, col)
        out.append(shown)
        col += cells
    offsets.append(col)
    return "".join(out), offsets


def _cell(ch: str, col: int) -> tuple[str, int]:
    """How one code point is shown at display column `col`: (text, width in cells)."""
    if ch == "\t":
        n = TAB_WIDTH - col % TAB_WIDTH
        return " " * n, n
    o = ord(ch)
    if o < 0x20 or o == 0x7F:
        return chr(0x2400 + (0x21 if o == 0x7F else o)), 1  # the Control Pictures block
    if 0x80 <= o < 0xA0 or 0xD800 <= o < 0xE000:
        return "\ufffd", 1
    if ch in _BIDI:
        shown = f"<U+{o:04X}>"
        return shown, len(shown)
    category = unicodedata.category(ch)
    if category in ("Mn", "Me") or category == "Cf":
        return ch, 0
    if unicodedata.east_asian_width(ch) in ("W", "F"):
        return ch, 2
    return ch, 1


def clean(text: str) -> str:
    """A message or path made safe for a terminal: line breaks and tabs become spaces,
    controls and bidi overrides visible placeholders."""
    if text.isprintable():
        return text
    out = []
    for ch in text:
        if ch.isprintable():
            out.append(ch)
        elif ch in "\t\n\r\x85\u2028\u2029":
            out.append(" ")
        elif ord(ch) < 0xA0 or ch in _BIDI or 0xD800 <= ord(ch) < 0xE000:
            out.append(_cell(ch, 0)[0])
        else:  # no-break spaces, joiners, private use: harmless
            out.append(ch)
    return "".join(out)
