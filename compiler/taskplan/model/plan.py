"""The TaskPlan language, version 1, as pydantic models (taskplan.md).

Closed objects (`extra="forbid"`), strict JSON types, tagged unions on `kind`.
Field names are the wire names (camelCase). The shape pass validates a
document tree into these models; it alone knows how a model error maps back
to a pointer. Placeholders (`InvalidTask`, `InvalidValue`, `InvalidType`)
stand where a declaration could not be shaped, so later passes still see
everything sound around it (and report nothing more about the broken part).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag

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


class Node(BaseModel):
    """Every TaskPlan object: closed, strict JSON types."""

    model_config = ConfigDict(extra="forbid", strict=True, populate_by_name=False)


# --------------------------------------------------------------------------- types


class TaskType(Node):
    """A business type."""

    kind: str = Field(description="string | number | integer | boolean | object | array | any")
    nullable: bool = Field(False, description="Whether null is also a value of this type.")
    enum: list[str] | None = Field(
        None, description="string only: the 1-256 distinct strings the value may take."
    )
    items: TaskType | None = Field(None, description="array only (required there): the element type.")
    fields: list[TaskInput] = Field(
        default_factory=list, description="object only: the object's fields."
    )
    description: str | None = Field(None, description="What the value means.")


class TaskInput(Node):
    """A declared input: of the workflow, of a group, or a field of an object type."""

    name: str = Field(description="The input's name: 1-64 ASCII letters, digits, _ or -.")
    type: TaskType = Field(description="The input's business type.")
    required: bool = Field(True, description="false: the input may be left out; it then needs a literal default.")
    default: TaskValue | None = Field(
        None, description="A literal value used when an optional input is left out."
    )
    description: str | None = Field(None, description="What the input means.")


# -------------------------------------------------------------------------- values


class ValueBase(Node):
    kind: str


class NullValue(ValueBase):
    """The null literal."""

    kind: Literal["null"] = Field(description="null")


class StringValue(ValueBase):
    """A string literal; never evaluated, whatever it contains."""

    kind: Literal["string"] = Field(description="string")
    text: str = Field(description="The literal text.")


class NumberValue(ValueBase):
    """A number literal; integer when integral; within +-(2^53-1)."""

    kind: Literal["number"] = Field(description="number")
    number: int | float = Field(description="The literal number.")


class BooleanValue(ValueBase):
    """A boolean literal."""

    kind: Literal["boolean"] = Field(description="boolean")
    boolean: bool = Field(description="The literal boolean.")


class ObjectValue(ValueBase):
    """A closed object assembled from named members."""

    kind: Literal["object"] = Field(description="object")
    members: list[TaskOutput] = Field(default_factory=list, description="The object's members.")


class ArrayValue(ValueBase):
    """An array of values."""

    kind: Literal["array"] = Field(description="array")
    items: list[TaskValue] = Field(default_factory=list, description="The array's items.")


class InputValue(ValueBase):
    """Reads a workflow input (inside a group body: a group input)."""

    kind: Literal["input"] = Field(description="input")
    source: str = Field(description="The input's name.")


class OutputValue(ValueBase):
    """Reads a port of another task."""

    kind: Literal["output"] = Field(description="output")
    source: str = Field(description="The task's ID.")
    port: str | None = Field(None, description="The port's name; null reads the whole result.")


class ChoiceValue(ValueBase):
    """Reads the value a planning choice selects."""

    kind: Literal["choice"] = Field(description="choice")
    source: str = Field(description="The choice's ID.")


class ItemValue(ValueBase):
    """The current item of the nearest enclosing foreach."""

    kind: Literal["item"] = Field(description="item")


class IndexValue(ValueBase):
    """The current index (0-based) of the nearest enclosing foreach."""

    kind: Literal["index"] = Field(description="index")


class PresentValue(ValueBase):
    """Whether a task produced a non-null result."""

    kind: Literal["present"] = Field(description="present")
    source: str = Field(description="The task's ID.")


class FieldValue(ValueBase):
    """Selects one declared field of an object value."""

    kind: Literal["field"] = Field(description="field")
    items: list[TaskValue] = Field(default_factory=list, description="Exactly one object value.")
    port: str = Field(description="The exact field name (never a dotted path).")


class JsonValue(ValueBase):
    """The deterministic JSON text of one value."""

    kind: Literal["json"] = Field(description="json")
    items: list[TaskValue] = Field(default_factory=list, description="Exactly one value.")


class PredicateValue(ValueBase):
    """A boolean computed from its operands."""

    kind: Literal["predicate"] = Field(description="predicate")
    predicate: str = Field(
        description="not | and | or | equal | not_equal | less | less_equal | greater | greater_equal"
    )
    items: list[TaskValue] = Field(default_factory=list, description="The operands (one for not, two otherwise).")


def _value_tag(value: Any) -> str | None:
    if isinstance(value, dict):
        kind = value.get("kind")
        return kind if isinstance(kind, str) else None
    return getattr(value, "kind", None)


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
]


class TaskOutput(Node):
    """A named value: a binding, an output, an object member."""

    name: str = Field(description="The name: 1-64 ASCII letters, digits, _ or - (operation ports: as the schema names them).")
    value: TaskValue = Field(description="The value.")


# --------------------------------------------------------------------------- tasks


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


class TaskBase(Node):
    id: str = Field(description="The task's ID, unique in the plan: 1-64 ASCII letters, digits, _ or -, not starting with __.")
    kind: str
    objective: str | None = Field(None, description="What the task achieves: a non-blank sentence.")
    dependsOn: list[str] = Field(
        default_factory=list, description="IDs of tasks of the same scope that must run first."
    )


class OperationTask(TaskBase):
    """Calls a catalog operation."""

    kind: Literal["operation"] = Field("operation", description="operation (the default)")
    operation: str = Field(description="The catalog operation ID, optionally pinned as ID@version.")
    inputs: list[TaskOutput] = Field(
        default_factory=list, description="Values bound to the operation's input ports."
    )


class TransformTask(TaskBase):
    """Interprets named inputs with a model into `resultType`."""

    kind: Literal["transform"] = Field(description="transform")
    inputs: list[TaskOutput] = Field(default_factory=list, description="The named values to interpret.")
    resultType: TaskType = Field(description="A non-empty closed object type: the result.")


class ValueTask(TaskBase):
    """Copies or assembles data."""

    kind: Literal["value"] = Field(description="value")
    outputs: list[TaskOutput] = Field(default_factory=list, description="The task's outputs.")


class CallTask(TaskBase):
    """Runs a group with its inputs bound."""

    kind: Literal["call"] = Field(description="call")
    group: str = Field(description="The group's ID.")
    inputs: list[TaskOutput] = Field(default_factory=list, description="Values bound to the group's inputs.")


class SequenceTask(TaskBase):
    """Runs a child scope."""

    kind: Literal["sequence"] = Field(description="sequence")
    body: TaskScope = Field(description="The child scope.")


class ConditionalTask(TaskBase):
    """Runs `body` when the condition holds, `otherwise` when it does not."""

    kind: Literal["conditional"] = Field(description="conditional")
    condition: TaskValue = Field(description="A boolean value.")
    body: TaskScope = Field(description="The scope run when the condition holds.")
    otherwise: TaskScope | None = Field(None, description="The scope run when it does not (absent: empty).")


class ParallelTask(TaskBase):
    """Runs its branches concurrently."""

    kind: Literal["parallel"] = Field(description="parallel")
    branches: list[TaskScope] = Field(default_factory=list, description="At least two scopes.")
    maxConcurrency: int = Field(4, description="How many branches run at once: 1-100.")


class ForeachTask(TaskBase):
    """Runs its body once per item of an array."""

    kind: Literal["foreach"] = Field(description="foreach")
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


# ------------------------------------------------------------- groups and choices


class TaskGroup(Node):
    """A reusable sub-plan, run by `call` tasks."""

    id: str = Field(description="The group's ID (same namespace as task IDs).")
    objective: str | None = Field(None, description="What the group achieves: a non-blank sentence.")
    inputs: list[TaskInput] = Field(default_factory=list, description="The group's inputs.")
    body: TaskScope = Field(description="The group's body; its outputs are the call's ports.")


class ChoiceAlternative(Node):
    """One alternative of a planning choice."""

    id: str = Field(description="The alternative's ID, unique within its choice.")
    description: str | None = Field(None, description="What choosing it means.")
    value: TaskValue = Field(description="A literal that fits the choice's type.")


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


# ------------------------------------------------------------------------ document


class TaskPlan(Node):
    """A TaskPlan, version 1."""

    model_config = ConfigDict(
        extra="forbid",
        strict=True,
        title="TaskPlan",
        json_schema_extra={"$comment": "TaskPlan language version 1"},
    )

    version: Literal[1] = Field(description="The language version: the integer 1.")
    name: str | None = Field(
        None, description="^[a-z0-9][a-z0-9-]{0,62}$; default: the file name up to its first dot."
    )
    request: str | None = Field(None, description="The user's request, kept for audit and approval.")
    inputs: list[TaskInput] = Field(default_factory=list, description="The workflow's inputs.")
    root: TaskScope = Field(description="The plan's top-level scope.")
    groups: list[TaskGroup] = Field(default_factory=list, description="Reusable sub-plans.")
    choices: list[PlanningChoice] = Field(default_factory=list, description="Planning choices.")


for _model in (
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
    _model.model_rebuild()


# ---------------------------------------------------------------- placeholders


@dataclass(slots=True)
class InvalidTask:
    """Stands for a task that could not be shaped. Its ID (when it had a usable one)
    still occupies the namespace; its ports are unknown; reads of it report nothing."""

    id: str | None
    kind: str | None
    raw: Any = field(repr=False, default=None)
    objective: str | None = None
    dependsOn: list[str] = field(default_factory=list)


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


def scopes_of(task: AnyTask) -> list[tuple[str, TaskScope]]:
    """The child scopes a compound task owns, with their pointer suffix relative to the task."""
    if isinstance(task, (SequenceTask, ForeachTask)):
        return [("/body", task.body)]
    if isinstance(task, ConditionalTask):
        out = [("/body", task.body)]
        if task.otherwise is not None:
            out.append(("/otherwise", task.otherwise))
        return out
    if isinstance(task, ParallelTask):
        return [(f"/branches/{i}", b) for i, b in enumerate(task.branches)]
    return []
