"""Write a plain tree back to text, YAML (block style) or JSON, with two escape hatches
the fault operators need and no real serializer offers:

- `Raw(text)`: a scalar written verbatim (a tag, an anchor, a huge integer, `.nan`,
  bytes that are not UTF-8);
- `Pairs([(key, value), ...])`: a mapping that may name a key twice.

Strings are always written as JSON double-quoted scalars (valid YAML, never read as
another type); keys are plain when they are simple words, quoted otherwise. What the
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


class Pairs(list):
    """A mapping as a list of (key, value) pairs: a key may appear twice."""


_PLAIN_KEY = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*\Z")
_NOT_PLAIN = {"null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE", "y", "n", "yes", "no",
              "on", "off", "Y", "N"}


def _key(key: str) -> bytes:
    if _PLAIN_KEY.match(key) and key not in _NOT_PLAIN:
        return key.encode("utf-8")
    return json.dumps(key).encode("utf-8")


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
        return json.dumps(value).encode("utf-8")
    raise TypeError(f"not a scalar: {value!r}")


def _items(node: Any) -> list[tuple[str, Any]]:
    return list(node) if isinstance(node, Pairs) else list(node.items())


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


def _block(node: Any) -> bool:
    return (_is_map(node) and bool(_items(node))) or (isinstance(node, list) and bool(node))


def _yaml_map(node: Any, out: list[bytes], indent: int, first_prefix: bytes | None = None) -> None:
    pad = b"  " * indent
    for i, (key, value) in enumerate(_items(node)):
        prefix = first_prefix if (i == 0 and first_prefix is not None) else pad
        if _block(value):
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
        if _is_map(value) and _items(value):
            _yaml_map(value, out, indent + 1, first_prefix=pad + b"- ")
        elif isinstance(value, list) and value:
            out.append(pad + b"-\n")
            _yaml_seq(value, out, indent + 1)
        else:
            out.append(pad + b"- " + _flow(value) + b"\n")


def dump(tree: Any, fmt: str) -> bytes:
    """The tree as `fmt` ("yaml" or "json") bytes."""
    return to_json(tree) if fmt == "json" else to_yaml(tree)
