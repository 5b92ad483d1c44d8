"""The workflow expression language: `${...}` strings (docs/workflow-dialect.md).

`parse(body)` parses the text between `${` and the final `}` with the LALR
grammar in expr.lark and returns an `Expression`: the references it reads
(with their offsets, for diagnostics) or the syntax error (offset and the
readable set of what was expected). Results are cached by text: a compiled
workflow repeats the same expressions many times.

`input_path`, `step_path`, `item_path`, `index_path` and `expression` build
canonical expression text, quoting names that are not plain segments (such as
generated IDs with dots): the lowering pass uses them so that it never
formats expression text by hand.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any, NamedTuple, Union

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from taskplan.workflow import dialect

OPEN = "${"
CLOSE = "}"

Segment = Union[str, int]


class Ref(NamedTuple):
    """One path an expression reads: `data.<root>[.<name>]<segments>`.

    Offsets are into the expression body (0-based, end exclusive). A named tuple (immutable
    like a frozen dataclass, ~5x cheaper to create: a document has one per expression)."""

    root: str
    """`inputs`, `steps`, `item` or `index`."""
    name: str | None
    """The input name or step ID (None for item and index)."""
    segments: tuple[Segment, ...]
    """The fields (str) and array indexes (int) after the name."""
    start: int
    end: int
    name_start: int
    name_end: int
    segment_spans: tuple[tuple[int, int], ...]
    in_present: bool = False
    """True when the path is the argument of `present(...)`."""


@dataclass(frozen=True, slots=True)
class ExprError:
    offset: int
    """Where the parser stopped, as an offset into the body."""
    end: int
    message: str
    expected: tuple[str, ...]
    """What would have been accepted there, readable (`data`, a string, ...)."""


class Expression(NamedTuple):
    """A parsed expression body: the paths it reads, or the syntax error."""

    body: str
    refs: tuple[Ref, ...] = ()
    error: ExprError | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


# --- recognising expression strings -----------------------------------------------------

def split(text: str) -> str | None:
    """The body of a whole-string expression `${...}`, else None."""
    if len(text) >= 3 and text.startswith(OPEN) and text.endswith(CLOSE):
        return text[2:-1]
    return None


def is_expression(text: object) -> bool:
    return isinstance(text, str) and text.startswith(OPEN)


# --- the parser ------------------------------------------------------------------------------

@lru_cache(maxsize=1)
def _parser() -> Lark:
    grammar = resources.files("taskplan.workflow").joinpath("expr.lark").read_text(encoding="utf-8")
    return Lark(grammar, parser="lalr", lexer="contextual", start="start", maybe_placeholders=False)


def grammar_text() -> str:
    return resources.files("taskplan.workflow").joinpath("expr.lark").read_text(encoding="utf-8")


# The readable name of every terminal, in the order they are listed in messages.
_DISPLAY: dict[str, str] = {
    "DATA": "`data`",
    "STRING": "a string",
    "NUMBER": "a number",
    "TRUE": "`true`",
    "FALSE": "`false`",
    "NULL": "`null`",
    "JSON": "`json(...)`",
    "PRESENT": "`present(...)`",
    "NOT": "`not`",
    "LPAR": "`(`",
    "INPUTS": "`inputs`",
    "STEPS": "`steps`",
    "ITEM": "`item`",
    "INDEX": "`index`",
    "DOT": "`.`",
    "NAME": "a field name",
    "LSQB": "`[`",
    "INDEX_NUMBER": "an array index",
    "RSQB": "`]`",
    "COMPARATOR": "a comparison (`==`, `!=`, `<`, `<=`, `>`, `>=`)",
    "AND": "`and`",
    "OR": "`or`",
    "RPAR": "`)`",
    "$END": "the end of the expression",
}
_ORDER = {name: i for i, name in enumerate(_DISPLAY)}


def _expected(names: object) -> tuple[str, ...]:
    known = [n for n in set(names or ()) if n in _DISPLAY]  # type: ignore[arg-type]
    known.sort(key=_ORDER.__getitem__)
    return tuple(_DISPLAY[n] for n in known)


def _describe(text: str) -> str:
    shown = text if len(text) <= 20 else text[:20] + "..."
    return "`" + shown.replace("`", "'") + "`"


def _error(body: str, exc: UnexpectedInput) -> ExprError:
    if isinstance(exc, UnexpectedToken):
        token = exc.token
        accepts = getattr(exc, "accepts", None) or exc.expected
        expected = _expected(accepts)
        if token.type == "$END":
            offset, end = len(body), len(body)
            found = "end of the expression"
        else:
            offset = token.start_pos if token.start_pos is not None else 0
            end = token.end_pos if token.end_pos is not None else offset + 1
            found = _describe(str(token))
    elif isinstance(exc, UnexpectedCharacters):
        offset = exc.pos_in_stream
        end = offset + 1
        expected = _expected(exc.allowed)
        char = body[offset] if offset < len(body) else ""
        if char in "\"'":
            found = "an unterminated or malformed string"
        else:
            found = _describe(char)
    else:  # pragma: no cover - lark raises only the two above for LALR
        offset, end, expected, found = 0, len(body), (), "this text"
    message = f"unexpected {found}"
    if expected:
        message += "; expected " + (expected[0] if len(expected) == 1 else "one of " + ", ".join(expected))
    return ExprError(offset, end, message, expected)


def _string_value(token: Token) -> str:
    text = str(token)
    if text.startswith('"'):
        return _json_text(text)
    return text[1:-1].replace("\\'", "'").replace("\\\\", "\\")


def _key(tree: Tree) -> tuple[str, int, int]:
    # key: DOT NAME | LSQB STRING RSQB: the name token is the second child either way
    token = tree.children[1]
    if token.type == "STRING":
        return _string_value(token), token.start_pos, token.end_pos
    return str(token), token.start_pos, token.end_pos


def _ref(tree: Tree, in_present: bool) -> Ref:
    kind = tree.data
    children = tree.children
    start = children[0].start_pos
    name = None
    # item/index: the "name" span is the keyword itself
    name_start, name_end = children[2].start_pos, children[2].end_pos
    rest = children[3:]
    root = {"input_path": "inputs", "step_path": "steps", "item_path": "item", "index_path": "index"}[kind]
    end = children[2].end_pos
    if kind in ("input_path", "step_path"):
        name, name_start, name_end = _key(rest[0])
        end = rest[0].children[-1].end_pos
        rest = rest[1:]
    segments: list[Segment] = []
    spans: list[tuple[int, int]] = []
    for seg in rest:
        token = seg.children[1]
        if seg.data == "index":
            segments.append(int(str(token)))
        elif token.type == "STRING":
            segments.append(_string_value(token))
        else:
            segments.append(str(token))
        spans.append((token.start_pos, token.end_pos))
        end = seg.children[-1].end_pos
    return Ref(root, name, tuple(segments), start, end, name_start, name_end, tuple(spans), in_present)


_PATHS = frozenset({"input_path", "step_path", "item_path", "index_path"})


def _refs(tree: Tree | Token) -> tuple[Ref, ...]:
    """Every path in the tree, in text order; iterative (expressions may nest deeply)."""
    out: list[Ref] = []
    stack: list[tuple[Tree | Token, bool]] = [(tree, False)]
    while stack:
        node, in_present = stack.pop()
        if not isinstance(node, Tree):
            continue
        if node.data in _PATHS:
            out.append(_ref(node, in_present))
            continue
        present = node.data == "present_call"
        for child in reversed(node.children):
            stack.append((child, present))
    out.sort(key=lambda r: r.start)
    return tuple(out)


_WS = " \t\r\n"
_JSON_STRING = r'"(?:[^"\\\x00-\x1f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"'
# The common case, a single path without inner whitespace, recognised without the
# parser (lark costs ~70-130 us an expression). It accepts exactly what the grammar
# accepts for such text and gives the same Refs (tests/test_expr.py checks both).
_FAST = re.compile(
    r"data\.(?:(inputs|steps)(?:\.([A-Za-z0-9_-]+)|\[(" + _JSON_STRING + r")\])|(item)|(index)(?![.\[]))"
    r"((?:\.[A-Za-z0-9_-]+|\[(?:0|[1-9][0-9]*)\]|\[" + _JSON_STRING + r"\])*)"
)
_FAST_SEGMENT = re.compile(r"\.([A-Za-z0-9_-]+)|\[(0|[1-9][0-9]*)\]|\[(" + _JSON_STRING + r")\]")


_PLAIN = re.compile(r"data\.(?:inputs|steps)\.[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*")
_QUOTED = re.compile(r'data\.(inputs|steps)\["([^"\\\x00-\x1f]*)"\]((?:\.[A-Za-z0-9_-]+)*)')
"""The name quoted (a generated ID with dots: `data.steps["__a.b"].value`), without escapes."""
_new_tuple = tuple.__new__

# Possessive (`++`, `*+`, `?+`: never given back): what follows each part cannot start
# with a character the part could have taken, so backtracking never finds another match;
# without the saved states the validate pass's regex calls cost about a third less.
_FIELD = r"[A-Za-z0-9_-]++"
_PLAIN_GROUPS = (
    r'data\.(inputs|steps)(?:\.(' + _FIELD + r')|\["([^"\\\x00-\x1f]*+)"\])'
    r"(?:\.(" + _FIELD + r")(?:\.(" + _FIELD + r")(?:\." + _FIELD + r")*+)?+)?+"
)
PLAIN_PATH = re.compile(_PLAIN_GROUPS)
"""What `plain_path` accepts, its parts as the groups of a match: the root, the name (plain,
or quoted: the other group is None), the first two fields (None when absent). For callers
that read no more than these (no list built)."""
PLAIN_EXPRESSION = re.compile(r"\$\{" + _PLAIN_GROUPS + r"\}")
"""`PLAIN_PATH` as a whole expression `${...}`: the commonest expression, in one regex call."""
CALLED_PLAIN_EXPRESSION = re.compile(r"\$\{(?:json|present)\(" + _PLAIN_GROUPS + r"\)\}")
"""`PLAIN_PATH` in `json(...)` or `present(...)` as a whole expression (the path that
`path_in_shape` finds), its groups `PLAIN_PATH`'s: for callers that read no more than the
path. (One regex for both shapes, with an optional call, costs the plain one twice.)"""


def plain_path(body: str) -> list[str] | None:
    """`[root, name, *fields]` when the body is a plain path: `data.<inputs|steps>`, the name
    (`.name`, or `["name"]` without escapes), `.field`s; no spaces. Else None. `parse` gives
    the same as its one Ref's root, name and segments: for callers that need no more than
    that (no offsets), a third of the cost of a parse."""
    if _PLAIN.fullmatch(body) is not None:
        return body.split(".")[1:]
    quoted = _QUOTED.fullmatch(body)
    if quoted is None:
        return None
    root, name, fields = quoted.groups()
    return [root, name, *fields.split(".")[1:]] if fields else [root, name]


def _plain(body: str) -> Expression | None:
    """The commonest case of all, a `plain_path`: the offsets follow from the lengths of the
    parts. (Most expressions of a document are distinct, so this runs once for most of them:
    the named tuples are made with tuple.__new__, a third of the cost.)"""
    parts = plain_path(body)
    if parts is None:
        return None
    root, name = parts[0], parts[1]
    if body[len(root) + 5] == ".":  # data.<root>.name
        name_start = len(root) + 6
        position = name_end = name_start + len(name)
    else:  # data.<root>["name"]: the name token is the string, quotes included
        name_start = len(root) + 6
        name_end = name_start + len(name) + 2
        position = name_end + 1
    segments = tuple(parts[2:])
    spans: Any = ()
    if segments:
        spans = []
        for segment in segments:
            end = position + 1 + len(segment)
            spans.append((position + 1, end))
            position = end
        spans = tuple(spans)
    ref = _new_tuple(Ref, (root, name, segments, 0, len(body), name_start, name_end, spans, False))
    return _new_tuple(Expression, (body, (ref,), None))


def _json_text(quoted: str) -> str:
    """The value of a JSON string literal that `_JSON_STRING` matched."""
    return quoted[1:-1] if "\\" not in quoted else json.loads(quoted)  # no escape: the text itself


def _fast(body: str) -> Expression | None:
    simple = _plain(body)
    if simple is not None:
        return simple
    stripped = body.strip(_WS)
    match = _FAST.fullmatch(stripped)
    if match is None:
        return None
    base = len(body) - len(body.lstrip(_WS))
    root_kw, plain, quoted, item, index, tail = match.groups()
    if root_kw:
        root = root_kw
        if plain is not None:
            name, name_start, name_end = plain, match.start(2), match.end(2)
        else:
            name, name_start, name_end = _json_text(quoted), match.start(3), match.end(3)
    else:
        root = "item" if item else "index"
        name = None
        name_start, name_end = match.start(4 if item else 5), match.end(4 if item else 5)
    segments: list[Segment] = []
    spans: list[tuple[int, int]] = []
    offset = match.start(6)
    for seg in _FAST_SEGMENT.finditer(tail):
        field, number, string = seg.groups()
        if field is not None:
            segments.append(field)
            spans.append((offset + seg.start(1) + base, offset + seg.end(1) + base))
        elif number is not None:
            segments.append(int(number))
            spans.append((offset + seg.start(2) + base, offset + seg.end(2) + base))
        else:
            segments.append(_json_text(string))
            spans.append((offset + seg.start(3) + base, offset + seg.end(3) + base))
    ref = Ref(
        root, name, tuple(segments), base, base + len(stripped), base + name_start, base + name_end, tuple(spans)
    )
    return Expression(body, (ref,))


class _Reject(Exception):
    """The descent parser gives up: the grammar (lark) decides, and explains errors."""


_D_WS = re.compile(r"[ \t\r\n]*")
_D_WORD = re.compile(r"[A-Za-z0-9_-]+")
_D_NAME = re.compile(r"[A-Za-z0-9_-]+")
_D_STRING = re.compile(_JSON_STRING + r"|'(?:[^'\\\x00-\x1f]|\\['\\])*'")
_D_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_D_INDEX = re.compile(r"0|[1-9][0-9]*")
_D_COMPARATOR = re.compile(r"==|!=|<=|>=|<|>")
_D_MAX_DEPTH = 64


class _Descent:
    """A recursive-descent parser of the same grammar, for valid expressions only: it is
    ~10x faster than lark, and rejects (to lark) anything it is not sure of: keywords
    not followed by a word boundary, nesting deeper than 64, and every error. What
    it accepts, the grammar accepts, with the same Refs (tests/test_expr.py)."""

    __slots__ = ("text", "pos", "refs", "depth")

    def __init__(self, text: str):
        self.text = text
        self.pos = 0
        self.refs: list[Ref] = []
        self.depth = 0

    def ws(self) -> None:
        self.pos = _D_WS.match(self.text, self.pos).end()  # type: ignore[union-attr]

    def peek_word(self) -> str | None:
        m = _D_WORD.match(self.text, self.pos)
        return m.group() if m else None

    def keyword(self, word: str) -> bool:
        """Consume `word` when it is the whole next word."""
        if self.peek_word() == word:
            self.pos += len(word)
            self.ws()
            return True
        return False

    def char(self, c: str) -> bool:
        if self.text.startswith(c, self.pos):
            self.pos += len(c)
            self.ws()
            return True
        return False

    def expect(self, c: str) -> int:
        start = self.pos
        if not self.text.startswith(c, self.pos):
            raise _Reject
        self.pos += len(c)
        end = self.pos
        self.ws()
        return end if c in ")]" else start

    def run(self) -> Expression:
        self.ws()
        self.or_expr()
        if self.pos != len(self.text):
            raise _Reject
        self.refs.sort(key=lambda r: r.start)
        return Expression(self.text, tuple(self.refs))

    def or_expr(self) -> None:
        self.depth += 1
        if self.depth > _D_MAX_DEPTH:
            raise _Reject
        self.and_expr()
        while self.keyword("or"):
            self.and_expr()
        self.depth -= 1

    def and_expr(self) -> None:
        self.not_expr()
        while self.keyword("and"):
            self.not_expr()

    def not_expr(self) -> None:
        count = 0
        while self.keyword("not"):
            count += 1
            if count > _D_MAX_DEPTH:
                raise _Reject
        self.operand()
        m = _D_COMPARATOR.match(self.text, self.pos)
        if m:
            self.pos = m.end()
            self.ws()
            self.operand()

    def operand(self) -> None:
        text, pos = self.text, self.pos
        if pos >= len(text):
            raise _Reject
        c = text[pos]
        if c == "(":
            self.char("(")
            self.or_expr()
            self.expect(")")
            return
        if c in "\"'":
            m = _D_STRING.match(text, pos)
            if not m:
                raise _Reject
            self.pos = m.end()
            self.ws()
            return
        if c == "-" or c.isdigit():
            m = _D_NUMBER.match(text, pos)
            if not m:
                raise _Reject
            self.pos = m.end()
            if self.peek_word() is not None:
                raise _Reject
            self.ws()
            return
        word = self.peek_word()
        if word in ("true", "false", "null"):
            self.keyword(word)
        elif word == "data":
            self.path(False)
        elif word == "json":
            self.keyword("json")
            self.expect("(")
            self.or_expr()
            self.expect(")")
        elif word == "present":
            self.keyword("present")
            self.expect("(")
            if self.peek_word() != "data":
                raise _Reject
            self.path(True)
            self.expect(")")
        else:
            raise _Reject

    def name(self) -> tuple[str | int, int, int, int]:
        """`.NAME` or `["..."]` (or `[n]` when allowed): value, token start, token end, end."""
        text = self.text
        if self.char("."):
            m = _D_NAME.match(text, self.pos)
            if not m:
                raise _Reject
            self.pos = m.end()
            end = self.pos
            self.ws()
            return m.group(), m.start(), m.end(), end
        if self.char("["):
            m = _D_STRING.match(text, self.pos)
            if m:
                value: str | int = _string_value(Token("STRING", m.group()))
            else:
                m = _D_INDEX.match(text, self.pos)
                if not m:
                    raise _Reject
                value = int(m.group())
            self.pos = m.end()
            self.ws()
            end = self.expect("]")
            return value, m.start(), m.end(), end
        raise _Reject

    def path(self, in_present: bool) -> None:
        start = self.pos
        self.pos += 4  # data
        self.ws()
        self.expect(".")
        root = self.peek_word()
        if root not in ("inputs", "steps", "item", "index"):
            raise _Reject
        root_start = self.pos
        self.pos += len(root)
        end = self.pos
        self.ws()
        name: str | None = None
        name_start, name_end = root_start, end
        segments: list[Segment] = []
        spans: list[tuple[int, int]] = []
        if root in ("inputs", "steps"):
            key, name_start, name_end, end = self.name()
            if not isinstance(key, str):
                raise _Reject
            name = key
        if root != "index":
            while self.pos < len(self.text) and self.text[self.pos] in ".[":
                value, a, b, end = self.name()
                segments.append(value)
                spans.append((a, b))
        self.refs.append(Ref(root, name, tuple(segments), start, end, name_start, name_end, tuple(spans), in_present))


_SHAPED_LITERAL = re.compile(r"[ \t\r\n]*(?:" + _D_STRING.pattern + "|" + _D_NUMBER.pattern + r"|true|false|null)[ \t\r\n]*")
_SHAPED_COMPARATOR = re.compile(r"==|!=|<=|>=|<|>")


def _shifted(ref: Ref, by: int, in_present: bool) -> Ref:
    spans = tuple([(a + by, b + by) for a, b in ref.segment_spans])
    return _new_tuple(Ref, (ref.root, ref.name, ref.segments, ref.start + by, ref.end + by, ref.name_start + by,
                            ref.name_end + by, spans, in_present))


def _shaped(body: str) -> Expression | None:
    """The other shapes the lowering pass emits, one path inside: `json(<path>)`,
    `present(<path>)` and `<path> <comparator> <literal>`, the path recognised by `_fast`
    (the descent parser costs ~10x more). Anything else: None."""
    if body.endswith(")"):
        for word in ("json(", "present("):
            if body.startswith(word):
                inner = _fast(body[len(word):-1])
                if inner is None:
                    return None
                return _new_tuple(Expression, (body, (_shifted(inner.refs[0], len(word), word == "present("),), None))
        return None
    comparator = _SHAPED_COMPARATOR.search(body)
    if comparator is None or _SHAPED_LITERAL.fullmatch(body, comparator.end()) is None:
        return None
    left = _fast(body[: comparator.start()])
    return None if left is None else _new_tuple(Expression, (body, left.refs, None))


def path_in_shape(body: str) -> str | None:
    """The text of the one path of `json(<path>)`, `present(<path>)` or `<path> <comparator>
    <literal>` (the shapes of `_shaped`), without the whitespace around it; else None. When
    `plain_path` accepts that text, it gives what the grammar gives for the whole body as
    its one Ref's root, name and segments: for callers that need no more than that, a
    tenth of the cost of a parse."""
    if body.endswith(")"):
        if body.startswith("json("):
            return body[5:-1]
        if body.startswith("present("):
            return body[8:-1]
        return None
    comparator = _SHAPED_COMPARATOR.search(body)
    if comparator is None or _SHAPED_LITERAL.fullmatch(body, comparator.end()) is None:
        return None
    return body[: comparator.start()].rstrip(_WS)


def _descent(body: str) -> Expression | None:
    shaped = _shaped(body)
    if shaped is not None:
        return shaped
    try:
        return _Descent(body).run()
    except _Reject:
        return None


def parse_slow(body: str) -> Expression:
    """Parse with the grammar only (no fast path): what `parse` must agree with."""
    try:
        tree = _parser().parse(body)
    except UnexpectedInput as exc:
        return Expression(body, (), _error(body, exc))
    return Expression(body, _refs(tree))


@lru_cache(maxsize=65536)
def parse(body: str) -> Expression:
    """Parse an expression body (the text inside `${...}`). Never raises."""
    return _fast(body) or _descent(body) or parse_slow(body)


# --- building canonical expression text ------------------------------------------------------

def _is_plain(name: str) -> bool:
    return bool(name) and all(c.isascii() and (c.isalnum() or c in "_-") for c in name)


def _segment(seg: Segment) -> str:
    if isinstance(seg, int) and not isinstance(seg, bool):
        if seg < 0:
            raise ValueError(f"array index must not be negative: {seg}")
        return f"[{seg}]"
    if _is_plain(seg):
        return "." + seg
    return "[" + string_literal(seg) + "]"


def input_path(name: str, *segments: Segment) -> str:
    """`data.inputs.<name>...` as expression body text."""
    return "data.inputs" + _segment(name) + "".join(_segment(s) for s in segments)


def step_path(step_id: str, *segments: Segment) -> str:
    """`data.steps.<id>...`; a generated ID with dots is quoted: `data.steps["__a.b"].value`."""
    return "data.steps" + _segment(step_id) + "".join(_segment(s) for s in segments)


def item_path(*segments: Segment) -> str:
    return "data.item" + "".join(_segment(s) for s in segments)


def index_path() -> str:
    return "data.index"


def string_literal(text: str) -> str:
    """A string literal inside an expression body (never holding `${`)."""
    return dialect.expression_string(text)


def expression(body: str) -> str:
    """`${body}`: the whole-string form written in a workflow."""
    return OPEN + body + CLOSE
