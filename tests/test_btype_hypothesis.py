"""Property tests: random JSON Schemas convert without crashing; a value generated to
fit a converted type passes both the business check (`fits` of its literal type) and
jsonschema validation of the original schema; the algebra's laws hold."""

from __future__ import annotations

from typing import Any

import jsonschema
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from taskplan.catalog.jsonschema_types import resolve_ref, schema_type
from taskplan.catalog.schemas import check_schema
from taskplan.model.btype import BType, Field, describe, fits, join, literal_type, make, to_json_schema

SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])

NAMES = st.sampled_from(["a", "b", "c", "id", "name", "state", "x_y", "camelCase"])
WORDS = st.sampled_from(["open", "closed", "merged", "draft", "", "yes", "null", "1"])
KINDS = ["string", "integer", "number", "boolean", "object", "array", "null"]


# ------------------------------------------------------------------ schemas


def _leaves(constraints: bool) -> st.SearchStrategy[dict[str, Any]]:
    scalar = st.sampled_from([{"type": k} for k in ("string", "integer", "number", "boolean", "null")])
    leaves = [
        scalar,
        st.builds(lambda k: {"type": [k, "null"]}, st.sampled_from(["string", "integer", "number", "boolean", "object", "array"])),
        st.builds(lambda ks: {"type": ks}, st.lists(st.sampled_from(KINDS), min_size=2, max_size=3, unique=True)),
        st.builds(lambda e: {"type": "string", "enum": e}, st.lists(WORDS, min_size=1, max_size=4, unique=True)),
        st.builds(lambda e: {"type": ["string", "null"], "enum": e + [None]}, st.lists(WORDS, min_size=1, max_size=3, unique=True)),
        st.builds(lambda e: {"type": ["string", "null"], "enum": e}, st.lists(WORDS, min_size=1, max_size=3, unique=True)),
        st.builds(lambda c: {"type": ["string", "null"], "const": c}, WORDS),
        st.builds(lambda e: {"enum": e}, st.lists(WORDS, min_size=1, max_size=3, unique=True)),
        st.builds(lambda c: {"const": c}, WORDS),
        st.builds(lambda c: {"type": "string", "const": c}, WORDS),
        st.just({}),
        st.just({"$ref": "#/$defs/A"}),
        st.just({"$ref": "#/$defs/B"}),
        st.just({"$ref": "#/$defs/node"}),
    ]
    if constraints:
        # non-string enums and consts keep only their JSON kind (business enums are
        # strings): like bounds, they are enforced by request validation, not by types
        leaves += [
            st.builds(lambda e: {"enum": e}, st.lists(st.one_of(WORDS, st.integers(-3, 3), st.booleans()), min_size=1, max_size=3, unique=True)),
            st.just({"type": "string", "minLength": 2, "pattern": "^[a-z]+$", "format": "uri"}),
            st.just({"type": "integer", "minimum": 5, "maximum": 9}),
            st.just({"type": "number", "exclusiveMinimum": 0}),
            st.builds(lambda e: {"type": "integer", "enum": e}, st.lists(st.integers(-5, 5), min_size=1, max_size=3, unique=True)),
            st.builds(lambda c: {"const": c}, st.one_of(st.integers(), st.booleans(), st.none(), st.floats(allow_nan=False))),
            st.just(True),
            st.just(False),
            st.just({"$ref": "#/$defs/missing"}),
            st.just({"type": "bogus"}),
        ]
    return st.one_of(leaves)


def _extend(children: st.SearchStrategy, constraints: bool) -> st.SearchStrategy:
    def obj(draw_props, required_subset, closed):
        schema: dict[str, Any] = {"type": "object", "properties": draw_props}
        names = sorted(draw_props)
        req = [n for n, keep in zip(names, required_subset) if keep]
        if req:
            schema["required"] = req
        if closed:
            schema["additionalProperties"] = False
        return schema

    options = [
        st.builds(lambda c: {"type": "array", "items": c}, children),
        st.builds(lambda c: {"type": ["array", "null"], "items": c}, children),
        st.builds(
            obj,
            st.dictionaries(NAMES, children, max_size=4),
            st.lists(st.booleans(), min_size=4, max_size=4),
            st.booleans(),
        ),
        st.builds(lambda c, k: {k: [c, {"type": "null"}]}, children, st.sampled_from(["anyOf", "oneOf"])),
        st.builds(lambda c, k: {k: [{"type": "null"}, c]}, children, st.sampled_from(["anyOf", "oneOf"])),
        st.builds(lambda cs: {"anyOf": cs}, st.lists(children, min_size=2, max_size=3)),
        # an enum beside the combinator narrows it (null listed: never unsatisfiable)
        st.builds(lambda c, e: {"anyOf": [c, {"type": "null"}], "enum": e + [None]}, children, st.lists(WORDS, max_size=3, unique=True)),
        st.builds(lambda c: {"not": c}, children),
        st.builds(lambda c: {"allOf": [c]}, children),
    ]
    if constraints:
        options += [
            st.builds(lambda c: {"type": "array", "items": c, "minItems": 1, "uniqueItems": True}, children),
            st.builds(lambda cs: {"type": "array", "prefixItems": cs}, st.lists(children, max_size=2)),
            st.builds(lambda c: {"type": "object", "additionalProperties": c}, children),
            st.builds(lambda c: {"type": "object", "properties": {"p": c}, "required": ["p", "q"], "additionalProperties": False}, children),
            st.builds(lambda cs: {"type": "object", "oneOf": cs}, st.lists(children, min_size=1, max_size=2)),
            st.builds(lambda a, b: {"allOf": [a, b]}, children, children),
            st.builds(lambda c: {"if": c, "then": c, "else": {}}, children),
        ]
    return st.one_of(options)


def schemas(constraints: bool) -> st.SearchStrategy[dict[str, Any]]:
    body = st.recursive(_leaves(constraints), lambda c: _extend(c, constraints), max_leaves=12)
    defs_part = st.recursive(_leaves(constraints).filter(lambda s: not (isinstance(s, dict) and "$ref" in s)),
                             lambda c: _extend(c, constraints), max_leaves=4)

    def assemble(main, a, b, value):
        node = {"type": "object", "properties": {"value": value, "next": {"$ref": "#/$defs/node"}}}
        root = dict(main) if isinstance(main, dict) else {"allOf": [main]}
        root["$defs"] = {"A": a, "B": b, "node": node}
        return root

    return st.builds(assemble, body, defs_part, defs_part, defs_part)


# ---------------------------------------------------------------- values


POOL = [None, True, False, 0, 2, 1.5, "x", "", "open", [], {}, [1], {"a": 1}]


class _Impossible:
    """Drawn where no value of the pool satisfies an `any` slot's schema (e.g. `not: {}`)."""


IMPOSSIBLE = _Impossible()


def _possible(value: Any) -> bool:
    if value is IMPOSSIBLE:
        return False
    if isinstance(value, list):
        return all(_possible(v) for v in value)
    if isinstance(value, dict):
        return all(_possible(v) for v in value.values())
    return True


def _subschema(root: dict, pointer: str) -> Any:
    found = resolve_ref(root, "#" + pointer) if pointer else (root, "")
    return None if found is None else found[0]


def _validates(root: dict, sub: Any, value: Any) -> bool:
    if isinstance(sub, bool):
        return sub
    if not isinstance(sub, dict):
        return True  # a slot that is not a schema (a `required` entry): no constraint
    schema = {**sub, "$defs": root.get("$defs", {})}
    return jsonschema.Draft202012Validator(schema).is_valid(value)


def values(t: BType, root: dict) -> st.SearchStrategy[Any]:
    """A strategy of JSON values of type `t` (a type converted from `root`)."""
    if t.kind == "any":
        sub = _subschema(root, t.origin.pointer) if t.origin is not None else {}
        extra = []
        if isinstance(sub, dict):
            if isinstance(sub.get("enum"), list):
                extra += sub["enum"]
            if "const" in sub:
                extra.append(sub["const"])
        candidates = [v for v in extra + POOL if _validates(root, sub, v)]
        return st.sampled_from(candidates) if candidates else st.just(IMPOSSIBLE)
    if t.kind == "null":
        return st.none()
    if t.kind == "boolean":
        base: st.SearchStrategy = st.booleans()
    elif t.kind == "integer":
        base = st.integers(-1000, 1000)
    elif t.kind == "number":
        base = st.one_of(st.integers(-1000, 1000), st.floats(-1e6, 1e6, allow_nan=False))
    elif t.kind == "string":
        restricted = t.values()
        base = st.sampled_from(restricted) if restricted else st.text(max_size=4)
    elif t.kind == "array":
        base = st.lists(values(t.items or make("any"), root), max_size=3)
    else:  # object
        required = {f.name: values(f.type, root) for f in t.fields if f.required}
        optional = {f.name: values(f.type, root) for f in t.fields if not f.required}
        base = st.fixed_dictionaries(required, optional=optional)
    return st.one_of(st.none(), base) if t.nullable else base


# ------------------------------------------------------------------- tests


@SETTINGS
@given(schemas(constraints=True))
def test_any_schema_converts_and_checks_without_crashing(schema):
    problems = check_schema(schema)
    t = schema_type(schema, "c.yaml", "/sources/0/operations/0/input")
    text = describe(t)
    assert isinstance(text, str) and text
    jsonschema.Draft202012Validator.check_schema(to_json_schema(t))
    assert isinstance(problems, tuple)


@SETTINGS
@given(st.recursive(st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=3), st.sampled_from(["type", "$ref", "#", "#/", "items", "anyOf"])),
                    lambda c: st.one_of(st.lists(c, max_size=3), st.dictionaries(st.sampled_from(["type", "items", "properties", "anyOf", "oneOf", "allOf", "not", "$ref", "enum", "const", "required", "$defs", "additionalProperties"]), c, max_size=4)),
                    max_leaves=15))
def test_arbitrary_json_never_crashes_the_conversion(data):
    t = schema_type(data)
    describe(t)
    to_json_schema(t)
    check_schema(data) if isinstance(data, (dict, bool)) else None


@SETTINGS
@given(st.data(), schemas(constraints=False))
def test_a_value_of_the_converted_type_fits_and_validates(data, schema):
    assert check_schema(schema) == (), check_schema(schema)
    t = schema_type(schema)
    value = data.draw(values(t, schema))
    assume(_possible(value))
    # the business check
    mismatch = fits(literal_type(value), t)
    assert mismatch is None, (describe(t), value, mismatch and mismatch.explain())
    # the original schema
    jsonschema.Draft202012Validator(schema).validate(value)
    # and the schema of the business type
    jsonschema.Draft202012Validator(to_json_schema(t)).validate(value)


# ------------------------------------------------------------ algebra laws


def btypes() -> st.SearchStrategy[BType]:
    leaves = st.one_of(
        st.sampled_from([make(k) for k in ("string", "integer", "number", "boolean", "null", "any")]),
        st.builds(lambda e: make("string", enum=e), st.lists(WORDS, min_size=1, max_size=3, unique=True)),
        st.builds(lambda c: make("string", const=c), WORDS),
    )

    def extend(children):
        return st.one_of(
            st.builds(lambda c, n: make("array", items=c, nullable=n), children, st.booleans()),
            st.builds(
                lambda fs, closed, n: make("object", fields=[Field(k, v, r) for k, (v, r) in fs.items()], closed=closed, nullable=n),
                st.dictionaries(NAMES, st.tuples(children, st.booleans()), max_size=3),
                st.booleans(),
                st.booleans(),
            ),
            st.builds(lambda c: c.with_nullable(True), children),
        )

    return st.recursive(leaves, extend, max_leaves=8)


@SETTINGS
@given(btypes(), btypes())
def test_both_sides_fit_their_join(a, b):
    j = join(a, b)
    if j is not None:
        assert fits(a, j) is None, (describe(a), describe(j), fits(a, j).explain())
        assert fits(b, j) is None, (describe(b), describe(j), fits(b, j).explain())
        assert join(b, a) is not None


@SETTINGS
@given(btypes())
def test_fits_is_reflexive_and_join_idempotent(t):
    assert fits(t, t) is None
    assert join(t, t) == t


@SETTINGS
@given(btypes())
def test_to_json_schema_round_trips(t):
    back = schema_type(to_json_schema(t))
    assert fits(t, back) is None and fits(back, t) is None, (describe(t), describe(back))
