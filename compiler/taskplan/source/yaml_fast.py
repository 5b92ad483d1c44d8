"""A reader for the plain block YAML that compiled workflows (and plans written by a
YAML dumper) are made of, a line at a time; it declines everything else.

Why it exists: the C-event reader (`yaml_reader.read_yaml_events`) spends most of its
time outside libyaml, in the Python event objects the C parser makes (one per scalar
and per collection start and end: about 560,000 for a 10,000-task workflow) and in
the loop over them. Block YAML of the subset below splits into lines and, on each
line, into indentation, `- `, key and value with a few string methods, to the same
tree and position tree about twice as fast. And since only diagnostics consult
positions, `read_block` builds the tree alone, about four times as fast as the
C-event reader: the position tree is built when first asked for, by the same loop
reading the text again (as the JSON reader's fast path does with its positions).

The subset (for anything else `read_block` returns None, and the caller reads the whole
text with the C-event reader, from the start; this module reports nothing, so every
diagnostic comes from the C-event reader, with its positions):

- one document, without `---`, `...` or directives, whose root is a block mapping or
  a block sequence; only spaces and `\\n` line breaks (no tab, no `\\r`, no byte order
  mark, no character libyaml refuses or takes for a line break);
- block mappings (`key: value`) and block sequences (`- value`), including a sequence
  written at its key's column and a mapping started on a `- ` line (`- key: value`);
  a key or `-` with nothing after it on its line opens the block collection on the
  next lines, or has an empty value (null);
- keys: plain or quoted scalars on one line, at most MAX_KEY_CHARS long, never repeated
  in their mapping;
- values on their key's (or `-`'s) line: plain scalars, single- or double-quoted
  scalars (double quotes with libyaml's escapes), the empty flow collections `{}` and
  `[]`, and literal block scalars `|`, `|-`, `|+` (no indentation indicator; a first
  line that is written and indented past the parent collection's entries);
- comments (after a space, or on a line of their own) and blank lines;
- nothing at a limit: nesting, string length, integer digits.

Declined besides: flow collections other than `{}` and `[]`, a sequence started on a
`- ` line (`- - x`), anchors, aliases, tags, `?` keys, folded (`>`) scalars, plain or
quoted scalars over several lines (a value on the line after its key too), and
whatever a YAML reader could read otherwise or refuse (`a: b: c`, `key: - x`, a value
starting with an indicator, a comment not after a space, a key with spaces before its
`:`).

Positions are libyaml's marks as `yaml_reader` turns them into spans (tests compare
both readers on every YAML file of the repository and on generated documents): a
scalar spans its text (quotes included); an empty value is the empty span just after
its key's `:` (after the `-` for an item); a block scalar ends at the end of its last
line that is not blank; a block collection spans from its first entry to the end of
the node finished last in it.
"""

from __future__ import annotations

import re
from itertools import islice
from typing import Any

from taskplan.config import Limits
from taskplan.gcpause import gc_paused
from taskplan.source.sourcemap import MapPos, Pos, SeqPos
from taskplan.source.span import Span
from taskplan.source.yaml_core import NUMBER as _NUMBER
from taskplan.source.yaml_core import NUMBER_START as _NUMBER_START
from taskplan.source.yaml_core import WORDS as _WORDS

_new = tuple.__new__
_INF = float("inf")

MAX_KEY_CHARS = 250
"""libyaml takes a key for a key only within 1024 characters (or bytes) of its start:
stay well below."""

_NOT_STRING_START = frozenset("~nNtTfF") | _NUMBER_START
"""The first characters of the plain scalars that may resolve to something else than a string."""

# The characters of the subset: what libyaml accepts (no controls, surrogates, U+FFFE/F)
# less what it treats specially (tab, \r, NEL, U+2028/9 line breaks, the byte order mark).
_PRINTABLE_ASCII = bytes(range(0x20, 0x7F)) + b"\n"
_OTHER_CHAR = re.compile(
    "[^\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]"
).search

_NOT_PLAIN = frozenset("?:,[]{}#&*!|>%@`'\"")
"""Characters that cannot start a plain scalar here (`-` can, before a non-space)."""
_NOT_QUICK = _NOT_PLAIN | frozenset(" -.") | frozenset([""])
"""The first characters of a line's content (after its indentation and `- `) or of a
value that send the line to `_other_line`: besides the indicators and quotes, spaces
(more than one after `-` or `:`), `-` (`- - x`, `-1`), `.` (`...`, the document end
marker, at the start of a line), and nothing at all."""

_DOUBLE = re.compile(r'"([^"\\]*(?:\\.[^"\\]*)*)"').match
_ESCAPE = re.compile(r"\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)")
_ESCAPES = {
    "0": "\0", "a": "\a", "b": "\b", "t": "\t", "n": "\n", "v": "\v", "f": "\f", "r": "\r",
    "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\", "N": "\x85", "_": "\xa0",
    "L": "\u2028", "P": "\u2029",
}


class _Decline(Exception):
    """The text is outside the subset: the C-event reader reads it."""


def read_block(text: str, limits: Limits) -> tuple[Any, Pos] | None:
    """The tree and position tree of `text`, or None when it is outside the subset.
    The position tree is read from the text when first used."""
    try:
        result = _read(text, limits, False)
    except _Decline:
        return None
    if result is None:
        return None
    tree = result[0]
    positions = _Positions(text, limits)
    return tree, _LazyMapPos(positions) if type(tree) is dict else _LazySeqPos(positions)


def read_block_now(text: str, limits: Limits) -> tuple[Any, Pos] | None:
    """`read_block` with the position tree built at once."""
    try:
        return _read(text, limits, True)
    except _Decline:
        return None


class _Positions:
    """The position tree of a text `read_block` read: read when first needed, by the same
    loop with positions (the same text and limits, so the same reading)."""

    __slots__ = ("text", "limits", "root")

    def __init__(self, text: str, limits: Limits):
        self.text = text
        self.limits = limits
        self.root: Pos | None = None

    def get(self) -> Any:
        if self.root is None:
            with gc_paused():  # hundreds of thousands of small acyclic objects
                result = read_block_now(self.text, self.limits)
            if result is None:  # pragma: no cover - the first reading took it
                raise AssertionError("the text read without positions is refused with them")
            self.root = result[1]
        return self.root


class _LazyRoot:
    """What the lazy root positions share: the position tree, read on first use."""

    __slots__ = ()

    def __init__(self, positions: _Positions):
        self._positions = positions

    @property
    def span(self) -> Span:
        return self._positions.get().span


class _LazyMapPos(_LazyRoot, MapPos):
    """The root MapPos of a text read without positions."""

    __slots__ = ("_positions",)

    @property  # type: ignore[override]
    def keys(self) -> dict[str, tuple[Span, Pos]]:
        return self._positions.get().keys


class _LazySeqPos(_LazyRoot, SeqPos):
    """The root SeqPos of a text read without positions."""

    __slots__ = ("_positions",)

    @property  # type: ignore[override]
    def items(self) -> list[Pos]:
        return self._positions.get().items


def _read(text: str, limits: Limits, positions: bool) -> tuple[Any, Pos | None] | None:  # noqa: C901 - one hot loop
    """The tree of `text` and, with `positions`, its position tree; None when it holds no
    collection; declines (raises _Decline) outside the subset. Lines and columns are
    1-based, as in spans."""
    if text.isascii():
        if text.encode("ascii").translate(None, _PRINTABLE_ASCII):
            raise _Decline  # a control character, a tab, a \r
    elif _OTHER_CHAR(text) is not None:
        raise _Decline
    lines = text.split("\n")
    # No string is longer than its line (a block scalar checks its own length).
    longest = max(map(len, lines))
    if longest > limits.max_scalar_chars:
        raise _Decline
    long_lines = longest > MAX_KEY_CHARS  # else no key can be too long either
    comments = " #" in text  # else no line has a comment after its content
    # A final line break ends the last line (it opens none); without one, the last line
    # has no break, which a block scalar reaching it would have to account for.
    closed = lines[-1] == ""
    if closed:
        lines.pop()
    max_depth = limits.max_depth
    max_digits = limits.max_number_digits
    max_key = MAX_KEY_CHARS
    new = _new
    resolve = _WORDS.get
    number_start = _NUMBER_START
    maybe_other = _NOT_STRING_START
    span_type = Span
    not_plain = _NOT_PLAIN
    not_quick = _NOT_QUICK
    other_line = _other_line

    # Frames of the open collections: [is_map, indent, container, positions, line, column,
    # key, key span, indentless] (indentless: a sequence at its key's column). The top
    # one's fields are also kept in locals; its key and key span are written back to its
    # frame when a child collection opens. Without `positions`, no positions are made.
    stack: list[list[Any]] = []
    frame: list[Any] | None = None
    is_map = False
    indent = 0  # the column of the top collection's entries
    cont: Any = None
    poss: Any = None
    key: Any = None
    kspan: Any = None
    # The entry on the line read last (a key, a `-`, or the document's start) has no value
    # on its line: the next line opens a block collection, or the value is null, an empty
    # span at (pline, pcol). pline is 0 when no entry is pending.
    pline, pcol = 1, 1
    last: Any = None  # the span of the value finished last: a block collection ends where it ends
    vpos: Any = None

    lines_in = enumerate(lines, 1)
    for i, line in lines_in:
        # ---- split the line: its column; the width of `- ` (0 without); the key as written
        # ("" without) and the key; the width from the `:` to the value; the value as
        # written ("" without). The quick path takes the usual shapes (`key: value`,
        # `key:`, `- value`, `- key: value`, `- key:` with plain keys and values and one
        # space after `-` and `:`); `_other_line` splits every line of the subset.
        text = line.lstrip(" ")
        if not text:
            continue  # a blank line
        col = len(line) - len(text) + 1
        if text[0] == "-" and text[1:2] == " ":
            text = text[2:]
            dash = 2
        else:
            dash = 0
        quick = False
        if text[:1] not in not_quick:
            written, colon, text = text.partition(": ")
            if colon:  # `key: value`
                quick = not (text[:1] in not_quick or line[-1] in " :" or ": " in text or written[-1] in " :"
                             or long_lines and len(written) > max_key
                             or comments and (" #" in text or " #" in written))
            elif written[-1] == ":":  # `key:`
                written = written[:-1]
                quick = not (written[-1] in " :" or long_lines and len(written) > max_key
                             or comments and " #" in written)
            else:  # a scalar
                text = written
                written = ""
                quick = not (line[-1] == " " or comments and " #" in text)
            lkey = written
            skip = 2
        if not quick:
            token = other_line(line)
            if token is None:
                continue  # a comment
            col, dash, written, lkey, skip, text = token

        # ---- where this line's entry goes: open, close, or continue collections --------
        if pline and (col > indent or (dash and is_map and col == indent)):
            # The pending entry's value is a block collection starting here.
            if len(stack) >= max_depth:
                raise _Decline
            if frame is not None:
                frame[6] = key
                frame[7] = kspan
            if dash:
                cont = []
                poss = [] if positions else None
                is_map = False
            else:
                cont = {}
                poss = {} if positions else None
                is_map = True
            frame = [is_map, col, cont, poss, i, col, None, None, col == indent]
            indent = col
            stack.append(frame)
            pline = 0
        elif pline or col != indent or (not dash) is not is_map:  # not the next entry of this collection
            if pline:
                if frame is None:
                    raise _Decline  # a scalar document
                # The pending entry's value is empty: null, spanning nothing after its indicator.
                if is_map:
                    cont[key] = None
                else:
                    cont.append(None)
                if positions:
                    last = new(span_type, (pline, pcol, pline, pcol))
                    if is_map:
                        poss[key] = (kspan, last)
                    else:
                        poss.append(last)
                pline = 0
            # Close the collections this line is outside of (a key at the column of an
            # indentless sequence closes it too).
            while col < indent or (not dash and not is_map and col == indent and frame[8]):  # type: ignore[index]
                val: Any = cont
                if positions:
                    span = new(span_type, (frame[4], frame[5], last[2], last[3]))  # type: ignore[index]
                    vpos = MapPos(span, poss) if is_map else SeqPos(span, poss)
                stack.pop()
                if not stack:
                    raise _Decline  # something after (left of) the root collection
                frame = stack[-1]
                is_map, indent, cont, poss, key, kspan = frame[0], frame[1], frame[2], frame[3], frame[6], frame[7]
                if is_map:
                    cont[key] = val
                    if positions:
                        poss[key] = (kspan, vpos)
                else:
                    cont.append(val)
                    if positions:
                        poss.append(vpos)
            if col != indent or (not dash) is not is_map:
                raise _Decline  # a continuation line, a wrong indentation, an entry of the wrong kind

        # ---- the entry: `- ` and/or a key, then maybe a value at column `col` -------------
        if dash:
            if not (written or text):
                pline, pcol = i, col + 1  # an empty item: just after the `-`
                continue
            col += dash
            if written:
                # `- key: ...`: a mapping starts on the item's line, at the key's column.
                if len(stack) >= max_depth:
                    raise _Decline
                cont = {}
                poss = {} if positions else None
                is_map = True
                indent = col
                frame = [True, col, cont, poss, i, col, None, None, False]
                stack.append(frame)
        if written:
            if lkey in cont:
                raise _Decline  # a repeated key (the C-event reader reports it)
            key = lkey
            end = col + len(written)  # where the `:` is
            if positions:
                kspan = new(span_type, (i, col, i, end))
            if not text:
                pline, pcol = i, end + 1  # an empty value: just after the `:`
                continue
            col = end + skip
        elif not dash:
            raise _Decline  # a scalar where a key is expected

        # ---- the value ----------------------------------------------------------------------
        if quick or text[0] not in not_plain:  # plain: resolved with the core schema
            value = text
            if text[0] in maybe_other:
                value = resolve(text, text)
                if text[0] in number_start:
                    m = _NUMBER(text)
                    if m is not None:
                        value = _number(m, text, max_digits)
            if positions:
                vpos = last = new(span_type, (i, col, i, col + len(text)))
        elif text[0] == "'" or text[0] == '"':
            value = _quoted(text)[0]
            if positions:
                vpos = last = new(span_type, (i, col, i, col + len(text)))
        elif text[0] == "|":
            value, end_line, end_col, after = _literal(lines, i - 1, text, indent - 1, closed, limits)
            if positions:
                vpos = last = new(span_type, (i, col, end_line + 1, end_col + 1))
            next(islice(lines_in, after - i - 1, None), None)  # the lines it took
        else:  # `{}` or `[]`, a collection
            if len(stack) >= max_depth:
                raise _Decline
            value = {} if text == "{}" else []
            if positions:
                last = new(span_type, (i, col, i, col + 2))
                vpos = MapPos(last, {}) if text == "{}" else SeqPos(last, [])
        if is_map:
            cont[key] = value
            if positions:
                poss[key] = (kspan, vpos)
        else:
            cont.append(value)
            if positions:
                poss.append(vpos)

    # ---- the end: a pending empty value, then close every open collection -------------
    if frame is None:
        return None  # no collection at all (empty, or only comments)
    if pline:
        if is_map:
            cont[key] = None
        else:
            cont.append(None)
        if positions:
            last = new(span_type, (pline, pcol, pline, pcol))
            if is_map:
                poss[key] = (kspan, last)
            else:
                poss.append(last)
    while True:
        val = cont
        if positions:
            span = new(span_type, (frame[4], frame[5], last[2], last[3]))
            vpos = MapPos(span, poss) if is_map else SeqPos(span, poss)
        stack.pop()
        if not stack:
            return val, vpos
        frame = stack[-1]
        is_map, cont, poss, key, kspan = frame[0], frame[2], frame[3], frame[6], frame[7]
        if is_map:
            cont[key] = val
            if positions:
                poss[key] = (kspan, vpos)
        else:
            cont.append(val)
            if positions:
                poss.append(vpos)


def _other_line(line: str) -> tuple[int, int, str, str, int, str] | None:
    """Split any line of the subset as the main loop does: (column, width of `- ` and the
    spaces after it or 0, key as written or "", the key, width from the `:` to the value,
    value as written without its comment or "" when none); None for a comment line.
    Declines a line outside the subset."""
    rest = line.lstrip(" ")
    if not rest or rest[0] == "#":
        return None
    col = len(line) - len(rest) + 1
    if col == 1 and rest[:3] in ("---", "..."):
        raise _Decline  # a document marker (or a scalar too close to one)
    dash = 0
    text = rest
    if rest[0] == "-" and (len(rest) == 1 or rest[1] == " "):
        text = rest[1:].lstrip(" ")
        dash = len(rest) - len(text)
        if not text or text[0] == "#":
            return col, dash, "", "", 1, ""
        if text[0] == "-" and (len(text) == 1 or text[1] == " "):
            raise _Decline  # `- - x`: a sequence started on a `- ` line
    # A key: a quoted scalar or a plain one before `: ` (or a `:` ending the line).
    written = key = ""
    first = text[0]
    if first == "'" or first == '"':
        key, end = _quoted(text)
        tail = text[end:]
        if tail[:1] == ":" and (len(tail) == 1 or tail[1] == " "):
            if end > MAX_KEY_CHARS:
                raise _Decline
            written = text[:end]
            text = tail[1:]
    else:
        k = text.find(": ")
        if k < 0 and text[-1] == ":":
            k = len(text) - 1
        if k >= 0:
            written = key = text[:k]
            if (first in _NOT_PLAIN or k > MAX_KEY_CHARS or key[-1] == " " or key[-1] == ":" or " #" in key
                    or first == "-" and (len(key) == 1 or key[1] == " ")):
                raise _Decline
            text = text[k + 1:]
    skip = 1
    if written:
        value = text.lstrip(" ")
        skip += len(text) - len(value)
        if not value or value[0] == "#":
            return col, dash, written, key, skip, ""
        text = value
    # The value: a quoted scalar, a literal block scalar's header, `{}`, `[]`, or a plain scalar.
    first = text[0]
    if first == "'" or first == '"':
        end = _quoted(text)[1]
        tail = text[end:]
        if tail and (tail[0] != " " or tail.lstrip(" ")[:1] not in ("", "#")):
            raise _Decline
        return col, dash, written, key, skip, text[:end]
    if first == "|":
        chomp = text[1:2]
        tail = text[2:] if chomp == "-" or chomp == "+" else text[1:]
        if tail and (tail[0] != " " or tail.lstrip(" ")[:1] not in ("", "#")):
            raise _Decline  # an indentation indicator, or text after the header
        return col, dash, written, key, skip, text[:len(text) - len(tail)]
    c = text.find(" #")
    if c >= 0:
        text = text[:c]
    text = text.rstrip(" ")
    if first in _NOT_PLAIN or first == "-" and (len(text) == 1 or text[1] == " "):
        if text != "{}" and text != "[]":
            raise _Decline
    elif ": " in text or text[-1] == ":":
        raise _Decline  # `a: b: c`
    return col, dash, written, key, skip, text


def _quoted(text: str) -> tuple[str, int]:
    """The value of the quoted scalar `text` starts with, and the length of its written
    form (quotes included); declines one not closed on its line or with another escape
    than libyaml's."""
    if text[0] == "'":
        end = 1
        while True:
            end = text.find("'", end)
            if end < 0:
                raise _Decline  # continued on the next line
            if text[end + 1:end + 2] != "'":
                break
            end += 2
        return text[1:end].replace("''", "'"), end + 1
    m = _DOUBLE(text)
    if m is None:
        raise _Decline  # continued on the next line
    inner = m.group(1)
    if "\\" in inner:
        inner = _ESCAPE.sub(_unescape, inner)
    return inner, m.end()


def _unescape(m: re.Match[str]) -> str:
    code = m.group(1)
    if len(code) == 1:
        char = _ESCAPES.get(code)
        if char is None:
            raise _Decline  # an escape libyaml refuses (or a tab after the backslash)
        return char
    value = int(code[1:], 16)
    if 0xD800 <= value <= 0xDFFF or value > 0x10FFFF:
        raise _Decline
    return chr(value)


def _literal(lines: list[str], i: int, header: str, parent: int, closed: bool,
             limits: Limits) -> tuple[str, int, int, int]:
    """The literal block scalar whose header `header` (`|`, `|-` or `|+`) ends line `i`
    (0-based), in a collection whose entries are at column `parent` (0-based): its value,
    the 0-based end of its span, and the index of the first line after it."""
    chomp = header[1:2]
    count = len(lines)
    start = i + 1
    if start >= count:
        raise _Decline
    line = lines[start]
    body = line.lstrip(" ")
    indent = len(line) - len(body)
    if not body or indent <= parent:
        raise _Decline  # the first line blank or not indented: libyaml's indentation rules differ
    # libyaml: a line is part of the scalar while it is blank or indented at least `indent`;
    # past the indentation, a blank line is only a break, a longer one is content (spaces).
    last = start  # the last content line
    shown = start if line.strip() else -1  # the last line that is not whitespace (the span's end)
    j = start + 1
    while j < count:
        line = lines[j]
        body = line.lstrip(" ")
        if body:
            if len(line) - len(body) < indent:
                break
            last = j
            if body.strip():
                shown = j
        elif len(line) > indent:
            last = j
        j += 1
    if j == count and not closed or shown < 0:
        raise _Decline  # the last line without a line break; a scalar of only whitespace
    value = "\n".join([line[indent:] for line in lines[start:last + 1]])
    if chomp == "+":
        value += "\n" * (j - last)
    elif chomp != "-":
        value += "\n"
    if len(value) > limits.max_scalar_chars:
        raise _Decline
    return value, shown, len(lines[shown]), j


def _number(m: re.Match[str], value: str, max_digits: int) -> Any:
    """A plain number as yaml_reader resolves it; declines where it would report."""
    kind = m.lastgroup
    if kind == "int" or kind == "oct" or kind == "hex":
        digits = m.group(kind)
        if len(digits) - (digits[0] in "+-") > max_digits:
            raise _Decline
        try:
            return int(digits, 10 if kind == "int" else 8 if kind == "oct" else 16)
        except ValueError:
            raise _Decline from None
    if kind == "float":
        number = float(value)
        if number == _INF or number == -_INF:
            raise _Decline
        return number
    if kind == "inf":
        return -_INF if value[0] == "-" else _INF
    return float("nan")
