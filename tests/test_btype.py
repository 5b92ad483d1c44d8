"""The business-type algebra: fits, join, describe, to_json_schema, literal and TaskType types."""

from __future__ import annotations

import pytest

from taskplan.model.btype import (
    ANY,
    BOOLEAN,
    NEVER,
    INTEGER,
    NULL,
    NUMBER,
    STRING,
    Field,
    Slot,
    array_of,
    describe,
    fits,
    from_task_type,
    join,
    join_all,
    literal_type,
    make,
    object_of,
    to_json_schema,
)
from taskplan.model.plan import TaskType, validate_model


def enum(*values, slot=None, nullable=False, null_slot=None):
    return make("string", enum=values, enum_slot=slot, nullable=nullable, null_slot=null_slot)


def const(value, slot=None):
    return make("string", const=value, enum_slot=slot)


# ----------------------------------------------------------------------- fits


@pytest.mark.parametrize(
    "produced, required",
    [
        (STRING, STRING),
        (INTEGER, NUMBER),
        (INTEGER, INTEGER),
        (BOOLEAN, BOOLEAN),
        (STRING, ANY),
        (ANY, ANY),
        (NULL, STRING.with_nullable()),
        (STRING, STRING.with_nullable()),
        (enum("a", "b"), enum("a", "b", "c")),
        (const("a"), enum("a", "b")),
        (const("a"), const("a")),
        (enum("a"), STRING),
        (array_of(INTEGER), array_of(NUMBER)),
        (array_of(STRING), array_of(ANY)),
        (array_of(STRING), make("array")),
        (object_of([Field("a", STRING), Field("b", INTEGER)]), object_of([Field("a", STRING)], closed=False)),
        (object_of([Field("a", STRING)]), object_of([Field("a", STRING), Field("b", INTEGER, required=False)])),
    ],
)
def test_fits(produced, required):
    assert fits(produced, required) is None


def test_number_does_not_fit_integer():
    m = fits(NUMBER, INTEGER)
    assert m is not None and m.reason == "kind"
    assert m.explain() == "expected integer, got number"


def test_any_fits_no_typed_port():
    m = fits(ANY, STRING)
    assert m is not None and m.reason == "opaque"


def test_null_needs_a_nullable_port():
    assert fits(NULL, STRING).reason == "null"


def test_nullable_producer_names_its_null_slot():
    slot = Slot("cat.yaml", "/sources/0/operations/0/output/properties/body/type/1")
    produced = make("string", nullable=True, null_slot=slot, origin=Slot("cat.yaml", "/x"))
    m = fits(produced, STRING)
    assert m.reason == "nullable"
    assert m.produced_slot == slot
    assert "may be null" in m.explain()


def test_enum_outside_names_the_producer_enum_slot_and_values():
    slot = Slot("cat.yaml", "/a/enum")
    required_slot = Slot("cat.yaml", "/b/enum")
    m = fits(enum("a", "x", "y", slot=slot), enum("a", "b", slot=required_slot))
    assert m.reason == "enum"
    assert m.values == ("x", "y")
    assert m.produced_slot == slot and m.required_slot == required_slot
    assert m.explain() == 'expected string enum [a, b], got string enum [a, x, y]: "x", "y" not in the enum'


def test_unrestricted_string_does_not_fit_an_enum():
    m = fits(STRING, enum("a"))
    assert m.reason == "enum" and m.values == ()


def test_literal_const_outside_the_enum():
    m = fits(const("c", slot=Slot("plan.yaml", "/root/tasks/0/outputs/0/value")), enum("a", "b"))
    assert m.reason == "enum" and m.values == ("c",)
    assert m.produced_slot == Slot("plan.yaml", "/root/tasks/0/outputs/0/value")


def test_kind_is_checked_before_nullability():
    assert fits(make("string", nullable=True), INTEGER).reason == "kind"


def test_object_missing_required_field():
    required = object_of([Field("a", STRING), Field("b", INTEGER, slot=Slot("c", "/b"))])
    m = fits(object_of([Field("a", STRING)]), required)
    assert m.reason == "missing_field" and m.field == "b" and m.required_slot == Slot("c", "/b")


def test_object_optional_field_for_a_required_one():
    m = fits(object_of([Field("a", STRING, required=False)]), object_of([Field("a", STRING)]))
    assert m.reason == "optional_field" and m.field == "a"


def test_object_optional_field_of_r_is_still_typed():
    m = fits(object_of([Field("a", INTEGER)]), object_of([Field("a", STRING, required=False)]))
    assert m.reason == "kind" and m.path == ("a",)


def test_closed_object_rejects_extra_declared_field():
    m = fits(object_of([Field("a", STRING), Field("z", STRING)]), object_of([Field("a", STRING)], closed=True))
    assert m.reason == "extra_field" and m.field == "z"


def test_closed_object_rejects_an_open_one():
    """An open object (a tool's result without `additionalProperties: false`) may carry
    any other field: its value would not fit a closed port at run time (semantic oracle,
    finding 3), even when it declares no field the port lacks."""
    m = fits(object_of([Field("a", STRING)], closed=False), object_of([Field("a", STRING)], closed=True))
    assert m.reason == "open_object" and "may carry fields" in m.explain()
    assert fits(object_of([Field("a", STRING)], closed=True), object_of([Field("a", STRING)], closed=True)) is None
    assert fits(object_of([Field("a", STRING)], closed=False), object_of([Field("a", STRING)], closed=False)) is None


def test_nested_path_in_arrays_and_objects():
    inner_p = object_of([Field("n", STRING)])
    inner_r = object_of([Field("n", INTEGER)])
    m = fits(array_of(inner_p), array_of(inner_r))
    assert m.path == ("[]", "n")
    assert m.where == "[].n"
    assert m.explain().startswith("at `[].n`: expected integer, got string")


def test_non_string_kind_with_enum_never_sets_enum():
    assert make("integer", enum=["a"]).enum is None


# ----------------------------------------------------------------------- join


def test_join_consts_to_enum_union():
    assert join(const("a"), const("b")) == enum("a", "b")
    assert join(const("a"), const("a")) == const("a")
    assert join(enum("a", "b"), enum("b", "c")) == enum("a", "b", "c")


def test_join_with_unrestricted_string_is_plain_string():
    assert join(const("a"), STRING) == STRING
    assert join(STRING, enum("x")) == STRING


def test_join_numbers_and_nullability():
    assert join(INTEGER, NUMBER) == NUMBER
    assert join(INTEGER, INTEGER) == INTEGER
    assert join(NULL, INTEGER) == INTEGER.with_nullable()
    assert join(make("string", nullable=True), STRING).nullable


def test_join_mismatched_kinds():
    assert join(STRING, INTEGER) is None
    assert join(ANY, STRING) is None
    assert join(ANY, ANY) == ANY
    assert join_all([STRING, INTEGER]) is None
    assert join_all([]) is None


def test_join_objects_field_by_field():
    a = object_of([Field("x", const("a")), Field("y", INTEGER)])
    b = object_of([Field("x", const("b")), Field("z", BOOLEAN)])
    j = join(a, b)
    assert j.get_field("x").type == enum("a", "b") and j.get_field("x").required
    assert not j.get_field("y").required and not j.get_field("z").required


def test_join_arrays_widen_items():
    assert join(array_of(INTEGER), array_of(NUMBER)) == array_of(NUMBER)
    assert join(array_of(INTEGER), array_of(STRING)) == array_of(ANY)


# ------------------------------------------------------------------- describe


@pytest.mark.parametrize(
    "t, text",
    [
        (STRING, "string"),
        (enum("a", "b"), "string enum [a, b]"),
        (enum("New York"), 'string enum ["New York"]'),
        (const("x"), 'string "x"'),
        (INTEGER.with_nullable(), "nullable integer"),
        (array_of(INTEGER), "array of integer"),
        (make("array"), "array of any"),
        (object_of([Field("a", STRING), Field("b", NUMBER, required=False)]), "object {a: string, b?: number}"),
        (object_of([Field("a", STRING)], closed=False), "object {a: string, ...}"),
        (make("object"), "object"),
        (object_of([]), "object {}"),
        (ANY, "any"),
        (NULL, "null"),
    ],
)
def test_describe(t, text):
    assert describe(t) == text
    assert str(t) == text


def test_describe_is_bounded():
    deep = STRING
    for _ in range(20):
        deep = array_of(deep)
    assert len(describe(deep)) < 80
    wide = object_of([Field(f"f{i}", STRING) for i in range(50)])
    assert "... 42 more" in describe(wide)


# -------------------------------------------------------------- to_json_schema


def test_to_json_schema():
    t = object_of([Field("a", enum("x", "y", nullable=True)), Field("b", array_of(INTEGER), required=False)])
    assert to_json_schema(t) == {
        "type": "object",
        "properties": {
            "a": {"type": ["string", "null"], "enum": ["x", "y", None]},
            "b": {"type": "array", "items": {"type": "integer"}},
        },
        "required": ["a"],
        "additionalProperties": False,
    }
    assert to_json_schema(ANY) == {}
    assert to_json_schema(const("k")) == {"type": "string", "const": "k"}


# --------------------------------------------------------------- constructors


def test_literal_type():
    t = literal_type({"a": "x", "n": 3, "f": 1.5, "i": 2.0, "b": True, "z": None, "l": [1, 2.5]})
    assert describe(t) == 'object {a: string "x", n: integer, f: number, i: integer, b: boolean, z: null, l: array of number}'
    assert literal_type([]) == array_of(NEVER)
    assert describe(literal_type([])) == "empty array"
    assert literal_type(["a", None]).items == const("a").with_nullable()
    assert literal_type([1, "a"]).items == ANY


def test_from_task_type_points_into_the_plan():
    t = validate_model(
        TaskType,
        {
            "kind": "object",
            "fields": [
                {"name": "tone", "type": {"kind": "string", "enum": ["formal", "friendly"], "nullable": True}},
                {"name": "ids", "type": {"kind": "array", "items": {"kind": "integer"}}, "required": False},
            ],
        }
    )
    b = from_task_type(t, "plan.yaml", "/inputs/0/type")
    assert describe(b) == "object {tone: nullable string enum [formal, friendly], ids?: array of integer}"
    tone = b.get_field("tone")
    assert tone.slot == Slot("plan.yaml", "/inputs/0/type/fields/0")
    assert tone.type.enum_slot == Slot("plan.yaml", "/inputs/0/type/fields/0/type/enum")
    assert tone.type.null_slot == Slot("plan.yaml", "/inputs/0/type/fields/0/type/nullable")
    assert b.closed


@pytest.mark.parametrize(
    "raw",
    [
        {"kind": "strin"},
        {"kind": "integer", "enum": ["a"]},
        {"kind": "array"},
        {"kind": "string", "items": {"kind": "string"}},
        {"kind": "array", "items": {"kind": "nope"}},
    ],
)
def test_from_task_type_malformed_is_unknown(raw):
    assert from_task_type(validate_model(TaskType, raw), "p", "") is None


def test_from_task_type_placeholder_is_unknown():
    assert from_task_type(object(), "p", "") is None


def test_slots_do_not_take_part_in_equality():
    a = make("string", origin=Slot("a", "/x"))
    b = make("string", origin=Slot("b", "/y"))
    assert a == b and hash(a) == hash(b)


def test_the_empty_array_fits_every_array_and_joins_with_any_array():
    empty = literal_type([])
    assert fits(empty, array_of(STRING)) is None
    assert fits(empty, array_of(object_of([Field("a", STRING)]))) is None
    assert fits(empty, STRING).reason == "kind"
    assert join(empty, literal_type(["a"])) == array_of(const("a"))
    assert join(literal_type([1]), empty) == array_of(INTEGER)
    assert to_json_schema(empty) == {"type": "array", "maxItems": 0}
