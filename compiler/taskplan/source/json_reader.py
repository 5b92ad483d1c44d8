"""A position-tracking JSON reader (RFC 8259, strict).

One left-to-right pass with an explicit stack (no recursion, so no depth can
crash it; a container deeper than `limits.max_depth` is refused the moment it
opens). It builds the tree and the position tree together. Tokens are matched
with compiled regular expressions, a separator and the next key in one match;
strings with escapes go through `json.decoder.scanstring`. Offsets are code
points (the text is a `str`); they become lines and columns through a cursor
over the line-start table that only moves forward, so a position costs a
comparison.

Refused: trailing commas, comments, single quotes, NaN/Infinity, leading
zeros, lone surrogate escapes, control characters in strings, more than one
value. Duplicate keys are reported at the second key (the first value is
kept). Integers longer than `limits.max_number_digits` digits, strings longer
than `limits.max_scalar_chars` characters and finite numbers too large for a
float are limit errors.

The fast path. Most documents are fine, and positions are only looked at when
something is reported. So `read_json` first tries `_fast`: C-speed checks of
the whole text (nesting depth from the brackets outside strings, the longest
string, surrogate escapes) and `json.loads` with hooks that refuse what the
strict reader refuses (duplicate keys, NaN/Infinity, over-long integers,
overflowing floats). When all pass, the tree is json.loads' and the position
tree is lazy: `_LazyMapPos`/`_LazySeqPos` read the members of one container
when a pointer first goes through it (nested containers are skipped with the C
scanner), with exactly the spans the strict reader gives (a test compares
them). Anything unusual falls back to the strict reader, which reports it.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from functools import lru_cache
from itertools import accumulate
from json import JSONDecodeError
from json.decoder import scanstring
from json.scanner import make_scanner
from typing import TYPE_CHECKING, Any

from taskplan.gcpause import gc_paused
from taskplan.source.sourcemap import MapPos, Pos, SeqPos
from taskplan.source.span import Span

if TYPE_CHECKING:
    from taskplan.source.read import ReadContext

_new = tuple.__new__
_INF = float("inf")

# Fast-path string contents: no quote, backslash, control character, or a character
# that str.splitlines treats as a line break (so a fast token never spans lines).
_PLAIN = r'[^"\\\x00-\x1f\x85\u2028\u2029]*'
_W = r"[ \t\n\r]*"
_WS = re.compile(_W).match
_STRING = re.compile(f'"({_PLAIN})"').match
_FIRST_KEY = re.compile(f'{_W}(?:"({_PLAIN})"{_W}:{_W}|(}}))').match
_NEXT_KEY = re.compile(f'{_W}(?:,{_W}"({_PLAIN})"{_W}:{_W}|(}}))').match
_FIRST_ITEM = re.compile(f"{_W}(])?").match
_NEXT_ITEM = re.compile(f"{_W}(?:,{_W}|(]))").match
_COLON = re.compile(f"{_W}:{_W}").match
_COMMA = re.compile(f"{_W},{_W}").match
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?").match
_WORD = re.compile(r"[A-Za-z_$][\w$-]*").match
_ESCAPE = re.compile(r"\\(?:u([0-9a-fA-F]{4})|.)", re.S).finditer
_SURROGATE = re.compile("[\ud800-\udfff]").search

_VALUE_HINT = 'write a value: "text", a number, true, false, null, an object {...} or an array [...]'
_ESCAPES_HINT = 'valid escapes are \\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX'


class _Stop(Exception):
    """Reading stopped at an error already reported."""


def read_json(text: str, ctx: "ReadContext", *, fast: bool = True) -> tuple[Any, Pos | None]:
    """The tree and the position tree of the JSON `text`; (None, None) for an
    empty text or when reading stopped at an error (the diagnostics say which).
    `fast=False` skips the fast path (tests compare the two)."""
    if fast:
        done = _fast(text, ctx)
        if done is not None:
            return done
    try:
        return _read(text, ctx)
    except _Stop:
        return None, None


# ---- the fast path -------------------------------------------------------------

_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]").search
_BRACKET_DEPTH = [0] * 256
_BRACKET_DEPTH[ord("[")] = _BRACKET_DEPTH[ord("{")] = 1
_BRACKET_DEPTH[ord("]")] = _BRACKET_DEPTH[ord("}")] = -1
_NOT_QUOTES_OR_BRACKETS = bytes(b for b in range(256) if b not in b'"[]{}')
_QUOTED = re.compile(rb'"[^"]*"')
_SKIP = make_scanner(json.JSONDecoder())
"""The C scanner: skips a nested container (returns its end) while a lazy node reads its parent."""


@lru_cache(maxsize=8)
def _longer_than(chars: int) -> Any:
    """Finds a string of more than `chars` characters (escapes counted as written: never fewer)."""
    return re.compile(f'"[^"]{{{chars + 1}}}').search


class _Refused(ValueError):
    """A json.loads hook met something the strict reader reports."""


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        raise _Refused("duplicate key")
    return out


def _constant(name: str) -> Any:
    raise _Refused(name)


def _float(text: str) -> float:
    number = float(text)
    if number == _INF or number == -_INF:
        raise _Refused("float overflow")
    return number


def _fast(text: str, ctx: "ReadContext") -> tuple[Any, Pos] | None:
    """Tree and lazy positions when the text is plainly fine; None to take the strict reader.

    Every check here is a C-speed pass over the text; none reports anything."""
    limits = ctx.limits
    raw = text.encode("utf-8")
    if b"\\" in raw:
        if _SURROGATE_ESCAPE(text.replace("\\\\", "xx")) is not None:
            return None  # surrogate pairs (and lone halves) are the strict reader's business
        # Without escaped backslashes and quotes, every quote left delimits a string.
        raw = raw.replace(b"\\\\", b"").replace(b'\\"', b"")
    # Nesting depth from the brackets outside strings: keep quotes and brackets, drop
    # the quoted parts, then the running sum of +1/-1 per bracket. json.loads recurses,
    # so this comes before it.
    skeleton = raw.translate(None, _NOT_QUOTES_OR_BRACKETS)
    if skeleton.count(b'"') % 2:
        return None  # an unclosed string
    brackets = _QUOTED.sub(b"", skeleton)
    if brackets and max(accumulate(map(_BRACKET_DEPTH.__getitem__, brackets))) > limits.max_depth:
        return None
    if len(text) > limits.max_scalar_chars and _longer_than(limits.max_scalar_chars)(
        text.replace("\\\\", "x").replace('\\"', "x")
    ):
        return None
    max_digits = limits.max_number_digits

    def integer(digits: str) -> int:
        if len(digits) - (digits[0] == "-") > max_digits:
            raise _Refused("long integer")
        return int(digits)

    try:
        tree = json.loads(text, object_pairs_hook=_pairs, parse_constant=_constant, parse_int=integer,
                          parse_float=_float)
    except (ValueError, RecursionError):
        return None  # JSONDecodeError, a hook's refusal, an integer Python will not convert
    start = _WS(text, 0).end()
    end = len(text.rstrip(" \t\n\r"))
    return tree, _lazy_pos(_Source(text), start, end)


class _Source:
    """What the lazy nodes of one document share: the text and (built when first
    needed) its line table."""

    __slots__ = ("text", "_starts")

    def __init__(self, text: str):
        # Only the text: the source map outlives the read, and a reference from it to
        # the read context (which reaches the document through its reporter) would make
        # every document a reference cycle that only the cyclic collector can free.
        self.text = text
        self._starts: list[int] | None = None

    def span(self, start: int, end: int) -> Span:
        starts = self._starts
        if starts is None:
            from taskplan.source.read import Lines  # read imports this module

            starts = self._starts = Lines(self.text).starts
        last = len(starts) - 1  # starts[last] is the end of the text, not a line start
        line = bisect_right(starts, start, 0, last) - 1
        end_line = line if end < starts[line + 1] else bisect_right(starts, end, 0, last) - 1
        return _new(Span, (line + 1, start - starts[line] + 1, end_line + 1, end - starts[end_line] + 1))

    def child(self, at: int) -> tuple[Pos, int]:
        """The position of the value at `at` (known to be valid JSON) and its end."""
        text = self.text
        c = text[at]
        if c == "{" or c == "[":
            end = _SKIP(text, at)[1]
            return _lazy_pos(self, at, end), end
        if c == '"':
            m = _STRING(text, at)
            end = m.end() if m is not None else scanstring(text, at + 1, True)[1]
        elif c == "t" or c == "n":
            end = at + 4
        elif c == "f":
            end = at + 5
        else:
            end = _NUMBER(text, at).end()  # type: ignore[union-attr]
        return self.span(at, end), end


def _lazy_pos(source: _Source, start: int, end: int) -> Pos:
    c = source.text[start]
    if c == "{":
        return _LazyMapPos(source, start, end)
    if c == "[":
        return _LazySeqPos(source, start, end)
    return source.span(start, end)


class _LazyMapPos(MapPos):
    """A MapPos whose span and `keys` are worked out from the text when first asked for."""

    __slots__ = ("_source", "_start", "_end")

    def __init__(self, source: _Source, start: int, end: int):
        self._source = source
        self._start = start
        self._end = end

    @property  # type: ignore[override]
    def span(self) -> Span:
        try:
            return MapPos.span.__get__(self, MapPos)  # type: ignore[attr-defined]
        except AttributeError:
            span = self._source.span(self._start, self._end)
            MapPos.span.__set__(self, span)  # type: ignore[attr-defined]
            return span

    @property  # type: ignore[override]
    def keys(self) -> dict[str, tuple[Span, Pos]]:
        try:
            return MapPos.keys.__get__(self, MapPos)  # type: ignore[attr-defined]
        except AttributeError:
            keys = _expand(_members, self._source, self._start)
            MapPos.keys.__set__(self, keys)  # type: ignore[attr-defined]
            return keys


class _LazySeqPos(SeqPos):
    """A SeqPos whose span and `items` are worked out from the text when first asked for."""

    __slots__ = ("_source", "_start", "_end")

    def __init__(self, source: _Source, start: int, end: int):
        self._source = source
        self._start = start
        self._end = end

    @property  # type: ignore[override]
    def span(self) -> Span:
        try:
            return SeqPos.span.__get__(self, SeqPos)  # type: ignore[attr-defined]
        except AttributeError:
            span = self._source.span(self._start, self._end)
            SeqPos.span.__set__(self, span)  # type: ignore[attr-defined]
            return span

    @property  # type: ignore[override]
    def items(self) -> list[Pos]:
        try:
            return SeqPos.items.__get__(self, SeqPos)  # type: ignore[attr-defined]
        except AttributeError:
            items = _expand(_items, self._source, self._start)
            SeqPos.items.__set__(self, items)  # type: ignore[attr-defined]
            return items


def _expand(read: Any, source: _Source, start: int) -> Any:
    """Run `read` without the cyclic collector (as the readers run): it allocates many
    small acyclic objects, and the C scanner builds (and drops) each skipped container."""
    with gc_paused():
        return read(source, start)


def _members(source: _Source, start: int) -> dict[str, tuple[Span, Pos]]:
    """The members of the (valid) object whose '{' is at `start`: key span and position."""
    text = source.text
    keys: dict[str, tuple[Span, Pos]] = {}
    after = start + 1  # after '{', then after each member's value
    m = _FIRST_KEY(text, after)
    while m is None or m.lastindex != 2:  # not '}'
        if m is not None:
            key = m.group(1)
            ks = m.start(1) - 1
            ke = m.end(1) + 1
            at = m.end()
        else:  # a key with escapes
            ks = (_WS if after == start + 1 else _COMMA)(text, after).end()  # type: ignore[union-attr]
            key, ke = scanstring(text, ks + 1, True)
            at = _COLON(text, ke).end()  # type: ignore[union-attr]
        child, after = source.child(at)
        keys[key] = (source.span(ks, ke), child)
        m = _NEXT_KEY(text, after)
    return keys


def _items(source: _Source, start: int) -> list[Pos]:
    """The positions of the items of the (valid) array whose '[' is at `start`."""
    text = source.text
    items: list[Pos] = []
    m = _FIRST_ITEM(text, start + 1)
    if m.lastindex is None:  # not ']'
        at = m.end()
        while True:
            child, after = source.child(at)
            items.append(child)
            m = _NEXT_ITEM(text, after)
            if m.lastindex is not None:  # ']'
                break
            at = m.end()
    return items


# ---- the strict reader -----------------------------------------------------------


def _read(text: str, ctx: "ReadContext") -> tuple[Any, Pos | None]:  # noqa: C901 - one hot loop, on purpose
    n = len(text)
    limits = ctx.limits
    max_depth = limits.max_depth
    max_chars = limits.max_scalar_chars
    max_digits = limits.max_number_digits
    first_key = _FIRST_KEY
    next_key = _NEXT_KEY
    next_item = _NEXT_ITEM
    string = _STRING
    new = _new

    pos = _WS(text, 0).end()
    if pos == n:
        return None, None  # empty: no tree, nothing wrong (the next pass says what is missing)

    # The line cursor: line li (0-based) starts at offset ls; the next one at nx.
    # Offsets only grow, so a position costs a comparison (and a step per line crossed).
    starts = ctx.lines.starts[:-1]
    starts.append(_INF)
    li = 0
    ls = 0
    nx = starts[1]

    # Frames of the open containers: [is_map, container, positions, line, column, key, key span].
    # The top one's fields are also kept in locals (is_map, cont, poss, key, kspan); key/kspan
    # are written back to its frame when a child container opens. kspan None: the current
    # member's key was refused (a duplicate, too long) and its value is dropped.
    stack: list[list[Any]] = []
    frame: list[Any] | None = None
    is_map = False
    cont: Any = None
    poss: Any = None
    key: Any = None
    kspan: Span | None = None
    val: Any
    vpos: Pos

    while True:
        # ---- one value at `pos` --------------------------------------------
        if pos >= n:
            _sync(frame, key, kspan)
            raise _unclosed(text, ctx, stack, pos)
        c = text[pos]
        if c == '"':
            m = string(text, pos)
            if m is not None:
                val = m.group(1)
                end = m.end()
                while pos >= nx:
                    li += 1
                    ls = nx
                    nx = starts[li + 1]
                vpos = new(Span, (li + 1, pos - ls + 1, li + 1, end - ls + 1))
            else:
                val, end = _string_slow(text, ctx, pos)
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
                vpos = new(Span, (line, column, li + 1, end - ls + 1))
            if len(val) > max_chars:
                _sync(frame, key, kspan)
                ctx.limit(vpos, f"this string is {len(val)} characters long; the limit is {max_chars}",
                          "shorten it, or pass large data by reference", path=_path(stack))
                if ctx.exhausted:
                    raise _Stop()
            pos = end
        elif c == "{" or c == "[":
            while pos >= nx:
                li += 1
                ls = nx
                nx = starts[li + 1]
            line = li + 1
            column = pos - ls + 1
            if len(stack) >= max_depth:
                _sync(frame, key, kspan)
                ctx.limit(new(Span, (line, column, line, column + 1)),
                          f"the document is nested more than {max_depth} levels deep",
                          "flatten the structure (or raise max-depth in [tool.taskplan.limits])", path=_path(stack))
                raise _Stop()
            if c == "{":
                m = first_key(text, pos + 1)
                if m is not None and m.lastindex == 2:  # {}
                    end = m.end()
                    while end >= nx:
                        li += 1
                        ls = nx
                        nx = starts[li + 1]
                    val = {}
                    vpos = MapPos(new(Span, (line, column, li + 1, end - ls + 1)), {})
                    pos = end
                else:
                    if frame is not None:
                        frame[5] = key
                        frame[6] = kspan
                    is_map = True
                    cont = {}
                    poss = {}
                    frame = [True, cont, poss, line, column, None, None]
                    stack.append(frame)
                    if m is not None:
                        key = m.group(1)
                        ks = m.start(1) - 1
                        ke = m.end(1) + 1
                        pos = m.end()
                    else:
                        key, ks, ke, pos = _key_slow(text, ctx, stack, _WS(text, pos + 1).end(), False)
                    while ks >= nx:
                        li += 1
                        ls = nx
                        nx = starts[li + 1]
                    kl = li + 1
                    kc = ks - ls + 1
                    while ke >= nx:
                        li += 1
                        ls = nx
                        nx = starts[li + 1]
                    kspan = new(Span, (kl, kc, li + 1, ke - ls + 1))
                    if len(key) > max_chars:
                        kspan = _long_key(ctx, stack, key, kspan, max_chars)
                    continue
            else:
                m = _FIRST_ITEM(text, pos + 1)
                if m.lastindex == 1:  # []
                    end = m.end()
                    while end >= nx:
                        li += 1
                        ls = nx
                        nx = starts[li + 1]
                    val = []
                    vpos = SeqPos(new(Span, (line, column, li + 1, end - ls + 1)), [])
                    pos = end
                else:
                    if frame is not None:
                        frame[5] = key
                        frame[6] = kspan
                    is_map = False
                    cont = []
                    poss = []
                    frame = [False, cont, poss, line, column, None, None]
                    stack.append(frame)
                    pos = m.end()
                    continue
        else:
            if c == "t" and text.startswith("true", pos):
                val = True
                end = pos + 4
            elif c == "f" and text.startswith("false", pos):
                val = False
                end = pos + 5
            elif c == "n" and text.startswith("null", pos):
                val = None
                end = pos + 4
            else:
                m = _NUMBER(text, pos) if c in "-0123456789" else None
                if m is None:
                    _sync(frame, key, kspan)
                    raise _unexpected_value(text, ctx, stack, pos)
                end = m.end()
                if m.lastindex is None:
                    digits = end - pos - (c == "-")
                    if digits > max_digits:
                        _sync(frame, key, kspan)
                        ctx.limit(_token(ctx, pos, end), f"this integer has {digits} digits; the limit is {max_digits}",
                                  "use a smaller number, or a string", path=_path(stack))
                        if ctx.exhausted:
                            raise _Stop()
                        val = None
                    else:
                        try:
                            val = int(text[pos:end])
                        except ValueError:  # past Python's own digit limit (sys.set_int_max_str_digits)
                            _sync(frame, key, kspan)
                            ctx.limit(_token(ctx, pos, end), f"this integer has {digits} digits; "
                                      "Python refuses to convert it", "use a smaller number, or a string",
                                      path=_path(stack))
                            if ctx.exhausted:
                                raise _Stop() from None
                            val = None
                else:
                    val = float(text[pos:end])
                    if val == _INF or val == -_INF:
                        _sync(frame, key, kspan)
                        ctx.limit(_token(ctx, pos, end), "this number is too large to represent",
                                  "use a smaller number, or a string", path=_path(stack))
                        if ctx.exhausted:
                            raise _Stop()
                        val = None
            while pos >= nx:
                li += 1
                ls = nx
                nx = starts[li + 1]
            vpos = new(Span, (li + 1, pos - ls + 1, li + 1, end - ls + 1))
            pos = end

        # ---- attach the value, then a separator (and the next key) or a close ----
        while True:
            if frame is None:
                p = _WS(text, pos).end()
                if p != n:
                    raise _fail(ctx, p, f"unexpected {_char(text[p])} after the end of the JSON value",
                                "a JSON file holds exactly one value")
                return val, vpos
            if is_map:
                if kspan is not None:
                    cont[key] = val
                    poss[key] = (kspan, vpos)
                m = next_key(text, pos)
                if m is not None and m.lastindex == 1:
                    key = m.group(1)
                    ks = m.start(1) - 1
                    ke = m.end(1) + 1
                    pos = m.end()
                elif m is None:
                    frame[5] = key
                    key, ks, ke, pos = _key_slow(text, ctx, stack, pos, True)
                else:
                    end = m.end()  # after '}'
                    key = None
                    ks = -1
                if ks >= 0:
                    while ks >= nx:
                        li += 1
                        ls = nx
                        nx = starts[li + 1]
                    kl = li + 1
                    kc = ks - ls + 1
                    while ke >= nx:
                        li += 1
                        ls = nx
                        nx = starts[li + 1]
                    kspan = new(Span, (kl, kc, li + 1, ke - ls + 1))
                    if key in poss:
                        frame[5] = key
                        ctx.duplicate(poss, _path(stack), key, kspan, poss[key][0])
                        kspan = None
                        if ctx.exhausted:
                            raise _Stop()
                    elif len(key) > max_chars:
                        kspan = _long_key(ctx, stack, key, kspan, max_chars)
                    break
            else:
                cont.append(val)
                poss.append(vpos)
                m = next_item(text, pos)
                if m is None:
                    p = _WS(text, pos).end()
                    if p < n and text[p] == "}":
                        raise _fail(ctx, p, f"found '}}' where the array opened at line {frame[3]}, "
                                            f"column {frame[4]} should be closed", "close it with ']'")
                    _sync(frame, key, kspan)
                    raise _unexpected_after(text, ctx, stack, p)
                if m.lastindex is None:  # a comma
                    pos = m.end()
                    break
                end = m.end()  # after ']'
            # close the top container
            while end >= nx:
                li += 1
                ls = nx
                nx = starts[li + 1]
            span = new(Span, (frame[3], frame[4], li + 1, end - ls + 1))
            val = cont
            vpos = MapPos(span, poss) if is_map else SeqPos(span, poss)
            pos = end
            stack.pop()
            if stack:
                frame = stack[-1]
                is_map, cont, poss = frame[0], frame[1], frame[2]
                key, kspan = frame[5], frame[6]
            else:
                frame = None


def _token(ctx: "ReadContext", start: int, end: int) -> Span:
    """The span of a token on one line (a number), for a diagnostic."""
    line, column = ctx.lines.position(start)
    return _new(Span, (line + 1, column + 1, line + 1, column + 1 + end - start))


def _sync(frame: list[Any] | None, key: Any, kspan: Any) -> None:
    """Write the top frame's current key back, so that _path sees it."""
    if frame is not None and frame[0]:
        frame[5] = key
        frame[6] = kspan


def _path(stack: list[list[Any]]) -> list[str | int]:
    """The JSON pointer tokens of the node being read."""
    out: list[str | int] = []
    for frame in stack:
        if frame[0]:
            if frame[5] is None:
                break
            out.append(frame[5])
        else:
            out.append(len(frame[1]))
    return out


def _fail(ctx: "ReadContext", offset: int, message: str, hint: str | None = None) -> _Stop:
    ctx.syntax(ctx.lines.point_at(offset), message, hint)
    return _Stop()


def _long_key(ctx: "ReadContext", stack: list[list[Any]], key: str, kspan: Span, max_chars: int) -> None:
    stack[-1][5] = key
    ctx.limit(kspan, f"this key is {len(key)} characters long; the limit is {max_chars}", "use a shorter key",
              path=_path(stack))
    if ctx.exhausted:
        raise _Stop()
    return None


def _key_slow(text: str, ctx: "ReadContext", stack: list[list[Any]], at: int,
              after_comma: bool) -> tuple[str, int, int, int]:
    """A key the fast match missed, at `at` (after the comma, when `after_comma`):
    one with escapes, or an error. Returns (key, key start, key end, value start)."""
    n = len(text)
    if after_comma:
        m = _COMMA(text, at)
        if m is None:
            raise _unexpected_after(text, ctx, stack, _WS(text, at).end())
        at = m.end()
    if at < n and text[at] == '"':
        key, end = _string_slow(text, ctx, at)
        m = _COLON(text, end)
        if m is None:
            raise _fail(ctx, _WS(text, end).end(), f"expected ':' after the key `{key}`",
                        'write members as "key": value')
        return key, at, end, m.end()
    if at >= n:
        raise _unclosed(text, ctx, stack, at)
    c = text[at]
    if c == "}" and after_comma:
        raise _fail(ctx, text.rfind(",", 0, at), "trailing comma before '}'", "remove the ',' after the last member")
    if c == "'":
        raise _fail(ctx, at, "keys must be in double quotes, not single quotes", 'write "key": value')
    if c == "/":
        raise _fail(ctx, at, "comments are not allowed in JSON", "remove the comment")
    w = _WORD(text, at)
    if w is not None:
        raise _fail(ctx, at, f"keys must be strings in double quotes, found `{w.group()}`", f'write "{w.group()}"')
    raise _fail(ctx, at, f"expected a key in double quotes, found {_char(c)}", 'write members as "key": value')


def _string_slow(text: str, ctx: "ReadContext", at: int) -> tuple[str, int]:
    """A string with escapes (or a malformed one) whose quote is at `at`."""
    n = len(text)
    try:
        value, end = scanstring(text, at + 1, True)
    except JSONDecodeError as exc:
        msg = exc.msg
        if msg.startswith("Unterminated string"):
            raise _fail(ctx, at, "this string is not closed", "add the missing '\"'") from None
        if msg.startswith("Invalid control character"):
            ch = text[exc.pos] if exc.pos < n else ""
            raise _fail(ctx, exc.pos, f"a string cannot contain the control character {_char(ch)}",
                        "write it as an escape (\\n, \\t, \\u0000)") from None
        backslash = text.rfind("\\", at, exc.pos + 1)  # point at the escape's backslash
        if msg.startswith("Invalid \\uXXXX"):
            raise _fail(ctx, backslash, "invalid \\u escape: it needs four hexadecimal digits", _ESCAPES_HINT) from None
        raise _fail(ctx, backslash, "invalid escape in a string", _ESCAPES_HINT) from None
    if _SURROGATE(value) is not None:
        raise _fail(ctx, _lone_surrogate(text, at, end), "a \\u escape is half of a surrogate pair",
                    "a character above U+FFFF is written as a pair, like \\ud83d\\ude00")
    return value, end


def _unclosed(text: str, ctx: "ReadContext", stack: list[list[Any]], at: int) -> _Stop:
    if stack:
        frame = stack[-1]
        what, close = ("object", "}") if frame[0] else ("array", "]")
        return _fail(ctx, at, f"the file ends before the {what} opened at line {frame[3]}, column {frame[4]} "
                              f"is closed", f"add the missing '{close}'")
    return _fail(ctx, at, "the file ends where a value is expected", _VALUE_HINT)


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


def _unexpected_value(text: str, ctx: "ReadContext", stack: list[list[Any]], pos: int) -> _Stop:
    c = text[pos]
    if c in "]}":
        if stack and not stack[-1][0] and c == "]":
            return _fail(ctx, text.rfind(",", 0, pos), "trailing comma before ']'", "remove the ',' after the last item")
        return _fail(ctx, pos, f"expected a value, found '{c}'", _VALUE_HINT)
    if c == "'":
        return _fail(ctx, pos, "strings must be in double quotes, not single quotes", 'write "text"')
    if c == "/":
        return _fail(ctx, pos, "comments are not allowed in JSON", "remove the comment")
    for word in ("NaN", "Infinity", "-Infinity"):
        if text.startswith(word, pos):
            return _fail(ctx, pos, f"{word} is not a JSON number", "use a finite number, or null")
    if c in "-0123456789":
        return _fail(ctx, pos, "invalid number", "a JSON number looks like -12, 3.5 or 1e6")
    if c == ",":
        return _fail(ctx, pos, "expected a value before ','", "remove the extra ','")
    w = _WORD(text, pos)
    if w is not None:
        word = w.group()
        return _fail(ctx, pos, f"unexpected word `{word}`: strings must be in double quotes",
                     f'write "{word}" (or true, false, null)')
    return _fail(ctx, pos, f"expected a value, found {_char(c)}", _VALUE_HINT)


def _unexpected_after(text: str, ctx: "ReadContext", stack: list[list[Any]], p: int) -> _Stop:
    """No ',' or closing bracket where one must be: say what is there instead."""
    if p >= len(text):
        return _unclosed(text, ctx, stack, p)
    top = stack[-1]
    c = text[p]
    what, close = ("object", "}") if top[0] else ("array", "]")
    if c == "]" and top[0]:
        return _fail(ctx, p, f"found ']' where the object opened at line {top[3]}, column {top[4]} should be closed",
                     "close it with '}'")
    if c == "/":
        return _fail(ctx, p, "comments are not allowed in JSON", "remove the comment")
    if c.isdigit() and p > 0 and text[p - 1] == "0":
        return _fail(ctx, p - 1, "a number cannot have a leading zero", "write the number without leading zeros")
    if c == ":" and not top[0]:
        return _fail(ctx, p, "unexpected ':' in an array", "use an object ({...}) for key: value members")
    sep = "a member" if top[0] else "an item"
    return _fail(ctx, p, f"expected ',' or '{close}' after {sep} of the {what}, found {_char(c)}",
                 f"add a ',' between the two, or close the {what} with '{close}'")
