"""JSON Schema -> business types (catalog.md; taskplan.md, Types).

`schema_type(schema, file, pointer)` converts one embedded schema (one schema
resource: local `$ref`s resolve against it) to a `BType` whose slots point into
the file the schema was written in.

The rules (docs/decisions.md, Catalog):

- `type`: one kind; a list with `"null"` is that kind, nullable; `integer` and
  `number` together are number; any other list of several kinds is `any`.
- `enum`/`const` of strings on a string (or untyped) schema: a string enum or a
  string const. Non-string enums keep their JSON kind without the enum
  (business enums are strings only); an untyped enum of mixed kinds is `any`.
  `null` inside an enum makes the type nullable.
- `anyOf`/`oneOf` of one schema and `null`: that schema, nullable; of one
  schema: that schema; anything else: `any`. When the node has its own `type`,
  its `anyOf`/`oneOf` branches only narrow it (validation enforces them) and the
  node's own keywords give the type.
- `allOf` of exactly one schema on an untyped node is that schema; otherwise
  `allOf`, `not`, `if`/`then`/`else` are not business types and are ignored
  (the node's own `type` decides; without one it is `any`).
- `items`: the element type; a tuple (`prefixItems`, draft-07 `items: [..]`)
  is array of any. `properties`/`required`: declared fields, in order; a
  required name without a property is a required field of type any;
  `additionalProperties: false` (or `unevaluatedProperties: false`) closes it.
- `$ref`: local (`#`, `#/json/pointer`) only; a reference back into a schema
  being converted (recursion) is `any` at the recursion point; an unresolvable
  or remote one is `any` (the loader reports it as CATALOG_SCHEMA_INVALID).
- Patterns, bounds, formats, defaults: not business types; ignored here, kept
  in the schema and enforced when the effective request is validated.
- No exact business type: `any`. Depth beyond 128 nested schemas and work
  beyond a fixed budget per schema also give `any` (never a crash, always linear).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any
from urllib.parse import unquote

from taskplan.model.btype import BType, Field, Slot, make
from taskplan.source import pointer as jp

MAX_DEPTH = 128
"""Deepest nesting of schemas (through $refs included) converted before `any`."""
WORK_BUDGET = 200_000
"""Most schema nodes converted for one schema resource before the rest is `any`."""

JSON_KINDS = frozenset(("string", "number", "integer", "boolean", "object", "array", "null"))

# Keywords whose value is a schema, a list of schemas or a map of schemas
# (draft-07 and 2020-12); used to walk every subschema of a schema.
_SCHEMA_KEYWORDS = frozenset(
    (
        "additionalItems",
        "additionalProperties",
        "contains",
        "contentSchema",
        "else",
        "if",
        "items",
        "not",
        "propertyNames",
        "then",
        "unevaluatedItems",
        "unevaluatedProperties",
    )
)
_SCHEMA_LIST_KEYWORDS = frozenset(("allOf", "anyOf", "oneOf", "prefixItems", "items"))
_SCHEMA_MAP_KEYWORDS = frozenset(("$defs", "definitions", "dependentSchemas", "patternProperties", "properties"))


def iter_subschemas(schema: Any, pointer: str = "") -> Iterator[tuple[Any, str]]:
    """Every schema position inside `schema` (itself first), with its pointer:
    document order, depth first, iterative (no recursion limit)."""
    for node, ptr, _ in iter_subschemas_depth(schema, pointer):
        yield node, ptr


def iter_subschemas_depth(schema: Any, pointer: str = "") -> Iterator[tuple[Any, str, int]]:
    """As `iter_subschemas`, with each subschema's nesting depth (the schema itself: 0)."""
    stack: list[tuple[Any, str, int]] = [(schema, pointer, 0)]
    while stack:
        node, ptr, depth = stack.pop()
        yield node, ptr, depth
        if not isinstance(node, dict):
            continue
        children: list[tuple[Any, str, int]] = []
        below = depth + 1
        for key, value in node.items():
            kp = jp.join(ptr, key)
            if key in _SCHEMA_MAP_KEYWORDS and isinstance(value, dict):
                children.extend((v, jp.join(kp, k), below) for k, v in value.items())
            elif key in _SCHEMA_LIST_KEYWORDS and isinstance(value, list):
                children.extend((v, jp.join(kp, i), below) for i, v in enumerate(value))
            elif key in _SCHEMA_KEYWORDS and isinstance(value, (dict, bool)):
                children.append((value, kp, below))
            elif key == "dependencies" and isinstance(value, dict):  # draft-07: schema or list of names
                children.extend(
                    (v, jp.join(kp, k), below) for k, v in value.items() if isinstance(v, (dict, bool))
                )
        stack.extend(reversed(children))


def resolve_ref(root: Any, ref: str) -> tuple[Any, str] | None:
    """Resolve a local `$ref` (`#` or `#/json/pointer`, percent-encoded) against the
    schema resource `root`: (target, pointer relative to root), or None."""
    if not ref.startswith("#"):
        return None
    fragment = unquote(ref[1:])
    if fragment == "":
        return root, ""
    if not fragment.startswith("/"):
        return None  # a named anchor: not supported
    node = root
    for token in jp.split(fragment):
        if isinstance(node, dict):
            if token not in node:
                return None
            node = node[token]
        elif isinstance(node, list):
            if not token.isdigit() or int(token) >= len(node):
                return None
            node = node[int(token)]
        else:
            return None
    return node, fragment


def schema_type(schema: Any, file: str = "", pointer: str = "") -> BType:
    """The business type of `schema` (a schema resource written at `pointer` in `file`)."""
    return _Converter(schema, file, pointer).convert(schema, pointer, 0)


def shallow_type(schema: Any, file: str = "", pointer: str = "") -> BType:
    """The type of `schema` itself without converting what is below it: its kind,
    nullability, enum, and for an object its declared fields (names, required, slots)
    with `any` types. Cheap: what loading needs (ports for `fixed`, artifacts, search);
    `schema_type` gives the full type when a plan uses the operation."""
    return _Converter(schema, file, pointer, shallow=True).convert(schema, pointer, 0)


def property_pointer(schema: Any, base: str, name: str) -> str:
    """The pointer of property `name`'s schema in an object schema written at `base`
    (following a root `$ref`): where a port is declared."""
    node, ptr = schema, base
    for _ in range(MAX_DEPTH):
        if isinstance(node, dict) and isinstance(node.get("$ref"), str):
            target = resolve_ref(schema, node["$ref"])
            if target is None:
                break
            node, ptr = target[0], base + target[1]
            continue
        break
    if isinstance(node, dict) and isinstance(node.get("properties"), dict) and name in node["properties"]:
        return jp.join(ptr, "properties", name)
    return ptr


class _Converter:
    __slots__ = ("root", "file", "base", "stack", "memo", "cuts", "work", "shallow")

    def __init__(self, root: Any, file: str, base: str, shallow: bool = False):
        self.shallow = shallow
        self.root = root
        self.file = file
        self.base = base
        self.stack: list[str] = []
        self.memo: dict[str, BType] = {}
        self.cuts = 0
        self.work = 0

    def slot(self, pointer: str) -> Slot:
        return Slot(self.file, pointer)

    def convert(self, node: Any, ptr: str, depth: int) -> BType:
        self.work += 1
        origin = self.slot(ptr)
        if depth > MAX_DEPTH or self.work > WORK_BUDGET or not isinstance(node, dict):
            return make("any", origin=origin)
        description = node.get("description") if isinstance(node.get("description"), str) else None

        ref = node.get("$ref")
        if isinstance(ref, str):
            return self._ref(ref, depth, origin, description)

        kinds, nullable, null_slot = self._types(node, ptr)
        if kinds is None:  # no `type`: combinators, enum or const may still say
            combined = self._untyped(node, ptr, depth, origin, description)
            if combined is not None:
                return combined
            return make("any", origin=origin, description=description)
        if len(kinds) != 1:
            return make("any" if kinds else "null", origin=origin, description=description)
        kind = kinds[0]

        enum: list[str] | None = None
        const: str | None = None
        enum_slot: Slot | None = None
        if kind == "string":
            raw_enum = node.get("enum")
            if isinstance(raw_enum, list):
                strings = [v for v in raw_enum if isinstance(v, str)]
                if strings:
                    enum = strings
                    enum_slot = self.slot(jp.join(ptr, "enum"))
            raw_const = node.get("const")
            if isinstance(raw_const, str):
                const = raw_const
                enum_slot = self.slot(jp.join(ptr, "const"))

        items: BType | None = None
        fields: list[Field] = []
        closed = False
        if kind == "array":
            items = self._items(node, ptr, depth)
        elif kind == "object":
            fields, closed = self._fields(node, ptr, depth)
        return make(
            kind,
            nullable=nullable,
            enum=enum,
            const=const,
            items=items,
            fields=fields,
            closed=closed,
            origin=origin,
            enum_slot=enum_slot,
            null_slot=null_slot,
            description=description,
        )

    # ------------------------------------------------------------------ parts

    def _ref(self, ref: str, depth: int, origin: Slot, description: str | None) -> BType:
        target = resolve_ref(self.root, ref)
        if target is None:
            return make("any", origin=origin, description=description)
        node, rel = target
        key = rel
        if key in self.stack:  # recursion: any at the recursion point
            self.cuts += 1
            return make("any", origin=origin, description=description)
        cached = self.memo.get(key)
        if cached is not None:
            return cached
        cuts = self.cuts
        self.stack.append(key)
        try:
            result = self.convert(node, self.base + rel, depth + 1)
        finally:
            self.stack.pop()
        if self.cuts == cuts:
            self.memo[key] = result
        return result

    def _types(self, node: dict, ptr: str) -> tuple[list[str] | None, bool, Slot | None]:
        """(kinds without null, nullable, null slot) from `type`; kinds None when untyped."""
        raw = node.get("type")
        if isinstance(raw, str):
            if raw == "null":
                return [], True, self.slot(jp.join(ptr, "type"))
            return ([raw] if raw in JSON_KINDS else ["any", "any"]), False, None
        if isinstance(raw, list):
            kinds: list[str] = []
            nullable = False
            null_slot: Slot | None = None
            for i, k in enumerate(raw):
                if k == "null":
                    if not nullable:
                        nullable, null_slot = True, self.slot(jp.join(ptr, "type", i))
                elif isinstance(k, str) and k in JSON_KINDS:
                    if k not in kinds:
                        kinds.append(k)
                else:
                    return ["any", "any"], False, None
            if set(kinds) == {"integer", "number"}:
                kinds = ["number"]
            if not kinds and not nullable:
                return ["any", "any"], False, None  # `type: []`: invalid; the loader says so
            return kinds, nullable, null_slot
        return None, False, None

    def _untyped(self, node: dict, ptr: str, depth: int, origin: Slot, description: str | None) -> BType | None:
        any_of, one_of = node.get("anyOf"), node.get("oneOf")
        if isinstance(any_of, list) and isinstance(one_of, list):
            return None
        branches = any_of if isinstance(any_of, list) else one_of if isinstance(one_of, list) else None
        if branches is not None:
            key = "anyOf" if branches is any_of else "oneOf"
            real: list[int] = []
            nulls: list[int] = []
            for i, branch in enumerate(branches):
                (nulls if _is_null_schema(branch) else real).append(i)
            if len(real) != 1:
                if not real and nulls and not (key == "oneOf" and len(nulls) > 1):
                    return make("null", origin=origin)
                return None
            inner = self.convert(branches[real[0]], jp.join(ptr, key, real[0]), depth + 1)
            if inner.kind in ("any", "null"):  # the node itself is what a value must satisfy
                return None
            if key == "oneOf" and nulls and (len(nulls) > 1 or inner.nullable):
                # exactly one branch must match: null matches several, so it is excluded
                return inner.with_nullable(False)
            if nulls:
                inner = inner.with_nullable(True, self.slot(jp.join(ptr, key, nulls[0])))
            return inner
        all_of = node.get("allOf")
        if isinstance(all_of, list) and len(all_of) == 1:
            inner = self.convert(all_of[0], jp.join(ptr, "allOf", 0), depth + 1)
            return make("any", origin=origin, description=description) if inner.kind == "any" else inner
        if "enum" in node and isinstance(node["enum"], list):
            return _untyped_values(node["enum"], self.slot(jp.join(ptr, "enum")), origin, description, ptr, self)
        if "const" in node:
            value = node["const"]
            slot = self.slot(jp.join(ptr, "const"))
            if isinstance(value, str):
                return make("string", const=value, enum_slot=slot, origin=origin, description=description)
            kind = _scalar_kind(value)
            if kind is not None:
                return make(kind, origin=origin, description=description)
        return None

    def _items(self, node: dict, ptr: str, depth: int) -> BType | None:
        if "prefixItems" in node or self.shallow:
            return None
        items = node.get("items")
        if isinstance(items, (dict, bool)):
            return self.convert(items, jp.join(ptr, "items"), depth + 1)
        return None

    def _fields(self, node: dict, ptr: str, depth: int) -> tuple[list[Field], bool]:
        required_raw = node.get("required")
        required: dict[str, int] = {}
        if isinstance(required_raw, list):
            for i, name in enumerate(required_raw):
                if isinstance(name, str) and name not in required:
                    required[name] = i
        fields: list[Field] = []
        props = node.get("properties")
        declared: set[str] = set()
        if isinstance(props, dict):
            for name, sub in props.items():
                fp = jp.join(ptr, "properties", name)
                ft = make("any", origin=self.slot(fp)) if self.shallow else self.convert(sub, fp, depth + 1)
                fields.append(Field(name, ft, name in required, self.slot(fp)))
                declared.add(name)
        for name, i in required.items():
            if name not in declared:
                fields.append(Field(name, make("any"), True, self.slot(jp.join(ptr, "required", i))))
        closed = node.get("additionalProperties") is False or node.get("unevaluatedProperties") is False
        if isinstance(node.get("patternProperties"), dict) and node["patternProperties"]:
            closed = False
        return fields, closed


def _is_null_schema(branch: Any) -> bool:
    if not isinstance(branch, dict):
        return False
    if branch.get("type") == "null" or branch.get("type") == ["null"]:
        return True
    if "const" in branch and branch["const"] is None and "type" not in branch:
        return True
    enum = branch.get("enum")
    return isinstance(enum, list) and enum == [None] and "type" not in branch


def _scalar_kind(value: Any) -> str | None:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if math.isfinite(value) and value.is_integer() else "number"
    return None


def _untyped_values(
    values: list[Any], enum_slot: Slot, origin: Slot, description: str | None, ptr: str, conv: _Converter
) -> BType | None:
    """An enum without `type`: strings give a string enum; numbers, integers or
    booleans give that kind; `null` among them makes it nullable; mixed: None (any)."""
    nullable = False
    null_slot: Slot | None = None
    kinds: list[str] = []
    strings: list[str] = []
    for i, v in enumerate(values):
        if v is None:
            if not nullable:
                nullable, null_slot = True, conv.slot(jp.join(ptr, "enum", i))
            continue
        if isinstance(v, str):
            kind = "string"
            strings.append(v)
        else:
            kind = _scalar_kind(v)  # type: ignore[assignment]
            if kind is None:
                return None
        if kind not in kinds:
            kinds.append(kind)
    if set(kinds) == {"integer", "number"}:
        kinds = ["number"]
    if len(kinds) > 1:
        return None
    if not kinds:
        return make("null", origin=origin, description=description) if nullable else None
    if kinds[0] == "string":
        return make("string", nullable=nullable, enum=strings, enum_slot=enum_slot, null_slot=null_slot,
                    origin=origin, description=description)
    return make(kinds[0], nullable=nullable, null_slot=null_slot, origin=origin, description=description)
