"""JSON Schema -> business types (catalog.md; docs/decisions.md, Catalog)."""

from __future__ import annotations

import pytest

from taskplan.catalog.jsonschema_types import iter_subschemas, property_pointer, resolve_ref, schema_type
from taskplan.model.btype import Slot, describe


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
