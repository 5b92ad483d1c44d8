"""The checked plan: what the identity and scope passes establish, consumed by the
types and lower passes.

- `IdentityTable` (identity pass): the one namespace of task, group and choice IDs,
  first declaration per ID, later copies, and the `name`/`id` fields found in error.
- `CheckedPlan` (scope pass): the scope tree (`ScopeNode`, `TaskNode`, `GroupNode`,
  `ChoiceNode`, `InputDecl`, `OutputDecl`), every task's dependencies with the
  pointers that caused them, each scope's topological `order`, the captures
  crossing into each scope, and the resolution table: for every reference (a
  reference value or a `dependsOn` entry) its pointer -> what it resolves to.
- `iter_subvalues` and `CheckedPlan.values()`: the one document-order walk over
  values, so that no pass rewrites it.

Every node class is a slotted dataclass compared by identity (`eq=False`), so
nodes can key dicts; nothing here iterates a set, so every listing is
deterministic (document order, or list order within a scope).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Union

from taskplan.gcpause import gc_paused  # noqa: F401 (re-exported for the passes)
from taskplan.source.pointer import INPUT_VALUE, OUTPUT_VALUE, SUFFIXES
from taskplan.model.plan import (
    ArrayValue,
    CallTask,
    ConditionalTask,
    FieldValue,
    ForeachTask,
    InvalidTask,
    InvalidType,
    InvalidValue,
    JsonValue,
    ObjectValue,
    OperationTask,
    PredicateValue,
    TaskInput,
    TaskOutput,
    TaskPlan,
    TaskScope,
    TaskType,
    TransformTask,
    ValueTask,
)

# ------------------------------------------------------------------------ identity

DECL_TASK = "task"
DECL_GROUP = "group"
DECL_CHOICE = "choice"


@dataclass(slots=True, eq=False)
class Declaration:
    """The first declaration of an ID in the plan-wide namespace (document order)."""

    id: str
    kind: str
    """`task`, `group` or `choice`."""
    pointer: str
    """The declaring object (the task, group or choice), not its `id` field."""
    model: Any
    valid: bool = True
    """False when the ID breaks the lexical rule or is reserved (already reported)."""
    copies: list[str] = field(default_factory=list)
    """Pointers of the later declarations of the same ID (each got TASK_ID_DUPLICATE)."""


@dataclass(slots=True, eq=False)
class IdentityTable:
    """What the identity pass establishes."""

    declarations: dict[str, Declaration] = field(default_factory=dict)
    """ID -> its first declaration, in document order of first appearance."""
    copies: set[str] = field(default_factory=set)
    """Pointers of later declarations of a duplicated ID (membership tests only)."""
    bad_names: set[str] = field(default_factory=set)
    """Pointers of `name` (or alternative `id`) fields already reported: invalid, or a
    second occurrence in their list. Later passes skip checks on them (no cascades)."""
    invalid_ids: set[str] = field(default_factory=set)
    """Pointers of declarations whose `id` was reported invalid or reserved."""

    def lookup(self, ident: str) -> Declaration | None:
        return self.declarations.get(ident)

    def is_copy(self, pointer: str) -> bool:
        """Whether the declaration at `pointer` is a later copy of a duplicated ID."""
        return pointer in self.copies

    def name_ok(self, name_pointer: str) -> bool:
        """Whether the `name` field at `name_pointer` is usable (not already reported)."""
        return name_pointer not in self.bad_names


# --------------------------------------------------------------------------- scopes


class ScopeRole(str, Enum):
    ROOT = "root"
    BODY = "body"
    """The body of a `sequence` or of a `conditional` (its then-side)."""
    OTHERWISE = "otherwise"
    BRANCH = "branch"
    """One branch of a `parallel`; `ScopeNode.branch` is its index."""
    FOREACH_BODY = "foreach body"
    GROUP_BODY = "group body"


BODY, OTHERWISE, BRANCH, FOREACH_BODY, GROUP_BODY = (
    ScopeRole.BODY, ScopeRole.OTHERWISE, ScopeRole.BRANCH, ScopeRole.FOREACH_BODY, ScopeRole.GROUP_BODY
)
"""The roles the passes compare with once per scope or task, as module constants: a member
read from the Enum class goes through EnumType's `__getattr__` hook, a constant does not."""


@dataclass(slots=True, eq=False)
class InputDecl:
    """A declared input: of the workflow (`group` None) or of a group."""

    name: str
    model: TaskInput
    pointer: str
    group: GroupNode | None = None
    usable: bool = True
    """False for a name already reported (invalid, or a later duplicate)."""

    @property
    def required(self) -> bool:
        return bool(getattr(self.model, "required", True))


@dataclass(slots=True, eq=False)
class OutputDecl:
    """An export of a scope (`TaskScope.outputs[i]`)."""

    name: str
    model: TaskOutput
    pointer: str
    usable: bool = True


@dataclass(slots=True, eq=False)
class Dependency:
    """`task` must have a result before the dependent runs (or, for a cleanup task
    reading a task of its scope, is a producer it is guarded by)."""

    task: TaskNode
    pointers: list[str] = field(default_factory=list)
    """What caused it, in walk order: `dependsOn` entries and reference values
    (a value nested in a child scope is a capture)."""
    explicit: bool = False
    """Some cause is a `dependsOn` entry."""
    reads: bool = False
    """Some cause is a value reading the task (`output`/`present`): a data dependency."""


@dataclass(slots=True, eq=False)
class Capture:
    """A value from outside a scope that something inside the scope reads: on lowering,
    an input of the child workflow. Recorded on every scope boundary it crosses."""

    kind: str
    """`output` / `present` (a task's port or presence), `input`, `item` or `index`."""
    source: str | None
    """The task ID or input name; None for item/index."""
    port: str | None
    """The port of an `output` read (None: the whole result)."""
    target: Any
    """The TaskNode, InputDecl, or the foreach TaskNode (item/index)."""
    pointers: list[str] = field(default_factory=list)
    """Every reference value that needs it, in walk order."""

    @property
    def key(self) -> tuple[str, str | None, str | None]:
        return (self.kind, self.source, self.port)


@dataclass(slots=True, eq=False)
class TaskNode:
    id: str | None
    """None only for a placeholder without a usable ID."""
    model: Any
    """The task model (an `InvalidTask` placeholder when the task could not be shaped)."""
    pointer: str
    scope: ScopeNode
    index: int
    """Position in its list (`tasks` or `always`)."""
    in_always: bool = False
    children: list[ScopeNode] = field(default_factory=list)
    deps: dict[TaskNode, Dependency] = field(default_factory=dict)
    """Tasks of the same scope this one depends on, in order of first cause."""
    broken: bool = False
    """Unknown ports: a placeholder (or marked by a pass). Reads of it report nothing more."""
    duplicate: bool = False
    """A later declaration of a duplicated ID (references never resolve to it)."""
    id_ok: bool = True
    """False when the ID was reported invalid or reserved."""
    cyclic: bool = False
    """On a dependency cycle (already reported)."""
    group: GroupNode | None = None
    """For a `call` task: the group it runs, when it names one."""
    ports: dict[str, str] | None = None
    """Declared ports (name -> pointer of the declaring output) for kinds whose ports the
    plan itself declares (value, sequence, conditional, parallel, foreach, call); None
    when they depend on the catalog or a type (operation, transform) or are unknown."""

    @property
    def kind(self) -> str | None:
        return getattr(self.model, "kind", None)

    @property
    def label(self) -> str:
        """The ID, or (for a placeholder without one) where the task is written."""
        return self.id if self.id is not None else f"(the task at {self.pointer})"

    @property
    def is_placeholder(self) -> bool:
        return isinstance(self.model, InvalidTask)

    def child(self, role: ScopeRole, branch: int | None = None) -> ScopeNode | None:
        for scope in self.children:
            if scope.role is role and scope.branch == branch:
                return scope
        return None

    def __repr__(self) -> str:
        return f"TaskNode({self.id!r} at {self.pointer})"


@dataclass(slots=True, eq=False)
class ScopeNode:
    pointer: str
    model: TaskScope
    role: ScopeRole
    owner: TaskNode | GroupNode | None
    """The compound task or the group owning the scope; None for the root."""
    parent: ScopeNode | None
    """The scope of the owner task; None for the root and for group bodies."""
    branch: int | None = None
    depth: int = 0
    group: GroupNode | None = None
    """The group whose body (at any depth) this scope is in."""
    foreach: ScopeNode | None = None
    """The nearest foreach body at or above this scope (within its group), if any."""
    tasks: list[TaskNode] = field(default_factory=list)
    always: list[TaskNode] = field(default_factory=list)
    outputs: list[OutputDecl] = field(default_factory=list)
    order: list[TaskNode] = field(default_factory=list)
    """`tasks` in a topological order of their dependencies, ties by list order (tasks on
    or behind a cycle follow in list order)."""
    always_order: list[TaskNode] = field(default_factory=list)
    """`always` likewise (only `dependsOn` orders cleanup tasks among themselves)."""
    captures: dict[tuple[str, str | None, str | None], Capture] = field(default_factory=dict)
    """Ordered set: references crossing into this scope from outside it."""
    has_cycle: bool = False

    @property
    def label(self) -> str:
        """A readable name: `the body of \\`x\\``, `branch 1 of \\`p\\``, `the root scope`."""
        owner = self.owner
        if owner is None:
            return "the root scope"
        if isinstance(owner, GroupNode):
            return f"the body of group `{owner.id}`"
        if self.role is ScopeRole.OTHERWISE:
            return f"the `otherwise` of `{owner.label}`"
        if self.role is ScopeRole.BRANCH:
            return f"branch {self.branch} of `{owner.label}`"
        return f"the body of `{owner.label}`"

    def __repr__(self) -> str:
        return f"ScopeNode({self.role.value} at {self.pointer})"


@dataclass(slots=True, eq=False)
class GroupNode:
    id: str
    model: Any
    pointer: str
    body: ScopeNode | None = None
    inputs: list[InputDecl] = field(default_factory=list)
    input_by_name: dict[str, InputDecl] = field(default_factory=dict)
    """First declaration per name."""
    calls: list[TaskNode] = field(default_factory=list)
    """The `call` tasks that run this group, in document order."""
    duplicate: bool = False
    id_ok: bool = True
    cyclic: bool = False
    """On a group-call cycle (already reported)."""

    @property
    def ports(self) -> dict[str, str]:
        if self.body is None:
            return {}
        out: dict[str, str] = {}
        for o in self.body.outputs:
            out.setdefault(o.name, o.pointer)
        return out

    def __repr__(self) -> str:
        return f"GroupNode({self.id!r} at {self.pointer})"


@dataclass(slots=True, eq=False)
class ChoiceNode:
    id: str
    model: Any
    pointer: str
    duplicate: bool = False
    id_ok: bool = True
    reads: list[str] = field(default_factory=list)
    """Pointers of the `{kind: choice}` values reading it."""

    def __repr__(self) -> str:
        return f"ChoiceNode({self.id!r} at {self.pointer})"


REF_OUTPUT = "output"
REF_PRESENT = "present"
REF_INPUT = "input"
REF_CHOICE = "choice"
REF_ITEM = "item"
REF_INDEX = "index"
REF_DEPENDS = "dependsOn"


@dataclass(slots=True, eq=False)
class Resolution:
    """What one reference resolves to."""

    kind: str
    """The value kind (`output`, `present`, `input`, `choice`, `item`, `index`) or `dependsOn`."""
    pointer: str
    """The reference value (or the `dependsOn` entry)."""
    source: str | None
    """The name it gives (`source`, or the dependsOn entry); None for item/index."""
    target: Any = None
    """TaskNode / InputDecl / ChoiceNode / the foreach TaskNode (item, index); None when
    it resolves to nothing."""
    ok: bool = True
    """False when the reference is in error (reported) or follows from another error
    (silent): its value's type is unknown and nothing more is reported about it."""
    port: str | None = None
    """For `output`: the port read (None: the whole result)."""
    reader: TaskNode | None = None
    """The task whose fields hold the reference (None: a scope's `outputs`)."""
    scope: ScopeNode | None = None
    """The scope the reference is evaluated in."""


@dataclass(slots=True, eq=False)
class ValueSite:
    """One value of the plan, as yielded by the document-order walk."""

    pointer: str
    value: Any
    """A TaskValue model, or an `InvalidValue` placeholder (never descended into)."""
    slot: str
    """Where its top-level value sits: `inputs` (a binding), `outputs` (a value task's),
    `condition`, `items` (a foreach's), `scope outputs`, `default` (an input's or a type
    field's literal default), `alternative` (a choice's)."""
    task: TaskNode | None
    """The task whose fields hold it (None: scope outputs, plan/group inputs, choices)."""
    scope: ScopeNode | None
    """The scope it is evaluated in (None for defaults of plan/group inputs and choices)."""
    depth: int = 0
    """0 for a top-level value; nesting depth below it otherwise."""


CONTAINER_VALUES = frozenset({ObjectValue, ArrayValue, FieldValue, JsonValue, PredicateValue})
"""Value classes that hold nested values (`members` or `items`)."""


def iter_subvalues(value: Any, pointer: str, depth: int = 0) -> Iterator[tuple[str, Any, int]]:
    """`value` and every value nested in it, pre-order in field order, as
    (pointer, value, depth). An `InvalidValue` is yielded but not descended into."""
    if type(value) not in CONTAINER_VALUES:
        yield pointer, value, depth
        return
    stack: list[tuple[str, Any, int]] = [(pointer, value, depth)]
    pop, push = stack.pop, stack.append
    containers = CONTAINER_VALUES
    while stack:
        ptr, v, d = pop()
        yield ptr, v, d
        t = type(v)
        if t not in containers:
            continue
        if t is ObjectValue:
            members = v.members
            for i in range(len(members) - 1, -1, -1):
                m = members[i]
                if isinstance(m, TaskOutput):
                    push((f"{ptr}/members/{i}/value", m.value, d + 1))
        else:
            items = v.items
            for i in range(len(items) - 1, -1, -1):
                push((f"{ptr}/items/{i}", items[i], d + 1))


def type_defaults(t: Any, pointer: str) -> Iterator[tuple[str, Any]]:
    """The literal defaults of the fields of type `t` (recursively), as (pointer, value),
    in document order (a field's type before its default; `items` before `fields`)."""
    stack: list[tuple[bool, str, Any]] = [(False, pointer, t)]
    while stack:
        is_default, ptr, node = stack.pop()
        if is_default:
            yield ptr, node
            continue
        if not isinstance(node, TaskType):
            continue
        children: list[tuple[bool, str, Any]] = []
        if node.items is not None:
            children.append((False, f"{ptr}/items", node.items))
        for j, f in enumerate(node.fields):
            if not isinstance(f, TaskInput):
                continue
            children.append((False, f"{ptr}/fields/{j}/type", f.type))
            if f.default is not None:
                children.append((True, f"{ptr}/fields/{j}/default", f.default))
        stack.extend(reversed(children))


def input_default_sites(inp: Any, pointer: str) -> Iterator[tuple[str, Any]]:
    """Defaults carried by a declared input: its own, then its type's fields'."""
    if not isinstance(inp, TaskInput):
        return
    yield from type_defaults(inp.type, f"{pointer}/type")
    if inp.default is not None:
        yield f"{pointer}/default", inp.default


_BINDING_TASKS = frozenset({OperationTask, TransformTask, CallTask})


def task_value_slots(task: Any, pointer: str) -> Iterator[tuple[str, str, Any]]:
    """A task's own top-level values (not those of its child scopes), in field order,
    as (slot, pointer, value). Placeholders have none."""
    t = type(task)
    if t is ValueTask:
        i = -1  # (positions counted: an enumerate object costs more than a short list's count)
        for o in task.outputs:
            i += 1
            if type(o) is TaskOutput:
                yield "outputs", pointer + (OUTPUT_VALUE[i] if i < SUFFIXES else f"/outputs/{i}/value"), o.value
    elif t in _BINDING_TASKS:
        i = -1
        for b in task.inputs:
            i += 1
            if type(b) is TaskOutput:
                yield "inputs", pointer + (INPUT_VALUE[i] if i < SUFFIXES else f"/inputs/{i}/value"), b.value
        if t is TransformTask:
            for ptr, v in type_defaults(task.resultType, f"{pointer}/resultType"):
                yield "default", ptr, v
    elif t is ConditionalTask:
        yield "condition", pointer + "/condition", task.condition
    elif t is ForeachTask:
        yield "items", pointer + "/items", task.items


# ---------------------------------------------------------------------------- plan


@dataclass(slots=True, eq=False)
class CheckedPlan:
    plan: TaskPlan
    identity: IdentityTable
    root: ScopeNode
    inputs: list[InputDecl] = field(default_factory=list)
    """The workflow's inputs, in list order."""
    input_by_name: dict[str, InputDecl] = field(default_factory=dict)
    groups: list[GroupNode] = field(default_factory=list)
    choices: list[ChoiceNode] = field(default_factory=list)
    scopes: list[ScopeNode] = field(default_factory=list)
    """Every scope, in document order (root, nested scopes, then group bodies)."""
    tasks: list[TaskNode] = field(default_factory=list)
    """Every task at every depth, in document order."""
    by_id: dict[str, Union[TaskNode, GroupNode, ChoiceNode]] = field(default_factory=dict)
    """ID -> its first declaration."""
    by_pointer: dict[str, Union[TaskNode, GroupNode, ChoiceNode, ScopeNode]] = field(default_factory=dict)
    resolutions: dict[str, Resolution] = field(default_factory=dict)
    """Reference pointer -> what it resolves to, for every `output`, `present`, `input`,
    `choice`, `item` and `index` value evaluated in a scope and every `dependsOn` entry."""
    copy_scopes: dict[str, set[ScopeNode]] = field(default_factory=dict)
    """Duplicated task ID -> the scopes holding a later copy of it."""

    # ---------------------------------------------------------------- lookups

    def task(self, ident: str) -> TaskNode | None:
        node = self.by_id.get(ident)
        return node if isinstance(node, TaskNode) else None

    def group(self, ident: str) -> GroupNode | None:
        node = self.by_id.get(ident)
        return node if isinstance(node, GroupNode) else None

    def choice(self, ident: str) -> ChoiceNode | None:
        node = self.by_id.get(ident)
        return node if isinstance(node, ChoiceNode) else None

    def resolution(self, pointer: str) -> Resolution | None:
        return self.resolutions.get(pointer)

    def copy_visible(self, ident: str | None, scope: ScopeNode | None) -> bool:
        """Whether a later copy of the duplicated `ident` sits in `scope` or above it: a
        read of `ident` there plausibly means that copy, so nothing is reported about it
        (the duplicate, reported, is the one mistake: decisions.md)."""
        holders = self.copy_scopes.get(ident) if ident is not None else None
        if not holders:
            return False
        c = scope
        while c is not None:
            if c in holders:
                return True
            c = c.parent
        return False

    # ------------------------------------------------------------------ walks

    def value_slots(self) -> Iterator[ValueSite]:
        """Every top-level value of the plan, in document order: workflow input
        defaults, then the root scope (each task's own values before its child scopes;
        a scope's `outputs` after its `tasks` and before its `always`), then groups
        (input defaults, body), then choices (type defaults, alternatives)."""
        for inp in self.inputs:
            for ptr, v in input_default_sites(inp.model, inp.pointer):
                yield ValueSite(ptr, v, "default", None, None)
        yield from self._scope_values(self.root)
        for g in self.groups:
            for inp in g.inputs:
                for ptr, v in input_default_sites(inp.model, inp.pointer):
                    yield ValueSite(ptr, v, "default", None, None)
            if g.body is not None:
                yield from self._scope_values(g.body)
        for c in self.choices:
            m = c.model
            for ptr, v in type_defaults(getattr(m, "type", None), f"{c.pointer}/type"):
                yield ValueSite(ptr, v, "default", None, None)
            for i, alt in enumerate(getattr(m, "alternatives", []) or []):
                value = getattr(alt, "value", None)
                if value is not None:
                    yield ValueSite(f"{c.pointer}/alternatives/{i}/value", value, "alternative", None, None)

    def values(self) -> Iterator[ValueSite]:
        """Every value of the plan, nested ones included, in document order (pre-order)."""
        for site in self.value_slots():
            for ptr, v, d in iter_subvalues(site.value, site.pointer):
                if d == 0:
                    yield site
                else:
                    yield ValueSite(ptr, v, site.slot, site.task, site.scope, d)

    def _scope_values(self, scope: ScopeNode) -> Iterator[ValueSite]:
        # iterative over the scope tree; a frame is (scope, phase-iterator)
        stack: list[Iterator[Any]] = [self._scope_items(scope)]
        while stack:
            item = next(stack[-1], None)
            if item is None:
                stack.pop()
            elif isinstance(item, ScopeNode):
                stack.append(self._scope_items(item))
            else:
                yield item

    def _scope_items(self, scope: ScopeNode) -> Iterator[Any]:
        for t in scope.tasks:
            yield from self._task_items(t)
        for o in scope.outputs:
            yield ValueSite(f"{o.pointer}/value", o.model.value, "scope outputs", None, scope)
        for t in scope.always:
            yield from self._task_items(t)

    def _task_items(self, t: TaskNode) -> Iterator[Any]:
        for slot, ptr, v in task_value_slots(t.model, t.pointer):
            yield ValueSite(ptr, v, slot, t, t.scope)
        yield from t.children

    # ------------------------------------------------------------------- dump

    def dump(self) -> str:
        """A readable text tree, for debugging and tests."""
        lines: list[str] = ["plan"]
        if self.inputs:
            lines.append("  inputs: " + ", ".join(_decl_name(i) for i in self.inputs))
        _dump_scope(self.root, lines, 1)
        for g in self.groups:
            flags = _flags(duplicate=g.duplicate, bad_id=not g.id_ok, cyclic=g.cyclic)
            lines.append(f"  group {g.id} {g.pointer}{flags}")
            if g.inputs:
                lines.append("    inputs: " + ", ".join(_decl_name(i) for i in g.inputs))
            if g.calls:
                lines.append("    called by: " + ", ".join(str(c.id) for c in g.calls))
            if g.body is not None:
                _dump_scope(g.body, lines, 2)
        for c in self.choices:
            flags = _flags(duplicate=c.duplicate, bad_id=not c.id_ok)
            lines.append(f"  choice {c.id} {c.pointer}{flags} reads: {len(c.reads)}")
        if self.resolutions:
            lines.append("resolutions")
            for ptr, r in self.resolutions.items():
                name = r.source if r.source is not None else ""
                if r.port is not None:
                    name += f".{r.port}"
                lines.append(f"  {ptr} {r.kind} {name} -> {_target_name(r.target)}{'' if r.ok else ' (not ok)'}")
        return "\n".join(lines) + "\n"


def _flags(**flags: bool) -> str:
    on = [name.replace("_", "-") for name, value in flags.items() if value]
    return f" [{', '.join(on)}]" if on else ""


def _decl_name(d: InputDecl) -> str:
    return d.name if d.usable else f"{d.name}(unusable)"


def _target_name(target: Any) -> str:
    if target is None:
        return "nothing"
    if isinstance(target, TaskNode):
        return f"task {target.id}"
    if isinstance(target, InputDecl):
        return f"group input {target.group.id}.{target.name}" if target.group else f"input {target.name}"
    if isinstance(target, ChoiceNode):
        return f"choice {target.id}"
    return repr(target)


def _dump_scope(scope: ScopeNode, lines: list[str], level: int) -> None:
    pad = "  " * level
    role = scope.role.value + (f" {scope.branch}" if scope.branch is not None else "")
    lines.append(f"{pad}scope {role} {scope.pointer}{_flags(cycle=scope.has_cycle)}")
    if scope.captures:
        caps = []
        for c in scope.captures.values():
            caps.append(c.kind + (f" {c.source}" if c.source else "") + (f".{c.port}" if c.port else ""))
        lines.append(f"{pad}  captures: " + ", ".join(caps))
    if scope.tasks:
        lines.append(f"{pad}  order: " + ", ".join(str(t.id) for t in scope.order))
    if scope.always:
        lines.append(f"{pad}  always order: " + ", ".join(str(t.id) for t in scope.always_order))
    for t in scope.tasks + scope.always:
        flags = _flags(
            always=t.in_always,
            broken=t.broken,
            duplicate=t.duplicate,
            bad_id=not t.id_ok,
            cyclic=t.cyclic,
        )
        lines.append(f"{pad}  task {t.id} ({t.kind}) {t.pointer}{flags}")
        if t.deps:
            parts = []
            for dep in t.deps.values():
                parts.append(f"{dep.task.id}" + ("" if not dep.explicit else "!"))
            lines.append(f"{pad}    deps: " + ", ".join(parts))
        if t.ports is not None:
            lines.append(f"{pad}    ports: " + ", ".join(t.ports))
        if t.group is not None:
            lines.append(f"{pad}    group: {t.group.id}")
        for child in t.children:
            _dump_scope(child, lines, level + 2)
    if scope.outputs:
        lines.append(f"{pad}  outputs: " + ", ".join(o.name if o.usable else f"{o.name}(unusable)" for o in scope.outputs))


__all__ = [
    "BODY",
    "BRANCH",
    "CONTAINER_VALUES",
    "FOREACH_BODY",
    "GROUP_BODY",
    "OTHERWISE",
    "gc_paused",
    "Capture",
    "CheckedPlan",
    "ChoiceNode",
    "Declaration",
    "Dependency",
    "GroupNode",
    "IdentityTable",
    "InputDecl",
    "OutputDecl",
    "Resolution",
    "ScopeNode",
    "ScopeRole",
    "TaskNode",
    "ValueSite",
    "input_default_sites",
    "iter_subvalues",
    "task_value_slots",
    "type_defaults",
]
