"""The fast meta-schema check agrees with jsonschema's meta-validation (draft-07 and
2020-12): the same schemas are valid, and each side's problems lie at or below the
other's places (ours may be more precise where jsonschema reports an `anyOf`)."""

from __future__ import annotations

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from taskplan.catalog.metaschema import DRAFT7, DRAFT2020, KEYWORDS, meta_problems
from taskplan.source import pointer as jp

VALIDATORS = {
    DRAFT7: jsonschema.Draft7Validator(jsonschema.Draft7Validator.META_SCHEMA),
    DRAFT2020: jsonschema.Draft202012Validator(jsonschema.Draft202012Validator.META_SCHEMA),
}
ALL_KEYWORDS = sorted(set(KEYWORDS[DRAFT7]) | set(KEYWORDS[DRAFT2020]) | {"unknownKeyword"})

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.sampled_from([0.0, 1.5, -2.0, 2.0]),
    st.sampled_from(["string", "object", "array", "strin", "", "a", "#x", "a#b", "_ok", "1bad", "http://x/y"]),
)


def schema_like() -> st.SearchStrategy:
    def extend(children):
        return st.one_of(
            st.lists(children, max_size=3),
            st.lists(st.sampled_from(["a", "b", "string", "integer", "null"]), max_size=3),
            st.dictionaries(st.sampled_from(ALL_KEYWORDS), children, max_size=4),
            st.dictionaries(st.sampled_from(["a", "b"]), children, max_size=2),
        )

    return st.dictionaries(
        st.sampled_from(ALL_KEYWORDS), st.recursive(SCALARS, extend, max_leaves=10), max_size=5
    )


def _js_pointers(dialect: str, schema) -> set[str]:
    errors = sorted(VALIDATORS[dialect].iter_errors(schema), key=lambda e: (len(e.absolute_path), list(map(str, e.absolute_path))))
    seen: set[str] = set()
    for e in errors:
        p = jp.from_path(e.absolute_path)
        if not any(p == s or p.startswith(s + "/") for s in seen):
            seen.add(p)
    return seen


def _within(p: str, places: set[str]) -> bool:
    return any(p == s or p.startswith(s + "/") for s in places)


def _agree(dialect: str, schema) -> None:
    ours = {p for p, _ in meta_problems(schema, dialect)}
    theirs = _js_pointers(dialect, schema)
    assert bool(ours) == bool(theirs), (schema, ours, theirs)
    for p in ours:
        assert _within(p, theirs), (schema, p, theirs)
    for p in theirs:
        assert any(q == p or q.startswith(p + "/") for q in ours), (schema, p, ours)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schema_like(), st.sampled_from([DRAFT7, DRAFT2020]))
def test_agrees_with_jsonschema(schema, dialect):
    _agree(dialect, schema)


@pytest.mark.parametrize("dialect", [DRAFT7, DRAFT2020])
@pytest.mark.parametrize(
    "schema",
    [
        {"type": "strin"},
        {"type": ["string", "string"]},
        {"type": []},
        {"required": ["a", 3]},
        {"required": ["a", "a", 3]},
        {"required": True},
        {"properties": {"a": {"type": "x"}, "b": 3}},
        {"items": {"type": "strin"}},
        {"items": []},
        {"items": [{}, 3]},
        {"minLength": -1},
        {"minLength": 1.0},
        {"multipleOf": 0},
        {"allOf": []},
        {"anyOf": [{}, 3]},
        {"dependencies": {"a": ["b", 1], "c": {"type": 1}}},
        {"enum": []},
        {"$defs": {"a": 3}},
        {"$id": "a#b"},
        {"$anchor": "1a"},
        {"prefixItems": []},
        {"$vocabulary": {"x": 1}},
        {"dependentRequired": {"a": ["b", "b"]}},
        {"not": {"not": {"minimum": "1"}}},
        {"examples": {}},
        True,
    ],
)
def test_known_cases_agree(dialect, schema):
    _agree(dialect, schema)
