"""Checking embedded JSON Schemas (catalog.md): each `input`/`output` must be valid
JSON Schema of its declared draft (`$schema`: draft-07 and 2020-12 occur in the
wild; 2019-09, draft-06 and draft-04 are accepted too; without `$schema`,
2020-12), its `$ref`s local and resolvable, and an input an object schema.

jsonschema is imported lazily (the CLI's import time stays low); meta-schema
validators are built once per draft, and the verdict on a schema is cached by
its canonical JSON text (real catalogs repeat the same small schemas).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from taskplan.source import pointer as jp


@dataclass(frozen=True, slots=True)
class SchemaProblem:
    """One reason a schema is invalid, at `pointer` relative to the schema."""

    pointer: str
    message: str
    hint: str | None = None


_DRAFTS: dict[str, Any] | None = None
_META: dict[Any, Any] = {}
_VERDICTS: dict[str, tuple[SchemaProblem, ...]] = {}
_VERDICT_CACHE_LIMIT = 20_000
_MAX_ERRORS = 100
"""Meta-schema errors looked at per schema (a schema broken everywhere gets the first ones)."""


def _normalise_uri(uri: str) -> str:
    uri = uri.strip().lower()
    for prefix in ("https://", "http://"):
        if uri.startswith(prefix):
            uri = uri[len(prefix):]
    return uri.rstrip("#").rstrip("/")


def _drafts() -> dict[str, Any]:
    global _DRAFTS
    if _DRAFTS is None:
        import jsonschema

        table: dict[str, Any] = {}
        for cls in (
            jsonschema.Draft4Validator,
            jsonschema.Draft6Validator,
            jsonschema.Draft7Validator,
            jsonschema.Draft201909Validator,
            jsonschema.Draft202012Validator,
        ):
            meta = cls.META_SCHEMA
            uri = meta.get("$id") or meta.get("id")
            table[_normalise_uri(uri)] = cls
        _DRAFTS = table
    return _DRAFTS


def validator_class(schema: Any) -> Any | None:
    """The jsonschema validator class for `schema`'s `$schema` (2020-12 when absent);
    None when `$schema` names a dialect jsonschema does not know."""
    drafts = _drafts()
    uri = schema.get("$schema") if isinstance(schema, dict) else None
    if uri is None or not isinstance(uri, str):
        import jsonschema

        return jsonschema.Draft202012Validator
    return drafts.get(_normalise_uri(uri))


def _meta_validator(cls: Any) -> Any:
    validator = _META.get(cls)
    if validator is None:
        validator = cls(cls.META_SCHEMA)
        _META[cls] = validator
    return validator


def schema_depth_problem(schema: Any, max_depth: int) -> SchemaProblem | None:
    """A problem when subschemas nest deeper than `max_depth` (the validators recurse
    per level; the limit keeps them far from Python's recursion limit)."""
    from taskplan.catalog.jsonschema_types import iter_subschemas_depth

    for _, pointer, depth in iter_subschemas_depth(schema):
        if depth > max_depth:
            return _too_deep(pointer, max_depth)
    return None


def _too_deep(pointer: str, max_depth: int) -> SchemaProblem:
    return SchemaProblem(
        pointer, f"the schema nests subschemas more than {max_depth} levels deep",
        "flatten the schema, or use `$ref` to a definition in `$defs`",
    )


def check_schema(schema: Any, max_depth: int = 64) -> tuple[SchemaProblem, ...]:
    """Every problem of `schema` as a JSON Schema resource: too deep, else meta-schema
    errors (one per location), else unresolvable or non-local `$ref`s. Empty: valid."""
    if not isinstance(schema, (dict, bool)):
        return (SchemaProblem("", "a JSON Schema must be an object (or a boolean)"),)
    dialect = fast_dialect(schema)
    if dialect is None:
        deep = schema_depth_problem(schema, max_depth)
        if deep is not None:
            return (deep,)
    try:
        key = f"{max_depth}:" + json.dumps(schema, sort_keys=True, ensure_ascii=False, allow_nan=True)
    except (TypeError, ValueError):  # pragma: no cover - trees are plain JSON data
        key = None
    if key is not None:
        cached = _VERDICTS.get(key)
        if cached is not None:
            return cached
    try:
        problems = _check(schema, max_depth)
    except RecursionError:  # pragma: no cover - the depth limit keeps validators far from it
        problems = (SchemaProblem("", "the schema is too deeply nested to be checked"),)
    if key is not None:
        if len(_VERDICTS) >= _VERDICT_CACHE_LIMIT:
            _VERDICTS.clear()
        _VERDICTS[key] = problems
    return problems


_FAST_DIALECTS = {
    "json-schema.org/draft-07/schema": "draft7",
    "json-schema.org/draft/2020-12/schema": "2020-12",
}


def fast_dialect(schema: Any) -> str | None:
    """The dialect `metaschema.meta_problems` checks (draft-07, 2020-12: also when
    `$schema` is absent), or None for the others (checked by jsonschema)."""
    uri = schema.get("$schema") if isinstance(schema, dict) else None
    if uri is None:
        return "2020-12"
    if not isinstance(uri, str):
        return None
    return _FAST_DIALECTS.get(_normalise_uri(uri))


def _outermost(problems: list[SchemaProblem]) -> tuple[SchemaProblem, ...]:
    """One problem per location, none inside a location already reported; by pointer."""
    out: list[SchemaProblem] = []
    seen: set[str] = set()
    for problem in sorted(problems, key=lambda p: (p.pointer.count("/"), p.pointer)):
        pointer = problem.pointer
        if pointer in seen or any(pointer.startswith(s + "/") for s in seen):
            continue
        seen.add(pointer)
        out.append(problem)
    out.sort(key=lambda p: p.pointer)
    return tuple(out)


def _check(schema: Any, max_depth: int = 64) -> tuple[SchemaProblem, ...]:
    if isinstance(schema, bool):
        return ()
    dialect = fast_dialect(schema)
    if dialect is not None:
        from taskplan.catalog.metaschema import scan

        found = scan(schema, dialect, max_depth)
        if found.depth > max_depth:
            return (_too_deep(found.deepest, max_depth),)
        problems = _outermost([SchemaProblem(p, m) for p, m in found.problems])
        if problems:
            return problems
        return _ref_problems(schema, found.refs)
    cls = validator_class(schema)
    if cls is None:
        return (
            SchemaProblem(
                "/$schema",
                f"unknown JSON Schema dialect {json.dumps(schema.get('$schema'))}",
                "use https://json-schema.org/draft/2020-12/schema or http://json-schema.org/draft-07/schema#, "
                "or leave `$schema` out (2020-12)",
            ),
        )
    problems: list[SchemaProblem] = []
    seen: set[str] = set()
    errors = sorted(
        _meta_validator(cls).iter_errors(schema),
        key=lambda e: (len(e.absolute_path), [str(p) for p in e.absolute_path]),
    )
    for error in errors[:_MAX_ERRORS]:
        path = list(error.absolute_path)
        pointer = jp.from_path(path)
        # one problem per location, and none inside a location already reported
        if any(pointer == s or pointer.startswith(s + "/") for s in seen):
            continue
        seen.add(pointer)
        problems.append(SchemaProblem(pointer, _message(error, path)))
    if problems:
        problems.sort(key=lambda p: p.pointer)
        return tuple(problems)
    return _ref_problems(schema)


def _ref_problems(schema: Any, refs: list[tuple[str, str]] | None = None) -> tuple[SchemaProblem, ...]:
    """`$ref`s that are not local, or do not resolve inside the schema. `refs`: the
    (pointer of the `$ref` member, value) pairs, when a walk already found them."""
    from taskplan.catalog.jsonschema_types import iter_subschemas, resolve_ref

    if refs is None:
        refs = [
            (jp.join(ptr, "$ref"), node["$ref"])
            for node, ptr in iter_subschemas(schema)
            if isinstance(node, dict) and isinstance(node.get("$ref"), str)
        ]
    problems: list[SchemaProblem] = []
    for at, ref in refs:
        if not ref.startswith("#"):
            problems.append(
                SchemaProblem(
                    at,
                    f"`$ref` {json.dumps(ref)} is not a local reference",
                    "the compiler resolves only references inside the schema (`#/$defs/...`); "
                    "copy the referenced schema into `$defs`",
                )
            )
        elif resolve_ref(schema, ref) is None:
            problems.append(
                SchemaProblem(
                    at,
                    f"`$ref` {json.dumps(ref)} does not resolve inside the schema",
                    "a local reference is a JSON pointer into this schema, e.g. `#/$defs/name`",
                )
            )
    problems.sort(key=lambda p: p.pointer)
    return tuple(problems)


_TYPE_NAMES = "array, boolean, integer, null, number, object, string"
_ARTICLES = {
    "array": "an array",
    "boolean": "a boolean",
    "integer": "an integer",
    "null": "null",
    "number": "a number",
    "object": "an object",
    "string": "a string",
}


def _message(error: Any, path: list[Any]) -> str:
    keyword = str(path[-1]) if path else None
    value = error.instance
    shown = json.dumps(value, ensure_ascii=False, default=str)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    if keyword == "type" and error.validator in ("anyOf", "oneOf", "enum", "type"):
        return f"`type` {shown} is not a JSON Schema type ({_TYPE_NAMES}, or a list of them)"
    if error.validator == "type" and keyword is not None:
        expected = error.validator_value
        names = [expected] if isinstance(expected, str) else [str(e) for e in expected]
        wanted = " or ".join(_ARTICLES.get(n, n) for n in names)
        return f"`{keyword}` must be {wanted}, not {shown}"
    if error.validator == "minItems" and keyword is not None:
        return f"`{keyword}` must not be empty"
    text = error.message
    if error.validator in ("anyOf", "oneOf") and error.context:
        deepest = max(error.context, key=lambda c: len(c.absolute_path))
        text = deepest.message
    if len(text) > 200:
        text = text[:197] + "..."
    return f"`{keyword}`: {text}" if keyword is not None else text


def validate_instance(schema: Any, instance: Any, root: Any | None = None) -> list[tuple[str, str]]:
    """Validate `instance` against `schema` (a schema resource): [(pointer in the
    instance, message)], empty when it validates. `schema` must be valid."""
    cls = validator_class(schema) if isinstance(schema, dict) else validator_class({})
    if cls is None:
        return []
    out = []
    try:
        for error in cls(schema).iter_errors(instance):
            out.append((jp.from_path(error.absolute_path), error.message))
    except RecursionError:  # pragma: no cover - schemas are depth-limited
        return [("", "the value is too deeply nested to be checked")]
    out.sort()
    return out


def is_object_schema(schema: Any) -> bool:
    """Whether an input schema is an object schema (`type: object`, possibly behind a
    root `$ref`), which gives the operation its input ports."""
    from taskplan.catalog.jsonschema_types import shallow_type

    t = shallow_type(schema)
    return t.kind == "object" and not t.nullable
