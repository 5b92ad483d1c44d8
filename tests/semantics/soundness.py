"""Typing soundness at run time: does a request fit its operation's input schema, and
is a violation the compiler's (its types pass promised the fit) or the runtime's to
enforce?

catalog.md, Catalog: "The business type of a port comes from its schema: `type` (or a
type list with "null", meaning nullable), `enum`/`const`, `items`, `properties` and
`required`; `anyOf`/`oneOf` of one type and `null` is that type, nullable. What has no
exact business type (other `anyOf`/`oneOf`, `not`, a missing `type`) is `any`.
Patterns, bounds and formats are not business types: they stay in the schema and are
enforced when the effective request is validated."

So a request that breaks a pattern, a bound or a format is a run-time failure (the
runtime refuses it; both sides of a comparison fail alike), while one that breaks the
business type (a wrong kind, null where the port is not nullable, a string outside a
string enum, a required property missing, a property a closed object does not declare)
is a typing soundness finding: the types pass accepted a plan whose request cannot fit.
Non-string enums are not business enums (decisions.md: they keep their JSON kind
without the enum), and a type list of several kinds (other than integer with number)
is `any`: their violations are the runtime's too.

Written from the spec's words, not from the compiler's converter (jsonschema_types.py).
"""

from __future__ import annotations

from typing import Any

import jsonschema

from .common import OracleBug, canonical_json

_TRANSPARENT = {"properties", "items", "$ref", "$defs", "definitions", "$dynamicRef"}
"""Schema-path keywords that keep a subschema's business type in force."""


EXTRA = "zz_extra"
"""The name of the property the stubs add where an output schema allows more (edge=high)."""

OPEN_INTO_CLOSED = "finding-3"
"""The tag of a typing problem that is finding 3 (tests/test_semantics.py): an operation's
open object (its output schema allows more properties) bound to a closed port, with a
property the operation was allowed to add."""


_VALIDATORS: dict[str, Any] = {}


def validator(schema: Any) -> Any:
    """A validator of a schema (its draft by `$schema`, else 2020-12), cached by the
    schema's canonical text (the same catalogs' schemas come back on every call)."""
    key = canonical_json(schema)
    found = _VALIDATORS.get(key)
    if found is None:
        cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
        found = _VALIDATORS[key] = cls(schema)
        if len(_VALIDATORS) > 4096:
            _VALIDATORS.clear()
    return found


def fits(value: Any, schema: Any) -> bool:
    if schema in (None, {}, True):
        return True
    return validator(schema).is_valid(value)


def _kinds(types: Any) -> list[str]:
    if isinstance(types, str):
        types = [types]
    return [t for t in (types or []) if t != "null"]


def _business(error: jsonschema.ValidationError) -> bool:
    """Whether one validation error breaks the business type (not a bound, a pattern,
    a format or a combinator the business type does not model)."""
    path = list(error.relative_schema_path)
    keyword = error.validator
    # the keywords on the way to the failing one: every one must keep the business type
    names_or_indexes = path[:-1]
    for i, p in enumerate(names_or_indexes):
        if not isinstance(p, str):
            continue
        prev = names_or_indexes[i - 1] if i else None
        if prev == "properties" or prev in ("$defs", "definitions"):
            continue  # a property's or a definition's name
        if p not in _TRANSPARENT:
            return False  # additionalProperties schema, patternProperties, allOf, not, if, ...
    schema = error.schema if isinstance(error.schema, dict) else {}
    if keyword == "type":
        kinds = _kinds(schema.get("type"))
        return len(kinds) <= 1 or set(kinds) == {"integer", "number"}
    if keyword in ("enum", "const"):
        values = list(schema.get("enum") or []) if keyword == "enum" else [schema.get("const")]
        rest = [v for v in values if v is not None]
        if error.instance is None:
            # null outside an enum of one kind: that kind, not nullable (an untyped enum of
            # mixed kinds is `any`, which null fits)
            kinds = {"number" if isinstance(v, (int, float)) and not isinstance(v, bool) else type(v).__name__
                     for v in rest}
            return len(kinds) == 1
        return bool(rest) and all(isinstance(v, str) for v in rest)  # a string enum (or const)
    if keyword == "required":
        return True
    if keyword in ("additionalProperties", "unevaluatedProperties"):
        # `patternProperties` keeps an object open (decisions.md, Catalog)
        return schema.get(keyword) is False and not schema.get("patternProperties")
    if keyword in ("anyOf", "oneOf"):
        branches = schema.get(keyword) or []
        nulls = [b for b in branches if isinstance(b, dict) and b.get("type") == "null"]
        others = [i for i, b in enumerate(branches) if not (isinstance(b, dict) and b.get("type") == "null")]
        if len(others) != 1 or len(nulls) + len(others) != len(branches):
            return False  # `any`: the runtime's to enforce
        if error.instance is None:
            return not nulls
        return any(list(e.relative_schema_path)[:1] == [others[0]] and _business(e) for e in error.context or [])
    return False


def check_request(request: Any, schema: Any) -> tuple[list[str], list[str]]:
    """(typing problems, run-time problems) of a request against an input schema."""
    if schema in (None, {}, True):
        return [], []
    if schema is False:
        raise OracleBug("a false input schema")
    typing, runtime = [], []
    for error in validator(schema).iter_errors(request):
        where = "/" + "/".join(str(p) for p in error.absolute_path)
        text = f"{where}: {error.validator} ({error.message[:160]})"
        if _business(error):
            if error.validator in ("additionalProperties", "unevaluatedProperties") \
                    and isinstance(error.instance, dict) \
                    and any(str(k).startswith(EXTRA) for k in error.instance):
                text = f"[{OPEN_INTO_CLOSED}] " + text
            typing.append(text)
        else:
            runtime.append(text)
    return typing, runtime

