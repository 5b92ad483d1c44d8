"""Business types: the compiler's type algebra (taskplan.md, Types).

A `BType` is an immutable value: a kind (string, number, integer, boolean,
object, array, null, any), nullability, a string `enum` or literal string
`const`, an element type for arrays, declared fields for objects and a
`closed` flag. Each type remembers where its slots were written (`Slot`: a
file and an RFC 6901 pointer): the node it came from, its `enum`/`const` and
the slot that made it nullable, so that a type error can point at the exact
producer slot that causes it. Slots never take part in equality.

Types come from JSON Schema (`taskplan.catalog.jsonschema_types`), from a
TaskPlan `TaskType` (`from_task_type`) and from literal JSON values
(`literal_type`). The algebra the types pass uses:

- `fits(produced, required)` -> None, or a `Mismatch` naming the reason, the
  path inside the value and the producer's and the requirement's slots;
- `join(a, b)` -> the widened common type (conditional outputs, array items),
  or None when the kinds do not match;
- `describe(t)` -> readable text (`string enum [a, b]`, `array of integer`,
  `object {a: string, b?: number}`);
- `to_json_schema(t)` -> a JSON Schema for the type.

Everything here is linear in the size of the types involved and never raises
on well-formed types.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

from taskplan.fastinit import maker
from taskplan.source.pointer import FIELD as _FIELD
from taskplan.source.pointer import SUFFIXES as _SUFFIXES

if TYPE_CHECKING:
    from taskplan.model.plan import TaskType

KINDS = ("string", "number", "integer", "boolean", "object", "array", "null", "any", "never")
"""Every BType kind. `null` is the type of the null literal; `any` is opaque; `never`
has no values: it is only the element type of an empty array literal (so that `[]`
fits every array port and joins with any array)."""


class Slot(NamedTuple):
    """Where a type (or one of its slots) was written: a document and a pointer into it."""

    file: str
    pointer: str


# BType and Field are immutable values that are not `frozen` dataclasses: nothing assigns a
# field of one once it is built (the constructors below are the only writers), and each is
# hashable by its compared fields exactly as a frozen one is (`unsafe_hash`). A frozen
# dataclass's guard (`__setattr__` raising) would make every construction store its fields
# through `object.__setattr__`, or fill a twin class and swap `__class__` (twice the work of
# making the object): the types pass builds a type for every literal of the plan.


@dataclass(slots=True, unsafe_hash=True)
class Field:
    """A declared field of an object type."""

    name: str
    type: "BType"
    required: bool = True
    slot: Slot | None = field(default=None, compare=False)
    """Where the field is declared (the property's schema, or the TaskInput)."""


@dataclass(slots=True, unsafe_hash=True)
class BType:
    """An immutable business type (never assigned once built). Build it with the constructors
    below or `dataclasses.replace`."""

    kind: str
    nullable: bool = False
    enum: tuple[str, ...] | None = None
    """string only: the values the string may take (in declaration order)."""
    const: str | None = None
    """string only: the literal value (a string literal, a schema `const`)."""
    items: "BType | None" = None
    """array only: the element type (`make` always sets one; None is read as `any`)."""
    fields: tuple[Field, ...] = ()
    """object only: the declared fields, in declaration order."""
    closed: bool = False
    """object only: no field other than the declared ones may be present."""
    origin: Slot | None = field(default=None, compare=False)
    """Where the type was written (a schema node, a TaskType, a value)."""
    enum_slot: Slot | None = field(default=None, compare=False)
    """Where its `enum` (or `const`) was written."""
    null_slot: Slot | None = field(default=None, compare=False)
    """The slot that makes it nullable (a `"null"` type entry, a null branch, `nullable: true`)."""
    description: str | None = field(default=None, compare=False)
    _index: dict[str, Field] | None = field(default=None, init=False, compare=False, repr=False)

    # ------------------------------------------------------------------ queries

    @property
    def is_any(self) -> bool:
        return self.kind == "any"

    def values(self) -> tuple[str, ...] | None:
        """The string values the type is restricted to (its const, or its enum); None: unrestricted."""
        if self.const is not None:
            return (self.const,)
        return self.enum

    def get_field(self, name: str) -> Field | None:
        """The declared field `name` (constant time after the first call)."""
        index = self._index
        if index is None:
            index = {}
            for f in self.fields:
                index.setdefault(f.name, f)
            self._index = index  # (the one field set after construction: a cache, not compared)
        return index.get(name)

    @property
    def required_fields(self) -> tuple[Field, ...]:
        return tuple(f for f in self.fields if f.required)

    def with_nullable(self, nullable: bool = True, slot: Slot | None = None) -> "BType":
        if self.kind in ("any", "null", "never") or self.nullable == nullable:
            return self
        return _btype(
            self.kind,
            nullable,
            self.enum,
            self.const,
            self.items,
            self.fields,
            self.closed,
            self.origin,
            self.enum_slot,
            slot if nullable else None,
            self.description,
        )

    def describe(self) -> str:
        return describe(self)

    def to_json_schema(self) -> dict[str, Any]:
        return to_json_schema(self)

    def __str__(self) -> str:
        return describe(self)


# Fast construction: the types pass builds a type for every literal of the plan, so
# `_btype`, `new_field`, `plain` and `string_const` set every slot of a new object directly
# (no dataclass __init__ call: its argument handling and frame); tests/test_btype_fast_paths.py
# holds them to the constructors.

_new = object.__new__


def _btype(
    kind: str,
    nullable: bool,
    enum: tuple[str, ...] | None,
    const: str | None,
    items: BType | None,
    fields: tuple[Field, ...],
    closed: bool,
    origin: Slot | None,
    enum_slot: Slot | None,
    null_slot: Slot | None,
    description: str | None,
) -> BType:
    """`BType(...)` with every field given, positionally (no normalisation: see `make`)."""
    t = _new(BType)
    t.kind = kind
    t.nullable = nullable
    t.enum = enum
    t.const = const
    t.items = items
    t.fields = fields
    t.closed = closed
    t.origin = origin
    t.enum_slot = enum_slot
    t.null_slot = null_slot
    t.description = description
    t._index = None
    return t


new_field = maker(Field, ("name", "type", "required", "slot"), """`Field(name, type, required=True, slot=None)`, built the fast way (see `_btype`).""")


ANY_ITEMS: "BType"


def make(
    kind: str,
    *,
    nullable: bool = False,
    enum: Iterable[str] | None = None,
    const: str | None = None,
    items: BType | None = None,
    fields: Iterable[Field] = (),
    closed: bool = False,
    origin: Slot | None = None,
    enum_slot: Slot | None = None,
    null_slot: Slot | None = None,
    description: str | None = None,
) -> BType:
    """Build a normalised BType: `any` is never nullable, `null` always is, an enum is
    deduplicated (first occurrence kept), restrictions only stay where they belong."""
    return made(kind, nullable, enum, const, items, fields, closed, origin, enum_slot, null_slot, description)


def made(
    kind: str,
    nullable: bool,
    enum: Iterable[str] | None,
    const: str | None,
    items: BType | None,
    fields: Iterable[Field],
    closed: bool,
    origin: Slot | None,
    enum_slot: Slot | None,
    null_slot: Slot | None,
    description: str | None,
) -> BType:
    """`make` with every argument given, positionally (keyword arguments cost the callers
    that build a type per schema node: the catalog's schema conversion)."""
    if kind not in _VALUED:  # (set lookups: `kind in KINDS` compares strings one by one)
        if kind not in _KIND_SET:
            raise ValueError(f"unknown business type kind {kind!r}")
        if kind == "null":
            return _btype("null", True, None, None, None, (), False, origin, None, null_slot or origin, description)
        return _btype(kind, False, None, None, None, (), False, origin, None, None, description)  # any, never
    enum_t: tuple[str, ...] | None = None
    if kind == "string":
        if enum is not None:
            enum_t = tuple(dict.fromkeys(enum))
        if const is not None and enum_t is not None and const not in enum_t:
            const = None  # contradictory: keep the enum (no value fits both; validation will say so)
    else:
        const = None
        enum_slot = None
    return _btype(
        kind,
        nullable,
        enum_t,
        const,
        (items if items is not None else ANY_ITEMS) if kind == "array" else None,
        tuple(fields) if kind == "object" else (),
        closed if kind == "object" else False,
        origin,
        enum_slot if (enum_t is not None or const is not None) else None,
        null_slot if nullable else None,
        description,
    )


def scalar(kind: str, origin: Slot | None = None) -> BType:
    """`make(kind, origin=origin)` for `string`, `number`, `integer`, `boolean` or `null`
    (the types of literals and of computed values), without the general checks."""
    if kind == "null":
        return _btype("null", True, None, None, None, (), False, origin, None, origin, None)
    if kind not in SCALAR_KINDS:
        return make(kind, origin=origin)
    return _btype(kind, False, None, None, None, (), False, origin, None, None, None)


def plain(kind: str, origin: Slot | None = None) -> BType:
    """`scalar(kind, origin)` for `string`, `number`, `integer` or `boolean` (the types of
    most literals and computed values): `_btype`'s work without its call."""
    t = _new(BType)
    t.kind = kind
    t.nullable = False
    t.enum = t.const = t.items = t.enum_slot = t.null_slot = t.description = t._index = None
    t.fields = ()
    t.closed = False
    t.origin = origin
    return t


def string_const(text: str, origin: Slot | None = None) -> BType:
    """The type of a string literal: `make("string", const=text, origin=origin, enum_slot=origin)`."""
    t = _new(BType)
    t.kind = "string"
    t.nullable = False
    t.const = text
    t.enum = t.items = t.null_slot = t.description = t._index = None
    t.fields = ()
    t.closed = False
    t.origin = t.enum_slot = origin
    return t


def new_slot(file: str, pointer: str) -> Slot:
    """`Slot(file, pointer)` without the Python-level `__new__` of a NamedTuple (the types
    pass makes one per literal of the plan)."""
    return _tuple_new(Slot, (file, pointer))


_tuple_new = tuple.__new__


SCALAR_KINDS = frozenset({"string", "number", "integer", "boolean"})
_VALUED = SCALAR_KINDS | {"object", "array"}
"""The kinds `make` keeps nullability and restrictions of (not null, any, never)."""
_KIND_SET = frozenset(KINDS)

ANY = BType("any")
ANY_ITEMS = ANY
NEVER = BType("never")
NULL = BType("null", True)
STRING = BType("string")
NUMBER = BType("number")
INTEGER = BType("integer")
BOOLEAN = BType("boolean")


def array_of(items: BType | None, *, origin: Slot | None = None, **kw: Any) -> BType:
    if not kw:  # (what `make` builds for a plain array: the types pass makes one per array value)
        return _btype("array", False, None, None, items if items is not None else ANY_ITEMS, (), False, origin, None, None, None)
    return make("array", items=items, origin=origin, **kw)


def object_of(fields: Iterable[Field], *, closed: bool = True, origin: Slot | None = None, **kw: Any) -> BType:
    if not kw:  # (what `make` builds for a plain object: the types pass makes one per object value and task)
        return _btype("object", False, None, None, None, tuple(fields), closed, origin, None, None, None)
    return make("object", fields=fields, closed=closed, origin=origin, **kw)


def closed_object(fields: Iterable[Field], origin: Slot | None = None) -> BType:
    """`object_of(fields, closed=True, origin=origin)`, positionally: the type of an object
    value, and a task's whole result (the types pass makes one per task; a keyword argument
    and `object_of`'s `**kw` cost about half as much again as the object)."""
    return _btype("object", False, None, None, None, tuple(fields), True, origin, None, None, None)


# ----------------------------------------------------------------------- fits


REASONS = (
    "opaque",  # the produced value is `any`: it fits no typed port
    "null",  # the produced value is null, the port is not nullable
    "kind",  # the kinds differ
    "nullable",  # the produced type is nullable, the required is not
    "enum",  # the produced strings are not (all) inside the required enum
    "missing_field",  # a required field of R is not declared by P
    "optional_field",  # a required field of R is optional in P
    "extra_field",  # R is closed and P declares a field R does not have
    "open_object",  # R is closed and P is not: its value may carry fields R refuses
)


@dataclass(frozen=True, slots=True)
class Mismatch:
    """Why a produced type does not fit a required one.

    `path` locates the mismatch inside the value: field names, and `[]` for the
    items of an array (empty: the value itself). `produced` and `required` are the
    types at that path; `produced_slot` is the exact producer slot that causes the
    mismatch where there is one (its enum/const for `enum`, its nullable slot for
    `nullable`, the field's declaration for field reasons), else the producer's
    node; `required_slot` likewise on the required side.
    """

    reason: str
    path: tuple[str, ...]
    produced: BType
    required: BType
    produced_slot: Slot | None = None
    required_slot: Slot | None = None
    field: str | None = None
    """The field concerned by missing_field / optional_field / extra_field."""
    values: tuple[str, ...] = ()
    """For `enum`: the produced values outside the required enum (empty: unrestricted)."""

    @property
    def where(self) -> str:
        """`` (`a.b[]`) `` style text for the path, '' for the value itself."""
        if not self.path:
            return ""
        text = ""
        for part in self.path:
            text += "[]" if part == "[]" else (f".{part}" if text else part)
        return text

    def explain(self) -> str:
        """One readable sentence: why it does not fit (the caller adds who and where)."""
        produced, required = describe(self.produced), describe(self.required)
        prefix = f"at `{self.where}`: " if self.path else ""
        if self.reason == "opaque":
            text = f"{produced} is opaque and fits no typed port (expected {required})"
        elif self.reason == "null":
            text = f"null does not fit {required}: it is not nullable"
        elif self.reason == "kind":
            text = f"expected {required}, got {produced}"
        elif self.reason == "nullable":
            text = f"expected {required}, got {produced}: the value may be null"
        elif self.reason == "enum":
            if self.values:
                listed = ", ".join(_quote(v) for v in self.values)
                text = f"expected {required}, got {produced}: {listed} not in the enum"
            else:
                text = f"expected {required}, got {produced}: any string may come"
        elif self.reason == "missing_field":
            text = f"expected {required}, got {produced}: required field `{self.field}` is missing"
        elif self.reason == "optional_field":
            text = f"expected {required}, got {produced}: field `{self.field}` is required but may be absent"
        elif self.reason == "extra_field":
            text = f"expected {required}, got {produced}: field `{self.field}` is not allowed"
        elif self.reason == "open_object":
            text = f"expected {required}, got {produced}: it may carry fields the port does not allow"
        else:  # pragma: no cover - every reason is listed above
            text = f"expected {required}, got {produced}"
        return prefix + text


def fits(produced: BType, required: BType, _path: tuple[str, ...] = ()) -> Mismatch | None:
    """Does a value of type `produced` fit a port of type `required` (taskplan.md, Types)?

    R is `any`; or the kinds match (integer fits number); P is not nullable unless R
    is; when R has an enum (or a const), P's enum or literal const lies inside it;
    objects: every required field of R exists in P, is required there, and fits,
    every optional field of R that P declares fits, and when R is closed P is closed
    and declares no other field; arrays: the items fit. Returns the first mismatch, depth first
    in declaration order (deterministic). (`_path`: where a nested call is, inside the value.)"""
    p, r, path = produced, required, _path
    pk, rk = p.kind, r.kind
    if rk == "any" or pk == "never":
        return None
    if pk == "any":
        return Mismatch("opaque", path, p, r, p.origin, r.origin)
    if pk == "null":
        if r.nullable:
            return None
        return Mismatch("null", path, p, r, p.origin, r.origin)
    if not (pk == rk or (pk == "integer" and rk == "number")):
        return Mismatch("kind", path, p, r, p.origin, r.origin)
    if p.nullable and not r.nullable:
        return Mismatch("nullable", path, p, r, p.null_slot or p.origin, r.origin)
    required_values = (r.const,) if r.const is not None else r.enum  # (r.values())
    if required_values is not None:
        produced_values = p.values()
        if produced_values is None:
            return Mismatch("enum", path, p, r, p.origin, r.enum_slot or r.origin)
        allowed = set(required_values)
        outside = tuple(v for v in produced_values if v not in allowed)
        if outside:
            return Mismatch("enum", path, p, r, p.enum_slot or p.origin, r.enum_slot or r.origin, values=outside)
    if rk == "object":
        for rf in r.fields:
            pf = p.get_field(rf.name)
            if pf is None:
                if rf.required:
                    return Mismatch(
                        "missing_field", path, p, r, p.origin, rf.slot or r.origin, field=rf.name
                    )
                continue
            if rf.required and not pf.required:
                return Mismatch(
                    "optional_field", path, p, r, pf.slot or p.origin, rf.slot or r.origin, field=rf.name
                )
            m = fits(pf.type, rf.type, path + (rf.name,))
            if m is not None:
                return m
        if r.closed:
            for pf in p.fields:
                if r.get_field(pf.name) is None:
                    return Mismatch("extra_field", path, p, r, pf.slot or p.origin, r.origin, field=pf.name)
            if not p.closed:  # an open object's value may hold any other field
                return Mismatch("open_object", path, p, r, p.origin, r.origin)
    elif rk == "array":
        return fits(p.items or ANY, r.items or ANY, path + ("[]",))
    return None


# ----------------------------------------------------------------------- join


def join(a: BType, b: BType) -> BType | None:
    """The common type of two values that may each flow into one slot (the two sides of
    a conditional, the items of an array literal).

    The kinds must match after widening, else None: integer and number join to
    number; null joins anything to its nullable form; `any` only joins `any`.
    Consts and enums widen to their union, or to plain string when one side is
    unrestricted. The result is nullable when either side is. Objects join field by
    field (a field on one side only, or optional on one side, becomes optional;
    closed only when both are); arrays join their items. Below the top level,
    fields and items whose kinds do not match widen to `any`."""
    if (
        a is b and a.kind in SCALAR_KINDS and a.enum is None and a.const is None and a.enum_slot is None
        and a.items is None and not a.fields and not a.closed and (a.nullable or a.null_slot is None)
    ):
        return a  # a plain scalar with itself (the two sides read one port): what `make` rebuilds below
    if a.kind == "never":
        return b
    if b.kind == "never":
        return a
    if a.kind == "null" and b.kind == "null":
        return a
    if a.kind == "null":
        return b.with_nullable(True, a.null_slot or a.origin) if b.kind != "any" else b
    if b.kind == "null":
        return a.with_nullable(True, b.null_slot or b.origin) if a.kind != "any" else a
    if a.kind == "any" or b.kind == "any":
        return ANY if a.kind == b.kind else None
    if a.kind == b.kind:
        kind = a.kind
    elif {a.kind, b.kind} == {"integer", "number"}:
        kind = "number"
    else:
        return None
    nullable = a.nullable or b.nullable
    null_slot = (a.null_slot if a.nullable else None) or (b.null_slot if b.nullable else None)
    origin = a.origin if a.origin == b.origin else None
    description = a.description if a.description == b.description else None
    if kind == "string":
        va, vb = a.values(), b.values()
        if va is None or vb is None:
            return make("string", nullable=nullable, null_slot=null_slot, origin=origin, description=description)
        if a.const is not None and a.const == b.const:
            return make(
                "string", nullable=nullable, const=a.const, enum_slot=a.enum_slot, null_slot=null_slot,
                origin=origin, description=description,
            )
        union = tuple(dict.fromkeys(va + vb))
        enum_slot = a.enum_slot if (a.enum is not None and a.enum == union) else (
            b.enum_slot if (b.enum is not None and b.enum == union) else None
        )
        return make(
            "string", nullable=nullable, enum=union, enum_slot=enum_slot, null_slot=null_slot,
            origin=origin, description=description,
        )
    if kind == "array":
        items = _join_inner(a.items or ANY, b.items or ANY)
        return make("array", nullable=nullable, items=items, null_slot=null_slot, origin=origin,
                    description=description)
    if kind == "object":
        fields: list[Field] = []
        for fa in a.fields:
            fb = b.get_field(fa.name)
            if fb is None:
                fields.append(new_field(fa.name, fa.type, False, fa.slot))
            else:
                fields.append(new_field(fa.name, _join_inner(fa.type, fb.type), fa.required and fb.required,
                                        fa.slot if fa.slot == fb.slot else None))
        for fb in b.fields:
            if a.get_field(fb.name) is None:
                fields.append(new_field(fb.name, fb.type, False, fb.slot))
        return make("object", nullable=nullable, fields=fields, closed=a.closed and b.closed,
                    null_slot=null_slot, origin=origin, description=description)
    return make(kind, nullable=nullable, null_slot=null_slot, origin=origin, description=description)


def _join_inner(a: BType, b: BType) -> BType:
    joined = join(a, b)
    return ANY if joined is None else joined


def join_all(types: Iterable[BType]) -> BType | None:
    """The join of several types (None for none, or when two kinds do not match)."""
    result: BType | None = None
    for t in types:
        if result is None:
            result = t
        else:
            result = join(result, t)
            if result is None:
                return None
    return result


# ------------------------------------------------------------------- describe

_DESCRIBE_DEPTH = 3
_DESCRIBE_FIELDS = 8
_DESCRIBE_VALUES = 10


def _quote(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def _enum_text(values: tuple[str, ...]) -> str:
    shown = [v if _plain(v) else _quote(v) for v in values[:_DESCRIBE_VALUES]]
    if len(values) > _DESCRIBE_VALUES:
        shown.append(f"... {len(values) - _DESCRIBE_VALUES} more")
    return "[" + ", ".join(shown) + "]"


def _plain(value: str) -> bool:
    return bool(value) and all(c.isalnum() or c in "_-./:" for c in value)


def describe(t: BType, _depth: int = 0) -> str:
    """Readable type text for messages: `string`, `string enum [a, b]`, `string "x"`,
    `nullable integer`, `array of integer`, `object {a: string, b?: number}`, `any`."""
    if t.kind == "any":
        return "any"
    if t.kind == "null":
        return "null"
    if t.kind == "never":
        return "nothing"
    prefix = "nullable " if t.nullable else ""
    if t.kind == "string":
        if t.const is not None:
            return f"{prefix}string {_quote(t.const)}"
        if t.enum is not None:
            return f"{prefix}string enum {_enum_text(t.enum)}"
        return prefix + "string"
    if t.kind == "array":
        items = t.items or ANY
        if items.kind == "never":
            return prefix + "empty array"
        if _depth >= _DESCRIBE_DEPTH:
            return prefix + "array of ..."
        return f"{prefix}array of {describe(items, _depth + 1)}"
    if t.kind == "object":
        if not t.fields:
            return prefix + ("object {}" if t.closed else "object")
        if _depth >= _DESCRIBE_DEPTH:
            return prefix + "object {...}"
        parts = []
        for f in t.fields[:_DESCRIBE_FIELDS]:
            name = f.name if _plain(f.name) else _quote(f.name)
            parts.append(f"{name}{'' if f.required else '?'}: {describe(f.type, _depth + 1)}")
        if len(t.fields) > _DESCRIBE_FIELDS:
            parts.append(f"... {len(t.fields) - _DESCRIBE_FIELDS} more")
        if not t.closed:
            parts.append("...")
        return prefix + "object {" + ", ".join(parts) + "}"
    return prefix + t.kind


# ----------------------------------------------------------------- to schema


def to_json_schema(t: BType, nested: Callable[[BType], dict[str, Any]] | None = None) -> dict[str, Any]:
    """A JSON Schema (2020-12 vocabulary, no `$schema`) whose instances are the values
    of `t`. `any` is `{}`; a nullable enum or const lists null among its values.
    `nested` makes the schemas of its item and field types (default: this function):
    lowering passes one that makes each type's schema once."""
    nested = nested or to_json_schema
    out: dict[str, Any] = {}
    if t.kind == "any":
        pass
    elif t.kind == "never":
        out["not"] = {}
    elif t.kind == "null":
        out["type"] = "null"
    else:
        out["type"] = [t.kind, "null"] if t.nullable else t.kind
        values = t.values()
        if values is not None:
            if t.const is not None and not t.nullable:
                out["const"] = t.const
            else:
                out["enum"] = list(values) + ([None] if t.nullable else [])
        if t.kind == "array":
            if t.items is not None and t.items.kind == "never":
                out["maxItems"] = 0
            else:
                out["items"] = nested(t.items or ANY)
        elif t.kind == "object":
            if t.fields:
                out["properties"] = {f.name: nested(f.type) for f in t.fields}
                required = [f.name for f in t.fields if f.required]
                if required:
                    out["required"] = required
            if t.closed:
                out["additionalProperties"] = False
    if t.description:
        out["description"] = t.description
    return out


# ---------------------------------------------------------------- constructors


def literal_type(value: Any, origin: Slot | None = None) -> BType:
    """The type of a literal JSON value: a string literal carries its `const`; an
    integral number is integer; an object is closed with every member required; an
    array has its items' joined type (`any` when empty or mixed). Slots below the
    value's own are not tracked (they have no pointer of their own here). An empty
    array is an array of `never`: it fits every array port (docs/decisions.md)."""
    if value is None:
        return make("null", origin=origin)
    if isinstance(value, bool):
        return make("boolean", origin=origin)
    if isinstance(value, str):
        return make("string", const=value, origin=origin, enum_slot=origin)
    if isinstance(value, int):
        return make("integer", origin=origin)
    if isinstance(value, float):
        if math.isfinite(value) and value.is_integer():
            return make("integer", origin=origin)
        return make("number", origin=origin)
    if isinstance(value, Mapping):
        return make(
            "object",
            fields=[Field(str(k), literal_type(v)) for k, v in value.items()],
            closed=True,
            origin=origin,
        )
    if isinstance(value, (list, tuple)):
        if not value:
            return make("array", items=NEVER, origin=origin)
        items = join_all(literal_type(v) for v in value)
        return make("array", items=items, origin=origin)
    return make("any", origin=origin)


def from_task_type(t: "TaskType | Any", file: str, pointer: str) -> BType | None:
    """The BType of a TaskPlan `TaskType` written at `pointer` in `file`.

    Slots point into the plan: the type node, its `enum` and its `nullable`. Object
    types are closed (a TaskPlan object type declares every field it has). Returns None when the type (or a type
    inside it) is malformed or an `InvalidType` placeholder: the structure pass
    reports that, and values of it are not checked (no cascades)."""
    global _TaskType
    if _TaskType is None:  # (imported once: an import statement per call costs)
        from taskplan.model.plan import TaskType

        _TaskType = TaskType
    return _from_task_type(t, file, pointer, 0, _TaskType)


_TaskType: Any = None


_MAX_TYPE_DEPTH = 128
_DECLARABLE = frozenset(KINDS) - {"null", "never"}
"""The kinds a TaskType may declare."""


def _from_task_type(t: Any, file: str, pointer: str, depth: int, task_type: type) -> BType | None:
    """`from_task_type` below `depth` (`task_type`: the TaskType class, imported once).
    Builds what `make` would from the node's fields, without its general checks: a
    declared type is already in the normal form `make` gives (see the comments)."""
    if not isinstance(t, task_type) or depth > _MAX_TYPE_DEPTH:
        return None
    kind = t.kind
    if kind not in _DECLARABLE:  # (a set: `in KINDS` compares strings one by one)
        return None
    origin = _tuple_new(Slot, (file, pointer))  # (new_slot)
    if kind == "any":  # never nullable, no restrictions
        return _btype("any", False, None, None, None, (), False, origin, None, None, t.description)
    enum = t.enum
    if enum is not None:
        if kind != "string":
            return None
        enum = tuple(dict.fromkeys(enum))  # deduplicated, first occurrence kept
    items: BType | None = None
    fields: tuple[Field, ...] = ()
    if kind == "array":
        items = _from_task_type(t.items, file, pointer + "/items", depth + 1, task_type)  # required there
        if items is None:
            return None
    elif t.items is not None:
        return None
    if kind == "object":
        found: list[Field] = []
        for i, f in enumerate(t.fields):
            fp = pointer + (_FIELD[i] if i < _SUFFIXES else f"/fields/{i}")
            ft = _from_task_type(getattr(f, "type", None), file, fp + "/type", depth + 1, task_type)
            if ft is None:
                return None
            found.append(new_field(f.name, ft, bool(f.required), _tuple_new(Slot, (file, fp))))
        fields = tuple(found)
    elif t.fields:
        return None
    nullable = bool(t.nullable)
    return _btype(
        kind,
        nullable,
        enum,
        None,  # no const
        items,
        fields,
        kind == "object",  # closed: an object type declares every field it has
        origin,
        new_slot(file, pointer + "/enum") if enum is not None else None,
        new_slot(file, pointer + "/nullable") if nullable else None,
        t.description,
    )
