"""The TaskPlan language, version 1, as pydantic dataclasses (taskplan.md).

Closed objects (`extra="forbid"`), strict JSON types, tagged unions on `kind`.
Field names are the wire names (camelCase). The shape pass validates a
document tree into these models; it alone knows how a model error maps back
to a pointer.

The models are slotted pydantic dataclasses (`Node`): pydantic-core fills their
slots, and they carry neither a `__dict__` nor pydantic's set of the fields
written (a 10,000-task plan builds some 54,000 of them). Read their fields as
attributes; `model_fields(cls)` gives a class's fields (pydantic's `FieldInfo`s),
`validate_model(cls, data)` validates one.

The wire form
-------------
`null` anywhere means absent (except as a value's `kind`: YAML reads
`{kind: null}` as a null, and that is the null literal), and a field that belongs to another task or
value kind may be written empty (null, false, "", [], an all-empty mapping,
or that field's default): the validators below drop those before a node is
validated, so a wire-form document and the same document with its empty
fields left out validate to equal models. This happens whenever these models
validate, with or without the shape pass.

How a broken node is represented (read this before walking a shaped plan)
-------------------------------------------------------------------------
Under the shape pass (`taskplan.passes.shape`), a node whose own fields are in
error does not fail the whole plan. Instead:

- A task that cannot be built (unknown kind, a missing or mistyped `id`,
  `operation` or `group`) is an `InvalidTask` placeholder. It keeps its ID when
  that was a string; a task of known kind keeps its child scopes (`scopes_of`
  returns them), so the tasks nested in it are still checked; a task of unknown
  kind keeps none (it is not checked further).
- A task whose other fields are in error (an unknown field, an optional field of
  the wrong type, a field of another kind, a child scope with such an error) is
  a normal model with the offending fields left at their defaults, and
  `has_shape_error(task)` is True: its ports are unknown, and it is not
  type-checked further; its child scopes are checked as usual.
- A value or a type with any error in its own fields is an `InvalidValue` /
  `InvalidType` placeholder (its type is unknown; nothing inside it is checked).
  A value or type written where the document holds no object at all is such a
  placeholder too.
- Scopes, named values (`TaskOutput`), inputs, alternatives, groups, choices and
  the plan itself are normal models with their offending optional fields left at
  their defaults and `has_shape_error(...)` True. A required scope that is not an
  object (or missing) becomes an empty scope with a shape error, and its owner
  has a shape error too. A named value, input or alternative without a usable
  name/ID cannot be represented: the whole list holding it is left empty and its
  owner has a shape error, with the list's field name in `dropped_fields(owner)`
  (for the plan itself: `inputs`, `groups` or `choices`, so a later pass knows
  that a name it cannot find may have been declared there).

Later passes may mark further nodes as broken (`mark_broken`, e.g. the structure
pass on a conditional whose branch outputs do not match); `is_broken(node)` is
the one question a pass asks before reporting anything about a node's ports or
type: it covers placeholders, shape errors and later marks. The marks of a model
live in its `_marks` slot (None when it has none; not a field of the language: not
validated, not in the JSON Schema, not compared by `==`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Annotated, Any, Callable, Literal, TypeVar, Union

import pydantic.dataclasses
from pydantic import (
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    ValidationError,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    WrapValidator,
    model_validator,
)
from pydantic.fields import FieldInfo
from pydantic.json_schema import SkipJsonSchema
from pydantic_core import PydanticCustomError, PydanticUndefined

TASK_KINDS = (
    "operation",
    "transform",
    "value",
    "call",
    "sequence",
    "conditional",
    "parallel",
    "foreach",
)
VALUE_KINDS = (
    "null",
    "string",
    "number",
    "boolean",
    "object",
    "array",
    "input",
    "output",
    "choice",
    "item",
    "index",
    "present",
    "field",
    "json",
    "predicate",
)
TYPE_KINDS = ("string", "number", "integer", "boolean", "object", "array", "any")
PREDICATES = {
    "not": 1,
    "and": 2,
    "or": 2,
    "equal": 2,
    "not_equal": 2,
    "less": 2,
    "less_equal": 2,
    "greater": 2,
    "greater_equal": 2,
}
"""Predicate name -> arity."""

PLAN_NAME_PATTERN = r"^[a-z0-9][a-z0-9-]{0,62}$"
"""What a plan's `name` must match (PLAN_NAME_INVALID)."""


# ------------------------------------------------------------ shape recovery hooks


class ShapeRecovery:
    """The validation context of the shape pass (passed as pydantic `context`).

    The validators of this module call it when a node fails, instead of failing
    the whole plan; without it (plain `validate_model`) they raise as usual.
    `cache` maps id(raw node) -> the node's result, for nodes already recovered
    (so that re-validating an ancestor does not redo them); `seen` is True once
    any node failed (and only then are compound nodes settled)."""

    cache: dict[int, Any]
    seen: bool

    def __init__(self) -> None:
        self.cache = {}
        self.seen = False

    def recover(
        self,
        category: str,
        cls: type[Node],
        raw: dict,
        data: dict,
        error: ValidationError,
        validate: Callable[[Any], Any],
    ) -> Any:
        """`raw` (normalised as `data`) failed to validate as `cls`: record, salvage and
        return what stands for it (or raise PydanticCustomError('tp_recorded'))."""
        raise error

    def unknown_kind(self, category: str, raw: dict) -> Any:
        """A task or value whose `kind` is missing, not a string or unknown."""
        raise NotImplementedError

    def settle(self, node: Any) -> None:
        """A compound node validated after some error: inherit its scopes' shape errors."""


_EXPECTED = {
    "task": "a task object",
    "value": "a value object (`{kind: ..., ...}`)",
    "type": "a type object (`{kind: ...}`)",
    "scope": "a scope object (`{tasks: [...]}`)",
    "output": "a named value (`{name: ..., value: {...}}`)",
    "input": "an input object (`{name: ..., type: {...}}`)",
    "group": "a group object",
    "choice": "a choice object",
    "alternative": "an alternative object (`{id: ..., value: {...}}`)",
    "plan": "a TaskPlan object",
}


def _not_object(category: str) -> PydanticCustomError:
    return PydanticCustomError("tp_not_object", "expected {expected}", {"expected": _EXPECTED[category]})


def _strip_nulls(data: dict) -> dict:
    if None in data.values():  # a scan in C; `in` tests identity first
        return {k: v for k, v in data.items() if v is not None}
    return data


def _strip_type(data: dict) -> dict:
    data = _strip_nulls(data)
    if data.get("enum") == []:  # the wire form's "no enum"
        data = {k: v for k, v in data.items() if k != "enum"}
    return data


def _blank(item: Any) -> bool:
    """null, false, "", [], or a mapping of such: what a wire form writes for "nothing"."""
    if item is None or item is False:
        return True
    kind = type(item)
    if kind is str or kind is list:
        return not item
    if kind is dict:
        return all(_blank(v) for v in item.values())
    return False


def _normalize(data: dict, own: frozenset[str], other: dict[str, tuple]) -> dict:
    """Drop nulls and empty fields of other kinds (`other`: field -> its defaults)."""
    if own.issuperset(data) and None not in data.values():  # the common case, in C
        return data
    drop = None
    for key, item in data.items():
        if item is None:
            pass
        elif key in own:
            if key != "otherwise" or type(item) is not dict or not _blank(item):
                continue
        else:
            defaults = other.get(key)
            if defaults is None or not (
                _blank(item) or any(type(d) is type(item) and d == item for d in defaults)
            ):
                continue
        if drop is None:
            drop = []
        drop.append(key)
    if drop is None:
        return data
    return {k: v for k, v in data.items() if k not in drop}


def _context(info: ValidationInfo) -> ShapeRecovery | None:
    ctx = info.context
    return ctx if isinstance(ctx, ShapeRecovery) else None


def _validate_node(
    category: str, cls: type[Node], value: Any, handler: ValidatorFunctionWrapHandler, info: ValidationInfo
) -> Any:
    # (Each hook names its class: the `cls` pydantic binds a model validator to is the
    # class as written, not the slotted copy `slots=True` makes of it.)
    ctx = _context(info)
    if ctx is None:
        if type(value) is dict:
            value = _strip_type(value) if category == "type" else _strip_nulls(value)
        return handler(value)
    if ctx.cache:
        hit = ctx.cache.get(id(value))
        if hit is not None:
            return hit
    if type(value) is not dict:
        raise _not_object(category)
    data = _strip_type(value) if category == "type" else _strip_nulls(value)
    try:
        result = handler(data)
    except ValidationError as error:
        return ctx.recover(category, cls, value, data, error, handler)
    if ctx.seen and category == "group":
        ctx.settle(result)
    return result


_CONFIG = ConfigDict(extra="forbid", strict=True)

_model = pydantic.dataclasses.dataclass(slots=True, kw_only=True, config=_CONFIG)
"""The decorator of every model class (keyword-only: a field with a default may come
before one without, as the base classes' fields do)."""


@_model
class Node:
    """Every TaskPlan object: closed, strict JSON types, slotted."""

    # The node's marks (see "broken nodes" below): set to None by pydantic-core, never
    # taken from the input (a `_marks` key is an unknown field like any other).
    _marks: SkipJsonSchema[Any] = field(default=None, init=False, repr=False, compare=False)

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Callable[[Any], Any]) -> Any:
        # A strict config also makes a dataclass refuse a mapping (`dataclass_exact_type`):
        # the class's own schema is not strict, so that it validates a mapping (or takes an
        # instance as it is), while its fields keep the config's strict types.
        schema = handler(source)
        node = schema
        while node.get("type", "").startswith("function-"):  # the wrap hooks, outside
            node = node["schema"]
        if node.get("type") == "dataclass":
            node["strict"] = False
        return schema


_T = TypeVar("_T")


def validate_model(cls: type[_T], data: Any, *, context: Any = None) -> _T:
    """`data` validated as a `cls` (pydantic's `model_validate`)."""
    return cls.__pydantic_validator__.validate_python(data, context=context)  # type: ignore[attr-defined]


_FIELDS: dict[type, dict[str, FieldInfo]] = {}


def model_fields(cls: type) -> dict[str, FieldInfo]:
    """The fields of a model class, in order (pydantic's `model_fields`, without the marks)."""
    found = _FIELDS.get(cls)
    if found is None:
        found = _FIELDS[cls] = {k: v for k, v in cls.__pydantic_fields__.items() if k != "_marks"}  # type: ignore[attr-defined]
    return found


# --------------------------------------------------------------------------- types


@_model
class TaskType(Node):
    """A business type."""

    kind: str = Field(
        description="The type's kind: string | number | integer | boolean | object | array | any.",
        json_schema_extra={"enum": list(TYPE_KINDS)},
    )
    nullable: bool = Field(False, description="Whether null is also a value of this type.")
    enum: list[str] | None = Field(
        None, description="string only: the 1-256 distinct strings the value may take."
    )
    items: TaskType | None = Field(None, description="array only (required there): the element type.")
    fields: list[TaskInput] = Field(
        default_factory=list, description="object only: the object's fields."
    )
    description: str | None = Field(None, description="What the value means.")

    @model_validator(mode="wrap")
    @classmethod
    def _shape(cls, value: Any, handler: ValidatorFunctionWrapHandler, info: ValidationInfo) -> Any:
        return _validate_node("type", TaskType, value, handler, info)


@_model
class TaskInput(Node):
    """A declared input: of the workflow, of a group, or a field of an object type."""

    name: str = Field(description="The input's name: 1-64 ASCII letters, digits, _ or -.")
    type: TaskType = Field(description="The input's business type.")
    required: bool = Field(True, description="false: the input may be left out; it then needs a literal default.")
    default: TaskValue | None = Field(
        None, description="A literal value used when an optional input is left out."
    )
    description: str | None = Field(None, description="What the input means.")

    @model_validator(mode="wrap")
    @classmethod
    def _shape(cls, value: Any, handler: ValidatorFunctionWrapHandler, info: ValidationInfo) -> Any:
        return _validate_node("input", TaskInput, value, handler, info)


# -------------------------------------------------------------------------- values


@_model
class ValueBase(Node):
    kind: str


@_model
class NullValue(ValueBase):
    """The null literal."""

    kind: Literal["null"] = Field(description="The value's kind: `null`, the null literal.")


@_model
class StringValue(ValueBase):
    """A string literal; never evaluated, whatever it contains."""

    kind: Literal["string"] = Field(description="The value's kind: `string`, a string literal.")
    text: str = Field(description="The literal text.")


@_model
class NumberValue(ValueBase):
    """A number literal; integer when integral; within +-(2^53-1)."""

    kind: Literal["number"] = Field(description="The value's kind: `number`, a number literal.")
    number: int | Annotated[float, Field(allow_inf_nan=False)] = Field(
        description="The literal number (finite; within +-(2^53-1))."
    )


@_model
class BooleanValue(ValueBase):
    """A boolean literal."""

    kind: Literal["boolean"] = Field(description="The value's kind: `boolean`, a boolean literal.")
    boolean: bool = Field(description="The literal boolean.")


@_model
class ObjectValue(ValueBase):
    """A closed object assembled from named members."""

    kind: Literal["object"] = Field(description="The value's kind: `object`, an object of named members.")
    members: list[TaskOutput] = Field(default_factory=list, description="The object's members.")


@_model
class ArrayValue(ValueBase):
    """An array of values."""

    kind: Literal["array"] = Field(description="The value's kind: `array`, an array of values.")
    items: list[TaskValue] = Field(default_factory=list, description="The array's items.")


@_model
class InputValue(ValueBase):
    """Reads a workflow input (inside a group body: a group input)."""

    kind: Literal["input"] = Field(description="The value's kind: `input`, reads an input.")
    source: str = Field(description="The input's name.")


@_model
class OutputValue(ValueBase):
    """Reads a port of another task."""

    kind: Literal["output"] = Field(description="The value's kind: `output`, reads a port of another task.")
    source: str = Field(description="The task's ID.")
    port: str | None = Field(None, description="The port's name; null reads the whole result.")


@_model
class ChoiceValue(ValueBase):
    """Reads the value a planning choice selects."""

    kind: Literal["choice"] = Field(description="The value's kind: `choice`, reads a planning choice.")
    source: str = Field(description="The choice's ID.")


@_model
class ItemValue(ValueBase):
    """The current item of the nearest enclosing foreach."""

    kind: Literal["item"] = Field(description="The value's kind: `item`, the current foreach item.")


@_model
class IndexValue(ValueBase):
    """The current index (0-based) of the nearest enclosing foreach."""

    kind: Literal["index"] = Field(description="The value's kind: `index`, the current foreach index.")


@_model
class PresentValue(ValueBase):
    """Whether a task produced a non-null result."""

    kind: Literal["present"] = Field(
        description="The value's kind: `present`, whether a task produced a non-null result."
    )
    source: str = Field(description="The task's ID.")


@_model
class FieldValue(ValueBase):
    """Selects one declared field of an object value."""

    kind: Literal["field"] = Field(description="The value's kind: `field`, one field of an object value.")
    items: list[TaskValue] = Field(default_factory=list, description="Exactly one object value.")
    port: str = Field(description="The exact field name (never a dotted path).")


@_model
class JsonValue(ValueBase):
    """The deterministic JSON text of one value."""

    kind: Literal["json"] = Field(description="The value's kind: `json`, the JSON text of one value.")
    items: list[TaskValue] = Field(default_factory=list, description="Exactly one value.")


@_model
class PredicateValue(ValueBase):
    """A boolean computed from its operands."""

    kind: Literal["predicate"] = Field(description="The value's kind: `predicate`, a boolean test.")
    predicate: str = Field(
        description="not | and | or | equal | not_equal | less | less_equal | greater | greater_equal",
        json_schema_extra={"enum": list(PREDICATES)},
    )
    items: list[TaskValue] = Field(default_factory=list, description="The operands (one for not, two otherwise).")


def _value_tag(value: Any) -> str | None:
    if isinstance(value, dict):
        kind = value.get("kind")
        return kind if isinstance(kind, str) else None
    return getattr(value, "kind", None)


def _wrap_value(value: Any, handler: ValidatorFunctionWrapHandler, info: ValidationInfo) -> Any:
    ctx = _context(info)
    if ctx is not None and ctx.cache:
        hit = ctx.cache.get(id(value))
        if hit is not None:
            return hit
    if type(value) is not dict:
        if ctx is None:
            return handler(value)
        raise _not_object("value")
    kind = value.get("kind")
    if kind is None and "kind" in value:
        kind = "null"  # YAML's `{kind: null}` is the null literal, not an absent kind
    cls = _VALUE_CLASS.get(kind) if type(kind) is str else None
    if cls is None:
        if ctx is None:
            return handler(value)
        return ctx.unknown_kind("value", value)
    data = _normalize(value, _VALUE_OWN[kind], _VALUE_OTHER)
    if kind == "null" and data.get("kind") is None:
        data = {**data, "kind": "null"}
    validate = cls.__pydantic_validator__.validate_python
    try:
        return validate(data, context=info.context)
    except ValidationError as error:
        if ctx is None:
            raise
        return ctx.recover("value", cls, value, data, error, lambda d: validate(d, context=ctx))


TaskValue = Annotated[
    Union[
        Annotated[NullValue, Tag("null")],
        Annotated[StringValue, Tag("string")],
        Annotated[NumberValue, Tag("number")],
        Annotated[BooleanValue, Tag("boolean")],
        Annotated[ObjectValue, Tag("object")],
        Annotated[ArrayValue, Tag("array")],
        Annotated[InputValue, Tag("input")],
        Annotated[OutputValue, Tag("output")],
        Annotated[ChoiceValue, Tag("choice")],
        Annotated[ItemValue, Tag("item")],
        Annotated[IndexValue, Tag("index")],
        Annotated[PresentValue, Tag("present")],
        Annotated[FieldValue, Tag("field")],
        Annotated[JsonValue, Tag("json")],
        Annotated[PredicateValue, Tag("predicate")],
    ],
    Discriminator(_value_tag),
    WrapValidator(_wrap_value),
]


@_model
class TaskOutput(Node):
    """A named value: a binding, an output, an object member."""

    name: str = Field(description="The name: 1-64 ASCII letters, digits, _ or - (operation ports: as the schema names them).")
    value: TaskValue = Field(description="The value.")

    # No shape hook here (named values are the most numerous nodes): the node that
    # holds a list of them salvages it item by item (see the shape pass).


# --------------------------------------------------------------------------- tasks


@_model
class TaskScope(Node):
    """A scope: its tasks, its exports and its cleanup."""

    tasks: list[PlanTask] = Field(default_factory=list, description="The scope's work.")
    outputs: list[TaskOutput] = Field(
        default_factory=list, description="Exports: what the enclosing scope may read."
    )
    always: list[PlanTask] = Field(
        default_factory=list,
        description="Cleanup: runs after `tasks`, on success, failure or cancellation.",
    )

    @model_validator(mode="wrap")
    @classmethod
    def _shape(cls, value: Any, handler: ValidatorFunctionWrapHandler, info: ValidationInfo) -> Any:
        return _validate_node("scope", TaskScope, value, handler, info)


@_model
class TaskBase(Node):
    id: str = Field(description="The task's ID, unique in the plan: 1-64 ASCII letters, digits, _ or -, not starting with __.")
    kind: str
    objective: str | None = Field(None, description="What the task achieves: a non-blank sentence.")
    dependsOn: list[str] = Field(
        default_factory=list, description="IDs of tasks of the same scope that must run first."
    )


@_model
class OperationTask(TaskBase):
    """Calls a catalog operation."""

    kind: Literal["operation"] = Field("operation", description="The task's kind: `operation` (the default), calls a catalog operation.")
    operation: str = Field(description="The catalog operation ID, optionally pinned as ID@version.")
    inputs: list[TaskOutput] = Field(
        default_factory=list, description="Values bound to the operation's input ports."
    )


@_model
class TransformTask(TaskBase):
    """Interprets named inputs with a model into `resultType`."""

    kind: Literal["transform"] = Field(description="The task's kind: `transform`, interprets named inputs into `resultType`.")
    inputs: list[TaskOutput] = Field(default_factory=list, description="The named values to interpret.")
    resultType: TaskType = Field(description="A non-empty closed object type: the result.")


@_model
class ValueTask(TaskBase):
    """Copies or assembles data."""

    kind: Literal["value"] = Field(description="The task's kind: `value`, copies or assembles data.")
    outputs: list[TaskOutput] = Field(default_factory=list, description="The task's outputs.")


@_model
class CallTask(TaskBase):
    """Runs a group with its inputs bound."""

    kind: Literal["call"] = Field(description="The task's kind: `call`, runs a group.")
    group: str = Field(description="The group's ID.")
    inputs: list[TaskOutput] = Field(default_factory=list, description="Values bound to the group's inputs.")


@_model
class SequenceTask(TaskBase):
    """Runs a child scope."""

    kind: Literal["sequence"] = Field(description="The task's kind: `sequence`, runs a child scope.")
    body: TaskScope = Field(description="The child scope.")


@_model
class ConditionalTask(TaskBase):
    """Runs `body` when the condition holds, `otherwise` when it does not."""

    kind: Literal["conditional"] = Field(description="The task's kind: `conditional`, runs `body` or `otherwise`.")
    condition: TaskValue = Field(description="A boolean value.")
    body: TaskScope = Field(description="The scope run when the condition holds.")
    otherwise: TaskScope | None = Field(None, description="The scope run when it does not (absent: empty).")


@_model
class ParallelTask(TaskBase):
    """Runs its branches concurrently."""

    kind: Literal["parallel"] = Field(description="The task's kind: `parallel`, runs its branches concurrently.")
    branches: list[TaskScope] = Field(default_factory=list, description="At least two scopes.")
    maxConcurrency: int = Field(4, description="How many branches run at once: 1-100.")


@_model
class ForeachTask(TaskBase):
    """Runs its body once per item of an array."""

    kind: Literal["foreach"] = Field(description="The task's kind: `foreach`, runs its body once per item.")
    items: TaskValue = Field(description="An array value.")
    body: TaskScope = Field(description="The scope run per item.")
    parallel: bool = Field(False, description="Whether items run concurrently.")
    maxItems: int = Field(100, description="The most items allowed, checked before dispatch: 1-10000.")
    maxConcurrency: int = Field(4, description="How many items run at once: 1-100.")


def _task_tag(value: Any) -> str | None:
    if isinstance(value, dict):
        kind = value.get("kind")
        if kind is None:
            return "operation"
        return kind if isinstance(kind, str) else None
    return getattr(value, "kind", None)


def _wrap_task(value: Any, handler: ValidatorFunctionWrapHandler, info: ValidationInfo) -> Any:
    ctx = _context(info)
    if ctx is not None and ctx.cache:
        hit = ctx.cache.get(id(value))
        if hit is not None:
            return hit
    if type(value) is not dict:
        if ctx is None:
            return handler(value)
        raise _not_object("task")
    kind = value.get("kind")
    if kind is None:
        kind = "operation"
    cls = _TASK_CLASS.get(kind) if type(kind) is str else None
    if cls is None:
        if ctx is None:
            return handler(value)
        return ctx.unknown_kind("task", value)
    data = _normalize(value, _TASK_OWN[kind], _TASK_OTHER)
    validate = cls.__pydantic_validator__.validate_python
    try:
        result = validate(data, context=info.context)
    except ValidationError as error:
        if ctx is None:
            raise
        return ctx.recover("task", cls, value, data, error, lambda d: validate(d, context=ctx))
    if ctx is not None and ctx.seen:
        ctx.settle(result)
    return result


PlanTask = Annotated[
    Union[
        Annotated[OperationTask, Tag("operation")],
        Annotated[TransformTask, Tag("transform")],
        Annotated[ValueTask, Tag("value")],
        Annotated[CallTask, Tag("call")],
        Annotated[SequenceTask, Tag("sequence")],
        Annotated[ConditionalTask, Tag("conditional")],
        Annotated[ParallelTask, Tag("parallel")],
        Annotated[ForeachTask, Tag("foreach")],
    ],
    Discriminator(_task_tag),
    WrapValidator(_wrap_task),
]

# Fields by kind, for TASK_KIND_FIELD and the wire form.
TASK_COMMON_FIELDS = ("id", "kind", "objective", "dependsOn")
TASK_KIND_FIELDS: dict[str, tuple[str, ...]] = {
    "operation": ("operation", "inputs"),
    "transform": ("inputs", "resultType"),
    "value": ("outputs",),
    "call": ("group", "inputs"),
    "sequence": ("body",),
    "conditional": ("condition", "body", "otherwise"),
    "parallel": ("branches", "maxConcurrency"),
    "foreach": ("items", "body", "parallel", "maxItems", "maxConcurrency"),
}
VALUE_KIND_FIELDS: dict[str, tuple[str, ...]] = {
    "null": (),
    "string": ("text",),
    "number": ("number",),
    "boolean": ("boolean",),
    "object": ("members",),
    "array": ("items",),
    "input": ("source",),
    "output": ("source", "port"),
    "choice": ("source",),
    "item": (),
    "index": (),
    "present": ("source",),
    "field": ("items", "port"),
    "json": ("items",),
    "predicate": ("predicate", "items"),
}
TASK_CLASSES: dict[str, type[TaskBase]] = {
    "operation": OperationTask,
    "transform": TransformTask,
    "value": ValueTask,
    "call": CallTask,
    "sequence": SequenceTask,
    "conditional": ConditionalTask,
    "parallel": ParallelTask,
    "foreach": ForeachTask,
}
VALUE_CLASSES: dict[str, type[ValueBase]] = {
    "null": NullValue,
    "string": StringValue,
    "number": NumberValue,
    "boolean": BooleanValue,
    "object": ObjectValue,
    "array": ArrayValue,
    "input": InputValue,
    "output": OutputValue,
    "choice": ChoiceValue,
    "item": ItemValue,
    "index": IndexValue,
    "present": PresentValue,
    "field": FieldValue,
    "json": JsonValue,
    "predicate": PredicateValue,
}


# ------------------------------------------------------------- groups and choices


@_model
class TaskGroup(Node):
    """A reusable sub-plan, run by `call` tasks."""

    id: str = Field(description="The group's ID (same namespace as task IDs).")
    objective: str | None = Field(None, description="What the group achieves: a non-blank sentence.")
    inputs: list[TaskInput] = Field(default_factory=list, description="The group's inputs.")
    body: TaskScope = Field(description="The group's body; its outputs are the call's ports.")

    @model_validator(mode="wrap")
    @classmethod
    def _shape(cls, value: Any, handler: ValidatorFunctionWrapHandler, info: ValidationInfo) -> Any:
        return _validate_node("group", TaskGroup, value, handler, info)


@_model
class ChoiceAlternative(Node):
    """One alternative of a planning choice."""

    id: str = Field(description="The alternative's ID, unique within its choice.")
    description: str | None = Field(None, description="What choosing it means.")
    value: TaskValue = Field(description="A literal that fits the choice's type.")

    @model_validator(mode="wrap")
    @classmethod
    def _shape(cls, value: Any, handler: ValidatorFunctionWrapHandler, info: ValidationInfo) -> Any:
        return _validate_node("alternative", ChoiceAlternative, value, handler, info)


@_model
class PlanningChoice(Node):
    """A business value slot left for the host (a person, or auto mode) to decide."""

    id: str = Field(description="The choice's ID (same namespace as task IDs).")
    question: str | None = Field(None, description="The question put to the person: non-blank.")
    type: TaskType = Field(description="The type of the value the choice binds.")
    alternatives: list[ChoiceAlternative] = Field(
        default_factory=list, description="At least two alternatives."
    )
    recommended: str | None = Field(None, description="The recommended alternative's ID.")
    selected: str | None = Field(
        None, description="Host-owned: the selected alternative's ID, set by the person or auto mode."
    )

    @model_validator(mode="wrap")
    @classmethod
    def _shape(cls, value: Any, handler: ValidatorFunctionWrapHandler, info: ValidationInfo) -> Any:
        return _validate_node("choice", PlanningChoice, value, handler, info)


# ------------------------------------------------------------------------ document


@pydantic.dataclasses.dataclass(
    slots=True,
    kw_only=True,
    config=ConfigDict(_CONFIG, title="TaskPlan", json_schema_extra={"$comment": "TaskPlan language version 1"}),
)
class TaskPlan(Node):
    """A TaskPlan, version 1."""

    version: Literal[1] = Field(description="The language version: the integer 1.")
    name: str | None = Field(
        None,
        description="The plan's name, ^[a-z0-9][a-z0-9-]{0,62}$; default: the file name up to its first dot.",
        json_schema_extra={"pattern": PLAN_NAME_PATTERN},
    )
    request: str | None = Field(None, description="The user's request, kept for audit and approval.")
    inputs: list[TaskInput] = Field(default_factory=list, description="The workflow's inputs.")
    root: TaskScope = Field(description="The plan's top-level scope.")
    groups: list[TaskGroup] = Field(default_factory=list, description="Reusable sub-plans.")
    choices: list[PlanningChoice] = Field(default_factory=list, description="Planning choices.")

    @model_validator(mode="wrap")
    @classmethod
    def _shape(cls, value: Any, handler: ValidatorFunctionWrapHandler, info: ValidationInfo) -> Any:
        return _validate_node("plan", TaskPlan, value, handler, info)


for _cls in (
    TaskType,
    TaskInput,
    ObjectValue,
    ArrayValue,
    FieldValue,
    JsonValue,
    PredicateValue,
    TaskOutput,
    TaskScope,
    OperationTask,
    TransformTask,
    ValueTask,
    CallTask,
    SequenceTask,
    ConditionalTask,
    ParallelTask,
    ForeachTask,
    TaskGroup,
    ChoiceAlternative,
    PlanningChoice,
    TaskPlan,
):
    pydantic.dataclasses.rebuild_dataclass(_cls)


def _own_fields(classes: dict[str, type[Node]]) -> dict[str, frozenset[str]]:
    return {kind: frozenset(model_fields(cls)) for kind, cls in classes.items()}


def _other_defaults(classes: dict[str, type[Node]]) -> dict[str, tuple]:
    """field -> the defaults it has in the kinds that declare it (for "empty")."""
    out: dict[str, list] = {}
    for cls in classes.values():
        for name, info in model_fields(cls).items():
            if name == "kind":
                continue
            defaults = out.setdefault(name, [])
            if info.default_factory is not None:
                defaults.append(info.default_factory())  # type: ignore[call-arg]
            elif info.default is not PydanticUndefined:
                defaults.append(info.default)
    return {name: tuple(d) for name, d in out.items()}


_TASK_CLASS = TASK_CLASSES
_VALUE_CLASS = VALUE_CLASSES
_TASK_OWN = _own_fields(TASK_CLASSES)
_VALUE_OWN = _own_fields(VALUE_CLASSES)
_TASK_OTHER = _other_defaults(TASK_CLASSES)
_VALUE_OTHER = _other_defaults(VALUE_CLASSES)
TASK_FIELDS_ALL = frozenset(_TASK_OTHER) | {"kind"}
VALUE_FIELDS_ALL = frozenset(_VALUE_OTHER) | {"kind"}


# ----------------------------------------------------------------- the fast validator
#
# Under the shape pass the hooks above are wrap validators: each takes its node's dict,
# normalises it (drops nulls and the empty fields of other kinds: `_strip_nulls`,
# `_strip_type`, `_normalize`), validates it by a nested call and, when that fails,
# records the errors and salvages the node. For a document without errors all that the
# hooks change is the normalising. `fast_plan_validator()` is TaskPlan's validator with
# each hook replaced by that normalising alone, as a before-validator (and the task and
# value kinds told apart as `_wrap_task` and `_wrap_value` do): the same models, without
# a nested validation per node. A document it refuses is validated the usual way, where
# its errors are found and recovered from.
#
# Before it, the shape pass tries `canonical_plan_validator()`: the same schema with the
# normalising left out altogether, for documents in which it would change nothing (the
# compact form). Each node's Python call is most of the fast validator's own cost; this
# one calls none, and refuses (rather than normalises) nulls, empty fields of other
# kinds and `enum: []`. A refused document costs the canonical validator's work up to
# its first such field (lists stop there) on top of the fast validator's.
#
# The surgery works on pydantic-core's schema of the dataclasses: a model is a
# `dataclass` node (its class, and its fields as a `dataclass-args` node's list of
# `dataclass-field`s) inside its hook's `function-wrap`; a before-validator goes around
# the `dataclass` node, where the hook was. pydantic-core fills each instance's slots
# itself (the marks slot from its default), so the canonical validator still calls no
# Python per node.


def _task_kind(value: Any) -> str | None:
    """The tag of a task, as `_wrap_task` picks its class (None: not a task it can build)."""
    if type(value) is not dict:
        return None
    kind = value.get("kind")
    if kind is None:
        kind = "operation"
    return kind if type(kind) is str else None


def _value_kind(value: Any) -> str | None:
    """The tag of a value, as `_wrap_value` picks its class."""
    if type(value) is not dict:
        return None
    kind = value.get("kind")
    if kind is None and "kind" in value:
        kind = "null"
    return kind if type(kind) is str else None


def _normalize_task(kind: str) -> Callable[[Any], Any]:
    own = _TASK_OWN[kind]

    def before(data: Any) -> Any:  # `_wrap_task`'s normalising
        if type(data) is dict and not (own.issuperset(data) and None not in data.values()):
            return _normalize(data, own, _TASK_OTHER)
        return data

    return before


def _normalize_value(kind: str) -> Callable[[Any], Any]:
    own = _VALUE_OWN[kind]

    def before(data: Any) -> Any:  # `_wrap_value`'s normalising
        if type(data) is dict and not (own.issuperset(data) and None not in data.values()):
            data = _normalize(data, own, _VALUE_OTHER)
            if kind == "null" and data.get("kind") is None:
                data = {**data, "kind": "null"}
        return data

    return before


def _normalize_node(data: Any) -> Any:  # `_validate_node`'s normalising
    if type(data) is dict and None in data.values():
        return _strip_nulls(data)
    return data


def _normalize_type(data: Any) -> Any:  # `_validate_node`'s normalising of a type
    return _strip_type(data) if type(data) is dict else data


def _fast_schema(schema: Any, hooks: set[Any], befores: dict[type, Callable[[Any], Any]]) -> Any:
    """A copy of a core schema with the hooks replaced (see above)."""
    if isinstance(schema, list):
        return [_fast_schema(item, hooks, befores) for item in schema]
    if not isinstance(schema, dict):
        return schema
    kind = schema.get("type")
    if kind == "function-wrap":
        function = schema["function"]["function"]
        if getattr(function, "__func__", function) in hooks:  # a hook: its inner schema
            inner = dict(_fast_schema(schema["schema"], hooks, befores))
            if "ref" in schema:
                inner["ref"] = schema["ref"]
            return inner
    out = {key: _fast_schema(value, hooks, befores) for key, value in schema.items()}
    if kind == "tagged-union" and out["discriminator"] in (_task_tag, _value_tag):
        out["discriminator"] = _task_kind if out["discriminator"] is _task_tag else _value_kind
    if kind == "list":
        out["fail_fast"] = True  # a document in error is validated again the usual way: stop early
    if kind == "dataclass" and out["cls"] in befores:
        ref = out.pop("ref", None)
        out = {"type": "function-before", "function": {"type": "no-info", "function": befores[out["cls"]]}, "schema": out}
        if ref is not None:
            out["ref"] = ref
    return out


def _functions(schema: Any) -> list[Any]:
    """The functions a core schema calls (not its discriminators)."""
    if isinstance(schema, list):
        return [f for item in schema for f in _functions(item)]
    if not isinstance(schema, dict):
        return []
    found = []
    if isinstance(schema.get("type"), str) and schema["type"].startswith("function-"):
        found.append((schema["type"], schema["function"]["function"]))
    for key, value in schema.items():
        if key != "discriminator":
            found += _functions(value)
    return found


_WIRE = {
    # a wire-form document (every field written, nulls and empty fields of other kinds),
    # for the fast validator's self-test
    "version": 1, "name": None, "request": None,
    "inputs": [{"name": "a", "type": {"kind": "string", "enum": [], "nullable": False, "items": None, "fields": [], "description": None},
                "required": True, "default": None, "description": None}],
    "root": {
        "tasks": [
            {"id": "t", "kind": None, "objective": None, "dependsOn": [], "operation": "o", "group": "", "body": None,
             "inputs": [{"name": "i", "value": {"kind": "output", "source": "s", "port": None, "items": [], "text": ""}}]},
            {"id": "c", "kind": "conditional", "condition": {"kind": "boolean", "boolean": True}, "maxConcurrency": 4,
             "body": {"tasks": None, "outputs": [{"name": "n", "value": {"kind": None}}], "always": []}, "otherwise": {}},
        ],
        "outputs": None, "always": [],
    },
    "groups": [{"id": "g", "objective": None, "inputs": None, "body": {}}],
    "choices": [{"id": "k", "question": None, "type": {"kind": "any"}, "recommended": None, "selected": None,
                 "alternatives": [{"id": "x", "description": None, "value": {"kind": "null"}}]}],
}


def _same(a: Any, b: Any) -> bool:
    """Equal models with equal marks throughout (`==` ignores the latter)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, Node):
        return all(_same(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


_COMPACT = {
    # a compact document (nothing written that the normalising would change), for the
    # canonical validator's self-test: every task kind, the kind-less operation task,
    # YAML's `{kind: null}`
    "version": 1, "name": "n",
    "inputs": [{"name": "a", "type": {"kind": "string", "enum": ["x"]}, "required": False,
                "default": {"kind": "string", "text": "x"}}],
    "root": {
        "tasks": [
            {"id": "t", "operation": "o", "inputs": [{"name": "i", "value": {"kind": None}}]},
            {"id": "u", "kind": "operation", "operation": "o", "dependsOn": ["t"]},
            {"id": "v", "kind": "value", "outputs": [{"name": "o", "value": {"kind": "object", "members": [
                {"name": "m", "value": {"kind": "number", "number": 1.5}}]}}]},
            {"id": "w", "kind": "transform", "objective": "w", "resultType": {"kind": "object", "fields": [
                {"name": "f", "type": {"kind": "array", "items": {"kind": "any"}}}]}},
            {"id": "c", "kind": "conditional", "condition": {"kind": "predicate", "predicate": "not", "items": [
                {"kind": "input", "source": "a"}]}, "body": {"outputs": [{"name": "n", "value": {"kind": "null"}}]},
             "otherwise": {"tasks": []}},
            {"id": "f", "kind": "foreach", "items": {"kind": "array", "items": []}, "parallel": True,
             "body": {"tasks": [{"id": "s", "kind": "sequence", "body": {}}]}},
            {"id": "p", "kind": "parallel", "branches": [{}, {"always": [{"id": "k", "kind": "call", "group": "g"}]}]},
        ],
        "outputs": [{"name": "r", "value": {"kind": "field", "port": "x", "items": [
            {"kind": "output", "source": "t", "port": "p"}]}}],
    },
    "groups": [{"id": "g", "objective": "g", "inputs": [{"name": "z", "type": {"kind": "integer"}}], "body": {}}],
    "choices": [{"id": "k", "question": "q", "type": {"kind": "any"}, "recommended": "x",
                 "alternatives": [{"id": "x", "value": {"kind": "boolean", "boolean": True}}]}],
}


def _null_literal(data: Any) -> Any:  # `_wrap_value`'s normalising of `{kind: null}`
    return {**data, "kind": "null"}


def _canonical_schema(schema: Any) -> Any:
    """A copy of the fast validator's core schema that refuses what the normalising would
    change instead of calling it per node (see `canonical_plan_validator`)."""
    if isinstance(schema, list):
        return [_canonical_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    kind = schema.get("type")
    if kind == "function-before":  # the normalising: nothing for it to do in what is accepted
        inner = dict(_canonical_schema(schema["schema"]))
        if "ref" in schema:
            inner["ref"] = schema["ref"]
        return inner
    if kind == "nullable":  # null means absent: a null is refused, not dropped
        return _canonical_schema(schema["schema"])
    out = {key: _canonical_schema(value) for key, value in schema.items()}
    if kind == "dataclass" and out["cls"] is TaskType:  # `enum: []`, the wire form's "no enum", is refused
        enum = next(f for f in out["schema"]["fields"] if f["name"] == "enum")
        enum["schema"]["schema"]["min_length"] = 1  # (a `default` of the list, no longer `nullable`)
    if kind == "dataclass" and out["cls"] in _TAGGED:  # its `kind`: the tag it was chosen by
        field = next(f for f in out["schema"]["fields"] if f["name"] == "kind")
        if field["schema"].get("type") == "literal":
            field["schema"] = {"type": "str"}
    if kind == "tagged-union" and out["discriminator"] is _value_kind:
        out["discriminator"] = "kind"
        null = {"type": "function-before", "function": {"type": "no-info", "function": _null_literal}}
        out["choices"] = {**out["choices"], None: {**null, "schema": out["choices"]["null"]}}
    elif kind == "tagged-union" and out["discriminator"] is _task_kind:
        # a task without `kind` is an operation task: tried when there is no tag
        out["discriminator"] = "kind"
        out = {"type": "union", "mode": "left_to_right", "choices": [out, out["choices"]["operation"]]}
    return out


_TAGGED = frozenset(VALUE_CLASSES.values()) | {cls for kind, cls in TASK_CLASSES.items() if kind != "operation"}
"""The classes the canonical validator reaches only through a tagged union on `kind`, by
their tag alone: their `kind` field need not compare the string with its literal again
(it is that string). Not the operation task: a task without a usable tag is tried as one."""

_VALIDATORS: list[Any] = []


def fast_plan_validator() -> Any:
    """TaskPlan's validator with the hooks replaced by their normalising alone (see
    above); None when it cannot be built as intended (then every document takes the
    usual way). Built once."""
    if not _VALIDATORS:
        _VALIDATORS.extend(_build_validators())
    return _VALIDATORS[0]


def canonical_plan_validator() -> Any:
    """The fast validator for a document in which the normalising would change nothing
    (no nulls, no empty fields of other kinds, no `enum: []`): the usual compact form.
    It calls no Python per node (tasks and values are told apart by `kind` in the
    validator itself; only `{kind: null}` keeps its normalising) and refuses whatever
    the normalising would have changed, so that a document it accepts validates to the
    same models as with `fast_plan_validator()`; a document it refuses is for that one.
    None when it cannot be built as intended. Built once, with the fast validator."""
    if not _VALIDATORS:
        _VALIDATORS.extend(_build_validators())
    return _VALIDATORS[1]


def _build_validators() -> tuple[Any, Any]:
    """(the fast validator, the canonical validator); None for one that cannot be built."""
    befores: dict[type, Callable[[Any], Any]] = {cls: _normalize_task(kind) for kind, cls in TASK_CLASSES.items()}
    befores.update({cls: _normalize_value(kind) for kind, cls in VALUE_CLASSES.items()})
    befores.update({cls: _normalize_node for cls in (TaskInput, TaskScope, TaskGroup, ChoiceAlternative, PlanningChoice, TaskPlan)})
    befores[TaskType] = _normalize_type
    hooks: set[Any] = {_wrap_task, _wrap_value}
    for cls in (TaskType, TaskInput, TaskScope, TaskGroup, ChoiceAlternative, PlanningChoice, TaskPlan):
        hooks.add(cls.__dict__["_shape"].__func__)
    try:
        schema = _fast_schema(TaskPlan.__pydantic_core_schema__, hooks, befores)
    except (KeyError, TypeError, AttributeError):  # pragma: no cover - another pydantic
        return None, None
    allowed = set(befores.values())
    if any(kind != "function-before" or function not in allowed for kind, function in _functions(schema)):
        return None, None  # pragma: no cover - a hook we do not know of
    fast = _compile(schema)
    if not _same(fast.validate_python(_WIRE), validate_model(TaskPlan, _WIRE)):  # pragma: no cover
        return None, None
    try:
        schema = _canonical_schema(schema)
    except (KeyError, TypeError, AttributeError):  # pragma: no cover - another pydantic
        return fast, None
    if any(function is not _null_literal for _, function in _functions(schema)):
        return fast, None  # pragma: no cover
    canonical = _compile(schema)
    if not _same(canonical.validate_python(_COMPACT), validate_model(TaskPlan, _COMPACT)):  # pragma: no cover
        return fast, None
    try:
        canonical.validate_python(_WIRE)
    except ValidationError:
        return fast, canonical
    return fast, None  # pragma: no cover - it must refuse the wire form


def _compile(schema: Any) -> Any:
    from pydantic_core import SchemaValidator

    # pydantic-core builds a `dataclass` schema from its class's own validator (hooks
    # included) when the class is complete: mark ours incomplete while it builds.
    models = [cls for cls in _MODELS | {TaskBase, ValueBase, Node} if "__pydantic_complete__" in cls.__dict__]
    complete = {cls: cls.__dict__["__pydantic_complete__"] for cls in models}
    try:
        for cls in models:
            cls.__pydantic_complete__ = False
        return SchemaValidator(schema)
    finally:
        for cls, value in complete.items():
            cls.__pydantic_complete__ = value


# ---------------------------------------------------------------- placeholders


@dataclass(slots=True)
class InvalidTask:
    """Stands for a task that could not be shaped. Its ID (when it had a usable one)
    still occupies the namespace; its ports are unknown; reads of it report nothing.

    `scopes` holds the child scopes of a task of known kind that could still be
    shaped (with their pointer suffix, as `scopes_of` returns them), so the tasks
    nested in it are still checked. A task of unknown kind has none."""

    id: str | None
    kind: str | None
    raw: Any = field(repr=False, default=None)
    objective: str | None = None
    dependsOn: list[str] = field(default_factory=list)
    scopes: list[tuple[str, TaskScope]] = field(default_factory=list)


@dataclass(slots=True)
class InvalidValue:
    """Stands for a value that could not be shaped: its type is unknown."""

    kind: str | None
    raw: Any = field(repr=False, default=None)


@dataclass(slots=True)
class InvalidType:
    """Stands for a type that could not be shaped: values of it are not checked."""

    kind: str | None
    raw: Any = field(repr=False, default=None)


AnyTask = Union[
    OperationTask,
    TransformTask,
    ValueTask,
    CallTask,
    SequenceTask,
    ConditionalTask,
    ParallelTask,
    ForeachTask,
    InvalidTask,
]
AnyValue = Union[
    NullValue,
    StringValue,
    NumberValue,
    BooleanValue,
    ObjectValue,
    ArrayValue,
    InputValue,
    OutputValue,
    ChoiceValue,
    ItemValue,
    IndexValue,
    PresentValue,
    FieldValue,
    JsonValue,
    PredicateValue,
    InvalidValue,
]


_LEAF_TASKS = frozenset({OperationTask, TransformTask, ValueTask, CallTask})


def scopes_of(task: AnyTask) -> list[tuple[str, TaskScope]]:
    """The child scopes a compound task owns, with their pointer suffix relative to the task."""
    if type(task) in _LEAF_TASKS:  # the common case, by exact class: no scopes
        return []
    if isinstance(task, (SequenceTask, ForeachTask)):
        return [("/body", task.body)]
    if isinstance(task, ConditionalTask):
        out = [("/body", task.body)]
        if task.otherwise is not None:
            out.append(("/otherwise", task.otherwise))
        return out
    if isinstance(task, ParallelTask):
        return [(f"/branches/{i}", b) for i, b in enumerate(task.branches)]
    if isinstance(task, InvalidTask):
        return list(task.scopes)
    return []


# ------------------------------------------------------------------ broken nodes
#
# Marks live in the model's `_marks` slot (None: no marks), as a dict: {"shape":
# frozenset of dropped field names} for a shape error, {"broken": reason} for a later
# pass's mark. A pass may test `node._marks` itself for a model of known class.

_PLACEHOLDERS = (InvalidTask, InvalidValue, InvalidType)

_MODELS = frozenset(
    {TaskType, TaskInput, TaskOutput, TaskScope, TaskGroup, ChoiceAlternative, PlanningChoice, TaskPlan}
    | set(TASK_CLASSES.values())
    | set(VALUE_CLASSES.values())
)
"""The model classes of this module: the passes ask about their marks once per node."""


def _marks(node: Any) -> dict | None:
    if type(node) in _MODELS:  # the common case, by exact class
        return node._marks
    return node._marks if isinstance(node, Node) else None


def mark_shape_error(model: Node, dropped: frozenset[str] | set[str] = frozenset()) -> None:
    """Mark `model` as having a shape error in its own fields (`dropped`: the keys
    left out because they were in error: known fields, now at their defaults, and
    unknown keys). Used by the shape pass."""
    marks = dict(_marks(model) or {})
    marks["shape"] = frozenset(marks.get("shape", frozenset())) | frozenset(dropped)
    model._marks = marks


def mark_broken(model: Node, reason: str = "") -> None:
    """Mark `model` as a declaration in error (a later pass's finding): its ports or
    type are unknown, and nothing more is reported about reads of it."""
    marks = dict(_marks(model) or {})
    marks.setdefault("broken", reason)
    model._marks = marks


def has_shape_error(node: Any) -> bool:
    """True for a placeholder, and for a model whose own fields had a shape error."""
    if type(node) in _MODELS:  # the common case, by exact class: not a placeholder
        marks = node._marks
        return bool(marks) and "shape" in marks
    if isinstance(node, _PLACEHOLDERS):
        return True
    marks = _marks(node)
    return bool(marks) and "shape" in marks


def dropped_fields(node: Any) -> frozenset[str]:
    """The keys of a model left out because they were in error: known fields (now at
    their defaults) and unknown keys (so that a rule about a missing field can stay
    silent when the field may have been written under a misspelt key)."""
    marks = _marks(node)
    return marks.get("shape", frozenset()) if marks else frozenset()


def is_broken(node: Any) -> bool:
    """The one question before reporting about a node's ports or type: a placeholder,
    a shape error in its own fields, or marked broken by a later pass."""
    if type(node) in _MODELS:  # the common case, by exact class: not a placeholder
        return bool(node._marks)
    if isinstance(node, _PLACEHOLDERS):
        return True
    return bool(_marks(node))


def effective_name(plan: TaskPlan, path: str) -> str:
    """The plan's name: `name` when written, else the file name up to its first dot,
    lower-cased with every run of other characters made a hyphen (a derived name is
    a default, not a declaration: it is made valid rather than refused)."""
    import re

    if plan.name:
        return plan.name
    base = path.replace("\\", "/").rsplit("/", 1)[-1].split(".", 1)[0].lower()
    base = re.sub(r"[^a-z0-9]+", "-", base).strip("-")[:63].strip("-")
    return base or "taskplan"
