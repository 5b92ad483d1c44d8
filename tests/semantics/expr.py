"""The workflow expression language (docs/workflow-dialect.md, Expressions): a small
recursive-descent parser and evaluator of its own (not the compiler's lark grammar)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from .common import Failure, OracleBug, canonical_json, equal, order

_WS = re.compile(r"[ \t\r\n]*")
_WORD = re.compile(r"[A-Za-z0-9_-]+")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_DQ = re.compile(r'"(?:[^"\\\x00-\x1f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"')
_SQ = re.compile(r"'(?:[^'\\\x00-\x1f]|\\['\\])*'")
_INDEX = re.compile(r"0|[1-9][0-9]*")
_CMP = re.compile(r"==|!=|<=|>=|<|>")


class Missing(Exception):
    """A path that does not resolve (a step that did not run, a field that is absent)."""


@dataclass
class Path:
    root: str            # inputs | steps | item | index
    key: str | None      # the input name / step ID
    segments: list       # str (field) or int (index)


class Parser:
    def __init__(self, text: str):
        self.text = text
        self.pos = 0

    def fail(self, what: str) -> None:
        raise OracleBug(f"expression {self.text!r}: {what} at {self.pos}")

    def ws(self) -> None:
        self.pos = _WS.match(self.text, self.pos).end()

    def peek_word(self) -> str | None:
        self.ws()
        m = _WORD.match(self.text, self.pos)
        return m.group() if m else None

    def keyword(self, word: str) -> bool:
        if self.peek_word() == word:
            self.pos += len(word)
            return True
        return False

    def char(self, c: str) -> bool:
        self.ws()
        if self.text.startswith(c, self.pos):
            self.pos += len(c)
            return True
        return False

    def expect(self, c: str) -> None:
        if not self.char(c):
            self.fail(f"expected {c!r}")

    def parse(self) -> Any:
        node = self.or_expr()
        self.ws()
        if self.pos != len(self.text):
            self.fail("trailing text")
        return node

    def or_expr(self) -> Any:
        node = self.and_expr()
        while self.keyword("or"):
            node = ("or", node, self.and_expr())
        return node

    def and_expr(self) -> Any:
        node = self.not_expr()
        while self.keyword("and"):
            node = ("and", node, self.not_expr())
        return node

    def not_expr(self) -> Any:
        if self.keyword("not"):
            return ("not", self.not_expr())
        left = self.operand()
        self.ws()
        m = _CMP.match(self.text, self.pos)
        if m:
            self.pos = m.end()
            return ("cmp", m.group(), left, self.operand())
        return left

    def string(self) -> str | None:
        self.ws()
        m = _DQ.match(self.text, self.pos)
        if m:
            self.pos = m.end()
            return json.loads(m.group())
        m = _SQ.match(self.text, self.pos)
        if m:
            self.pos = m.end()
            return re.sub(r"\\(['\\])", r"\1", m.group()[1:-1])
        return None

    def operand(self) -> Any:
        self.ws()
        if self.char("("):
            node = self.or_expr()
            self.expect(")")
            return node
        s = self.string()
        if s is not None:
            return ("lit", s)
        m = _NUMBER.match(self.text, self.pos)
        if m and (m.end() == len(self.text) or not _WORD.match(self.text, m.end())):
            self.pos = m.end()
            return ("lit", json.loads(m.group()))
        word = self.peek_word()
        if word in ("true", "false", "null"):
            self.pos += len(word)
            return ("lit", {"true": True, "false": False, "null": None}[word])
        if word in ("json", "present"):  # json(expr), present(path)
            self.pos += len(word)
            self.expect("(")
            node = self.or_expr() if word == "json" else self.path()
            self.expect(")")
            return (word, node)
        if word == "data":
            return self.path()
        self.fail("expected an operand")

    def name(self) -> str:
        self.ws()
        m = _WORD.match(self.text, self.pos)
        if not m:
            self.fail("expected a name")
        self.pos = m.end()
        return m.group()

    def key(self) -> str:
        if self.char("."):
            return self.name()
        if self.char("["):
            s = self.string()
            if s is None:
                self.fail("expected a string key")
            self.expect("]")
            return s
        self.fail("expected a key")

    def segments(self) -> list:
        out: list = []
        while True:
            self.ws()
            if self.char("."):
                out.append(self.name())
            elif self.char("["):
                s = self.string()
                if s is not None:
                    out.append(s)
                else:
                    self.ws()
                    m = _INDEX.match(self.text, self.pos)
                    if not m:
                        self.fail("expected an index")
                    self.pos = m.end()
                    out.append(int(m.group()))
                self.expect("]")
            else:
                return out

    def path(self) -> Path:
        if not self.keyword("data"):
            self.fail("expected data")
        self.expect(".")
        root = self.name()
        if root in ("inputs", "steps"):
            return Path(root, self.key(), self.segments())
        if root == "item":
            return Path("item", None, self.segments())
        if root == "index":
            return Path("index", None, [])
        self.fail(f"unknown root {root}")


_CACHE: dict[str, Any] = {}


def parse(body: str) -> Any:
    node = _CACHE.get(body)
    if node is None:
        node = _CACHE[body] = Parser(body).parse()
    return node


class Scope:
    """What an expression can read: the workflow's inputs, its steps' results, the
    loop item and index (when in a loop body)."""

    def __init__(self, inputs: dict, steps: dict, loop: tuple | None):
        self.inputs = inputs
        self.steps = steps
        self.loop = loop

    def resolve(self, path: Path) -> Any:
        if path.root == "inputs":
            if path.key not in self.inputs:
                raise OracleBug(f"undeclared input {path.key}")
            node = self.inputs[path.key]
        elif path.root == "steps":
            if path.key not in self.steps:
                raise Missing(f"step {path.key} has not run")
            node = self.steps[path.key]
        elif path.root == "item":
            if self.loop is None:
                raise OracleBug("data.item outside a loop body")
            node = self.loop[0]
        else:
            if self.loop is None:
                raise OracleBug("data.index outside a loop body")
            return self.loop[1]
        for seg in path.segments:
            if isinstance(seg, int):
                if not isinstance(node, list) or seg >= len(node):
                    raise Missing(f"no index {seg}")
                node = node[seg]
            else:
                if not isinstance(node, dict) or seg not in node:
                    raise Missing(f"no field {seg!r}")
                node = node[seg]
        return node


def evaluate(node: Any, scope: Scope) -> Any:
    if isinstance(node, Path):
        try:
            return scope.resolve(node)
        except Missing as exc:
            raise Failure(f"unresolvable read: {exc}") from None
    tag = node[0]
    if tag == "lit":
        return node[1]
    if tag == "present":
        try:
            return scope.resolve(node[1]) is not None
        except Missing:
            return False
    if tag == "json":
        return canonical_json(evaluate(node[1], scope))
    if tag in ("and", "or"):
        a, b = evaluate(node[1], scope), evaluate(node[2], scope)
        if not (isinstance(a, bool) and isinstance(b, bool)):
            raise Failure(f"{tag} of a non-boolean")
        return (a and b) if tag == "and" else (a or b)
    if tag == "not":
        a = evaluate(node[1], scope)
        if not isinstance(a, bool):
            raise Failure("not of a non-boolean")
        return not a
    if tag == "cmp":
        op, a, b = node[1], evaluate(node[2], scope), evaluate(node[3], scope)
        if op == "==":
            return equal(a, b)
        if op == "!=":
            return not equal(a, b)
        return order(op, a, b)
    raise OracleBug(f"node {tag}")


def evaluate_text(text: str, scope: Scope) -> Any:
    """The value of one expression string `${...}`."""
    if not (isinstance(text, str) and text.startswith("${") and text.endswith("}")):
        raise OracleBug(f"not an expression: {text!r}")
    return evaluate(parse(text[2:-1]), scope)
