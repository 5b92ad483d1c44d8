"""The workflow dialect, version 1: names, patterns, step types, result fields,
and the literal-escaping rule (docs/workflow-dialect.md is the reference).

Everything here is plain data or a pure function, shared by the schema, the
validate pass, the emitter and the lowering pass.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any

VERSION = 1

# --- names ---------------------------------------------------------------------------------

SEGMENT = r"[A-Za-z0-9_-]+"
BUSINESS_ID = r"[A-Za-z0-9_-]{1,64}"
GENERATED_ID = rf"__{SEGMENT}(?:\.{SEGMENT})*"
"""Generated step IDs: the reserved `__` prefix, then dot-separated segments
(`__review_each.collect.summary`, `__review_each.collect.summary-h3f9a2c`)."""

STEP_ID_PATTERN = rf"^(?:{BUSINESS_ID}|{GENERATED_ID})$"
NAME_PATTERN = rf"^{SEGMENT}(?:\.{SEGMENT})*$"
"""Workflow, input and output names: dot-separated segments (`review_each.body`)."""
DOCUMENT_NAME_PATTERN = r"^[a-z0-9][a-z0-9-]{0,62}$"
CHOICE_ID_PATTERN = rf"^{BUSINESS_ID}$"
TEMPLATE_VALUE_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]*$"
POINTER_PATTERN = r"^(?:/(?:[^~/]|~[01])*)*$"
DIGEST_PATTERN = r"^sha256:[0-9a-f]{64}$"
EXECUTOR_TYPE_PATTERN = r"^[a-z][a-z0-9_]*(?:\.[a-z0-9_]+)+$"
NOT_DOLLAR_PATTERN = r"^(?!\$)"
PORT_NAME_PATTERN = r"^(?![$])"
"""A key of a request envelope: an operation's input port, never starting with `$` (the
catalog refuses such a port: CATALOG_NAME_RESERVED). The same language as
NOT_DOLLAR_PATTERN, written apart so that a message can say what the key is."""
EXPRESSION_PATTERN = r"^\$\{[\s\S]*\}$"
VALUE_STRING_PATTERN = r"^(?:\$\{[\s\S]*\}|(?![\s\S]*\$\{)[\s\S]*)$"
"""A string in a data tree is a whole `${...}` expression or contains no `${` at all."""
MAX_NAME_LENGTH = 255

STEP_ID_RE = re.compile(STEP_ID_PATTERN)
NAME_RE = re.compile(NAME_PATTERN)
EXECUTOR_TYPE_RE = re.compile(EXECUTOR_TYPE_PATTERN)
TEMPLATE_PLACEHOLDER_RE = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
"""`{{ name }}` in a `template.render` template names a key of its `values`."""

# --- step types ----------------------------------------------------------------------------

BUILTIN_TYPES: tuple[str, ...] = (
    "set",
    "switch",
    "parallel",
    "loop.parallel",
    "loop.sequential",
    "workflow.call",
    "template.render",
    "llm.call",
    "value.project",
    "array.project",
    "value.validate",
)
RESERVED_NAMESPACES: tuple[str, ...] = (
    "set", "switch", "parallel", "loop", "workflow", "template", "llm", "value", "array",
)
"""A catalog executor type may not start with one of these followed by `.`:
a typo such as `value.projct` is an unknown type, not an executor."""
RESERVED_TYPE_PATTERN = r"^(?:" + "|".join(RESERVED_NAMESPACES) + r")\."
RESERVED_TYPE_RE = re.compile(RESERVED_TYPE_PATTERN)
EXECUTOR = "executor"
"""The key of catalog executor steps (`mcp.call`, `operation.call`, ...) in tables below."""

EFFECTS = ("read", "write", "destroy")

RESULT_FIELDS: dict[str, tuple[str, ...]] = {
    "set": ("value",),
    "switch": ("case", "outputs"),
    "parallel": ("branches",),
    "loop.parallel": ("results",),
    "loop.sequential": ("results",),
    "workflow.call": ("outputs",),
    "template.render": ("text",),
    "llm.call": ("text", "json"),
    "value.project": ("value",),
    "array.project": ("value",),
    "value.validate": ("value",),
    EXECUTOR: ("result",),
}
"""What `data.steps.<id>.<field>` may read, by step type (the first segment after the ID)."""

CALL_TYPES = ("workflow.call", "loop.parallel", "loop.sequential")
LOOP_TYPES = ("loop.parallel", "loop.sequential")


def step_kind(type_: object) -> str | None:
    """The key of a step type in the tables above: the type itself for built-ins,
    EXECUTOR for a catalog executor type, None for anything else."""
    if not isinstance(type_, str):
        return None
    return _string_kind(type_)


@lru_cache(maxsize=4096)
def _string_kind(type_: str) -> str | None:
    # cached: a document repeats a few type strings thousands of times (two regexes each)
    if type_ in RESULT_FIELDS and type_ != EXECUTOR:
        return type_
    if EXECUTOR_TYPE_RE.match(type_) and not RESERVED_TYPE_RE.match(type_):
        return EXECUTOR
    return None


# --- literal escaping ----------------------------------------------------------------------

LITERAL = "$literal"
"""`{$literal: X}`: X is data, taken as written, never evaluated (any JSON)."""

RESERVED_KEY_PREFIX = "$"
"""Keys of workflow data that start with it are reserved (a mapping holding one is
written as `{$literal: {...}}` as a whole): NOT_DOLLAR_PATTERN."""

REQUEST = "request"
"""The field of a call step's `input` that holds the request envelope, beside the
executor's configuration fields."""


def expression_string(text: str) -> str:
    """`text` as a string literal inside an expression body (JSON syntax), with `${`
    written `$\\u007b`: the same string to the expression parser, and no `${` in the
    workflow text outside a `$literal`, so a runtime that interpolates `${` inside text
    meets none in the compiler's output (docs/decisions.md, Literal escaping)."""
    out = json.dumps(text, ensure_ascii=False)
    return out.replace("${", "$\\u007b") if "${" in out else out


def needs_escape(text: str) -> bool:
    return "${" in text


def escape_literal(value: Any) -> Any:
    """A literal data tree (from the TaskPlan: strings are text, never expressions)
    in the form a workflow data tree must have so that nothing in it is evaluated:

    - a string containing `${` anywhere becomes `{$literal: "..."}`;
    - a mapping with a key starting with `$` becomes `{$literal: {...}}` as a whole;
    - everything else is kept, lists and mappings recursively.
    """
    if isinstance(value, str):
        return {LITERAL: value} if "${" in value else value
    if isinstance(value, dict):
        if any(isinstance(k, str) and k.startswith("$") for k in value):
            return {LITERAL: value}
        return {k: escape_literal(v) for k, v in value.items()}
    if isinstance(value, list):
        return [escape_literal(v) for v in value]
    return value


def unescape_literal(value: Any) -> Any:
    """The inverse of `escape_literal` on a data tree without expressions."""
    if isinstance(value, dict):
        if len(value) == 1 and LITERAL in value:
            return value[LITERAL]
        return {k: unescape_literal(v) for k, v in value.items()}
    if isinstance(value, list):
        return [unescape_literal(v) for v in value]
    return value


def json_type(value: object) -> str:
    """The JSON type name of a plain-data value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__
