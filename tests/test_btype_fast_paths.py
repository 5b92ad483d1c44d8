"""The fast constructors of taskplan.model.btype give exactly what the general path
(`make`, with its normalisation) gives: `plain`, `string_const`, `new_slot`, `array_of`,
`object_of`, `closed_object` and `from_task_type` (which builds its types without `make`).
Compared by `repr`, so that the slots (which take no part in equality) are compared too."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from taskplan.model import btype as bt
from taskplan.model.btype import Field, Slot, make
from taskplan.model.plan import TaskType, validate_model

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

SLOTS = st.one_of(st.none(), st.builds(Slot, st.just("plan.yaml"), st.sampled_from(["/a", "/b/0", ""])))
SCALARS = st.sampled_from(["string", "number", "integer", "boolean"])


@st.composite
def btypes(draw: Any) -> bt.BType:
    kind = draw(st.sampled_from(["string", "number", "integer", "boolean", "null", "any", "object", "array"]))
    if kind == "array":
        return make("array", items=draw(st.one_of(st.none(), st.builds(make, SCALARS))), origin=draw(SLOTS))
    if kind == "object":
        fields = [Field(n, make("string")) for n in draw(st.lists(st.sampled_from("abc"), max_size=3))]
        return make("object", fields=fields, closed=draw(st.booleans()), origin=draw(SLOTS))
    return make(kind, nullable=draw(st.booleans()), origin=draw(SLOTS))


@SETTINGS
@given(SCALARS, SLOTS)
def test_plain_is_make(kind: str, origin: Slot | None) -> None:
    assert repr(bt.plain(kind, origin)) == repr(make(kind, origin=origin))
    assert repr(bt.plain(kind, origin)) == repr(bt.scalar(kind, origin))
    assert bt.plain(kind, origin)._index is None


@SETTINGS
@given(st.text(max_size=5), SLOTS)
def test_string_const_is_make(text: str, origin: Slot | None) -> None:
    expected = make("string", const=text, origin=origin, enum_slot=origin)
    assert repr(bt.string_const(text, origin)) == repr(expected)
    assert bt.string_const(text, origin) == expected and bt.string_const(text, origin)._index is None


@SETTINGS
@given(st.text(max_size=5), st.text(max_size=5))
def test_new_slot_is_slot(file: str, pointer: str) -> None:
    made = bt.new_slot(file, pointer)
    assert type(made) is Slot and made == Slot(file, pointer) and (made.file, made.pointer) == (file, pointer)


@SETTINGS
@given(st.one_of(st.none(), btypes()), SLOTS)
def test_array_of_is_make(items: bt.BType | None, origin: Slot | None) -> None:
    assert repr(bt.array_of(items, origin=origin)) == repr(make("array", items=items, origin=origin))
    assert repr(bt.array_of(items)) == repr(make("array", items=items))
    assert repr(bt.array_of(items, nullable=True)) == repr(make("array", items=items, nullable=True))


@SETTINGS
@given(st.lists(btypes(), max_size=3), st.booleans(), SLOTS)
def test_object_of_is_make(types: list[bt.BType], closed: bool, origin: Slot | None) -> None:
    fields = [bt.new_field(f"f{i}", t) for i, t in enumerate(types)]
    expected = make("object", fields=fields, closed=closed, origin=origin)
    assert repr(bt.object_of(fields, closed=closed, origin=origin)) == repr(expected)
    assert repr(bt.object_of(iter(fields), closed=closed, origin=origin)) == repr(expected)
    assert repr(bt.object_of(fields)) == repr(make("object", fields=fields, closed=True))
    closed_expected = make("object", fields=fields, closed=True, origin=origin)
    assert repr(bt.closed_object(fields, origin)) == repr(closed_expected)
    assert repr(bt.closed_object(iter(fields), origin)) == repr(closed_expected)
    assert repr(bt.closed_object(fields)) == repr(make("object", fields=fields, closed=True))
    assert bt.closed_object(fields)._index is None


# ------------------------------------------------------------- from_task_type


def _reference(t: Any, file: str, pointer: str, depth: int = 0) -> bt.BType | None:
    """from_task_type through `make` (the implementation before its fast path)."""
    if not isinstance(t, TaskType) or depth > 128:
        return None
    kind = t.kind
    if kind not in bt.KINDS or kind in ("null", "never"):
        return None
    origin = Slot(file, pointer)
    null_slot = Slot(file, pointer + "/nullable") if t.nullable else None
    if kind == "any":
        return make("any", origin=origin, description=t.description)
    if t.enum is not None and kind != "string":
        return None
    items = None
    fields: list[Field] = []
    if kind == "array":
        items = _reference(t.items, file, pointer + "/items", depth + 1)
        if items is None:
            return None
    elif t.items is not None:
        return None
    if kind == "object":
        for i, f in enumerate(t.fields):
            fp = f"{pointer}/fields/{i}"
            ft = _reference(getattr(f, "type", None), file, fp + "/type", depth + 1)
            if ft is None:
                return None
            fields.append(Field(f.name, ft, bool(f.required), Slot(file, fp)))
    elif t.fields:
        return None
    return make(
        kind,
        nullable=bool(t.nullable),
        enum=t.enum,
        items=items,
        fields=fields,
        closed=True,
        origin=origin,
        enum_slot=Slot(file, pointer + "/enum") if t.enum is not None else None,
        null_slot=null_slot,
        description=t.description,
    )


TYPE_KINDS = st.sampled_from(["string", "number", "integer", "boolean", "object", "array", "any", "null", "never", "bogus"])


@st.composite
def task_types(draw: Any, depth: int = 0) -> dict[str, Any]:
    node: dict[str, Any] = {"kind": draw(TYPE_KINDS)}
    if draw(st.booleans()):
        node["nullable"] = draw(st.booleans())
    if draw(st.integers(0, 3)) == 0:
        node["enum"] = draw(st.lists(st.sampled_from(["a", "b", "a", "c"]), min_size=1, max_size=4))
    if draw(st.integers(0, 3)) == 0:
        node["description"] = "d"
    if depth < 3 and (node["kind"] == "array" or draw(st.integers(0, 9)) == 0):
        node["items"] = draw(task_types(depth + 1))
    if depth < 3 and (node["kind"] == "object" or draw(st.integers(0, 9)) == 0):
        names = draw(st.lists(st.sampled_from(["a", "b", "c"]), max_size=3))
        fields = []
        for n in names:
            field: dict[str, Any] = {"name": n, "type": draw(task_types(depth + 1))}
            if draw(st.booleans()):
                field["required"] = draw(st.booleans())
            fields.append(field)
        node["fields"] = fields
    return node


@SETTINGS
@given(task_types())
def test_from_task_type_is_the_make_path(raw: dict[str, Any]) -> None:
    t = validate_model(TaskType, raw)
    assert repr(bt.from_task_type(t, "plan.yaml", "/inputs/0/type")) == repr(_reference(t, "plan.yaml", "/inputs/0/type"))


# ------------------------------------------------------------------ fits


@st.composite
def scalar_types(draw: Any) -> bt.BType:
    kind = draw(SCALARS)
    nullable = draw(st.booleans())
    if kind == "string" and draw(st.booleans()):
        if draw(st.booleans()):
            return make("string", nullable=nullable, const=draw(st.sampled_from("ab")), origin=draw(SLOTS))
        return make("string", nullable=nullable, enum=draw(st.lists(st.sampled_from("abc"), min_size=1)))
    return make(kind, nullable=nullable, null_slot=draw(SLOTS), origin=draw(SLOTS))


@SETTINGS
@given(scalar_types(), scalar_types())
def test_a_scalar_of_the_ports_kind_fits(produced: bt.BType, required: bt.BType) -> None:
    """The rule the types pass's clean operation calls apply without calling `fits`: a
    value of a port's scalar kind fits a port without an enum or const, unless it may be
    null where the port may not."""
    shortcut = (
        produced.kind == required.kind and required.kind in ("string", "number", "integer", "boolean")
        and required.const is None and required.enum is None and (required.nullable or not produced.nullable)
    )
    if shortcut:
        assert bt.fits(produced, required) is None


def test_join_of_a_plain_scalar_with_itself_is_itself() -> None:
    """`join(a, a)` returns `a` for a plain scalar (no enum, const or stray slots): what the
    general path rebuilds from it, slots included (checked against an equal copy, which
    takes the general path); any other type still takes the general path."""
    import dataclasses

    s, n = bt.new_slot("plan.yaml", "/a"), bt.new_slot("plan.yaml", "/a/nullable")
    plain = [
        bt.make(kind, origin=s, description=d, nullable=nullable, null_slot=n if nullable else None)
        for kind in ("string", "number", "integer", "boolean")
        for nullable in (False, True)
        for d in (None, "text")
    ] + [bt.plain("integer", s), bt.STRING, bt.scalar("boolean")]
    for t in plain:
        general = bt.join(t, dataclasses.replace(t))
        assert general is not t and repr(general) == repr(t)
        assert bt.join(t, t) is t
    others = [
        bt.string_const("x", s),
        bt.make("string", enum=["a", "b"], enum_slot=s),
        bt.array_of(bt.INTEGER, origin=s),
        bt.object_of([bt.new_field("a", bt.STRING)], closed=True),
        bt.ANY,
        bt.NULL,
        bt.NEVER,
        dataclasses.replace(bt.STRING, null_slot=s),  # a stray null slot: the general path drops it
    ]
    for t in others:
        assert repr(bt.join(t, t)) == repr(bt.join(t, dataclasses.replace(t)))
    assert bt.join(others[-1], others[-1]) is not others[-1]


def test_the_constructors_without_the_dataclass_call_give_the_dataclass_objects() -> None:
    """`_btype` and `new_field` set every slot that `BType(...)` and `Field(...)` set (a
    field added to a class must be added there too: an unset slot fails `getattr`), and
    the objects compare and hash as the constructors' do: by the compared fields only,
    as a frozen dataclass's would."""
    import dataclasses

    a, b = Slot("plan.yaml", "/a"), Slot("plan.yaml", "/b")
    inner = make("string")
    args = ("string", True, ("x", "y"), None, None, (), False, a, b, a, "text")
    built, expected = bt._btype(*args), bt.BType(*args)
    field_built, field_expected = bt.new_field("n", inner, False, b), Field("n", inner, False, b)
    for x, y in ((built, expected), (field_built, field_expected)):
        assert type(x) is type(y)
        for f in dataclasses.fields(y):
            assert getattr(x, f.name) == getattr(y, f.name), (type(y).__name__, f.name)
        assert x == y and hash(x) == hash(y) and repr(x) == repr(y)
    moved = bt._btype("string", True, ("x", "y"), None, None, (), False, b, None, None, None)  # slots differ
    assert moved == built and hash(moved) == hash(built)
    assert bt._btype("string", False, ("x", "y"), None, None, (), False, a, b, a, "text") != built
    assert bt.new_field("n", inner, True, b) != field_built
