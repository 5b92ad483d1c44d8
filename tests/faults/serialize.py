"""Write a plain tree back to text, YAML (block style) or JSON, with two escape hatches
the fault operators need and no real serializer offers:

- `Raw(text)`: a scalar written verbatim (a tag, an anchor, a huge integer, `.nan`,
  bytes that are not UTF-8);
- `Pairs([(key, value), ...])`: a mapping that may name a key twice.

Strings are always written as JSON double-quoted scalars (valid YAML, never read as
another type); keys are plain when they are simple words, quoted otherwise; a small
collection goes on one line in flow style (as JSON), larger ones in block style. What the
taskplan readers read back from the output is the tree (tests/test_fault_injection.py
checks it on every seed).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Raw:
    """A scalar written exactly as `text` (str or bytes) in both YAML and JSON."""

    text: str | bytes

    def as_bytes(self) -> bytes:
        return self.text if isinstance(self.text, bytes) else self.text.encode("utf-8")


class Pairs:
    """A mapping as a list of (key, value) pairs: a key may appear twice."""

    def __init__(self, pairs):
        self.pairs = list(pairs)


_PLAIN_KEY = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*\Z")
_NOT_PLAIN = {"null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE", "y", "n", "yes", "no",
              "on", "off", "Y", "N"}


_quote = json.encoder.encode_basestring_ascii  # a JSON string: also a YAML double-quoted scalar


def _key(key: str) -> bytes:
    if _PLAIN_KEY.match(key) and key not in _NOT_PLAIN:
        return key.encode("utf-8")
    return _quote(key).encode("utf-8")


def _scalar(value: Any, *, yaml: bool) -> bytes:
    if isinstance(value, Raw):
        return value.as_bytes()
    if value is None:
        return b"null"
    if value is True:
        return b"true"
    if value is False:
        return b"false"
    if isinstance(value, int):
        return str(value).encode("ascii")
    if isinstance(value, float):
        if math.isnan(value):
            return b".nan" if yaml else b"NaN"
        if math.isinf(value):
            if yaml:
                return b".inf" if value > 0 else b"-.inf"
            return b"Infinity" if value > 0 else b"-Infinity"
        return repr(value).encode("ascii")
    if isinstance(value, str):
        return _quote(value).encode("utf-8")
    raise TypeError(f"not a scalar: {value!r}")


def _items(node: Any) -> list[tuple[str, Any]]:
    return node.pairs if isinstance(node, Pairs) else list(node.items())


def _is_map(node: Any) -> bool:
    return isinstance(node, (dict, Pairs))


def to_json(tree: Any) -> bytes:
    out: list[bytes] = []
    _json(tree, out, 0)
    out.append(b"\n")
    return b"".join(out)


def _json(node: Any, out: list[bytes], indent: int) -> None:
    pad = b"  " * (indent + 1)
    if _is_map(node):
        items = _items(node)
        if not items:
            out.append(b"{}")
            return
        out.append(b"{\n")
        for i, (key, value) in enumerate(items):
            out.append(pad + json.dumps(key).encode("utf-8") + b": ")
            _json(value, out, indent + 1)
            out.append(b",\n" if i < len(items) - 1 else b"\n")
        out.append(b"  " * indent + b"}")
    elif isinstance(node, list):
        if not node:
            out.append(b"[]")
            return
        out.append(b"[\n")
        for i, value in enumerate(node):
            out.append(pad)
            _json(value, out, indent + 1)
            out.append(b",\n" if i < len(node) - 1 else b"\n")
        out.append(b"  " * indent + b"]")
    else:
        out.append(_scalar(node, yaml=False))


def to_yaml(tree: Any) -> bytes:
    out: list[bytes] = []
    if _is_map(tree) and _items(tree):
        _yaml_map(tree, out, 0)
    elif isinstance(tree, list) and tree:
        _yaml_seq(tree, out, 0)
    else:
        out.append(_flow(tree) + b"\n")
    return b"".join(out)


def _flow(node: Any) -> bytes:
    if _is_map(node):
        return b"{" + b", ".join(_key(k) + b": " + _flow(v) for k, v in _items(node)) + b"}"
    if isinstance(node, list):
        return b"[" + b", ".join(_flow(v) for v in node) + b"]"
    return _scalar(node, yaml=True)


_FLOW_WIDTH = 100
_as_json = json.JSONEncoder(ensure_ascii=True, allow_nan=False, separators=(", ", ": ")).encode


def _short_flow(node: Any) -> bytes | None:
    """A small plain collection as one flow-style line (JSON, which YAML reads the same),
    or None (too long, or holding a Raw, Pairs, NaN or an infinity)."""
    stack, budget = [node], 16  # larger collections are never one line: do not encode them
    while stack:
        n = stack.pop()
        budget -= 1
        if budget < 0:
            return None
        t = type(n)
        if t is dict:
            stack.extend(n.values())
        elif t is list:
            stack.extend(n)
        elif t is str:
            if len(n) > _FLOW_WIDTH:
                return None
        elif t is Raw or t is Pairs:
            return None
    try:
        text = _as_json(node)
    except (TypeError, ValueError):
        return None
    return text.encode("ascii") if len(text) <= _FLOW_WIDTH else None


def _block(node: Any) -> bool:
    return (_is_map(node) and bool(_items(node))) or (isinstance(node, list) and bool(node))


def _yaml_map(node: Any, out: list[bytes], indent: int, first_prefix: bytes | None = None) -> None:
    pad = b"  " * indent
    for i, (key, value) in enumerate(_items(node)):
        prefix = first_prefix if (i == 0 and first_prefix is not None) else pad
        flow = _short_flow(value) if _block(value) else None
        if flow is not None:
            out.append(prefix + _key(key) + b": " + flow + b"\n")
        elif _block(value):
            out.append(prefix + _key(key) + b":\n")
            if _is_map(value):
                _yaml_map(value, out, indent + 1)
            else:
                _yaml_seq(value, out, indent + 1)
        else:
            out.append(prefix + _key(key) + b": " + _flow(value) + b"\n")


def _yaml_seq(node: list, out: list[bytes], indent: int) -> None:
    pad = b"  " * indent
    for value in node:
        flow = _short_flow(value) if _block(value) else None
        if flow is not None:
            out.append(pad + b"- " + flow + b"\n")
        elif _is_map(value) and _items(value):
            _yaml_map(value, out, indent + 1, first_prefix=pad + b"- ")
        elif isinstance(value, list) and value:
            out.append(pad + b"-\n")
            _yaml_seq(value, out, indent + 1)
        else:
            out.append(pad + b"- " + _flow(value) + b"\n")


def dump(tree: Any, fmt: str) -> bytes:
    """The tree as `fmt` ("yaml" or "json") bytes. Recursive: documents a thousand levels
    deep (deep-nest mutations) get a higher recursion limit while they are written."""
    import sys

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20_000))
    try:
        return to_json(tree) if fmt == "json" else to_yaml(tree)
    finally:
        sys.setrecursionlimit(limit)
