"""A fast check of a schema against the draft-07 and 2020-12 meta-schemas.

jsonschema validates a schema against its meta-schema in milliseconds per schema
(tens of milliseconds for 2020-12, whose meta-schema resolves `$dynamicRef`s):
seconds for a 500-operation catalog. This walks the schema once, iteratively,
checking each keyword's value the way the meta-schema does (types, non-negative
integers, non-empty schema arrays, unique string arrays, anchors), and reports
each problem at the keyword (or the list item, or the map member) that is wrong.

It agrees with jsonschema's meta-validation (tests/test_catalog_metaschema.py
checks it on random schemas): the same schemas are valid, and every problem lies
at or below a place jsonschema reports (more precise where jsonschema reports an
`anyOf` failure at the enclosing keyword, e.g. draft-07 `items`). Formats
(`uri`, `regex`) are not asserted, as jsonschema does not by default.
Other drafts (04, 06, 2019-09) are checked by jsonschema itself.
"""

from __future__ import annotations

import json
import re
from typing import Any

from taskplan.source import pointer as jp

DRAFT7 = "draft7"
DRAFT2020 = "2020-12"

SIMPLE_TYPES = frozenset(("array", "boolean", "integer", "null", "number", "object", "string"))
_ANCHOR = re.compile(r"^[A-Za-z_][-A-Za-z0-9._]*$")
_ID_2020 = re.compile(r"^[^#]*#?$")

# keyword kinds
STRING, BOOLEAN, NUMBER, POSITIVE, NONNEG, ARRAY, ANYTHING = "string", "boolean", "number", "positive", "nonneg", "array", "any"
SCHEMA, SCHEMA_ARRAY, SCHEMA_MAP, STRING_ARRAY, TYPE, ITEMS7, DEPENDENCIES = (
    "schema", "schema_array", "schema_map", "string_array", "type", "items7", "dependencies",
)
ANCHOR, ID2020, BOOL_MAP, STRING_ARRAY_MAP = "anchor", "id2020", "bool_map", "string_array_map"

_COMMON: dict[str, str] = {
    "$schema": STRING,
    "$ref": STRING,
    "$comment": STRING,
    "title": STRING,
    "description": STRING,
    "default": ANYTHING,
    "readOnly": BOOLEAN,
    "examples": ARRAY,
    "multipleOf": POSITIVE,
    "maximum": NUMBER,
    "exclusiveMaximum": NUMBER,
    "minimum": NUMBER,
    "exclusiveMinimum": NUMBER,
    "maxLength": NONNEG,
    "minLength": NONNEG,
    "pattern": STRING,
    "maxItems": NONNEG,
    "minItems": NONNEG,
    "uniqueItems": BOOLEAN,
    "contains": SCHEMA,
    "maxProperties": NONNEG,
    "minProperties": NONNEG,
    "required": STRING_ARRAY,
    "additionalProperties": SCHEMA,
    "definitions": SCHEMA_MAP,
    "properties": SCHEMA_MAP,
    "patternProperties": SCHEMA_MAP,
    "dependencies": DEPENDENCIES,
    "propertyNames": SCHEMA,
    "const": ANYTHING,
    "enum": ARRAY,
    "type": TYPE,
    "format": STRING,
    "contentMediaType": STRING,
    "contentEncoding": STRING,
    "if": SCHEMA,
    "then": SCHEMA,
    "else": SCHEMA,
    "allOf": SCHEMA_ARRAY,
    "anyOf": SCHEMA_ARRAY,
    "oneOf": SCHEMA_ARRAY,
    "not": SCHEMA,
}

KEYWORDS: dict[str, dict[str, str]] = {
    DRAFT7: {**_COMMON, "$id": STRING, "additionalItems": SCHEMA, "items": ITEMS7},
    DRAFT2020: {
        **_COMMON,
        "$id": ID2020,
        "$anchor": ANCHOR,
        "$dynamicRef": STRING,
        "$dynamicAnchor": ANCHOR,
        "$vocabulary": BOOL_MAP,
        "$defs": SCHEMA_MAP,
        "$recursiveAnchor": ANCHOR,
        "$recursiveRef": STRING,
        "prefixItems": SCHEMA_ARRAY,
        "items": SCHEMA,
        "dependentSchemas": SCHEMA_MAP,
        "unevaluatedItems": SCHEMA,
        "unevaluatedProperties": SCHEMA,
        "maxContains": NONNEG,
        "minContains": NONNEG,
        "dependentRequired": STRING_ARRAY_MAP,
        "deprecated": BOOLEAN,
        "writeOnly": BOOLEAN,
        "contentSchema": SCHEMA,
    },
}

MAX_PROBLEMS = 100


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _is_integer(v: Any) -> bool:
    return (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer())


def _show(v: Any) -> str:
    text = json.dumps(v, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def _what(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, (int, float)):
        return "a number"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, list):
        return "an array"
    return "an object"


def _canonical(v: Any) -> str:
    def norm(x: Any) -> Any:
        if isinstance(x, float) and x.is_integer():
            return int(x)
        if isinstance(x, list):
            return [norm(i) for i in x]
        if isinstance(x, dict):
            return {k: norm(i) for k, i in x.items()}
        return x

    return json.dumps(norm(v), sort_keys=True, ensure_ascii=False, default=str)


def _unique(values: list[Any]) -> bool:
    seen: set[str] = set()
    for v in values:
        key = _canonical(v)
        if key in seen:
            return False
        seen.add(key)
    return True


def meta_problems(schema: Any, dialect: str) -> list[tuple[str, str]]:
    """(pointer relative to the schema, message) for each meta-schema problem of
    `schema` under `dialect` (DRAFT7 or DRAFT2020), in document order."""
    return scan(schema, dialect).problems


class Scan:
    """What one walk of a schema found: meta-schema problems, every `$ref` (pointer of
    the `$ref` member, its value) and the deepest subschema nesting (and where)."""

    __slots__ = ("problems", "refs", "depth", "deepest")

    def __init__(self) -> None:
        self.problems: list[tuple[str, str]] = []
        self.refs: list[tuple[str, str]] = []
        self.depth = 0
        self.deepest = ""


def scan(schema: Any, dialect: str, max_depth: int | None = None) -> Scan:
    """Walk `schema` once (iteratively): meta-schema problems under `dialect`, its
    `$ref`s, and its nesting depth. With `max_depth`, the walk stops below that depth
    (the caller reports the schema as too deep; `deepest` says where)."""
    table = KEYWORDS[dialect]
    result = Scan()
    problems = result.problems
    # (node, pointer, depth, checked): subschemas the meta-schema does not reach (draft-07
    # `$defs`) are walked for references and depth only
    stack: list[tuple[Any, str, int, bool]] = [(schema, "", 0, True)]

    def bad(pointer: str, message: str) -> None:
        problems.append((pointer, message))

    while stack and len(problems) < MAX_PROBLEMS:
        node, ptr, depth, checked = stack.pop()
        if depth > result.depth:
            result.depth, result.deepest = depth, ptr
            if max_depth is not None and depth > max_depth:
                break
        if isinstance(node, bool):
            continue
        if not isinstance(node, dict):
            if checked:
                bad(ptr, f"a schema must be an object or a boolean, not {_show(node)}")
            continue
        children: list[tuple[Any, str]] = []
        ref = node.get("$ref")
        if isinstance(ref, str):
            result.refs.append((jp.join(ptr, "$ref"), ref))
        if dialect == DRAFT7:  # `$defs` is no draft-07 keyword, but `$ref`s may point into it
            defs = node.get("$defs")
            if isinstance(defs, dict):
                lenient = [(sub, jp.join(ptr, "$defs", name)) for name, sub in defs.items() if isinstance(sub, dict)]
                stack.extend((sub, p, depth + 1, False) for sub, p in reversed(lenient))
        for key, value in node.items():
            kind = table.get(key)
            if kind is None or kind == ANYTHING:
                continue
            if not checked:
                kind = _LENIENT.get(kind)
                if kind is None:
                    continue
            kp = jp.join(ptr, key)
            if kind.startswith("lenient_"):
                if isinstance(value, dict) and kind in ("lenient_schema", "lenient_schema_array_or_schema"):
                    children.append((value, kp))
                elif isinstance(value, list) and kind in ("lenient_schema_array", "lenient_schema_array_or_schema"):
                    children.extend((v, jp.join(kp, i)) for i, v in enumerate(value) if isinstance(v, dict))
                elif isinstance(value, dict) and kind == "lenient_schema_map":
                    children.extend((v, jp.join(kp, n)) for n, v in value.items() if isinstance(v, dict))
                continue
            if kind == STRING:
                if not isinstance(value, str):
                    bad(kp, f"`{key}` must be a string, not {_show(value)}")
            elif kind == BOOLEAN:
                if not isinstance(value, bool):
                    bad(kp, f"`{key}` must be a boolean, not {_show(value)}")
            elif kind == NUMBER:
                if not _is_number(value):
                    bad(kp, f"`{key}` must be a number, not {_show(value)}")
            elif kind == POSITIVE:
                if not _is_number(value) or value <= 0:
                    bad(kp, f"`{key}` must be a number greater than 0, not {_show(value)}")
            elif kind == NONNEG:
                if not _is_integer(value) or value < 0:
                    bad(kp, f"`{key}` must be a non-negative integer, not {_show(value)}")
            elif kind == ARRAY:
                if not isinstance(value, list):
                    bad(kp, f"`{key}` must be an array, not {_show(value)}")
            elif kind == ANCHOR:
                if not isinstance(value, str):
                    bad(kp, f"`{key}` must be a string, not {_show(value)}")
                elif not _ANCHOR.match(value):
                    bad(kp, f"`{key}` {_show(value)} is not a valid anchor name (a letter or _, then letters, digits, -, . or _)")
            elif kind == ID2020:
                if not isinstance(value, str):
                    bad(kp, f"`{key}` must be a string, not {_show(value)}")
                elif not _ID_2020.match(value):
                    bad(kp, f"`{key}` {_show(value)} must not have a fragment (use `$anchor`)")
            elif kind == BOOL_MAP:
                if not isinstance(value, dict):
                    bad(kp, f"`{key}` must be an object, not {_show(value)}")
                else:
                    for name, flag in value.items():
                        if not isinstance(flag, bool):
                            bad(jp.join(kp, name), f"`{key}` values must be booleans, not {_show(flag)}")
            elif kind == TYPE:
                if isinstance(value, str):
                    if value not in SIMPLE_TYPES:
                        bad(kp, f"`type` {_show(value)} is not a JSON Schema type (array, boolean, integer, null, number, object, string, or a list of them)")
                elif isinstance(value, list):
                    if not value or not all(isinstance(v, str) and v in SIMPLE_TYPES for v in value) or not _unique(value):
                        bad(kp, f"`type` {_show(value)} must be a JSON Schema type or a non-empty list of distinct ones")
                else:
                    bad(kp, f"`type` {_show(value)} is not a JSON Schema type (array, boolean, integer, null, number, object, string, or a list of them)")
            elif kind == STRING_ARRAY:
                _string_array(key, value, kp, bad, item_errors=True)
            elif kind == STRING_ARRAY_MAP:
                if not isinstance(value, dict):
                    bad(kp, f"`{key}` must be an object, not {_show(value)}")
                else:
                    for name, names in value.items():
                        _string_array(key, names, jp.join(kp, name), bad, item_errors=True)
            elif kind == SCHEMA:
                if isinstance(value, (dict, bool)):
                    children.append((value, kp))
                else:
                    bad(kp, f"`{key}` must be a schema (an object or a boolean), not {_show(value)}")
            elif kind == SCHEMA_ARRAY:
                if not isinstance(value, list):
                    bad(kp, f"`{key}` must be a non-empty array of schemas, not {_show(value)}")
                elif not value:
                    bad(kp, f"`{key}` must not be empty")
                else:
                    for i, sub in enumerate(value):
                        if isinstance(sub, (dict, bool)):
                            children.append((sub, jp.join(kp, i)))
                        else:
                            bad(jp.join(kp, i), f"each of `{key}` must be a schema (an object or a boolean), not {_show(sub)}")
            elif kind == SCHEMA_MAP:
                if not isinstance(value, dict):
                    bad(kp, f"`{key}` must be an object whose values are schemas, not {_show(value)}")
                else:
                    for name, sub in value.items():
                        if isinstance(sub, (dict, bool)):
                            children.append((sub, jp.join(kp, name)))
                        else:
                            bad(jp.join(kp, name), f"`{key}` values must be schemas (objects or booleans), not {_show(sub)}")
            elif kind == ITEMS7:
                if isinstance(value, (dict, bool)):
                    children.append((value, kp))
                elif isinstance(value, list) and value:
                    for i, sub in enumerate(value):
                        if isinstance(sub, (dict, bool)):
                            children.append((sub, jp.join(kp, i)))
                        else:
                            bad(jp.join(kp, i), f"each of `items` must be a schema (an object or a boolean), not {_show(sub)}")
                else:
                    bad(kp, f"`items` must be a schema or a non-empty array of schemas, not {_show(value)}")
            elif kind == DEPENDENCIES:
                if not isinstance(value, dict):
                    bad(kp, f"`{key}` must be an object, not {_show(value)}")
                else:
                    for name, dep in value.items():
                        dp = jp.join(kp, name)
                        if isinstance(dep, (dict, bool)):
                            children.append((dep, dp))
                        elif isinstance(dep, list):
                            _string_array(key, dep, dp, bad, item_errors=False)
                        else:
                            bad(dp, f"`{key}` values must be schemas or arrays of property names, not {_show(dep)}")
        below = depth + 1
        stack.extend((child, p, below, checked) for child, p in reversed(children))
    return result


# Below an unchecked node, only keywords holding subschemas are followed (and never reported).
_LENIENT = {
    "schema": "lenient_schema",
    "schema_array": "lenient_schema_array",
    "schema_map": "lenient_schema_map",
    "items7": "lenient_schema_array_or_schema",
    "dependencies": "lenient_schema_map",
}


def _string_array(key: str, value: Any, pointer: str, bad: Any, *, item_errors: bool) -> None:
    """An array of distinct strings; item problems at the item when `item_errors`
    (else at the array: where jsonschema reports an `anyOf` failure)."""
    if not isinstance(value, list):
        bad(pointer, f"`{key}` must be an array of property names, not {_show(value)}")
        return
    if not _unique(value):
        bad(pointer, f"`{key}` must not list a name twice")
        return
    for i, item in enumerate(value):
        if not isinstance(item, str):
            if item_errors:
                bad(jp.join(pointer, i), f"`{key}` must list property names (strings), not {_show(item)}")
            else:
                bad(pointer, f"`{key}` must list property names (strings), not {_show(item)}")
                return
