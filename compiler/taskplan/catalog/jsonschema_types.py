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
  `null` inside an enum makes the type nullable. An `enum`/`const` applies with the
  keywords beside it: the type is that of its values the rest admits (a `type` list
  with `"null"` is nullable only when null is listed; beside an untyped
  `anyOf`/`oneOf`/`allOf`, the values that combinator's type admits).
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
  `additionalProperties: false` closes it, and so does `unevaluatedProperties: false`
  unless an applicator beside it (`allOf`, `anyOf`, `oneOf`, `if`, `$ref`,
  `dependentSchemas`, ...) may evaluate more properties.
- `$ref`: local (`#`, `#/json/pointer`) only. In 2019-09 and later (the default)
  the keywords beside it apply too, as `allOf: [target, rest]`: the rest, typed as
  the target, met with it (unsatisfiable: the target's type); draft-07 and older
  ignore them. A reference back into a schema
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

from taskplan.model.btype import BType, Field, Slot, fits, literal_type, made, make, new_field
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
_ANNOTATIONS = frozenset(
    (
        "$anchor", "$comment", "$defs", "$dynamicAnchor", "$id", "$schema", "$vocabulary", "definitions",
        "default", "deprecated", "description", "examples", "readOnly", "title", "writeOnly",
    )
)
"""Keywords that never narrow a schema: beside a `$ref` they leave its type alone."""
_OLD_DRAFTS = frozenset(
    "json-schema.org/draft-0%d/schema" % n for n in (3, 4, 6, 7)
)
"""Dialects in which a `$ref` ignores the keywords beside it."""
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


def siblings_apply(root: Any) -> bool:
    """Whether keywords beside a `$ref` apply (2019-09 and later, the default) in the
    schema resource `root`, rather than being ignored (draft-07 and older)."""
    uri = root.get("$schema") if isinstance(root, dict) else None
    if not isinstance(uri, str):
        return True
    uri = uri.strip().lower()
    for prefix in ("https://", "http://"):
        if uri.startswith(prefix):
            uri = uri[len(prefix):]
    return uri.rstrip("#").rstrip("/") not in _OLD_DRAFTS


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
    (following a root `$ref`; 2019-09 and later: beside it first): where a port is declared."""
    node, ptr = schema, base
    siblings = siblings_apply(schema)
    for _ in range(MAX_DEPTH):
        if isinstance(node, dict) and isinstance(node.get("$ref"), str):
            props = node.get("properties")
            if siblings and isinstance(props, dict) and name in props:  # declared beside the `$ref`
                return jp.join(ptr, "properties", name)
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
    __slots__ = ("root", "file", "base", "stack", "memo", "cuts", "work", "shallow", "siblings")

    def __init__(self, root: Any, file: str, base: str, shallow: bool = False):
        self.shallow = shallow
        self.root = root
        self.siblings = siblings_apply(root)
        self.file = file
        self.base = base
        self.stack: list[str] = []
        self.memo: dict[str, BType] = {}
        self.cuts = 0
        self.work = 0

    def slot(self, pointer: str) -> Slot:
        return _tuple_new(Slot, (self.file, pointer))  # (btype.new_slot)

    def convert(self, node: Any, ptr: str, depth: int, origin: Slot | None = None) -> BType:
        """The type of `node`, written at `ptr` (`origin`: that slot, when the caller has it)."""
        # (Paid once per schema node of every operation a compile calls: the slots built
        # inline, the commonest `type` read here, the type by the positional `made`, and no
        # variable captured by a comprehension, which would make every call build cells.)
        self.work += 1
        if origin is None:
            origin = _tuple_new(Slot, (self.file, ptr))
        if depth > MAX_DEPTH or self.work > WORK_BUDGET or not isinstance(node, dict):
            return make("any", origin=origin)
        description = node.get("description")
        if description is not None and not isinstance(description, str):
            description = None

        ref = node.get("$ref")
        if isinstance(ref, str):
            target = self._ref(ref, depth, origin, description)
            if self.siblings and any(k not in _ANNOTATIONS and k != "$ref" for k in node):
                return self._ref_with_siblings(node, ptr, depth, target, origin, description)
            return target

        raw = node.get("type")
        if type(raw) is str and raw != "null":  # (`_types` of one kind)
            kinds, nullable, null_slot = ([raw] if raw in JSON_KINDS else ["any", "any"]), False, None
        else:
            kinds, nullable, null_slot = self._types(node, ptr)
        if kinds is None:  # no `type`: combinators, enum or const may still say
            combined = self._untyped(node, ptr, depth, origin, description)
            if combined is not None:
                return combined
            return make("any", origin=origin, description=description)
        listed = _listed(node) if nullable or len(kinds) > 1 else None
        if listed is not None:  # enum/const apply with `type`: only the values of its kinds
            found, nullable, null_slot = self._typed_values(listed, kinds, nullable, null_slot, ptr, origin, description)
            if found is not None:
                return found
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
                    enum_slot = _tuple_new(Slot, (self.file, ptr + "/enum"))
            raw_const = node.get("const")
            if isinstance(raw_const, str):
                const = raw_const
                enum_slot = _tuple_new(Slot, (self.file, ptr + "/const"))

        items: BType | None = None
        fields: list[Field] = []
        closed = False
        if kind == "array":
            items = self._items(node, ptr, depth)
        elif kind == "object":
            fields, closed = self._fields(node, ptr, depth)
        return made(kind, nullable, enum, const, items, fields, closed, origin, enum_slot, null_slot, description)

    # ------------------------------------------------------------------ parts

    def _typed_values(
        self,
        listed: tuple[str, list[tuple[Any, int | None]]],
        kinds: list[str],
        nullable: bool,
        null_slot: Slot | None,
        ptr: str,
        origin: Slot,
        description: str | None,
    ) -> tuple[BType | None, bool, Slot | None]:
        """A node's `enum`/`const` (`listed`) beside its `type` (`kinds`, `nullable`): the
        node's type when they decide it, else None and the nullability they leave."""
        if len(kinds) > 1 and kinds != ["any", "any"]:
            admitted = [(v, i) for v, i in listed[1] if _kind_admits(kinds, nullable, v)]
            narrowed = _untyped_values(admitted, listed[0], ptr, origin, description, self)
            return (narrowed if narrowed is not None else make("any", origin=origin, description=description)), False, None
        if nullable and not any(v is None for v, _ in listed[1]):
            nullable, null_slot = False, None
        elif nullable and not any(v is not None and _kind_admits(kinds, False, v) for v, _ in listed[1]):
            return make("null", null_slot=null_slot, origin=origin, description=description), False, None
        return None, nullable, null_slot

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
        """A node without `type`: its combinators' type, narrowed by its `enum`/`const`
        (which apply together with them); None: `any`."""
        combined = self._combined(node, ptr, depth, origin, description)
        listed = _listed(node)
        if listed is None:
            return combined
        if combined is None and (isinstance(node.get("anyOf"), list) or isinstance(node.get("oneOf"), list)):
            return None  # branches without a business type: which listed values pass them is unknown
        key, values = listed
        if combined is not None and combined.kind != "any":
            values = [(v, i) for v, i in values if fits(literal_type(v), combined) is None]
        narrowed = _untyped_values(values, key, ptr, origin, description, self)
        return narrowed if narrowed is not None else combined

    def _combined(self, node: dict, ptr: str, depth: int, origin: Slot, description: str | None) -> BType | None:
        """The type an untyped node's `anyOf`/`oneOf`/`allOf` give; None: none (`any`)."""
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
        return None

    def _ref_with_siblings(
        self, node: dict, ptr: str, depth: int, target: BType, origin: Slot, description: str | None
    ) -> BType:
        """2019-09 and later: `{$ref: X, ...}` is `allOf: [X, {...}]`. The keywords beside
        the `$ref` are converted as a schema of the target's type (an untyped
        `properties` or `enum` there narrows the target), and the two types met."""
        if target.kind == "any":  # what the target admits is unknown: so is the conjunction
            return target
        # `unevaluatedProperties: false` beside the `$ref` admits what the target evaluates:
        # the rest alone is not closed over its own properties (the target's closedness stays).
        rest = {k: v for k, v in node.items() if k != "$ref" and (k != "unevaluatedProperties" or v is not False)}
        if "type" not in rest and target.kind != "never":
            kind = target.kind
            rest["type"] = kind if kind == "null" or not target.nullable else [kind, "null"]
        own = self.convert(rest, ptr, depth)
        met = self._meet(target, own)
        return target if met is None else met  # none fits both: the target's (validation says so)

    def _meet(self, a: BType, b: BType) -> BType | None:
        """The values of both `a` and `b`, as far as business types say (kinds,
        nullability, string values, fields, closedness); None: none fits both. Work
        beyond the budget gives `a` (what the `$ref` alone would give)."""
        if a is b or a.kind == "any" or b.kind == "any":  # `any` in `a`: what it admits is unknown
            return a
        self.work += 1
        if self.work > WORK_BUDGET:
            return a
        ak, bk = a.kind, b.kind
        if ak == "null" or bk == "null":
            if a.nullable and b.nullable:
                return a if ak == "null" else b
            return None
        if ak == bk:
            kind = ak
        elif {ak, bk} == {"integer", "number"}:
            kind = "integer"
        else:
            return None
        nullable = a.nullable and b.nullable
        enum: tuple[str, ...] | None = None
        const: str | None = None
        enum_slot: Slot | None = None
        if kind == "string":
            va, vb = a.values(), b.values()
            if va is not None and vb is not None:
                keep = set(vb)
                enum = tuple(v for v in va if v in keep)
                if not enum:
                    return None
                enum_slot = b.enum_slot if len(enum) == len(vb) else a.enum_slot
                if len(enum) == 1 and (a.const is not None or b.const is not None):
                    const, enum = enum[0], None
            elif va is not None or vb is not None:
                side = a if va is not None else b
                enum, const, enum_slot = side.enum, side.const, side.enum_slot
        items: BType | None = None
        fields: list[Field] = []
        closed = False
        if kind == "array":
            ai, bi = a.items or make("any"), b.items or make("any")
            items = self._meet(ai, bi) or ai
        elif kind == "object":
            for fa in a.fields:
                fb = b.get_field(fa.name)
                if fb is None:
                    if b.closed:
                        if fa.required:
                            return None
                        continue
                    fields.append(fa)
                    continue
                ft = self._meet(fa.type, fb.type)
                if ft is None:
                    if fa.required or fb.required:
                        return None
                    ft = fa.type  # present only if no value could be: validation says so
                fields.append(Field(fa.name, ft, fa.required or fb.required, fa.slot or fb.slot))
            for fb in b.fields:
                if a.get_field(fb.name) is None:
                    if a.closed:
                        if fb.required:
                            return None
                        continue
                    fields.append(fb)
            closed = a.closed or b.closed
        return make(
            kind,
            nullable=nullable,
            enum=enum,
            const=const,
            items=items,
            fields=fields,
            closed=closed,
            origin=b.origin,
            enum_slot=enum_slot,
            null_slot=a.null_slot if nullable else None,
            description=b.description or a.description,
        )

    def _items(self, node: dict, ptr: str, depth: int) -> BType | None:
        if "prefixItems" in node or self.shallow:
            return None
        items = node.get("items")
        if isinstance(items, (dict, bool)):
            return self.convert(items, ptr + "/items", depth + 1)
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
            base, file, shallow, convert = ptr + "/properties/", self.file, self.shallow, self.convert
            for name, sub in props.items():
                if type(name) is str and "~" not in name and "/" not in name:
                    fp = base + name
                else:
                    fp = jp.join(ptr, "properties", name)
                slot = _tuple_new(Slot, (file, fp))  # (the field's, and its schema's origin)
                ft = make("any", origin=slot) if shallow else convert(sub, fp, depth + 1, slot)
                fields.append(new_field(name, ft, name in required, slot))
                declared.add(name)
        for name, i in required.items():
            if name not in declared:
                fields.append(Field(name, make("any"), True, self.slot(jp.join(ptr, "required", i))))
        closed = node.get("additionalProperties") is False or (
            node.get("unevaluatedProperties") is False and "additionalProperties" not in node
            and not _EVALUATING_APPLICATORS.intersection(node)
        )
        if isinstance(node.get("patternProperties"), dict) and node["patternProperties"]:
            closed = False
        return fields, closed


_tuple_new = tuple.__new__

_EVALUATING_APPLICATORS = frozenset({
    "allOf", "anyOf", "oneOf", "if", "then", "else", "dependentSchemas", "$ref", "$dynamicRef", "$recursiveRef",
})
"""Keywords whose subschemas may evaluate properties beside a node's own `properties`:
`unevaluatedProperties: false` admits those too (draft 2020-12), so it does not close
the node over its own properties (`additionalProperties`, which sees only its siblings,
does)."""


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


def _listed(node: dict) -> tuple[str, list[tuple[Any, int | None]]] | None:
    """The values a node's `const` (with its `enum`, if any: the const when listed
    there) or `enum` allows, each with its index in the enum (None: the const), and
    the keyword they are read from; None: neither keyword (or an enum not a list)."""
    raw_enum = node.get("enum")
    if "const" in node:
        value = node["const"]
        if isinstance(raw_enum, list) and not any(_same(value, v) for v in raw_enum):
            return "const", []
        return "const", [(value, None)]
    if isinstance(raw_enum, list):
        return "enum", [(v, i) for i, v in enumerate(raw_enum)]
    return None


def _same(a: Any, b: Any) -> bool:
    """JSON equality of two scalars or containers (`true` is not `1`)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return type(a) is type(b) and a == b


def _kind_admits(kinds: list[str], nullable: bool, value: Any) -> bool:
    """Whether `type` (its kinds without null, and whether it allows null) admits `value`."""
    if value is None:
        return nullable
    if isinstance(value, list):
        return "array" in kinds
    if isinstance(value, dict):
        return "object" in kinds
    if isinstance(value, str):
        return "string" in kinds
    kind = _scalar_kind(value)
    if kind == "integer":
        return "integer" in kinds or "number" in kinds
    return kind in kinds


def _untyped_values(
    values: list[tuple[Any, int | None]], key: str, ptr: str, origin: Slot, description: str | None, conv: _Converter
) -> BType | None:
    """The type of the values an `enum` (or `const`: `key`) allows, each with its index
    in the enum: strings give a string enum (a `const` string: a string const); numbers,
    integers or booleans give that kind; `null` among them makes it nullable; mixed,
    other values, or none: None (any)."""
    nullable = False
    null_slot: Slot | None = None
    kinds: list[str] = []
    strings: list[str] = []
    for v, i in values:
        if v is None:
            if not nullable:
                nullable = True
                null_slot = conv.slot(jp.join(ptr, key) if i is None else jp.join(ptr, key, i))
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
        return make("null", null_slot=null_slot, origin=origin, description=description) if nullable else None
    if kinds[0] == "string":
        enum_slot = conv.slot(jp.join(ptr, key))
        if key == "const":
            return make("string", const=strings[0], enum_slot=enum_slot, origin=origin, description=description)
        return make("string", nullable=nullable, enum=strings, enum_slot=enum_slot, null_slot=null_slot,
                    origin=origin, description=description)
    return make(kinds[0], nullable=nullable, null_slot=null_slot, origin=origin, description=description)
