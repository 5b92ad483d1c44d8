"""A position-tracking JSON reader (RFC 8259, strict).

One left-to-right pass with an explicit stack (no recursion, so no depth can
crash it; the stack is refused past `limits.max_depth`). It builds the tree and
the position tree together. Tokens are matched with compiled regular
expressions; strings with escapes go through `json.decoder.scanstring`. Offsets
are code points (the text is a `str`), turned into lines and columns with a
cursor over the line-start table that only moves forward, so positions cost a
comparison each.

Refused: trailing commas, comments, single quotes, NaN/Infinity, leading
zeros, lone surrogate escapes, control characters in strings, more than one
value. Duplicate keys are reported (the first value is kept); integers longer
than `limits.max_number_digits` digits, strings longer than
`limits.max_scalar_chars` characters and finite numbers too large for a float
are limit errors.
"""

from __future__ import annotations

import re
from json import JSONDecodeError
from json.decoder import scanstring
from typing import TYPE_CHECKING, Any

from taskplan.source.sourcemap import MapPos, Pos, SeqPos
from taskplan.source.span import Span

if TYPE_CHECKING:
    from taskplan.source.read import ReadContext

_new = tuple.__new__
_INF = float("inf")

_WS = re.compile(r"[ \t\n\r]*").match
_STRING = re.compile(r'"([^"\\\x00-\x1f]*)"').match
_KEY = re.compile(r'"([^"\\\x00-\x1f]*)"[ \t\n\r]*:[ \t\n\r]*').match
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?").match
_NEXT = re.compile(r"[ \t\n\r]*(?:,[ \t\n\r]*|([\]}]))").match
_COLON = re.compile(r"[ \t\n\r]*:[ \t\n\r]*").match
_WORD = re.compile(r"[A-Za-z_$][\w$-]*").match
_ESCAPE = re.compile(r"\\(?:u([0-9a-fA-F]{4})|.)", re.S).finditer
_SURROGATE = re.compile("[\ud800-\udfff]").search

_ESCAPES_HINT = 'valid escapes are \\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX'


class _Stop(Exception):
    """A syntax or depth error was reported: the reader stops."""


def read_json(text: str, ctx: "ReadContext") -> tuple[Any, Pos | None]:
    """The tree and the position tree of the JSON `text`; (None, None) for an
    empty text or when reading stopped at an error (the diagnostics say which)."""
    try:
        return _read(text, ctx)
    except _Stop:
        return None, None


def _read(text: str, ctx: "ReadContext") -> tuple[Any, Pos | None]:
    n = len(text)
    limits = ctx.limits
    max_depth = limits.max_depth
    max_chars = limits.max_scalar_chars
    max_digits = limits.max_number_digits

    pos = _WS(text, 0).end()
    if pos == n:
        return None, None  # empty: no tree, nothing wrong (the next pass says what is missing)

    # The line cursor: line index li starts at offset ls; the next line starts at nx.
    # Offsets only grow, so each position costs a comparison (and a step per line crossed).
    starts = ctx.lines.starts[:-1]
    starts.append(_INF)
    li = 0
    ls = 0
    nx = starts[1]

    stack: list[list[Any]] = []
    # A frame: [is_map, container, positions (dict or list), line, column, key, key span]
    # (key: the current member's key; key span None: a duplicate, its value is dropped).
    top: list[Any] | None = None
    is_map = False
    val: Any = None
    vpos: Pos

    def fail(offset: int, message: str, hint: str | None = None) -> _Stop:
        ctx.syntax(ctx.lines.point_at(offset), message, hint)
        return _Stop()

    def path() -> list[str | int]:
        out: list[str | int] = []
        for frame in stack:
            if frame[0]:
                if frame[5] is None:
                    break
                out.append(frame[5])
            else:
                out.append(len(frame[1]))
        return out

    def read_key(at: int, after_comma: bool) -> int:
        """Read a member's key at `at` into the top frame; return where its value starts."""
        nonlocal li, ls, nx
        m = _KEY(text, at)
        if m is not None:
            key = m.group(1)
            kend = m.end(1) + 1
            value_at = m.end()
        else:
            key, kend = _key_slow(at, after_comma)
            m = _COLON(text, kend)
            if m is None:
                p = _WS(text, kend).end()
                raise fail(p, f"expected ':' after the key `{key}`", "write members as \"key\": value")
            value_at = m.end()
        while at >= nx:
            li += 1
            ls = nx
            nx = starts[li + 1]
        line = li + 1
        column = at - ls + 1
        while kend >= nx:
            li += 1
            ls = nx
            nx = starts[li + 1]
        kspan = _new(Span, (line, column, li + 1, kend - ls + 1))
        positions = top[2]  # type: ignore[index]
        top[5] = key  # type: ignore[index]
        if key in positions:
            ctx.duplicate(path(), key, kspan, positions[key][0])
            top[6] = None  # type: ignore[index]
            if ctx.exhausted:
                raise _Stop()
        elif len(key) > max_chars:
            ctx.limit(kspan, f"this key is {len(key)} characters long; the limit is {max_chars}",
                      "use a shorter key", path=path())
            top[6] = None  # type: ignore[index]
            if ctx.exhausted:
                raise _Stop()
        else:
            top[6] = kspan  # type: ignore[index]
        return value_at

    def _key_slow(at: int, after_comma: bool) -> tuple[str, int]:
        if at < n and text[at] == '"':
            return string_slow(at)
        if at >= n:
            raise unclosed(at)
        c = text[at]
        if c == "}" and after_comma:
            raise fail(at - 1 if at else at, "trailing comma before '}'", "remove the ',' after the last member")
        if c == "'":
            raise fail(at, "keys must be in double quotes, not single quotes", "write \"key\": value")
        if c == "/":
            raise fail(at, "comments are not allowed in JSON", "remove the comment")
        w = _WORD(text, at)
        if w is not None:
            raise fail(at, f"keys must be strings in double quotes, found `{w.group()}`",
                       f'write "{w.group()}"')
        raise fail(at, f"expected a key in double quotes, found {_char(c)}")

    def string_slow(at: int) -> tuple[str, int]:
        """A string with escapes (or a malformed one) starting at the quote at `at`."""
        try:
            value, end = scanstring(text, at + 1, True)
        except JSONDecodeError as exc:
            msg = exc.msg
            if msg.startswith("Unterminated string"):
                raise fail(at, "this string is not closed", 'add the missing \'"\'')
            if msg.startswith("Invalid control character"):
                ch = text[exc.pos] if exc.pos < n else ""
                raise fail(exc.pos, f"a string cannot contain the control character {_char(ch)}",
                           "write it as an escape (\\n, \\t, \\u0000)")
            if msg.startswith("Invalid \\uXXXX"):
                raise fail(exc.pos, "invalid \\u escape: it needs four hexadecimal digits", _ESCAPES_HINT)
            raise fail(exc.pos, "invalid escape in a string", _ESCAPES_HINT)
        if _SURROGATE(value) is not None:
            raise fail(_lone_surrogate(text, at, end), "a \\u escape is half of a surrogate pair",
                       "a character above U+FFFF is written as a pair: \\ud83d\\ude00")
        return value, end

    def unclosed(at: int) -> _Stop:
        if stack:
            frame = stack[-1]
            what, close = ("object", "}") if frame[0] else ("array", "]")
            return fail(at, f"the file ends before the {what} opened at line {frame[3]}, column {frame[4]} "
                            f"is closed", f"add the missing '{close}'")
        return fail(at, "the file ends where a value is expected")

    while True:
        # ---- one value at `pos` ------------------------------------------------
        if pos >= n:
            raise unclosed(pos)
        c = text[pos]
        if c == '"':
            m = _STRING(text, pos)
            if m is not None:
                val = m.group(1)
                end = m.end()
            else:
                val, end = string_slow(pos)
            if len(val) > max_chars:
                ctx.limit(ctx.lines.point_at(pos), f"this string is {len(val)} characters long; the limit is {max_chars}",
                          "shorten it, or pass large data by reference", path=path())
                if ctx.exhausted:
                    raise _Stop()
        elif c == "{" or c == "[":
            while pos >= nx:
                li += 1
                ls = nx
                nx = starts[li + 1]
            if len(stack) >= max_depth:
                ctx.limit(_new(Span, (li + 1, pos - ls + 1, li + 1, pos - ls + 2)),
                          f"the document is nested more than {max_depth} levels deep",
                          "flatten the structure (or raise max_depth in the settings)", path=path())
                raise _Stop()
            line = li + 1
            column = pos - ls + 1
            p = _WS(text, pos + 1).end()
            if c == "{":
                if text.startswith("}", p):
                    end = p + 1
                    while end >= nx:
                        li += 1
                        ls = nx
                        nx = starts[li + 1]
                    val = {}
                    vpos = MapPos(_new(Span, (line, column, li + 1, end - ls + 1)), {})
                    pos = end
                else:
                    top = [True, {}, {}, line, column, None, None]
                    stack.append(top)
                    is_map = True
                    pos = read_key(p, False)
                    continue
            else:
                if text.startswith("]", p):
                    end = p + 1
                    while end >= nx:
                        li += 1
                        ls = nx
                        nx = starts[li + 1]
                    val = []
                    vpos = SeqPos(_new(Span, (line, column, li + 1, end - ls + 1)), [])
                    pos = end
                else:
                    top = [False, [], [], line, column]
                    stack.append(top)
                    is_map = False
                    pos = p
                    continue
        elif c in "-0123456789":
            m = _NUMBER(text, pos)
            if m is None:
                if text.startswith("-Infinity", pos):
                    raise fail(pos, "-Infinity is not a JSON number", "use a finite number, or null")
                raise fail(pos, "invalid number", "a JSON number looks like -12, 3.5 or 1e6")
            end = m.end()
            if m.lastindex is None:
                if end - pos - (c == "-") > max_digits:
                    ctx.limit(ctx.lines.point_at(pos),
                              f"this integer has {end - pos - (c == '-')} digits; the limit is {max_digits}",
                              "use a smaller number, or a string", path=path())
                    if ctx.exhausted:
                        raise _Stop()
                    val = None
                else:
                    val = int(text[pos:end])
            else:
                val = float(text[pos:end])
                if val == _INF or val == -_INF:
                    ctx.limit(ctx.lines.point_at(pos), "this number is too large to represent",
                              "use a smaller number, or a string", path=path())
                    if ctx.exhausted:
                        raise _Stop()
                    val = None
        elif c == "t" and text.startswith("true", pos):
            val = True
            end = pos + 4
        elif c == "f" and text.startswith("false", pos):
            val = False
            end = pos + 5
        elif c == "n" and text.startswith("null", pos):
            val = None
            end = pos + 4
        else:
            raise _unexpected_value(text, pos, stack, fail)

        if c != "{" and c != "[":
            while pos >= nx:
                li += 1
                ls = nx
                nx = starts[li + 1]
            line = li + 1
            column = pos - ls + 1
            while end >= nx:
                li += 1
                ls = nx
                nx = starts[li + 1]
            vpos = _new(Span, (line, column, li + 1, end - ls + 1))
            pos = end

        # ---- attach the value; separators; close containers ------------------
        while True:
            if top is None:
                p = _WS(text, pos).end()
                if p != n:
                    raise fail(p, f"unexpected {_char(text[p])} after the end of the JSON value",
                               "a JSON file holds exactly one value")
                return val, vpos
            if is_map:
                kspan = top[6]
                if kspan is not None:
                    key = top[5]
                    top[1][key] = val
                    top[2][key] = (kspan, vpos)
            else:
                top[1].append(val)
                top[2].append(vpos)
            m = _NEXT(text, pos)
            if m is None:
                raise _unexpected_after(text, _WS(text, pos).end(), top, fail, unclosed)
            close = m.group(1)
            if close is None:  # a comma
                pos = m.end()
                if is_map:
                    pos = read_key(pos, True)
                break
            end = m.end()
            if (close == "}") != is_map:
                what, want = ("object", "}") if is_map else ("array", "]")
                raise fail(end - 1, f"found '{close}' where the {what} opened at line {top[3]}, column {top[4]} "
                                    f"should be closed", f"close it with '{want}'")
            while end >= nx:
                li += 1
                ls = nx
                nx = starts[li + 1]
            span = _new(Span, (top[3], top[4], li + 1, end - ls + 1))
            if is_map:
                val = top[1]
                vpos = MapPos(span, top[2])
            else:
                val = top[1]
                vpos = SeqPos(span, top[2])
            pos = end
            stack.pop()
            if stack:
                top = stack[-1]
                is_map = top[0]
            else:
                top = None


def _char(c: str) -> str:
    if not c:
        return "the end of the file"
    if c.isprintable() and not c.isspace():
        return f"'{c}'"
    return f"character U+{ord(c):04X}"


def _lone_surrogate(text: str, start: int, end: int) -> int:
    """The offset of the first escape of a string (quote at `start`) that is an unpaired surrogate."""
    pending = -1  # offset of a high surrogate waiting for its low half
    expect = -1
    for m in _ESCAPE(text, start + 1, end):
        hexa = m.group(1)
        code = int(hexa, 16) if hexa else -1
        if pending >= 0:
            if m.start() == expect and 0xDC00 <= code <= 0xDFFF:
                pending = -1
                continue
            return pending
        if 0xD800 <= code <= 0xDBFF:
            pending = m.start()
            expect = m.end()
        elif 0xDC00 <= code <= 0xDFFF:
            return m.start()
    return pending if pending >= 0 else start


def _unexpected_value(text: str, pos: int, stack: list[list[Any]], fail: Any) -> Exception:
    c = text[pos]
    if c in "]}":
        if stack and not stack[-1][0] and c == "]":
            return fail(pos, "trailing comma before ']'", "remove the ',' after the last item")
        return fail(pos, f"expected a value, found '{c}'")
    if c == "'":
        return fail(pos, "strings must be in double quotes, not single quotes", 'write "text"')
    if c == "/":
        return fail(pos, "comments are not allowed in JSON", "remove the comment")
    if text.startswith("NaN", pos) or text.startswith("Infinity", pos):
        word = "NaN" if c == "N" else "Infinity"
        return fail(pos, f"{word} is not a JSON number", "use a finite number, or null")
    if c == ",":
        return fail(pos, "expected a value before ','", "remove the extra ','")
    w = _WORD(text, pos)
    if w is not None:
        word = w.group()
        return fail(pos, f"unexpected word `{word}`: strings must be in double quotes",
                    f'write "{word}" (or true, false, null)')
    return fail(pos, f"expected a value, found {_char(c)}")


def _unexpected_after(text: str, p: int, top: list[Any], fail: Any, unclosed: Any) -> Exception:
    if p >= len(text):
        return unclosed(p)
    c = text[p]
    what, close = ("object", "}") if top[0] else ("array", "]")
    sep = "a member" if top[0] else "an item"
    if c == "/":
        return fail(p, "comments are not allowed in JSON", "remove the comment")
    if c.isdigit() and p > 0 and text[p - 1] == "0":
        return fail(p - 1, "numbers cannot start with a leading zero", "write the number without leading zeros")
    if c == ":" and not top[0]:
        return fail(p, "unexpected ':' in an array", "use an object ({...}) for key: value members")
    hint = f"add a ',' between the two, or close the {what} with '{close}'"
    return fail(p, f"expected ',' or '{close}' after {sep} of the {what}, found {_char(c)}", hint)
