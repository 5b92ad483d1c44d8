"""The identity pass: the one namespace of task, group and choice IDs; lexical rules;
names duplicated within a list.

One pre-order walk in field order (inputs, root, groups, choices; in a scope:
tasks, outputs, always; a task's own fields before its child scopes) defines
document order: the first declaration of an ID wins, every later one is
TASK_ID_DUPLICATE with the first as related location.
"""

from __future__ import annotations

from typing import Any

from taskplan.diagnostics import Reporter
from taskplan.ir.checked import (
    CONTAINER_VALUES,
    DECL_CHOICE,
    DECL_GROUP,
    DECL_TASK,
    Declaration,
    IdentityTable,
    gc_paused,
)
from taskplan.model.plan import (
    CallTask,
    ConditionalTask,
    ForeachTask,
    InvalidTask,
    ObjectValue,
    OperationTask,
    ParallelTask,
    PlanningChoice,
    SequenceTask,
    TaskGroup,
    TaskInput,
    TaskOutput,
    TaskPlan,
    TaskScope,
    TaskType,
    TransformTask,
    ValueTask,
    scopes_of,
)
from taskplan.passes.subjects import subject_at

ID_MAX = 64
ID_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"
_ID_SET = frozenset(ID_CHARS)
RESERVED_PREFIX = "__"
RULE = "1-64 ASCII letters, digits, `_` or `-`"


def lexical_problem(text: str) -> str | None:
    """Why `text` is not a well-formed ID or name (None when it is). An exact check over
    every character: no regex, so no end-of-line anchor lets a trailing newline in."""
    if not text:
        return "it is empty"
    if len(text) > ID_MAX:
        return f"it is {len(text)} characters long (at most {ID_MAX})"
    if text.strip(ID_CHARS):  # some character outside the set
        for i, ch in enumerate(text):
            if ch not in _ID_SET:
                return f"{_describe_char(ch)} at position {i + 1} is not allowed"
    return None


# The charset check, everywhere it is not an error path: an ASCII Python identifier has
# only letters, digits and `_` (a check in C several times cheaper than `strip`, which
# builds a mask of the 64 characters per call); `strip` decides the rest (`-`, a leading
# digit, anything else).


def is_valid_id(text: str) -> bool:
    return 0 < len(text) <= ID_MAX and (text.isascii() and text.isidentifier() or not text.strip(ID_CHARS)) and not text.startswith(RESERVED_PREFIX)


def _describe_char(ch: str) -> str:
    names = {" ": "a space", "\t": "a tab", "\n": "a line break", "\r": "a carriage return", ".": "`.`", "/": "`/`"}
    if ch in names:
        return names[ch]
    if ch.isprintable():
        return f"`{ch}`"
    return f"U+{ord(ch):04X}"


def suggest_id(text: str) -> str | None:
    """A well-formed ID close to `text` (for hints only: IDs are never renamed)."""
    out = "".join(ch if ch in _ID_SET else "_" for ch in text.strip())
    while "__" in out:
        out = out.replace("__", "_")
    out = out.strip("_")[:ID_MAX].rstrip("_")
    return out or None


def _code_text(text: str) -> str:
    """`text` for a message: in backticks, with control characters made visible."""
    shown = text if text.isprintable() else repr(text)[1:-1]
    if len(shown) > 80:
        shown = shown[:77] + "..."
    return f"`{shown}`"


def _plain_named(items: list, lexical: bool) -> bool:
    """Named values with nothing to report (no name twice, every name well-formed when
    `lexical`, no value with names inside: no object, no container holding a container):
    what `named_values(items, ..., lexical=lexical)` finds nothing in, told without a
    pointer."""
    seen: set[str] = set()
    containers = CONTAINER_VALUES
    for item in items:
        if type(item) is not TaskOutput:
            return False
        name = item.name
        if name in seen:
            return False
        value = item.value
        if type(value) in containers:  # (`values`: a container of leaves holds no names)
            if type(value) is ObjectValue:
                return False
            for inner in value.items:
                if type(inner) in containers:
                    return False
        if lexical and not (0 < len(name) <= ID_MAX and (name.isascii() and name.isidentifier() or not name.strip(ID_CHARS))):
            return False
        seen.add(name)
    return True


def _plain_type(t: Any) -> bool:
    """A type with no names to report: not an object or array, or an object whose fields
    have well-formed names, each once, and types without fields or items and no default
    (what `type` finds nothing in, told without a pointer)."""
    if type(t) is not TaskType:
        return False
    if t.items is not None:
        return False
    fields = t.fields
    if not fields:
        return True
    seen: set[str] = set()
    for f in fields:
        if type(f) is not TaskInput or f.default is not None:
            return False
        name, field_type = f.name, f.type
        if type(name) is not str or name in seen or not (0 < len(name) <= ID_MAX and (name.isascii() and name.isidentifier() or not name.strip(ID_CHARS))):
            return False
        if type(field_type) is not TaskType or field_type.fields or field_type.items is not None:
            return False
        seen.add(name)
    return True


_new = object.__new__

_INDICES: tuple[str, ...] = tuple(map(str, range(1024)))


def _indices(n: int) -> tuple[str, ...]:
    """At least `n` list positions as text (`str(i)` at `i`), for pointers: a concatenation
    costs half the f-string that formats the int. Process-wide, but keyed by value alone and
    bounded: as long as the longest list seen, or 65,536 entries when that is shorter (it
    doubles as it grows). Replaced, never changed, so a reader's table stays whole."""
    global _INDICES
    table = _INDICES
    if len(table) < n:
        table = _INDICES = tuple(map(str, range(max(n, min(2 * len(table), 65_536)))))
    return table


_TASK_KINDS = frozenset(
    {OperationTask, ValueTask, CallTask, TransformTask, SequenceTask, ConditionalTask, ParallelTask, ForeachTask}
)
"""The task classes `task` dispatches on (the others: a placeholder)."""


class _Identity:
    fast_paths = True
    """`tasks`'s inline common cases (off: every task through `task`, for the test that
    holds them to it)."""

    def __init__(self, reporter: Reporter):
        self.reporter = reporter
        self.table = IdentityTable()

    # ------------------------------------------------------------------ IDs

    def declare(self, ident: Any, kind: str, pointer: str, model: Any) -> None:
        if type(ident) is str and 0 < len(ident) <= ID_MAX and (ident.isascii() and ident.isidentifier() or not ident.strip(ID_CHARS)) and not ident.startswith(RESERVED_PREFIX):
            # a well-formed ID (is_valid_id), declared first: the common case, nothing to report
            declarations = self.table.declarations
            if ident not in declarations:
                declarations[ident] = Declaration(ident, kind, pointer, model, True)
                return
        if not isinstance(ident, str):
            return  # no usable ID: the shape pass reported it; it declares nothing
        table = self.table
        id_ptr = f"{pointer}/id"
        valid = True
        problem = lexical_problem(ident)
        subject = {kind: ident}
        if problem is not None:
            valid = False
            suggestion = suggest_id(ident)
            self.reporter.report(
                "TASK_ID_INVALID",
                id_ptr,
                f"{kind} ID {_code_text(ident)} is not valid: {problem}; an ID is {RULE}",
                subject=subject,
                hint=f"rename it, for example to `{suggestion}`" if suggestion else f"give it an ID of {RULE}",
            )
        elif ident.startswith(RESERVED_PREFIX):
            valid = False
            suggestion = suggest_id(ident)
            self.reporter.report(
                "TASK_ID_RESERVED",
                id_ptr,
                f"{kind} ID `{ident}` starts with `__`, which is reserved for the compiler's generated IDs",
                subject=subject,
                hint=f"rename it, for example to `{suggestion}`" if suggestion else "rename it without the leading `__`",
            )
        if not valid:
            table.invalid_ids.add(pointer)
        first = table.declarations.get(ident)
        if first is None:
            table.declarations[ident] = Declaration(ident, kind, pointer, model, valid)
            return
        first.copies.append(pointer)
        table.copies.add(pointer)
        if not valid:
            return  # already reported as invalid: one mistake, one diagnostic
        self.reporter.report(
            "TASK_ID_DUPLICATE",
            id_ptr,
            f"{kind} ID `{ident}` is already declared by the {first.kind} at {first.pointer}",
            subject=subject,
            hint="task, group and choice IDs share one namespace across the whole plan (at every depth); rename one of them",
            related=[self.reporter.related(f"{first.pointer}/id", f"`{ident}` is first declared here")],
        )

    # ---------------------------------------------------------------- names

    def names(
        self,
        items: Any,
        list_ptr: str,
        what: str,
        *,
        lexical: bool = True,
        duplicates: bool = True,
        key: str = "name",
    ) -> None:
        """Names within one list: the lexical rule (unless `lexical` is False) and
        NAME_DUPLICATE at every later occurrence (unless `duplicates` is False)."""
        if not isinstance(items, list) or not items:
            return
        seen: dict[str, int] = {}
        for i, item in enumerate(items):
            name = getattr(item, key, None)
            if type(name) is not str:
                continue
            if lexical and not (0 < len(name) <= ID_MAX and (name.isascii() and name.isidentifier() or not name.strip(ID_CHARS))):
                self.bad_name(f"{list_ptr}/{i}/{key}", name, what, key)
                continue
            if not duplicates:
                continue
            first = seen.get(name)
            if first is None:
                seen[name] = i
            else:
                self.duplicate_name(f"{list_ptr}/{i}/{key}", f"{list_ptr}/{first}/{key}", name, what, key)

    def subject(self, ptr: str) -> dict[str, str] | None:
        """The task (and port), group, choice or input that the name at `ptr` belongs to."""
        return subject_at(self.reporter.document.tree, ptr) or None

    def bad_name(self, ptr: str, name: str, what: str, key: str) -> None:
        self.table.bad_names.add(ptr)
        suggestion = suggest_id(name)
        noun, article = (f"{what} ID", "an ID") if key == "id" else (f"{what} name", "a name")
        self.reporter.report(
            "TASK_ID_INVALID",
            ptr,
            f"{noun} {_code_text(name)} is not valid: {lexical_problem(name)}; {article} is {RULE}",
            subject=self.subject(ptr),
            hint=f"rename it, for example to `{suggestion}`" if suggestion else f"use a name of {RULE}",
        )

    def duplicate_name(self, ptr: str, first: str, name: str, what: str, key: str) -> None:
        self.table.bad_names.add(ptr)
        noun = f"{what} name"
        once = "a name appears once per list"
        self.reporter.report(
            "NAME_DUPLICATE",
            ptr,
            f"{noun} `{name}` appears twice in this list",
            subject=self.subject(ptr),
            hint=f"{once}: remove or rename this one",
            related=[self.reporter.related(first, f"`{name}` first appears here")],
        )

    def values(self, value: Any, pointer: str) -> None:
        """The member names of every object value in `value`, pre-order (the order of
        `iter_subvalues`, which also yields the leaves: they hold no names)."""
        containers = CONTAINER_VALUES
        kind = type(value)
        if kind not in containers:
            return  # a leaf: no names inside
        if kind is not ObjectValue:
            for item in value.items:
                if type(item) in containers:
                    break
            else:
                return  # items that are all leaves (the commonest container): no names inside
        stack: list[tuple[str, Any]] = [(pointer, value)]
        while stack:
            ptr, v = stack.pop()
            if type(v) is ObjectValue:
                self.names(v.members, f"{ptr}/members", "member")
                members = v.members
                for i in range(len(members) - 1, -1, -1):
                    m = members[i]
                    if isinstance(m, TaskOutput) and type(m.value) in containers:
                        stack.append((f"{ptr}/members/{i}/value", m.value))
            else:
                items = v.items
                for i in range(len(items) - 1, -1, -1):
                    if type(items[i]) in containers:
                        stack.append((f"{ptr}/items/{i}", items[i]))

    def named_values(self, items: Any, list_ptr: str, what: str, *, lexical: bool = True) -> None:
        if type(items) is list and _plain_named(items, lexical):
            return  # the common case: nothing to report
        self.names(items, list_ptr, what, lexical=lexical)
        if isinstance(items, list):
            for i, item in enumerate(items):
                value = getattr(item, "value", None)
                if type(value) in CONTAINER_VALUES:  # (`values` looks inside containers only)
                    self.values(value, f"{list_ptr}/{i}/value")

    def inputs(self, items: Any, list_ptr: str, what: str) -> None:
        """Declared inputs (workflow, group, or the fields of an object type)."""
        self.names(items, list_ptr, what)
        if isinstance(items, list):
            for i, item in enumerate(items):
                if isinstance(item, TaskInput):
                    self.type(item.type, f"{list_ptr}/{i}/type")
                    if item.default is not None:
                        self.values(item.default, f"{list_ptr}/{i}/default")

    def type(self, t: Any, pointer: str) -> None:
        # types nest as deep as the document; walk them without recursion
        stack: list[tuple[str, Any]] = [(pointer, t)]
        while stack:
            ptr, ty = stack.pop()
            if not isinstance(ty, TaskType):
                continue
            fields, items = ty.fields, ty.items
            if fields:  # (no names in an empty list: no pointer needed)
                self.names(fields, f"{ptr}/fields", "field")
            later: list[tuple[str, Any]] = []
            if items is not None:
                later.append((f"{ptr}/items", items))
            for j, f in enumerate(fields):
                if isinstance(f, TaskInput):
                    field_type = f.type
                    # a type without fields or items holds no names: not walked
                    if not (type(field_type) is TaskType and not field_type.fields and field_type.items is None):
                        later.append((f"{ptr}/fields/{j}/type", field_type))
                    if f.default is not None:
                        self.values(f.default, f"{ptr}/fields/{j}/default")
            if later:
                stack.extend(reversed(later))

    # -------------------------------------------------------------- structure

    def tasks(self, tasks: list, prefix: str) -> None:
        """The tasks of one list (`prefix`: the list's pointer and a slash), each with its
        own fields and then its child scopes, depth first (document order): `task`, with
        its common cases inline (a well-formed ID declared first, as `declare`'s fast
        path; lists of named values with nothing to report, as `_plain_named` tells,
        without building their pointers)."""
        if not self.fast_paths:
            for i, task in enumerate(tasks):
                self.task(task, f"{prefix}{i}")
            return
        declarations = self.table.declarations
        containers = CONTAINER_VALUES
        indices = _INDICES if len(tasks) <= len(_INDICES) else _indices(len(tasks))
        for i, task in enumerate(tasks):
            ptr = prefix + indices[i]  # (f"{prefix}{i}")
            kind = type(task)
            if kind not in _TASK_KINDS:
                self.task(task, ptr)  # a placeholder
                continue
            ident = task.id
            if (
                0 < len(ident) <= ID_MAX
                and (ident.isascii() and ident.isidentifier() or not ident.strip(ID_CHARS))
                and ident not in declarations
                and (ident[0] != "_" or ident[1:2] != "_")  # (not ident.startswith(RESERVED_PREFIX))
            ):
                # Declaration(ident, DECL_TASK, ptr, task, True), without the dataclass
                # call (its argument tuple, frame and default factory): one per task
                declaration = _new(Declaration)
                declaration.id = ident
                declaration.kind = DECL_TASK
                declaration.pointer = ptr
                declaration.model = task
                declaration.valid = True
                declaration.copies = []
                declarations[ident] = declaration
            else:
                self.declare(ident, DECL_TASK, ptr, task)
            if kind is OperationTask:  # the commonest task: bindings, not lexical
                inputs = task.inputs
                if inputs:
                    for item in inputs:
                        if type(item) is not TaskOutput or type(item.value) in containers:
                            break
                    else:
                        n = len(inputs)
                        if n == 1 or (n == 2 and inputs[0].name != inputs[1].name) or len({item.name for item in inputs}) == n:
                            continue  # no name twice, no value with names inside
                    self.named_values(inputs, f"{ptr}/inputs", "binding", lexical=False)
            elif kind is ValueTask:
                if not _plain_named(task.outputs, True):
                    self.named_values(task.outputs, f"{ptr}/outputs", "output")
            elif kind is CallTask:
                if not _plain_named(task.inputs, True):
                    self.named_values(task.inputs, f"{ptr}/inputs", "binding")
            elif kind is TransformTask:
                if not _plain_named(task.inputs, True):
                    self.named_values(task.inputs, f"{ptr}/inputs", "input")
                if not _plain_type(task.resultType):
                    self.type(task.resultType, f"{ptr}/resultType")
            elif kind is SequenceTask:
                self.scope(task.body, ptr, "/body")
            elif kind is ConditionalTask:
                if type(task.condition) in containers:  # (`values` finds nothing in a leaf)
                    self.values(task.condition, f"{ptr}/condition")
                self.scope(task.body, ptr, "/body")
                if task.otherwise is not None:
                    self.scope(task.otherwise, ptr, "/otherwise")
            elif kind is ParallelTask:
                for b, branch in enumerate(task.branches):
                    self.scope(branch, f"{ptr}/branches/{b}")
            else:  # a foreach task
                if type(task.items) in containers:
                    self.values(task.items, f"{ptr}/items")
                self.scope(task.body, ptr, "/body")

    def task(self, task: Any, ptr: str) -> None:
        kind = type(task)  # (by exact class: the shape pass builds no subclasses)
        if kind is InvalidTask:
            self.declare(task.id, DECL_TASK, ptr, task)
            # values inside a placeholder are not checked; the scopes it kept are
            for suffix, scope in scopes_of(task):
                self.scope(scope, ptr + suffix)
            return
        self.declare(task.id, DECL_TASK, ptr, task)
        if kind is OperationTask:
            self.named_values(task.inputs, f"{ptr}/inputs", "binding", lexical=False)
        elif kind is ValueTask:
            self.named_values(task.outputs, f"{ptr}/outputs", "output")
        elif kind is CallTask:
            self.named_values(task.inputs, f"{ptr}/inputs", "binding")
        elif kind is TransformTask:
            self.named_values(task.inputs, f"{ptr}/inputs", "input")
            self.type(task.resultType, f"{ptr}/resultType")
        elif kind is SequenceTask:
            self.scope(task.body, f"{ptr}/body")
        elif kind is ConditionalTask:
            self.values(task.condition, f"{ptr}/condition")
            self.scope(task.body, f"{ptr}/body")
            if task.otherwise is not None:
                self.scope(task.otherwise, f"{ptr}/otherwise")
        elif kind is ParallelTask:
            for i, branch in enumerate(task.branches):
                self.scope(branch, f"{ptr}/branches/{i}")
        elif kind is ForeachTask:
            self.values(task.items, f"{ptr}/items")
            self.scope(task.body, f"{ptr}/body")

    def scope(self, scope: Any, ptr: str, suffix: str = "") -> None:
        """The scope at `ptr` + `suffix` (the two apart: that pointer itself is seldom
        needed, only its lists' prefixes)."""
        # Recursive: scopes nest no deeper than a third of the document's depth limit.
        if type(scope) is not TaskScope and not isinstance(scope, TaskScope):
            return
        if scope.tasks:
            self.tasks(scope.tasks, f"{ptr}{suffix}/tasks/")
        outputs = scope.outputs
        if outputs and not _plain_named(outputs, True):  # (the pointer only when needed)
            self.named_values(outputs, f"{ptr}{suffix}/outputs", "output")
        if scope.always:
            self.tasks(scope.always, f"{ptr}{suffix}/always/")

    def plan(self, plan: TaskPlan) -> None:
        self.inputs(plan.inputs, "/inputs", "input")
        self.scope(plan.root, "/root")
        for g, group in enumerate(plan.groups):
            ptr = f"/groups/{g}"
            if not isinstance(group, TaskGroup):
                continue
            self.declare(group.id, DECL_GROUP, ptr, group)
            self.inputs(group.inputs, f"{ptr}/inputs", "group input")
            self.scope(group.body, f"{ptr}/body")
        for c, choice in enumerate(plan.choices):
            ptr = f"/choices/{c}"
            if not isinstance(choice, PlanningChoice):
                continue
            self.declare(choice.id, DECL_CHOICE, ptr, choice)
            self.type(choice.type, f"{ptr}/type")
            # alternative IDs follow the lexical rule; two alternatives with one ID are
            # CHOICE_INVALID (taskplan.md, Choices), the structure pass's finding
            self.names(choice.alternatives, f"{ptr}/alternatives", "alternative", duplicates=False, key="id")
            for i, alt in enumerate(choice.alternatives):
                value = getattr(alt, "value", None)
                if value is not None:
                    self.values(value, f"{ptr}/alternatives/{i}/value")


def run(plan: TaskPlan, reporter: Reporter) -> IdentityTable:
    """Check the one ID namespace and the names of every list; return the table of
    first declarations that the scope pass resolves references against."""
    walker = _Identity(reporter)
    with gc_paused():
        walker.plan(plan)
    return walker.table
