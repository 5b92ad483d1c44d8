"""YAML from the C parser's event stream (libyaml, through ruamel.yaml.clib); plain
block YAML first goes to the line reader `yaml_fast`, which takes what it can read
exactly as this module does and declines the rest.

The tree and the position tree are built directly from parser events with an
explicit stack: no composer (libyaml's composer recurses and crashes on deeply
nested input; ours refuses anything deeper than `limits.max_depth` the moment
it is opened), no round-trip loader (slow, and it keeps comments we do not
need), no constructor (we resolve scalars ourselves).

What the reader refuses (PLAN_SYNTAX, or the family's syntax code): anchors
and aliases (an alias bomb never expands: nothing is expanded), explicit tags,
keys that are not scalars, more than one document. Plain scalars are resolved
with the YAML 1.2 core schema; quoted and block scalars are strings; keys are
always strings (the key's text). Duplicate keys are reported at the second
key (the first value is kept).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from _ruamel_yaml import CParser
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.events import (
    AliasEvent,
    DocumentEndEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)
from ruamel.yaml.reader import ReaderError

from taskplan.source.sourcemap import MapPos, Pos, SeqPos
from taskplan.source.span import Span
from taskplan.source.yaml_core import NUMBER as _NUMBER
from taskplan.source.yaml_core import NUMBER_START as _NUMBER_START
from taskplan.source.yaml_core import WORDS as _WORDS
from taskplan.source.yaml_fast import read_block

if TYPE_CHECKING:
    from taskplan.source.read import ReadContext

_new = tuple.__new__
_INF = float("inf")

PARSER = CParser
"""The parser class every YAML document goes through (the C one; a test checks it)."""

# A miss in the core schema's table (taskplan/source/yaml_core.py).
_MISSING = object()

# A node's properties (tag and anchor, in either order) at the node's start.
_PROPERTY = r"[!&](?:<[^>\s]*>|[^\s,\[\]{}]*)"
_PROPERTIES = re.compile(f"({_PROPERTY})(?:[ \t]+({_PROPERTY}))?").match

_NO_KEY = object()
"""The mapping on top of the stack waits for a key."""
_BAD_KEY = object()
"""The current key was refused (a duplicate, a non-scalar, too long): its value is dropped."""


class _Stop(Exception):
    """Reading stopped at an error already reported."""


def read_yaml(text: str, ctx: "ReadContext") -> tuple[Any, Pos | None]:
    """The tree and position tree of the YAML `text` (one document); (None, None) when
    it is empty or when reading stopped at an error (the diagnostics say which).

    Plain block YAML (what the compiler writes, and plans a YAML dumper writes) is
    read by `yaml_fast.read_block`, about three times faster, its positions read when
    first used; it declines anything outside its subset (and reports nothing), and the
    C parser's events then read the whole text (`read_yaml_events`)."""
    fast = read_block(text, ctx.limits)
    if fast is not None:
        return fast
    return read_yaml_events(text, ctx)


def read_yaml_events(text: str, ctx: "ReadContext") -> tuple[Any, Pos | None]:
    """`read_yaml` through the C parser's event stream: any YAML document, and every
    diagnostic the read pass reports for YAML."""
    parser = PARSER(text)
    try:
        return _read(parser, text, ctx)
    except _Stop:
        return None, None
    except ReaderError as exc:
        _reader_error(text, ctx, exc)
    except MarkedYAMLError as exc:
        _parser_error(text, ctx, exc)
    except YAMLError as exc:  # an error without a position (none is known to exist)
        ctx.syntax(ctx.lines.point(0, 0), f"invalid YAML: {exc}", _DEFAULT_HINT)
    return None, None


def _read(parser: Any, text: str, ctx: "ReadContext") -> tuple[Any, Pos | None]:  # noqa: C901 - one hot loop
    limits = ctx.limits
    max_depth = limits.max_depth
    max_chars = limits.max_scalar_chars
    max_digits = limits.max_number_digits
    get = parser.get_event
    new = _new
    words = _WORDS
    missing = _MISSING
    no_key = _NO_KEY
    bad_key = _BAD_KEY

    get()  # StreamStartEvent
    event = get()
    if type(event) is StreamEndEvent:
        return None, None  # no document at all (empty, or only comments)

    # Frames of the open collections: [is_map, container, positions, line, column, flow, key, key span]
    # (1-based start). The top one's container, positions, key and key span are also kept in
    # locals; key and key span are written back to its frame when a child collection opens.
    # key: _NO_KEY (a key is next), _BAD_KEY (refused: its value is dropped) or the key.
    stack: list[list[Any]] = []
    frame: list[Any] | None = None
    is_map = False
    cont: Any = None
    poss: Any = None
    key: Any = no_key
    kspan: Span | None = None
    root: tuple[Any, Pos] | None = None
    el = ec = 0  # the end (0-based) of the node finished last: a block collection ends there

    while True:
        event = get()
        kind = type(event)
        if kind is ScalarEvent:
            mark = event.start_mark
            sl = mark.line
            sc = mark.column
            mark = event.end_mark
            el = mark.line
            ec = mark.column
            if ec == 0:
                sl, sc, el, ec = _fix_span(ctx, sl, sc, el, ec)
            span = new(Span, (sl + 1, sc + 1, el + 1, ec + 1))
            if event.anchor is not None or event.ctag is not None:
                _refuse(ctx, text, event, span, _path(stack, key))
            value = event.value
            if is_map and key is no_key:
                # A key: always a string, the key's text.
                if value in poss:
                    ctx.duplicate(poss, _path(stack, value), value, span, poss[value][0])
                    key = bad_key
                    if ctx.exhausted:
                        raise _Stop()
                elif len(value) > max_chars:
                    ctx.limit(span, f"this key is {len(value)} characters long; the limit is {max_chars}",
                              "use a shorter key", path=_path(stack, key))
                    key = bad_key
                    if ctx.exhausted:
                        raise _Stop()
                else:
                    key = value
                    kspan = span
                continue
            if not event.style:  # plain: resolve (YAML 1.2 core schema)
                resolved = words.get(value, missing)
                if resolved is not missing:
                    value = resolved
                elif value[0] in _NUMBER_START:
                    m = _NUMBER(value)
                    if m is not None:
                        value = _number(m, value, max_digits, ctx, span, stack, key)
            if type(value) is str and len(value) > max_chars:
                ctx.limit(span, f"this string is {len(value)} characters long; the limit is {max_chars}",
                          "shorten it, or pass large data by reference", path=_path(stack, key))
                if ctx.exhausted:
                    raise _Stop()
            val: Any = value
            vpos: Pos = span
        elif kind is MappingStartEvent or kind is SequenceStartEvent:
            mark = event.start_mark
            sl = mark.line
            sc = mark.column
            if len(stack) >= max_depth:
                ctx.limit(ctx.lines.point(sl, sc), f"the document is nested more than {max_depth} levels deep",
                          "flatten the structure (or raise max-depth in [tool.taskplan.limits])", path=_path(stack, key))
                raise _Stop()
            if event.anchor is not None or event.ctag is not None:
                _refuse(ctx, text, event, ctx.lines.point(sl, sc), _path(stack, key))
            if is_map and key is no_key:
                what = "mapping" if kind is MappingStartEvent else "sequence"
                ctx.syntax(ctx.lines.point(sl, sc), f"a {what} cannot be a mapping key",
                           "keys must be plain strings", path=_path(stack, key), parse=False)
                if ctx.exhausted:
                    raise _Stop()
            if frame is not None:
                frame[6] = key
                frame[7] = kspan
            is_map = kind is MappingStartEvent
            if is_map:
                cont = {}
                poss = {}
            else:
                cont = []
                poss = []
            key = no_key
            kspan = None
            frame = [is_map, cont, poss, sl + 1, sc + 1, event.flow_style, no_key, None]
            stack.append(frame)
            continue
        elif kind is MappingEndEvent or kind is SequenceEndEvent:
            if frame[5]:  # type: ignore[index]  # flow: up to the closing bracket
                mark = event.end_mark
                el = mark.line
                ec = mark.column
            # block: up to the end of its last entry, finished last (not the next token, maybe lines later)
            span = new(Span, (frame[3], frame[4], el + 1, ec + 1))  # type: ignore[index]
            val = cont
            vpos = MapPos(span, poss) if is_map else SeqPos(span, poss)
            stack.pop()
            if stack:
                frame = stack[-1]
                is_map, cont, poss, key, kspan = frame[0], frame[1], frame[2], frame[6], frame[7]
            else:
                frame = None
                is_map = False
        elif kind is AliasEvent:
            sm = event.start_mark
            em = event.end_mark
            span = new(Span, (sm.line + 1, sm.column + 1, em.line + 1, em.column + 1))
            ctx.syntax(span, f"alias `*{event.anchor}`: anchors and aliases are not allowed",
                       "write the value out in full here", path=_path(stack, key), parse=False)
            if ctx.exhausted:
                raise _Stop()
            val = None
            vpos = span
            el = em.line
            ec = em.column
        elif kind is DocumentEndEvent:
            event = get()
            if type(event) is not StreamEndEvent:
                sm = event.start_mark
                em = event.end_mark
                span = (
                    new(Span, (sm.line + 1, sm.column + 1, em.line + 1, em.column + 1))
                    if (em.line, em.column) > (sm.line, sm.column)
                    else ctx.lines.point(sm.line, sm.column)
                )
                ctx.syntax(span, "the file holds more than one YAML document",
                           "keep one document per file (remove this '---' and what follows, or move it to its own file)")
                raise _Stop()
            return root if root is not None else (None, None)
        else:  # pragma: no cover - the parser emits no other event inside a document
            continue

        # ---- attach the finished node to its parent --------------------------
        if frame is None:
            root = (val, vpos)
        elif is_map:
            if key is no_key:  # a collection or an alias used as a key (reported)
                key = bad_key
                continue
            if key is not bad_key:
                cont[key] = val
                poss[key] = (kspan, vpos)
            key = no_key
        else:
            cont.append(val)
            poss.append(vpos)


def _path(stack: list[list[Any]], key: Any) -> list[str | int]:
    """The pointer tokens of the node being read; `key` is the top mapping's current key."""
    out: list[str | int] = []
    last = len(stack) - 1
    for i, frame in enumerate(stack):
        if frame[0]:
            current = key if i == last else frame[6]
            if current is _NO_KEY or current is _BAD_KEY:
                break
            out.append(current)
        else:
            out.append(len(frame[1]))
    return out


def _refuse(ctx: "ReadContext", text: str, event: Any, span: Span, path: list[str | int]) -> None:
    """Report the anchor and the tag of a node event (both refused); reading goes on."""
    start = event.start_mark
    spans = _property_spans(text, start)
    if event.anchor is not None:
        ctx.syntax(
            spans.get("&", span),
            f"anchor `&{event.anchor}`: anchors and aliases are not allowed",
            "write the value out in full where it is used",
            path=path,
            parse=False,
        )
    if event.tag is not None:
        ctx.syntax(
            spans.get("!", span),
            f"tag `{_written_tag(text, start, event.tag)}`: explicit tags are not allowed",
            "remove the tag; quote the value if it must be text",
            path=path,
            parse=False,
        )
    if ctx.exhausted:
        raise _Stop()


def _number(m: re.Match[str], value: str, max_digits: int, ctx: "ReadContext", span: Span,
            stack: list[list[Any]], key: Any) -> Any:
    kind = m.lastgroup
    if kind == "int" or kind == "oct" or kind == "hex":
        digits = m.group(kind)
        count = len(digits) - (digits[0] in "+-")
        if count > max_digits:
            ctx.limit(span, f"this integer has {count} digits; the limit is {max_digits}",
                      "use a smaller number, or quote it to make it a string", path=_path(stack, key))
            if ctx.exhausted:
                raise _Stop()
            return None
        try:
            return int(digits, 10 if kind == "int" else 8 if kind == "oct" else 16)
        except ValueError:  # past Python's own digit limit (sys.set_int_max_str_digits)
            ctx.limit(span, f"this integer has {count} digits; Python refuses to convert it",
                      "use a smaller number, or quote it to make it a string", path=_path(stack, key))
            if ctx.exhausted:
                raise _Stop() from None
            return None
    if kind == "float":
        number = float(value)
        if number == _INF or number == -_INF:
            ctx.limit(span, "this number is too large to represent",
                      "use a smaller number, or quote it to make it a string", path=_path(stack, key))
            if ctx.exhausted:
                raise _Stop()
            return None
        return number
    if kind == "inf":
        return -_INF if value[0] == "-" else _INF
    return float("nan")


def _fix_span(ctx: "ReadContext", sl: int, sc: int, el: int, ec: int) -> tuple[int, int, int, int]:
    """A scalar whose end is the start of a line (a block scalar, an empty value): end it
    at the end of its last written line instead, never past the last line of the text."""
    lines = ctx.lines
    if el > sl:
        el -= 1
        text = lines.text
        while el > sl and text[lines.starts[el]:lines.starts[el + 1]].isspace():
            el -= 1
        return sl, sc, el, lines.content_end(el)
    sl, sc = lines.clamp(sl, sc)
    return sl, sc, sl, sc


def _property_spans(text: str, mark: Any) -> dict[str, Span]:
    """The spans of the tag ("!") and the anchor ("&") written at a node's start."""
    out: dict[str, Span] = {}
    m = _PROPERTIES(text, mark.index)
    if m is None:
        return out
    for group in (1, 2):
        token = m.group(group)
        if token and token[0] not in out:
            column = mark.column + m.start(group) - mark.index
            out[token[0]] = _new(Span, (mark.line + 1, column + 1, mark.line + 1, column + 1 + len(token)))
    return out


def _written_tag(text: str, mark: Any, tag: str) -> str:
    m = _PROPERTIES(text, mark.index)
    if m is not None:
        for group in (1, 2):
            token = m.group(group)
            if token and token[0] == "!":
                return token
    return tag


_DEFAULT_HINT = "check the indentation, quotes and brackets at this place"
_HINTS = (
    ("mapping values are not allowed", "a plain value cannot contain ': ': quote the value, or fix the indentation"),
    ("did not find expected key", "check the indentation: this line must line up with the keys of its mapping"),
    ("did not find expected '-' indicator",
     "check the indentation of this line: it must line up with the keys above it (or with the list's '-')"),
    ("could not find expected ':'", "a key must be followed by ':' (or quote the whole line if it is text)"),
    ("did not find expected ',' or ']'", "separate the items with ',' and close the list with ']'"),
    ("did not find expected ',' or '}'", "separate the members with ',' and close the mapping with '}'"),
    ("found unexpected end of stream", "close the quote"),
    ("found unknown escape character", 'valid escapes in double quotes include \\" \\\\ \\n \\t \\uXXXX; '
                                       "use single quotes for text with backslashes"),
    ("found undefined tag handle", "remove the tag"),
)


def _parser_error(text: str, ctx: "ReadContext", exc: MarkedYAMLError) -> None:
    mark = exc.problem_mark or exc.context_mark
    line, column = (mark.line, mark.column) if mark is not None else (0, 0)
    span = ctx.lines.point(line, column)
    problem = exc.problem or exc.context or "the text does not parse"
    message = f"invalid YAML: {problem}"
    context_mark = exc.context_mark
    if exc.context and exc.problem and exc.context.startswith(("while parsing a", "while scanning a")) \
            and context_mark is not None and (context_mark.line, context_mark.column) != (line, column):
        cl, cc = ctx.lines.clamp(context_mark.line, context_mark.column)
        message += f" ({exc.context} that starts at line {cl + 1}, column {cc + 1})"
    hint = _DEFAULT_HINT
    if "cannot start any token" in problem:
        line, column = ctx.lines.clamp(line, column)
        offset = ctx.lines.starts[line] + column
        char = text[offset] if offset < len(text) else ""
        if char == "\t":
            hint = "YAML does not allow tabs for indentation: use spaces"
        elif char in ("@", "`", "%"):
            hint = f"a plain value cannot start with '{char}': quote the value"
        else:
            hint = "quote the value if it is text"
    else:
        for needle, text_hint in _HINTS:
            if needle in problem:
                hint = text_hint
                break
    ctx.syntax(span, message, hint)


def _reader_error(text: str, ctx: "ReadContext", exc: ReaderError) -> None:
    # The position is a byte offset into the UTF-8 text the C parser was given.
    offset = len(text.encode("utf-8")[: exc.position].decode("utf-8", "ignore"))
    char = exc.character
    shown = f"U+{char:04X}" if isinstance(char, int) else repr(char)
    ctx.syntax(
        ctx.lines.point_at(offset),
        f"the character {shown} is not allowed in YAML ({exc.reason})",
        "remove it, or write it as an escape inside double quotes (\\t, \\x0c, \\u0000)",
    )
