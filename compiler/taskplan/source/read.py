"""The read pass: bytes -> SourceDocument (tree + source map), limits enforced while reading.

Never raises on user input: every problem becomes a diagnostic of the
document's family (PLAN_*, CATALOG_*, WORKFLOW_*).

The steps, in order: the size limit on the raw bytes; byte order marks (a
UTF-8 one is accepted and dropped, UTF-16/32 ones are refused); strict UTF-8;
the format (explicit, else the extension, else sniffed); then the YAML reader
(`yaml_reader`, the C parser's event stream, after the line reader `yaml_fast`
for plain block YAML) or the JSON reader (`json_reader`, our own). Both readers
build the tree and the position tree in one streaming pass with an explicit
stack, and refuse a document nested deeper than `limits.max_depth` before
anything deeper is built; their fast paths build positions when first used.
See docs/decisions.md, "Reading".
"""

from __future__ import annotations

import hashlib
import os
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import accumulate

from taskplan.config import DEFAULT_LIMITS, Limits
from taskplan.diagnostics import Diagnostics, Related, Reporter
from taskplan.source import pointer as jp
from taskplan.source.document import Format, SourceDocument
from taskplan.source.sourcemap import SourceMap
from taskplan.source.span import Span
from taskplan.gcpause import gc_paused


@dataclass(frozen=True, slots=True)
class ReadCodes:
    """Which codes the read pass reports, by the kind of document being read."""

    syntax: str
    limit: str
    duplicate_key: str
    size_setting: str = "max-bytes"
    """The [tool.taskplan.limits] setting that caps this kind of document's size."""


PLAN_CODES = ReadCodes("PLAN_SYNTAX", "PLAN_LIMIT", "PLAN_DUPLICATE_KEY")
CATALOG_CODES = ReadCodes("CATALOG_SYNTAX", "CATALOG_SYNTAX", "CATALOG_SYNTAX")
WORKFLOW_CODES = ReadCodes("WORKFLOW_SYNTAX", "WORKFLOW_LIMIT", "WORKFLOW_SYNTAX", "max-workflow-bytes")

MAX_READ_DIAGNOSTICS = 100
"""A reader that keeps finding problems it can step over (aliases, tags, duplicate
keys, over-long strings) stops after this many diagnostics for one document: the
document is refused anyway, and a flood helps no one."""

_UTF8_BOM = b"\xef\xbb\xbf"
_FOREIGN_BOMS = (
    # UTF-32 first: its little-endian mark starts with the UTF-16 one.
    (b"\xff\xfe\x00\x00", "UTF-32 (little-endian)", "utf-32"),
    (b"\x00\x00\xfe\xff", "UTF-32 (big-endian)", "utf-32"),
    (b"\xff\xfe", "UTF-16 (little-endian)", "utf-16"),
    (b"\xfe\xff", "UTF-16 (big-endian)", "utf-16"),
)


class Lines:
    """Line starts of a text, to turn code-point offsets into 1-based lines and columns.

    Line breaks are those of `str.splitlines` (so that `SourceDocument.line_text`
    shows the line a span names): \\n, \\r\\n, \\r and the rarer Unicode ones. The C
    YAML parser breaks lines at the same characters in every text it accepts."""

    __slots__ = ("text", "starts", "count")

    def __init__(self, text: str):
        self.text = text
        lines = text.splitlines(True)
        self.count = len(lines)
        """The number of lines (a final line break opens no new line)."""
        self.starts = [0, *accumulate(map(len, lines))]
        """starts[i] is the offset of line i (0-based); the last entry is len(text)."""

    def content_end(self, index: int) -> int:
        """The 0-based column just past the last character of line `index` (before its break)."""
        start, stop = self.starts[index], self.starts[index + 1]
        line = self.text[start:stop]
        return len(line.rstrip("\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")) if line else 0

    def clamp(self, line: int, column: int) -> tuple[int, int]:
        """A 0-based (line, column) moved inside the text: a place past the last line
        becomes the end of the last line, a column past a line's end becomes its end."""
        if self.count == 0:
            return 0, 0
        if line >= self.count:
            last = self.count - 1
            return last, self.content_end(last)
        if line < 0:
            return 0, 0
        end = self.content_end(line)
        return line, min(max(column, 0), end)

    def position(self, offset: int) -> tuple[int, int]:
        """The 0-based (line, column) of a code-point offset, clamped inside the text."""
        index = bisect_right(self.starts, offset) - 1
        return self.clamp(index, offset - self.starts[min(index, len(self.starts) - 1)])

    def point(self, line: int, column: int) -> Span:
        """The 1-based span of the character at a 0-based place: one character wide,
        or empty at the end of a line (never past the last line)."""
        line, column = self.clamp(line, column)
        width = 1 if self.count and column < self.content_end(line) else 0
        return Span(line + 1, column + 1, line + 1, column + 1 + width)

    def point_at(self, offset: int) -> Span:
        return self.point(*self.position(offset))


class ReadContext:
    """What a reader needs besides the text: where to report, with which codes and
    limits, and the line table (built on first use)."""

    __slots__ = ("text", "reporter", "codes", "limits", "failed", "syntax_failed", "count", "_lines", "_repeats")

    def __init__(self, text: str, reporter: Reporter, codes: ReadCodes, limits: Limits):
        self.text = text
        self.reporter = reporter
        self.codes = codes
        self.limits = limits
        self.failed = False
        """A syntax or limit problem: the document is refused (ok=False)."""
        self.syntax_failed = False
        """The text does not parse at all (used to sniff the format)."""
        self.count = 0
        self._lines: Lines | None = None
        self._repeats: dict[tuple[int, str], int] = {}

    @property
    def lines(self) -> Lines:
        if self._lines is None:
            self._lines = Lines(self.text)
        return self._lines

    @property
    def exhausted(self) -> bool:
        """True once MAX_READ_DIAGNOSTICS were reported: the reader should stop."""
        return self.count >= MAX_READ_DIAGNOSTICS

    def _report(self, code: str, path: Iterable[str | int], message: str, span: Span, hint: str | None,
                related: Iterable[Related]) -> None:
        self.count += 1
        self.reporter.report(code, jp.from_path(path), message, span=span, hint=hint, related=related)

    def syntax(self, span: Span, message: str, hint: str | None = None, *, path: Iterable[str | int] = (),
               parse: bool = True) -> None:
        """A syntax problem. `parse=True`: the text does not parse (the reader stops);
        False: a refused feature (an anchor, a tag) the reader steps over."""
        self.failed = True
        if parse:
            self.syntax_failed = True
        self._report(self.codes.syntax, path, message, span, hint, ())

    def limit(self, span: Span, message: str, hint: str | None = None, *, path: Iterable[str | int] = ()) -> None:
        self.failed = True
        self._report(self.codes.limit, path, message, span, hint, ())

    def duplicate(self, mapping: object, path: list[str | int], key: str, span: Span, first: Span) -> None:
        """A repeated `key` of `mapping` (the reader's record of it): reported at the repeat,
        with the first as related location. Not a failure: the first value is kept and
        reading goes on."""
        count = self._repeats[id(mapping), key] = self._repeats.get((id(mapping), key), 1) + 1
        times = "twice" if count == 2 else f"a {_ordinal(count)} time"
        pointer = jp.from_path(path)
        related = (self.reporter.related(pointer, "the first one is here", span=first),)
        self._report(
            self.codes.duplicate_key,
            path,
            f"key `{_show(key)}` appears {times} in this mapping",
            span,
            "keep one of the entries (or merge them); readers disagree on which one wins",
            related,
        )


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _show(text: str, limit: int = 60) -> str:
    """A key or scalar, shortened and made printable for a message."""
    shown = text if len(text) <= limit else text[: limit - 3] + "..."
    return shown.encode("unicode_escape").decode("ascii") if not shown.isprintable() else shown


def nonblocking_opener(path: str, flags: int) -> int:
    """An `opener` for `open()` whose opening never waits: a named pipe is opened
    without blocking and then read as usual, so one with a writer (a shell's `<(...)`)
    is read, and one without a writer reads as empty instead of blocking forever."""
    nonblock = getattr(os, "O_NONBLOCK", 0)
    fd = os.open(path, flags | nonblock)
    if nonblock:
        try:
            os.set_blocking(fd, True)
        except BaseException:
            os.close(fd)
            raise
    return fd


def _format_from_path(path: str) -> Format | None:
    lower = path.lower()
    if lower.endswith(".json"):
        return "json"
    if lower.endswith((".yaml", ".yml")):
        return "yaml"
    return None


def _looks_like_json(text: str) -> bool:
    stripped = text.lstrip(" \t\r\n")
    return stripped[:1] in ("{", "[")


def read_document(
    data: bytes,
    path: str,
    sink: Diagnostics,
    *,
    codes: ReadCodes = PLAN_CODES,
    limits: Limits = DEFAULT_LIMITS,
    format: Format | None = None,
) -> SourceDocument:
    """Read `data` (the bytes of the file at display path `path`).

    The format is `format`, else taken from the extension (.json -> JSON,
    .yaml/.yml -> YAML), else sniffed. Returns a SourceDocument whose `ok` is
    False when the text could not be read at all.
    """
    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    fmt: Format | None = format or _format_from_path(path)

    def refused(text: str, span: Span, code: str, message: str, hint: str) -> SourceDocument:
        document = SourceDocument(path=path, text=text, format=fmt or "yaml", digest=digest)
        Reporter(document, sink).report(code, "", message, span=span, hint=hint)
        return document

    if len(data) > limits.max_bytes:
        text = data[: limits.max_bytes].decode("utf-8", "replace")
        return refused(
            text,
            Lines(text).point(0, 0),
            codes.limit,
            f"the file is larger than the limit of {_size(limits.max_bytes)}",
            f"split it into smaller documents, or raise {codes.size_setting} in [tool.taskplan.limits]",
        )

    for bom, name, encoding in _FOREIGN_BOMS:
        if data.startswith(bom):
            text = data.decode(encoding, "replace")
            return refused(
                text,
                Lines(text).point(0, 0),
                codes.syntax,
                f"the file starts with a {name} byte order mark: it is {name.split()[0]}, not UTF-8",
                "save the file as UTF-8",
            )

    if data.startswith(_UTF8_BOM):
        data = data[len(_UTF8_BOM):]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        text = data.decode("utf-8", "replace")
        offset = len(data[: exc.start].decode("utf-8"))  # the prefix before the bad byte is valid
        lines = Lines(text)
        line, column = lines.position(offset)
        bad = data[exc.start]
        hint = "save the file as UTF-8"
        if bad == 0 or b"\x00" in data[:4096]:
            hint += " (NUL bytes suggest UTF-16 or a binary file)"
        return refused(
            text,
            lines.point(line, column),
            codes.syntax,
            f"the file is not valid UTF-8: byte 0x{bad:02x} {_utf8_reason(exc.reason)}",
            hint,
        )

    document = SourceDocument(path=path, text=text, format=fmt or "yaml", digest=digest)
    if fmt is None and _looks_like_json(text):
        # Sniffed: JSON when it parses as JSON, else YAML (a superset with flow style).
        scratch = Diagnostics()
        document.format = "json"
        result = _read(document, "json", scratch, codes, limits)
        if result is not None:
            sink.extend(scratch.sorted())
            return document
        document.format = "yaml"
    elif fmt is None:
        document.format = "yaml"
    _read(document, document.format, sink, codes, limits)
    return document


def _read(document: SourceDocument, fmt: Format, sink: Diagnostics, codes: ReadCodes,
          limits: Limits) -> SourceDocument | None:
    """Run one reader over the document; None when the text did not parse (to sniff)."""
    ctx = ReadContext(document.text, Reporter(document, sink), codes, limits)
    if fmt == "json":
        from taskplan.source.json_reader import read_json as reader
    else:
        from taskplan.source.yaml_reader import read_yaml as reader
    # The readers allocate hundreds of thousands of small acyclic objects (spans, position
    # nodes): the cyclic collector would walk them over and over for nothing.
    with gc_paused():
        tree, root = reader(document.text, ctx)
    if ctx.syntax_failed:
        return None
    if ctx.failed or ctx.exhausted:  # stopped at the cap (even on duplicate keys alone): no tree
        return document
    document.tree = tree
    document.map = SourceMap(root)
    document.ok = True
    return document


def _size(n: int) -> str:
    if n % (1024 * 1024) == 0:
        return f"{n // (1024 * 1024)} MiB"
    if n % 1024 == 0:
        return f"{n // 1024} KiB"
    return f"{n} bytes"


def _utf8_reason(reason: str) -> str:
    return {
        "invalid start byte": "cannot start a character",
        "invalid continuation byte": "cuts a character short",
        "unexpected end of data": "starts a character that the file cuts short",
    }.get(reason, f"is invalid ({reason})")
