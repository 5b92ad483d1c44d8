"""The structural check of a workflow document against the dialect's JSON Schema.

`check_structure(tree)` returns every schema error at its own JSON path, each
with the code it is reported under: WORKFLOW_SCHEMA, or WORKFLOW_EXPRESSION for
a string that should be (or must not look like) a `${...}` expression.

It runs the schema of `taskplan.workflow.schema` through the compiled subset of
`taskplan.workflow.fastschema`, with three hand-written checks in place of
`$ref`s that jsonschema would evaluate slowly or report vaguely:

- `#/$defs/step`: dispatch on `type` to that type's own closed object schema,
  so an error in a step is reported at the exact field, never as "does not
  match any of the step types";
- `#/$defs/value`: data trees, walked iteratively (no recursion limit);
- `#/$defs/expression`: a whole-string `${...}`.

tests/test_workflow_schema.py checks that validity agrees with jsonschema.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from taskplan.workflow import dialect as d
from taskplan.workflow.fastschema import (
    Check, Compiler, Errors, PredicateCompiler, SchemaError, json_type, suggest,
)
from taskplan.workflow.schema import schema

EXPRESSION_CODE = "WORKFLOW_EXPRESSION"

LABELS = {
    d.NAME_PATTERN: "a valid name (dot-separated segments of letters, digits, `_` and `-`)",
    d.STEP_ID_PATTERN: "a valid step ID (1-64 letters, digits, `_` or `-`; or a generated ID: `__`, then dot-separated segments)",
    d.DOCUMENT_NAME_PATTERN: "a valid document name (lower-case letters, digits and `-`, at most 63)",
    d.CHOICE_ID_PATTERN: "a valid choice ID (1-64 letters, digits, `_` or `-`)",
    d.TEMPLATE_VALUE_PATTERN: "a valid placeholder name (a letter or `_`, then letters, digits or `_`)",
    d.POINTER_PATTERN: "a JSON Pointer (empty, or `/` and `/`-separated tokens with `~0`, `~1` escapes)",
    d.DIGEST_PATTERN: "a digest (`sha256:` and 64 lower-case hex digits)",
    d.EXECUTOR_TYPE_PATTERN: "an executor type (dotted lower-case segments such as `mcp.call`)",
    d.NOT_DOLLAR_PATTERN: "allowed: names starting with `$` are reserved (write such data as `{$literal: ...}`)",
    d.PORT_NAME_PATTERN: "a port name: a request's keys are the operation's input ports, which never start with `$` (a request is never `{$literal: ...}`: escape each port's value instead)",
}


def _field(path: tuple) -> str:
    return f"`{path[-1]}`" if path and isinstance(path[-1], str) else "the value"


def _check_expression(value: Any, path: tuple, out: Errors) -> None:
    if type(value) is not str:
        out.append(SchemaError(path, f"{_field(path)} must be an expression string `${{...}}`, not {json_type(value)}"))
    elif not (len(value) >= 3 and value.startswith("${") and value.endswith("}")):
        out.append(
            SchemaError(
                path,
                f"{_field(path)} must be a whole expression `${{...}}`",
                code=EXPRESSION_CODE,
            )
        )


_NOT_WHOLE = (
    "text containing `${` must be a whole expression `${...}`; write literal text as `{$literal: \"...\"}`"
)
_RESERVED_KEY = f"keys starting with `$` are reserved; write a mapping with such keys as `{{{d.LITERAL}: {{...}}}}`"


def _check_string(text: str, path: tuple, out: Errors) -> None:
    if "${" in text and not (len(text) >= 3 and text.startswith("${") and text.endswith("}")):
        out.append(SchemaError(path, _NOT_WHOLE, code=EXPRESSION_CODE))


def _check_value(value: Any, path: tuple, out: Errors) -> None:
    """A data tree, iteratively: literal strings may not contain `${` (unless they are
    a whole expression), mapping keys may not start with `$` except `{$literal: X}`,
    whose X is not looked into. Paths are built only where needed."""
    t = type(value)
    if t is str:
        _check_string(value, path, out)
        return
    if t is not dict and t is not list:
        if not (value is None or t is bool or t is int or t is float):  # pragma: no cover - readers give plain data
            out.append(SchemaError(path, f"not a JSON value: {t.__name__}"))
        return
    stack: list[tuple[Any, tuple]] = [(value, path)]
    while stack:
        node, where = stack.pop()
        if type(node) is dict:
            if d.LITERAL in node:
                for key in node:
                    if key != d.LITERAL:
                        out.append(SchemaError(where + (key,), f"a `{d.LITERAL}` mapping has no other field than `{d.LITERAL}`", True))
                continue
            for key, member in node.items():
                if key.startswith("$"):
                    out.append(SchemaError(where + (key,), _RESERVED_KEY, True))
                    continue
                t = type(member)
                if t is str:
                    if "${" in member:
                        _check_string(member, where + (key,), out)
                elif t is dict or t is list:
                    stack.append((member, where + (key,)))
        else:
            for i, member in enumerate(node):
                t = type(member)
                if t is str:
                    if "${" in member:
                        _check_string(member, where + (i,), out)
                elif t is dict or t is list:
                    stack.append((member, where + (i,)))


class _Steps:
    """The `#/$defs/step` check: dispatch on `type`."""

    def __init__(self) -> None:
        self.by_kind: dict[str, Check] = {}

    def build(self, compiler: Compiler) -> None:
        """Compile each type's schema (after this check is registered as the override:
        switch cases hold steps themselves)."""
        for t in d.BUILTIN_TYPES:
            self.by_kind[t] = compiler.ref(f"#/$defs/step.{t}")
        self.by_kind[d.EXECUTOR] = compiler.ref("#/$defs/step.executor")

    def __call__(self, value: Any, path: tuple, out: Errors) -> None:
        if type(value) is not dict:
            out.append(SchemaError(path, f"a step must be a mapping, not {json_type(value)}"))
            return
        type_ = value.get("type")
        kind = d.step_kind(type_)
        if kind is not None:
            self.by_kind[kind](value, path, out)
            return
        if "id" not in value:
            out.append(SchemaError(path, "missing required field `id` in a step"))
        if "type" not in value:
            out.append(SchemaError(path, "missing required field `type` in a step"))
        elif type(type_) is not str:
            out.append(SchemaError(path + ("type",), f"`type` must be a string, not {json_type(type_)}"))
        else:
            message = f"unknown step type `{type_}`"
            close = suggest(type_, d.BUILTIN_TYPES)
            if close:
                message += f"; did you mean `{close}`?"
            elif not d.EXECUTOR_TYPE_RE.match(type_):
                message += "; a catalog executor type is dotted lower-case segments such as `mcp.call`"
            else:
                message += f"; `{type_.split('.')[0]}.` is reserved for built-in step types"
            out.append(SchemaError(path + ("type",), message))


# --- validity only (the fast path): each predicate says exactly whether the check
# above it would report nothing -----------------------------------------------------------

def _expression_ok(value: Any) -> bool:
    return type(value) is str and len(value) >= 3 and value.startswith("${") and value.endswith("}")


def _data_tree_ok(push: Any, whole: bool = True) -> Any:
    """The predicate that `_check_value` reports nothing, calling `push` with each
    expression of the data tree it accepts (in no particular order): the validate pass's
    accept path collects them this way, so that it checks a data tree's expressions without
    a second walk; `_value_ok` ignores them. `whole=False`: a string that holds `${` is
    pushed whether or not it is a whole `${...}` (at least 3 characters): the reader of
    what is pushed checks that, and the predicate holds exactly when `_check_value` reports
    nothing or something is pushed that is not whole."""
    literal = d.LITERAL

    def value_ok(value: Any) -> bool:
        t = type(value)
        if t is str:
            if "${" not in value:
                return True
            if whole and not (len(value) >= 3 and value[0] == "$" and value[1] == "{" and value[-1] == "}"):
                return False
            if value == "${":
                return False
            push(value)
            return True
        if t is not dict and t is not list:
            return value is None or t is bool or t is int or t is float
        # `node` is the container being read, `t` its type; nested containers wait on a
        # stack made only when there is one (most data trees here are one flat mapping)
        node = value
        stack: list[Any] | None = None
        while True:
            if t is dict:
                if literal in node:
                    if len(node) != 1:
                        return False
                    members: Any = ()  # X of `{$literal: X}` is not looked into
                else:
                    for key in node:
                        if type(key) is not str or (key and key[0] == "$"):
                            return False
                    members = node.values()
            else:
                members = node
            for member in members:
                t = type(member)
                if t is str:
                    if "${" in member:
                        if whole and not (len(member) >= 3 and member[0] == "$" and member[1] == "{" and member[-1] == "}"):
                            return False
                        if member == "${":
                            return False
                        push(member)
                elif t is dict or t is list:
                    if stack is None:
                        stack = [member]
                    else:
                        stack.append(member)
            if not stack:
                return True
            node = stack.pop()
            t = type(node)

    return value_ok


def _ignore(expression: str) -> None:
    pass


_value_ok = _data_tree_ok(_ignore)
"""`_check_value` reports nothing."""


# Patterns checked without a regex call where the regex costs more: each expression holds
# exactly when the pattern matches (tests/test_validate_fast_paths.py). POINTER_PATTERN has one
# alternation per character (~10x a plain regex): without `~`, it is "empty or `/` first".
# "Not `$` first" is "before `$` or from `%` on" (`$` < `%` are neighbours; the empty string
# comes first): one comparison for a key that starts with a letter, no character taken out.
_NO_DOLLAR_FIRST = '({v} >= "%" or {v} < "$")'
_PATTERN_TESTS = {
    d.POINTER_PATTERN: '("~" not in {v} and (not {v} or {v}[0] == "/")) or {search}({v}) is not None',
    d.NOT_DOLLAR_PATTERN: _NO_DOLLAR_FIRST,
    d.PORT_NAME_PATTERN: _NO_DOLLAR_FIRST,
}


def _steps_ok(by_kind: dict[str, Any], builtin: dict[str, Any]) -> Any:
    """The predicate that `_Steps` reports nothing: a mapping of a known type, valid against
    its type's schema (`by_kind`, filled once compiled; `builtin`: the same without
    EXECUTOR, a built-in type string being its own kind). A closure: a call to it costs
    less than to an instance."""

    def step_ok(value: Any) -> bool:
        if type(value) is not dict:
            return False
        type_ = value.get("type")
        valid = builtin.get(type_) if type(type_) is str else None
        if valid is None:
            kind = d.step_kind(type_)
            if kind is None:
                return False
            valid = by_kind[kind]
        return valid(value)

    return step_ok


# The overrides' common cases tested in place (each exactly its predicate): a data tree's
# member is most often a string without `${`; an expression is one test in all.
_INLINE_TESTS = {
    "#/$defs/value": '(type({v}) is str and "${{" not in {v}) or {fn}({v})',
    "#/$defs/expression": 'type({v}) is str and len({v}) >= 3 and {v}.startswith("${{") and {v}.endswith("}}")',
}


@lru_cache(maxsize=1)
def _valid() -> Any:
    by_kind: dict[str, Any] = {}
    builtin: dict[str, Any] = {}
    overrides = {"#/$defs/value": _value_ok, "#/$defs/expression": _expression_ok, "#/$defs/step": _steps_ok(by_kind, builtin)}
    compiler = PredicateCompiler(schema(), overrides, _PATTERN_TESTS, _INLINE_TESTS)
    kinds = list(d.BUILTIN_TYPES) + [d.EXECUTOR]
    root, *predicates = compiler.refs("#", *(f"#/$defs/step.{t}" for t in d.BUILTIN_TYPES), "#/$defs/step.executor")
    by_kind.update(zip(kinds, predicates))
    builtin.update((t, by_kind[t]) for t in d.BUILTIN_TYPES)
    return root


@lru_cache(maxsize=1)
def _root() -> Check:
    overrides: dict[str, Check] = {
        "#/$defs/value": _check_value,
        "#/$defs/expression": _check_expression,
    }
    compiler = Compiler(schema(), overrides, LABELS)
    steps = _Steps()
    compiler.overrides["#/$defs/step"] = steps
    steps.build(compiler)
    return compiler.ref("#")


def check_structure(tree: Any) -> list[SchemaError]:
    """Every structural error of a workflow document tree, in document order."""
    if _valid()(tree):  # the common case, ~6x faster; the checks find and word the errors
        return []
    out: Errors = []
    _root()(tree, (), out)
    return out


# --- the validate pass's accept path: the same predicates, one step at a time ---------------

def _remembering(valid: Any) -> Any:
    """`valid` (a predicate of strings), remembering the strings it accepted (`.known`, up to
    4,096 a predicate, forgotten when the next document starts: `PendingNames.start`): a
    document repeats a few executor types thousands of times, and its placeholder names
    several times, each a regex call. (Names: `PendingNames`.)"""
    known: set[str] = set()

    def remembering(value: Any) -> bool:
        if not valid(value):
            return False
        if len(known) < 4096:
            known.add(value)
        return True

    remembering.known = known  # type: ignore[attr-defined]
    return remembering


_REMEMBERED = ("#/$defs/executor_type", "#/$defs/template_value_name")
"""The string definitions whose values a document repeats (`_remembering`; names: `PendingNames`)."""


# The accept path's inline tests: as `_INLINE_TESTS`, but what would be an expression is
# pushed (`_push(...) is None`: `list.append` gives None) onto the list the validate pass
# reads, in place, with no call of the overriding predicate for a string or an integer: a
# string of a data tree that holds `${`, an expression field's string; each of at least 3
# characters (`"${"` is the one shorter string that holds `${`). Whether each is a whole
# `${...}` is left to the reader, whose regex of a plain path matches the `${` and `}`
# anyway (three characters taken out of each string, and compared, cost ~3 % of the pass).
_PUSHING_TESTS = {
    "#/$defs/value": '("${{" not in {v} or ({v} != "${{" and _push({v}) is None)) '
                     'if type({v}) is str else (type({v}) is int or {fn}({v}))',
    "#/$defs/expression": 'type({v}) is str and len({v}) >= 3 and _push({v}) is None',
}


def is_whole(text: str) -> bool:
    """Whether a string pushed by `step_predicates` (at least 3 characters) is a whole `${...}`."""
    return text[0] == "$" and text[1] == "{" and text[-1] == "}"


# The step ID pattern as the accept path checks it: once for all the IDs of a document,
# joined by newlines (which no valid ID holds), instead of a regex call per step (the call
# cost more than the match). The generated-ID branch first: what it takes of a line is
# the whole line whenever the business-ID branch could take it all (a line of letters,
# digits, `_`, `-` that starts with `__`), so that neither needs a test that the line ends
# there (a lookahead and an atomic group cost 60 % more); every repeat is possessive
# (`++`, `*+`, `{1,64}+`: never retried), so a later ID's failure does not try earlier
# ones again. The schema's maxLength bounds only a generated ID (a business ID has at
# most 64 characters): a lookahead after its `__` (the step predicates do not measure the
# IDs either: `step_predicates`). tests/test_validate_accept.py holds it to STEP_ID_PATTERN
# and the length.
_ID = (rf"(?:__(?=[^\n]{{0,{d.MAX_NAME_LENGTH - 2}}}+(?![^\n]))[A-Za-z0-9_-]++(?:\.[A-Za-z0-9_-]++)*+"
       r"|[A-Za-z0-9_-]{1,64}+)")
_STEP_IDS = re.compile(rf"{_ID}(?:\n{_ID})*+")


def step_ids_ok(ids: Iterable[str], count: int) -> bool:
    """Whether each of the `count` strings `ids` matches STEP_ID_PATTERN and is at most
    MAX_NAME_LENGTH long (the schema's `step_id`; one with a newline does not match: then
    the joined text has more newlines than separators)."""
    if not count:
        return True
    text = "\n".join(ids)
    return text.count("\n") == count - 1 and _STEP_IDS.fullmatch(text) is not None


_NAME = r"[A-Za-z0-9_-]++(?:\.[A-Za-z0-9_-]++)*+"  # NAME_PATTERN, possessive (a part ends where no other begins)
_NAMES = re.compile(rf"{_NAME}(?:\n{_NAME})*+")


class PendingNames:
    """The names (`#/$defs/name`: a workflow's, an input's, an output's, a call's target and
    input keys) that the accept path's predicates took, strings not yet checked further
    (`pending`, each once: a document repeats its names): `ok` checks them all at once
    (their length and pattern), with one regex call over them joined, as `step_ids_ok` the
    step IDs. (A call of a predicate per name cost more than the regex.) Each document
    starts with `start`, which forgets every string remembered for the one before
    (`_remembering`'s; and pending names): a document is checked on its own, so that
    checking it costs the same whatever was checked before in the process."""

    __slots__ = ("pending", "remembered")

    def __init__(self) -> None:
        self.pending: set[str] = set()
        self.remembered: list[set[str]] = []
        """The `_remembering` predicates' sets."""

    def start(self) -> None:
        """A new document: nothing remembered from an earlier one."""
        self.pending.clear()
        for known in self.remembered:
            known.clear()

    def take(self, name: str) -> None:
        self.pending.add(name)

    def ok(self) -> bool:
        """Whether each pending name matches `#/$defs/name` (then none is pending)."""
        pending = self.pending
        if not pending:
            return True
        text = "\n".join(pending)
        ok = (text.count("\n") == len(pending) - 1 and max(map(len, pending)) <= d.MAX_NAME_LENGTH
              and _NAMES.fullmatch(text) is not None)
        pending.clear()
        return ok

    def reset(self) -> None:
        """Forget the pending names."""
        self.pending.clear()


@lru_cache(maxsize=1)
def step_predicates() -> tuple[Any, dict[str, Any], list[str], PendingNames]:
    """For the validate pass's accept path, which walks the steps itself (one walk for the
    schema, the references and the expressions): (the document predicate with every item
    of a `steps` list taken as valid; each step kind's predicate (built-in types and
    EXECUTOR), whose `steps` lists likewise; the list those predicates append every
    expression of the step to: its data trees' strings that hold `${` and its expression
    fields' strings (`when`, `items`, `prompt`, `from`, `value`, a case's `when`), in no
    particular order, each of at least 3 characters and not yet known to be a whole
    `${...}`; the names those predicates took, strings not yet checked further: `ok`).
    The document predicate holds, every step of every `steps` list (a workflow's `steps`
    and `finally`, a switch case's and default's `steps`) is a mapping whose kind's
    predicate holds, each string pushed `is_whole`, `step_ids_ok` of their IDs (which the
    step predicates do not match against the pattern) and the names' `ok`, exactly when
    `check_structure` finds nothing (tests/test_validate_accept.py)."""
    found: list[str] = []
    overrides = {
        "#/$defs/value": _data_tree_ok(found.append, whole=False),
        "#/$defs/expression": _expression_ok,
        "#/$defs/step": lambda value: True,
    }
    inline = dict(_PUSHING_TESTS)
    inline["#/$defs/step"] = "True"
    constants: dict[str, Any] = {"_push": found.append}
    plain = PredicateCompiler(schema(), patterns=_PATTERN_TESTS).refs(*_REMEMBERED)
    for ref, valid in zip(_REMEMBERED, plain):
        overrides[ref] = remembering = _remembering(valid)
        known = "_known_" + ref.rsplit("/", 1)[1]  # the set itself, not an attribute read each time
        constants[known] = remembering.known
        inline[ref] = f"(type({{v}}) is str and {{v}} in {known}) or {{fn}}({{v}})"
    names = PendingNames()
    names.remembered.extend(overrides[ref].known for ref in _REMEMBERED)
    name_schema = schema()["$defs"]["name"]
    assert set(name_schema) - {"description"} == {"type", "pattern", "maxLength"}, name_schema  # what `names.ok` checks
    assert (name_schema["type"], name_schema["pattern"], name_schema["maxLength"]) == ("string", d.NAME_PATTERN, d.MAX_NAME_LENGTH)
    take = names.take

    def pending_name(value: Any) -> bool:  # a string: its length and pattern are `names.ok`'s
        return type(value) is str and take(value) is None

    overrides["#/$defs/name"] = pending_name
    constants["_take_name"] = names.pending.add
    inline["#/$defs/name"] = "type({v}) is str and _take_name({v}) is None"
    patterns = dict(_PATTERN_TESTS)
    patterns[d.STEP_ID_PATTERN] = "True"  # `step_ids_ok` (pattern and length), once all IDs are known
    step_id = schema()["$defs"]["step_id"]
    assert set(step_id) - {"description"} == {"type", "maxLength", "pattern"}, step_id  # what it checks
    assert (step_id["maxLength"], step_id["pattern"]) == (d.MAX_NAME_LENGTH, d.STEP_ID_PATTERN), step_id
    compiler = PredicateCompiler(schema(), overrides, patterns, inline, constants)
    kinds = list(d.BUILTIN_TYPES) + [d.EXECUTOR]
    root, *predicates = compiler.refs("#", *(f"#/$defs/step.{t}" for t in d.BUILTIN_TYPES), "#/$defs/step.executor")
    return root, dict(zip(kinds, predicates)), found, names
