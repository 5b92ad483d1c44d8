"""The source map: where every key and value of a document tree was written.

Built by the readers as a position tree parallel to the document tree (no
pointer strings are made while reading, which keeps the read pass cheap);
looked up by RFC 6901 pointer. A pointer to something absent resolves to its
nearest written ancestor, which is where "something missing" diagnostics point.
"""

from __future__ import annotations

from typing import Union

from taskplan.source import pointer as jp
from taskplan.source.span import UNKNOWN_SPAN, Span


class MapPos:
    """Position of a mapping: its own span and, per key, the key's span and the child's position."""

    __slots__ = ("span", "keys")

    def __init__(self, span: Span, keys: dict[str, tuple[Span, "Pos"]]):
        self.span = span
        self.keys = keys


class SeqPos:
    """Position of a sequence: its own span and its items' positions."""

    __slots__ = ("span", "items")

    def __init__(self, span: Span, items: list["Pos"]):
        self.span = span
        self.items = items


Pos = Union[MapPos, SeqPos, Span]
"""A scalar's position is just its span."""


def span_of(pos: Pos) -> Span:
    return pos if isinstance(pos, Span) else pos.span


class Resolved:
    """The result of a lookup: the span found and the pointer it belongs to (which is
    an ancestor of the requested one when that was not written)."""

    __slots__ = ("span", "pointer", "exact")

    def __init__(self, span: Span, pointer: str, exact: bool):
        self.span = span
        self.pointer = pointer
        self.exact = exact


class SourceMap:
    __slots__ = ("root",)

    def __init__(self, root: Pos | None):
        self.root = root

    def resolve(self, pointer: str, *, key: bool = False) -> Resolved:
        """The span of the value at `pointer` (or of its key, with `key=True`, for a
        member of a mapping). Falls back to the nearest written ancestor."""
        if self.root is None:
            return Resolved(UNKNOWN_SPAN, "", False)
        pos: Pos = self.root
        found = ""
        key_span: Span | None = None
        tokens = jp.split(pointer)
        for i, token in enumerate(tokens):
            if isinstance(pos, MapPos):
                entry = pos.keys.get(token)
                if entry is None:
                    return Resolved(span_of(pos), found, False)
                key_span, pos = entry
            elif isinstance(pos, SeqPos):
                if not token.isdigit() or int(token) >= len(pos.items):
                    return Resolved(pos.span, found, False)
                key_span, pos = None, pos.items[int(token)]
            else:
                return Resolved(pos, found, False)
            found = jp.join(found, token)
        if key and key_span is not None:
            return Resolved(key_span, found, True)
        return Resolved(span_of(pos), found, True)

    def value_span(self, pointer: str) -> Span:
        return self.resolve(pointer).span

    def key_span(self, pointer: str) -> Span:
        return self.resolve(pointer, key=True).span

    def has(self, pointer: str) -> bool:
        return self.resolve(pointer).exact
