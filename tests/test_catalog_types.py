"""JSON Schema -> business types (catalog.md; docs/decisions.md, Catalog)."""

from __future__ import annotations

import pytest

from taskplan.catalog.jsonschema_types import iter_subschemas, property_pointer, resolve_ref, schema_type, shallow_type
from taskplan.model.btype import Slot, describe, fits, literal_type


@pytest.mark.parametrize(
    "schema, text",
    [
        ({"type": "string"}, "string"),
        ({"type": "integer"}, "integer"),
        ({"type": "number", "minimum": 3}, "number"),
        ({"type": "string", "pattern": "^a", "format": "uri", "maxLength": 3}, "string"),
        ({"type": ["string", "null"]}, "nullable string"),
        ({"type": ["null", "integer"]}, "nullable integer"),
        ({"type": ["integer", "number"]}, "number"),
        ({"type": ["boolean", "string"]}, "any"),
        ({"type": "null"}, "null"),
        ({"type": ["null"]}, "null"),
        ({"type": "string", "enum": ["a", "b"]}, "string enum [a, b]"),
        ({"type": "string", "enum": ["a", 1, None]}, "string enum [a]"),
        ({"type": ["string", "null"], "enum": ["a", None]}, "nullable string enum [a]"),
        ({"enum": ["a", "b"]}, "string enum [a, b]"),
        ({"enum": ["a", None]}, "nullable string enum [a]"),
        ({"enum": [1, 2]}, "integer"),
        ({"enum": [1, 2.5]}, "number"),
        ({"enum": [1, "a"]}, "any"),
        ({"type": "integer", "enum": [1, 2]}, "integer"),
        ({"type": "string", "const": "x"}, 'string "x"'),
        ({"const": "x"}, 'string "x"'),
        ({"const": 3}, "integer"),
        ({"const": True}, "boolean"),
        ({"const": None}, "null"),
        ({"anyOf": [{"type": "string"}, {"type": "null"}]}, "nullable string"),
        ({"oneOf": [{"type": "null"}, {"type": "integer"}]}, "nullable integer"),
        ({"anyOf": [{"type": "string"}]}, "string"),
        ({"anyOf": [{"type": "string"}, {"type": "integer"}]}, "any"),
        ({"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]}, "any"),
        ({"anyOf": [{}, {"type": "null"}]}, "any"),
        ({"type": "object", "oneOf": [{"required": ["a"]}, {"required": ["b"]}]}, "object"),
        ({"not": {"type": "string"}}, "any"),
        ({}, "any"),
        (True, "any"),
        ({"properties": {"a": {"type": "string"}}}, "any"),
        ({"allOf": [{"type": "string"}]}, "string"),
        ({"allOf": [{"type": "string"}, {"minLength": 1}]}, "any"),
        ({"type": "string", "allOf": [{"minLength": 1}]}, "string"),
        ({"type": "array", "items": {"type": "integer"}}, "array of integer"),
        ({"type": "array"}, "array of any"),
        ({"type": "array", "prefixItems": [{"type": "integer"}]}, "array of any"),
        ({"type": "array", "items": [{"type": "integer"}]}, "array of any"),
        (
            {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "number"}}, "required": ["a"]},
            "object {a: string, b?: number, ...}",
        ),
        (
            {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": False},
            "object {a?: string}",
        ),
        (
            {"type": "object", "properties": {}, "required": ["x"], "additionalProperties": False},
            "object {x: any}",
        ),
        ({"type": "object", "additionalProperties": {"type": "string"}}, "object"),
        ({"type": "stringy"}, "any"),
    ],
)
def test_conversion(schema, text):
    assert describe(schema_type(schema)) == text


def test_slots_point_into_the_catalog():
    schema = {
        "type": "object",
        "properties": {
            "state": {"type": "string", "enum": ["open", "closed"]},
            "body": {"type": ["string", "null"]},
            "base": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "kind": {"const": "pr"},
        },
    }
    t = schema_type(schema, "cat.yaml", "/sources/0/operations/1/output")
    base = "/sources/0/operations/1/output/properties"
    assert t.origin == Slot("cat.yaml", "/sources/0/operations/1/output")
    assert t.get_field("state").slot == Slot("cat.yaml", f"{base}/state")
    assert t.get_field("state").type.enum_slot == Slot("cat.yaml", f"{base}/state/enum")
    assert t.get_field("body").type.null_slot == Slot("cat.yaml", f"{base}/body/type/1")
    assert t.get_field("base").type.null_slot == Slot("cat.yaml", f"{base}/base/anyOf/1")
    assert t.get_field("base").type.origin == Slot("cat.yaml", f"{base}/base/anyOf/0")
    assert t.get_field("kind").type.enum_slot == Slot("cat.yaml", f"{base}/kind/const")


def test_local_refs_resolve_in_defs_and_definitions():
    schema = {
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/A"}, "b": {"$ref": "#/definitions/B"}},
        "$defs": {"A": {"type": "string", "enum": ["x"]}},
        "definitions": {"B": {"type": "array", "items": {"$ref": "#/$defs/A"}}},
    }
    t = schema_type(schema, "f", "/in")
    assert describe(t) == "object {a?: string enum [x], b?: array of string enum [x], ...}"
    assert t.get_field("a").type.enum_slot == Slot("f", "/in/$defs/A/enum")


def test_recursive_ref_is_any_at_the_recursion_point():
    schema = {
        "$defs": {
            "node": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
                "required": ["name"],
            }
        },
        "$ref": "#/$defs/node",
    }
    t = schema_type(schema)
    assert describe(t) == "object {name: string, children?: array of any, ...}"


def test_mutual_recursion_and_self_reference_terminate():
    assert describe(schema_type({"$ref": "#"})) == "any"
    schema = {"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}
    assert describe(schema_type(schema)) == "any"


def test_exponential_ref_dag_stays_linear():
    defs = {f"d{i}": {"type": "object", "properties": {"x": {"$ref": f"#/$defs/d{i + 1}"}, "y": {"$ref": f"#/$defs/d{i + 1}"}}} for i in range(60)}
    defs["d60"] = {"type": "string"}
    t = schema_type({"$defs": defs, "$ref": "#/$defs/d0"})
    assert t.kind == "object"


def test_unresolvable_and_remote_refs_are_any():
    assert describe(schema_type({"$ref": "#/$defs/missing"})) == "any"
    assert describe(schema_type({"$ref": "https://example.com/s.json"})) == "any"
    assert describe(schema_type({"$ref": "#anchor"})) == "any"


def test_deep_nesting_does_not_crash():
    schema: dict = {"type": "string"}
    for _ in range(2000):
        schema = {"type": "array", "items": schema}
    t = schema_type(schema)
    assert t.kind == "array"


def test_resolve_ref_percent_encoding_and_escapes():
    root = {"$defs": {"a/b": {"type": "string"}, "c d": {"type": "integer"}}}
    assert resolve_ref(root, "#/$defs/a~1b") == ({"type": "string"}, "/$defs/a~1b")
    assert resolve_ref(root, "#/$defs/c%20d")[0] == {"type": "integer"}
    assert resolve_ref(root, "#") == (root, "")


def test_iter_subschemas_skips_data_keywords():
    schema = {
        "type": "object",
        "properties": {"a": {"type": "string", "enum": [{"$ref": "not a schema"}]}},
        "default": {"$ref": "data"},
        "anyOf": [{"type": "string"}],
    }
    pointers = [p for _, p in iter_subschemas(schema)]
    assert pointers == ["", "/properties/a", "/anyOf/0"]


def test_property_pointer_follows_a_root_ref():
    schema = {"$ref": "#/$defs/In", "$defs": {"In": {"type": "object", "properties": {"x": {"type": "string"}}}}}
    assert property_pointer(schema, "/op/input", "x") == "/op/input/$defs/In/properties/x"
    assert property_pointer(schema, "/op/input", "nope") == "/op/input/$defs/In"


# ------------------------------------------------ enum/const, $ref siblings: jsonschema as oracle

D07 = "http://json-schema.org/draft-07/schema#"
D2019 = "https://json-schema.org/draft/2019-09/schema"
TEXT = {"Text": {"type": "string"}, "NText": {"type": ["string", "null"]}, "Int": {"type": "integer"}}
BASE = {"Base": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}}}


def _ref(target: str, defs: dict, **siblings) -> dict:
    return {"$defs": defs, "$ref": f"#/$defs/{target}", **siblings}


# (schema, literals): for each literal, the compiler's verdict (the literal's type fits
# the converted type) must be jsonschema's (the value validates against the schema).
# Audit 2: a `type` with null and an enum/const without it (D1), keywords beside a
# `$ref` in 2019-09+ (D2), and an enum beside an untyped anyOf/oneOf (D3) all accepted
# values the schema rejects.
AGREEMENT = [
    # D1: enum/const apply together with `type`; null only when they list it
    ({"type": ["string", "null"], "enum": ["open", "closed"]}, [None, "open", "merged", 1]),
    ({"type": ["string", "null"], "const": "bug"}, [None, "bug", "feature"]),
    ({"type": ["integer", "null"], "enum": [1, 2]}, [None, 1, "1"]),
    ({"type": ["number", "null"], "const": 2.5}, [None, 2.5]),
    ({"type": ["boolean", "null"], "enum": [True]}, [None, True]),
    ({"type": ["string", "null"], "enum": ["open", None]}, [None, "open", "merged"]),
    ({"type": ["null", "string"], "enum": [None]}, [None, "open"]),
    ({"type": ["string", "null"], "const": None}, [None, "open"]),
    ({"type": ["string", "null"], "enum": ["a", 1]}, [None, "a", "b", 1]),
    ({"type": ["string", "integer"], "enum": ["a", "b"]}, ["a", "c", 1, None]),
    ({"type": ["string", "integer", "null"], "enum": ["a", None]}, ["a", "c", 1, None]),
    ({"$schema": D07, "type": ["string", "null"], "enum": ["open", "closed"]}, [None, "open"]),
    # D2: 2020-12 (no `$schema`) and 2019-09 apply the keywords beside a `$ref` ...
    (_ref("Text", TEXT, enum=["fast", "slow"]), ["medium", "fast", None, 1]),
    (_ref("Text", TEXT, const="fast"), ["medium", "fast"]),
    (_ref("NText", TEXT, enum=["fast", "slow"]), [None, "fast", "medium"]),
    (_ref("NText", TEXT, enum=["fast", None]), [None, "fast", "medium"]),
    (_ref("Int", TEXT, type="number"), [1, 1.5, "1"]),
    (_ref("Text", TEXT, **{"$schema": D2019, "enum": ["fast", "slow"]}), ["medium", "fast"]),
    (_ref("Base", BASE, properties={"x": {"type": "string"}}, required=["x"]), [{"a": "q"}, {"a": "q", "x": "y"}, {"x": 1}]),
    (_ref("Base", BASE, required=["a"]), [{}, {"a": "q"}, {"a": 1}]),
    (_ref("Base", BASE, properties={"a": {"enum": ["p", "q"]}}), [{"a": "q"}, {"a": "r"}, {}]),
    (_ref("Base", BASE, properties={"a": {}}, additionalProperties=False), [{"a": "q"}, {"a": "q", "b": "r"}, {}]),
    # ... draft-07 and older ignore them
    (_ref("Text", TEXT, **{"$schema": D07, "enum": ["fast", "slow"]}), ["medium", "fast", None]),
    (_ref("Base", BASE, **{"$schema": D07, "required": ["x"]}), [{"a": "q"}, {}]),
    # D3: an enum/const beside an untyped anyOf/oneOf/allOf narrows it
    ({"anyOf": [{"type": "string"}, {"type": "null"}], "enum": ["red", "green", None]}, ["purple", "red", None, 1]),
    ({"anyOf": [{"type": "string"}, {"type": "null"}], "enum": ["red", "green"]}, [None, "red", "purple"]),
    ({"oneOf": [{"type": "null"}, {"type": "string"}], "const": "red"}, [None, "red", "purple"]),
    ({"anyOf": [{"type": "string"}], "enum": ["red", 1]}, ["red", 1, "blue"]),
    ({"anyOf": [{"type": "integer"}, {"type": "null"}], "enum": [1, 2]}, [None, 1, "1"]),
    ({"allOf": [{"type": "string"}], "enum": ["a"]}, ["a", "b"]),
    # `unevaluatedProperties: false` closes over what applicators beside it evaluate too
    # (semantic oracle, finding 4): the type must not refuse what the schema admits
    ({"type": "object", "properties": {"a": {"type": "string"}}, "unevaluatedProperties": False}, [{"a": "x"}, {"a": "x", "c": 1}]),
    ({"type": "object", "properties": {"a": {"type": "string"}}, "unevaluatedProperties": False,
      "allOf": [{"properties": {"b": {"type": "string"}}, "required": ["b"]}]}, [{"a": "x", "b": "y"}, {"b": "y"}]),
    ({"type": "object", "properties": {"a": {"type": "string"}}, "unevaluatedProperties": False,
      "anyOf": [{"properties": {"b": {"type": "integer"}}, "required": ["b"]}]}, [{"a": "x", "b": 1}]),
    (_ref("Base", BASE, properties={"x": {"type": "string"}}, unevaluatedProperties=False), [{"a": "q", "x": "y"}, {"b": "r"}]),
]


def _accepts_json_schema(schema: dict, value) -> bool:
    from taskplan.catalog.schemas import validator_class

    return validator_class(schema)(schema).is_valid(value)


@pytest.mark.parametrize(
    "schema, value",
    [(schema, value) for schema, values in AGREEMENT for value in values],
)
def test_compiler_and_jsonschema_agree_on_enum_const_and_ref_siblings(schema, value):
    t = schema_type(schema)
    assert (fits(literal_type(value), t) is None) == _accepts_json_schema(schema, value), describe(t)


def test_the_agreement_table_has_both_verdicts():
    verdicts = {_accepts_json_schema(s, v) for s, vs in AGREEMENT for v in vs}
    assert verdicts == {True, False}


@pytest.mark.parametrize(
    "schema, text",
    [
        ({"type": ["string", "null"], "enum": ["open", "closed"]}, "string enum [open, closed]"),
        ({"type": ["string", "null"], "const": "bug"}, 'string "bug"'),
        ({"type": ["integer", "null"], "enum": [1, 2]}, "integer"),
        ({"type": ["string", "null"], "enum": [None]}, "null"),
        ({"type": ["string", "integer", "null"], "enum": ["a", None]}, "nullable string enum [a]"),
        ({"type": ["string", "integer"], "enum": ["a", 1]}, "any"),
        (_ref("Text", TEXT, enum=["fast", "slow"]), "string enum [fast, slow]"),
        (_ref("Text", TEXT, description="what it is", title="T"), "string"),
        (_ref("Text", TEXT, **{"$schema": D07, "enum": ["fast", "slow"]}), "string"),
        (_ref("Base", BASE, properties={"x": {"type": "string"}}, required=["x"]), "object {a?: string, b?: string, x: string, ...}"),
        (_ref("Base", BASE, properties={"a": {}}, additionalProperties=False), "object {a?: string}"),
        (_ref("Not", {"Not": {"not": {"type": "integer"}}}, enum=["a"]), "any"),  # the target's values: unknown
        # no value fits both (validation rejects every request): the target's type
        (_ref("Text", TEXT, type="integer"), "string"),
        (_ref("Text", TEXT, enum=[1, 2]), "string"),
        ({"$defs": {"Base": {**BASE["Base"], "additionalProperties": False}}, "$ref": "#/$defs/Base", "required": ["x"]},
         "object {a?: string, b?: string}"),
        ({"anyOf": [{"type": "string"}, {"type": "null"}], "enum": ["red", "green", None]}, "nullable string enum [red, green]"),
        # branches without a business type: which values pass them is unknown
        ({"anyOf": [{"type": "string"}, {"type": "integer"}], "enum": ["a", "b"]}, "any"),
        ({"anyOf": [{"anyOf": [{"type": "object"}, {"type": "null"}], "enum": ["a", None]}, {"type": "null"}], "enum": ["a", None]}, "any"),
    ],
)
def test_enum_const_and_ref_siblings_narrow(schema, text):
    assert describe(schema_type(schema)) == text


def test_narrowed_slots():
    schema = {
        "type": "object",
        "$defs": {"Text": {"type": "string"}, "N": {"type": ["string", "null"]}},
        "properties": {
            "state": {"type": ["string", "null"], "enum": ["open", None]},
            "color": {"anyOf": [{"type": "string"}, {"type": "null"}], "enum": ["red", None]},
            "mode": {"$ref": "#/$defs/Text", "enum": ["fast"]},
            "opt": {"$ref": "#/$defs/N", "enum": ["fast", None]},
        },
    }
    t = schema_type(schema, "c.yaml", "/in")
    assert t.get_field("state").type.null_slot == Slot("c.yaml", "/in/properties/state/type/1")
    assert t.get_field("state").type.enum_slot == Slot("c.yaml", "/in/properties/state/enum")
    assert t.get_field("color").type.null_slot == Slot("c.yaml", "/in/properties/color/enum/1")
    assert t.get_field("color").type.enum_slot == Slot("c.yaml", "/in/properties/color/enum")
    mode = t.get_field("mode").type
    assert mode.origin == Slot("c.yaml", "/in/properties/mode")
    assert mode.enum_slot == Slot("c.yaml", "/in/properties/mode/enum")
    assert t.get_field("opt").type.null_slot == Slot("c.yaml", "/in/$defs/N/type/1")


def test_ports_beside_a_root_ref():
    schema = {
        "$defs": {"In": {"type": "object", "properties": {"a": {"type": "string"}}}},
        "$ref": "#/$defs/In",
        "properties": {"x": {"type": "integer"}},
        "required": ["x"],
    }
    assert describe(shallow_type(schema)) == "object {a?: any, x: any, ...}"
    assert property_pointer(schema, "/op/input", "x") == "/op/input/properties/x"
    assert property_pointer(schema, "/op/input", "a") == "/op/input/$defs/In/properties/a"
    draft07 = {**schema, "$schema": D07}
    assert describe(shallow_type(draft07)) == "object {a?: any, ...}"
    assert property_pointer(draft07, "/op/input", "x") == "/op/input/$defs/In"


def test_ref_siblings_over_a_shared_dag_stay_linear():
    defs = {
        f"d{i}": {"type": "object", "properties": {"x": {"$ref": f"#/$defs/d{i + 1}"}, "y": {"$ref": f"#/$defs/d{i + 1}"}}}
        for i in range(60)
    }
    defs["d60"] = {"type": "string"}
    for i in range(60):  # each level meets the shared type below with itself
        defs[f"d{i}"] = {"$ref": f"#/$defs/e{i}", "properties": defs[f"d{i}"]["properties"]}
        defs[f"e{i}"] = {"type": "object", "properties": {"x": {"$ref": f"#/$defs/d{i + 1}"}, "y": {"$ref": f"#/$defs/d{i + 1}"}}}
    t = schema_type({"$defs": defs, "$ref": "#/$defs/d0"})
    assert t.kind == "object"
