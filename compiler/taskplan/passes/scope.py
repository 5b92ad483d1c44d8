"""The scope pass: the scope tree, visibility, captures, exports, dependencies and
their order, cycles, groups, choices. Produces the CheckedPlan.

Four steps, each linear in the plan (times the nesting depth for walks up the
scope tree):

1. build the tree: a ScopeNode per scope, a TaskNode per task, GroupNode,
   ChoiceNode, InputDecl, in document order;
2. resolve every reference (each `dependsOn` entry, each `output`, `present`,
   `input`, `choice`, `item` and `index` value) against the visibility rules,
   recording dependencies (captures make the compound task that owns a scope
   depend on what its insides read) and captures on each scope boundary crossed;
   check `call` tasks against their group;
3. order each scope (Kahn with a heap keyed by list index) and report each cycle
   once (Tarjan's strongly connected components, iteratively);
4. report loops of groups calling each other, once per loop.
"""

from __future__ import annotations

import difflib
import heapq
from collections import deque
from collections.abc import Callable
from typing import Any

from taskplan.diagnostics import Reporter
from taskplan.passes.identity import suggest_id
from taskplan.passes.subjects import subject_at
from taskplan.source.pointer import ALWAYS as _ALWAYS
from taskplan.source.pointer import BRANCH as _BRANCH
from taskplan.source.pointer import DEPENDS_ON as _DEPENDS_ON
from taskplan.source.pointer import INPUT_VALUE, ITEM, MEMBER_VALUE, OUTPUT_VALUE, SUFFIXES
from taskplan.source.pointer import OUTPUT as _OUTPUT
from taskplan.source.pointer import TASK as _TASK
from taskplan.fastinit import maker
from taskplan.ir.checked import (
    BODY,
    BRANCH,
    CONTAINER_VALUES,
    FOREACH_BODY,
    OTHERWISE,
    REF_DEPENDS,
    REF_INDEX,
    REF_INPUT,
    REF_ITEM,
    REF_OUTPUT,
    REF_PRESENT,
    Capture,
    CheckedPlan,
    ChoiceNode,
    Dependency,
    GroupNode,
    IdentityTable,
    InputDecl,
    OutputDecl,
    Resolution,
    ScopeNode,
    ScopeRole,
    TaskNode,
    gc_paused,
    task_value_slots,
)
from taskplan.model.plan import (
    CallTask,
    ChoiceValue,
    ObjectValue,
    OperationTask,
    TransformTask,
    ConditionalTask,
    ForeachTask,
    IndexValue,
    InputValue,
    InvalidTask,
    ItemValue,
    OutputValue,
    ParallelTask,
    PlanningChoice,
    PresentValue,
    SequenceTask,
    TaskGroup,
    TaskInput,
    TaskOutput,
    TaskPlan,
    TaskScope,
    ValueTask,
    dropped_fields,
    is_broken,
    scopes_of,
)


SUGGESTION_BUDGET = 200_000
"""Most candidate comparisons spent on "did you mean" hints in one run: suggestions
stay cheap however many unknown names a plan has."""


class _Suggester:
    """`did you mean` over a candidate list, with a global comparison budget."""

    def __init__(self) -> None:
        self.budget = SUGGESTION_BUDGET

    def closest(self, name: str, candidates: Callable[[], list[str]]) -> str | None:
        pool = candidates()
        if not pool:
            return None
        folded = name.casefold()
        for c in pool:  # a case slip is the likeliest mistake
            if c.casefold() == folded and c != name:
                return c
        if self.budget < len(pool):
            return None
        self.budget -= len(pool)
        found = difflib.get_close_matches(name, pool, n=1, cutoff=0.75)
        return found[0] if found else None


def _task_subject(task: TaskNode) -> dict[str, str]:
    """The subject of a diagnostic about a task's own `dependsOn` entry."""
    return {"task": task.id} if task.id is not None else {}


def _did_you_mean(found: str | None) -> str | None:
    return f"did you mean `{found}`?" if found else None


def _port_text(port: str | None) -> str:
    return f", port: {port}" if port is not None else ", port: null"


class _ScopePass:
    fast_paths = True
    """The inline same-scope read of an operation's binding, a task's own values read without
    task_value_slots, and the one-task order (off: the general paths, for the test that
    holds them to each other)."""

    def __init__(self, plan: TaskPlan, identity: IdentityTable, reporter: Reporter):
        self.plan = plan
        self.identity = identity
        self.reporter = reporter
        root = ScopeNode("/root", plan.root, ScopeRole.ROOT, None, None)
        self.cp = CheckedPlan(plan, identity, root)
        self.walk: list[TaskNode | ScopeNode] = []
        """Document order of the reference sites: a task for its own fields, a scope for
        its `outputs` (a scope without them is not listed)."""
        self.suggest = _Suggester()
        self._task_ids: list[str] | None = None
        self._choice_ids: list[str] | None = None
        self._renames: dict[str, Any] | None = None
        """Suggested new ID -> the declaration whose ID is in error (`renamed`)."""
        self.group_input_owner: dict[str, GroupNode] = {}
        self.calls: list[TaskNode] = []
        """The `call` tasks that name a group, in document order."""
        self.dispatch: dict[type, Callable[[str, Any, TaskNode | None, ScopeNode], None]] = {
            OutputValue: self._on_output,
            PresentValue: self._on_present,
            InputValue: self._on_input,
            ChoiceValue: self._on_choice,
            ItemValue: self._on_item,
            IndexValue: self._on_index,
        }
        """Reference value class -> its handler (exact classes: the models are final)."""
        self.by_id = self.cp.by_id
        self.resolutions = self.cp.resolutions

    # ================================================================ 1. build

    def build(self) -> None:
        cp, plan, identity = self.cp, self.plan, self.identity
        for i, inp in enumerate(plan.inputs):
            if isinstance(inp, TaskInput) and isinstance(inp.name, str):
                ptr = f"/inputs/{i}"
                decl = InputDecl(inp.name, inp, ptr, None, identity.name_ok(f"{ptr}/name"))
                cp.inputs.append(decl)
                cp.input_by_name.setdefault(inp.name, decl)
        self.build_tree(cp.root)
        for g, group in enumerate(plan.groups):
            if not isinstance(group, TaskGroup) or not isinstance(group.id, str):
                continue
            ptr = f"/groups/{g}"
            node = GroupNode(group.id, group, ptr)
            node.duplicate = identity.is_copy(ptr)
            node.id_ok = ptr not in identity.invalid_ids
            for i, inp in enumerate(group.inputs):
                if isinstance(inp, TaskInput) and isinstance(inp.name, str):
                    iptr = f"{ptr}/inputs/{i}"
                    decl = InputDecl(inp.name, inp, iptr, node, identity.name_ok(f"{iptr}/name"))
                    node.inputs.append(decl)
                    node.input_by_name.setdefault(inp.name, decl)
                    self.group_input_owner.setdefault(inp.name, node)
            cp.groups.append(node)
            cp.by_pointer[ptr] = node
            if isinstance(group.body, TaskScope):
                body = ScopeNode(f"{ptr}/body", group.body, ScopeRole.GROUP_BODY, node, None, group=node)
                node.body = body
                self.build_tree(body)
        for c, choice in enumerate(plan.choices):
            if not isinstance(choice, PlanningChoice) or not isinstance(choice.id, str):
                continue
            ptr = f"/choices/{c}"
            node = ChoiceNode(choice.id, choice, ptr)
            node.duplicate = identity.is_copy(ptr)
            node.id_ok = ptr not in identity.invalid_ids
            cp.choices.append(node)
            cp.by_pointer[ptr] = node
        if identity.copies:  # (else no task is a copy)
            for task in cp.tasks:
                if task.duplicate and task.id is not None:
                    cp.copy_scopes.setdefault(task.id, set()).add(task.scope)
        by_pointer = cp.by_pointer  # (a declaration's pointer is a task's, group's or choice's: never a scope's)
        self.by_id = cp.by_id = {
            ident: found for ident, decl in identity.declarations.items() if (found := by_pointer.get(decl.pointer)) is not None
        }

    def build_tree(self, top: ScopeNode) -> None:
        """Pre-order over the scope tree under `top`: a scope, then each of its tasks
        followed by the scopes nested in it, its `outputs`, then its cleanup tasks
        likewise. Iterative (nesting is deep): a frame is a scope not entered yet, an
        iterator over a list of task nodes (resumed where it stopped), or a scope in a
        1-tuple (its `outputs`, a reference site of its own)."""
        tasks, by_pointer, walk = self.cp.tasks, self.cp.by_pointer, self.walk
        enter = self.enter
        stack: list[Any] = [top]
        while stack:
            frame = stack.pop()
            if type(frame) is ScopeNode:  # its parts, the last one first on the stack
                enter(frame)
                if frame.always:
                    stack.append(iter(frame.always))
                if frame.outputs:
                    stack.append((frame,))
                frame = iter(frame.tasks)
            elif type(frame) is tuple:
                walk.append(frame[0])
                continue
            for item in frame:
                walk.append(item)  # a task, for its own fields
                tasks.append(item)
                by_pointer[item.pointer] = item
                if children := item.children:  # its nested scopes first, then the rest of the list
                    stack.append(frame)
                    if len(children) == 1:  # (no reversed() object for the commonest case)
                        stack.append(children[0])
                    else:
                        stack.extend(reversed(children))
                    break

    def enter(self, scope: ScopeNode) -> None:
        """Record `scope`, make the nodes of its tasks, exports and cleanup tasks."""
        self.cp.scopes.append(scope)
        sptr = scope.pointer
        self.cp.by_pointer[sptr] = scope
        identity = self.identity
        copies, invalid_ids = identity.copies, identity.invalid_ids
        make_task = self.make_task
        model = scope.model
        entries: list[TaskNode] = scope.tasks
        i = -1  # (positions counted, here and below: an enumerate object costs more than a short list's count)
        for t in model.tasks:
            i += 1
            ptr = sptr + (_TASK[i] if i < SUFFIXES else f"/tasks/{i}")
            if type(t) in _LEAF_TASKS and not t._marks:
                # the common case: a task model without marks (so its `id` is a string) and without
                # child scopes
                entries.append(_task_node(t, ptr, scope, i, ptr in copies, ptr not in invalid_ids, _NO_CHILDREN))
            elif type(t) in _COMPOUND_TASKS and not t._marks:
                entries.append(self.make_compound(t, ptr, scope, i))
            else:
                entries.append(make_task(t, ptr, scope, i, False))
        if model.outputs:  # (an empty list's loop still makes its iterators)
            bad_names = identity.bad_names  # (IdentityTable.name_ok, without building the pointer when empty)
            i = -1
            for o in model.outputs:
                i += 1
                if isinstance(o, TaskOutput) and isinstance(name := o.name, str):
                    optr = sptr + (_OUTPUT[i] if i < SUFFIXES else f"/outputs/{i}")
                    usable = not bad_names or f"{optr}/name" not in bad_names
                    scope.outputs.append(_output_decl(name, o, optr, usable))
        if model.always:
            self.make_cleanup(scope)

    def make_cleanup(self, scope: ScopeNode) -> None:
        """The nodes of `scope`'s cleanup tasks (`always`), made as in `enter`."""
        sptr, always, identity = scope.pointer, scope.always, self.identity
        for i, t in enumerate(scope.model.always):
            ptr = sptr + (_ALWAYS[i] if i < SUFFIXES else f"/always/{i}")
            if type(t) in _LEAF_TASKS and not t._marks:  # as in `tasks`, then marked as a cleanup task
                node = _task_node(t, ptr, scope, i, ptr in identity.copies, ptr not in identity.invalid_ids, _NO_CHILDREN)
                node.in_always = True
            elif type(t) in _COMPOUND_TASKS and not t._marks:
                node = self.make_compound(t, ptr, scope, i)
                node.in_always = True
            else:
                node = self.make_task(t, ptr, scope, i, True)
            always.append(node)

    def make_compound(self, t: Any, ptr: str, scope: ScopeNode, index: int) -> TaskNode:
        """`make_task` for a task of a compound class without marks (so its `id` is a
        string and it is not broken; a cleanup task's caller sets `in_always`): its child
        scopes read from its fields directly, without `scopes_of`'s generic listing."""
        node = _task_node(t, ptr, scope, index, ptr in self.identity.copies, ptr not in self.identity.invalid_ids, [])
        depth, group, foreach = scope.depth + 1, scope.group, scope.foreach
        children = node.children
        kind = type(t)
        if kind is ParallelTask:
            b = -1
            for model in t.branches:
                b += 1
                if isinstance(model, TaskScope):
                    bptr = ptr + (_BRANCH[b] if b < SUFFIXES else f"/branches/{b}")
                    children.append(_scope_node(bptr, model, BRANCH, node, scope, b, depth, group, foreach))
            return node
        body = t.body
        if isinstance(body, TaskScope):
            if kind is ForeachTask:
                child = _scope_node(ptr + "/body", body, FOREACH_BODY, node, scope, None, depth, group, foreach)
                child.foreach = child
            else:
                child = _scope_node(ptr + "/body", body, BODY, node, scope, None, depth, group, foreach)
            children.append(child)
        if kind is ConditionalTask:
            other = t.otherwise
            if other is not None and isinstance(other, TaskScope):
                children.append(_scope_node(ptr + "/otherwise", other, OTHERWISE, node, scope, None, depth, group, foreach))
        return node

    def make_task(self, t: Any, ptr: str, scope: ScopeNode, index: int, in_always: bool) -> TaskNode:
        ident = getattr(t, "id", None)
        identity = self.identity
        node = TaskNode(
            ident if isinstance(ident, str) else None,
            t,
            ptr,
            scope,
            index,
            in_always,
            [],  # children
            {},  # deps
            is_broken(t),  # broken
            ptr in identity.copies,  # duplicate (identity.is_copy)
            ptr not in identity.invalid_ids,  # id_ok
        )
        if type(t) in _LEAF_TASKS:
            return node  # no child scopes (scopes_of)
        child_scopes = scopes_of(t)
        if not child_scopes:
            return node
        kind = getattr(t, "kind", None)
        children: list[tuple[str, Any, ScopeRole, int | None]] = []
        # a placeholder of known kind keeps the child scopes that could be shaped
        for suffix, model in child_scopes:
            if suffix == "/otherwise":
                children.append((suffix, model, ScopeRole.OTHERWISE, None))
            elif suffix.startswith("/branches/"):
                children.append((suffix, model, ScopeRole.BRANCH, int(suffix[len("/branches/"):])))
            elif kind == "foreach":
                children.append((suffix, model, ScopeRole.FOREACH_BODY, None))
            else:
                children.append((suffix, model, ScopeRole.BODY, None))
        depth, group, foreach = scope.depth + 1, scope.group, scope.foreach
        for suffix, model, role, branch in children:
            if not isinstance(model, TaskScope):
                continue
            child = ScopeNode(ptr + suffix, model, role, node, scope, branch, depth, group, foreach)
            if role is ScopeRole.FOREACH_BODY:
                child.foreach = child
            node.children.append(child)
        return node

    # ============================================================== 2. resolve

    def resolve(self) -> None:
        values, read_task, read_target, ports = self.values, self.read_task, self.read_target, self.ports
        readers = _READERS
        by_id, resolutions = self.by_id, self.resolutions
        inline = self.fast_paths
        for task in self.walk:
            if type(task) is ScopeNode:  # a scope's `outputs`
                for o in task.outputs:
                    v = o.model.value
                    if type(v) is OutputValue and inline:  # (`values`' commonest case, without its call)
                        read_task(REF_OUTPUT, o.pointer + "/value", v.source, v.port, None, task)
                    else:
                        values(o.pointer + "/value", v, None, task)
                continue
            scope = task.scope
            model = task.model
            kind = type(model)
            if kind is InvalidTask:
                if model.dependsOn:
                    self.depends_on(task)
                continue  # a placeholder's values are not checked; its dependsOn still orders it
            if model.dependsOn:
                self.depends_on(task)
            if kind is OperationTask:  # task_value_slots of the commonest task, inline
                ptr = task.pointer
                i = -1  # (counted, as in `enter`)
                for b in model.inputs:
                    i += 1
                    if type(b) is TaskOutput:
                        v = b.value
                        if type(v) is OutputValue:
                            source, port = v.source, v.port
                            target = by_id.get(source) if type(source) is str else None
                            if (
                                inline
                                and type(target) is TaskNode
                                and target.scope is scope
                                and target is not task
                                and not target.in_always
                            ):  # read_task's common case, inline: a task of the reader's own scope
                                vptr = ptr + (INPUT_VALUE[i] if i < SUFFIXES else f"/inputs/{i}/value")
                                if type(port) is not str:
                                    port = None
                                # Resolution(REF_OUTPUT, vptr, source, target, True, port, task, scope),
                                # without the dataclass call (as in `enter`)
                                res = _new(Resolution)
                                res.kind = REF_OUTPUT
                                res.pointer = vptr
                                res.source = source
                                res.target = target
                                res.ok = True
                                res.port = port
                                res.reader = task
                                res.scope = scope
                                resolutions[vptr] = res
                                dep = task.deps.get(target)
                                if dep is None:  # Dependency(target, [vptr], False, True), likewise
                                    dep = _new(Dependency)
                                    dep.task = target
                                    dep.pointers = [vptr]
                                    dep.explicit = False
                                    dep.reads = True
                                    task.deps[target] = dep
                                else:
                                    dep.pointers.append(vptr)
                                    dep.reads = True
                            elif type(source) is str:  # read_task past its same-scope case (`target` looked up)
                                vptr = ptr + (INPUT_VALUE[i] if i < SUFFIXES else f"/inputs/{i}/value")
                                read_target(REF_OUTPUT, vptr, source, port if isinstance(port, str) else None, task, scope, target)
                            else:
                                vptr = ptr + (INPUT_VALUE[i] if i < SUFFIXES else f"/inputs/{i}/value")
                                read_task(REF_OUTPUT, vptr, source, port, task, scope)
                        elif type(v) in readers:  # (a literal reads nothing)
                            values(ptr + (INPUT_VALUE[i] if i < SUFFIXES else f"/inputs/{i}/value"), v, task, scope)
                continue  # its ports are the catalog's (the types pass's)
            if kind is CallTask:
                self.call(task)
            ptr = task.pointer
            if kind is TransformTask or (kind is CallTask and inline):  # its inputs (task_value_slots, inline;
                i = -1  # it adds a transform's type's literal defaults)
                for b in model.inputs:
                    i += 1
                    if type(b) is TaskOutput and type(v := b.value) in readers:
                        vptr = ptr + (INPUT_VALUE[i] if i < SUFFIXES else f"/inputs/{i}/value")
                        if type(v) is OutputValue and inline:  # (as for `outputs`)
                            read_task(REF_OUTPUT, vptr, v.source, v.port, task, scope)
                        else:
                            values(vptr, v, task, scope)
                if kind is TransformTask:
                    continue  # its ports are its resultType's (the types pass's)
            elif kind in _NO_VALUES and inline:
                pass  # (task_value_slots yields nothing for these)
            elif kind is ValueTask and inline:  # task_value_slots, inline
                i = -1
                for o in model.outputs:
                    i += 1
                    if type(o) is TaskOutput and type(v := o.value) in readers:
                        values(ptr + (OUTPUT_VALUE[i] if i < SUFFIXES else f"/outputs/{i}/value"), v, task, scope)
            elif kind is ConditionalTask and inline:
                values(ptr + "/condition", model.condition, task, scope)
            elif kind is ForeachTask and inline:
                values(ptr + "/items", model.items, task, scope)
            else:
                for slot, vptr, value in task_value_slots(model, ptr):
                    if slot != "default":  # literal positions: the types pass checks them
                        values(vptr, value, task, scope)
            ports(task)  # (it depends on the task alone, once a call's group is resolved)

    def values(self, pointer: str, value: Any, reader: TaskNode | None, scope: ScopeNode) -> None:
        dispatch = self.dispatch
        kind = type(value)
        if kind is OutputValue:  # the commonest value: a read of a task's port
            self.read_task(REF_OUTPUT, pointer, value.source, value.port, reader, scope)
            return
        if kind not in CONTAINER_VALUES:  # the common case: one leaf value
            handle = dispatch.get(kind)
            if handle is not None:
                handle(pointer, value, reader, scope)
            return
        # the references inside, pre-order (iter_subvalues' order, without the literals)
        readers = _READERS
        stack: list[tuple[str, Any]] = [(pointer, value)]
        while stack:
            ptr, v = stack.pop()
            kind = type(v)
            if kind is ObjectValue:
                members = v.members
                i = len(members)  # (counted down: no range object)
                while i:
                    i -= 1
                    m = members[i]
                    if isinstance(m, TaskOutput) and type(m.value) in readers:
                        stack.append((ptr + (MEMBER_VALUE[i] if i < SUFFIXES else f"/members/{i}/value"), m.value))
            elif kind in CONTAINER_VALUES:
                items = v.items
                i = len(items)
                while i:
                    i -= 1
                    if type(items[i]) in readers:
                        stack.append((ptr + (ITEM[i] if i < SUFFIXES else f"/items/{i}"), items[i]))
            elif kind is OutputValue:  # (the commonest, without the handler's call)
                self.read_task(REF_OUTPUT, ptr, v.source, v.port, reader, scope)
            else:
                dispatch[kind](ptr, v, reader, scope)

    def _on_output(self, ptr: str, v: Any, reader: TaskNode | None, scope: ScopeNode) -> None:
        self.read_task(REF_OUTPUT, ptr, v.source, v.port, reader, scope)

    def _on_present(self, ptr: str, v: Any, reader: TaskNode | None, scope: ScopeNode) -> None:
        self.read_task(REF_PRESENT, ptr, v.source, None, reader, scope)

    def _on_input(self, ptr: str, v: Any, reader: TaskNode | None, scope: ScopeNode) -> None:
        self.read_input(ptr, v.source, reader, scope)

    def _on_choice(self, ptr: str, v: Any, reader: TaskNode | None, scope: ScopeNode) -> None:
        self.read_choice(ptr, v.source, reader, scope)

    def _on_item(self, ptr: str, v: Any, reader: TaskNode | None, scope: ScopeNode) -> None:
        self.read_item(REF_ITEM, ptr, reader, scope)

    def _on_index(self, ptr: str, v: Any, reader: TaskNode | None, scope: ScopeNode) -> None:
        self.read_item(REF_INDEX, ptr, reader, scope)

    # ------------------------------------------------------------- helpers

    def task_ids(self) -> list[str]:
        if self._task_ids is None:
            self._task_ids = [i for i, n in self.cp.by_id.items() if isinstance(n, TaskNode) and n.id_ok]
        return self._task_ids

    def choice_ids(self) -> list[str]:
        if self._choice_ids is None:
            self._choice_ids = [i for i, n in self.cp.by_id.items() if isinstance(n, ChoiceNode) and n.id_ok]
        return self._choice_ids

    def subject(self, reader: TaskNode | None, scope: ScopeNode, ptr: str) -> dict[str, str]:
        """The reader task; a read in a scope's `outputs` (no reader): the port it exports
        (of the owning task or group; a root output: `{output: name}`, passes/subjects.py)."""
        if reader is not None and reader.id is not None:
            return {"task": reader.id}
        return subject_at(self.reporter.document.tree, ptr)

    def renamed(self, name: str, kind: type) -> bool:
        """Whether `name` is the new ID that TASK_ID_INVALID / TASK_ID_RESERVED suggests for
        a declaration of `kind` (`suggest_id`): the reference means that declaration, and
        the one mistake is its ID, reported there (decisions.md)."""
        if not self.identity.invalid_ids:
            return False
        if self._renames is None:
            self._renames = {}
            for node in self.cp.by_id.values():
                if not node.id_ok and node.id is not None:
                    new = suggest_id(node.id)
                    if new is not None and new != node.id:
                        self._renames.setdefault(new, node)
        return isinstance(self._renames.get(name), kind)

    @staticmethod
    def add_dep(task: TaskNode, target: TaskNode, pointer: str, *, explicit: bool) -> None:
        dep = task.deps.get(target)
        if dep is None:
            dep = task.deps[target] = _dependency(target, [], False, False)
        dep.pointers.append(pointer)
        if explicit:
            dep.explicit = True
        else:
            dep.reads = True

    def describe(self, node: Any) -> str:
        if isinstance(node, GroupNode):
            return f"`{node.id}` is a group, not a task"
        if isinstance(node, ChoiceNode):
            return f"`{node.id}` is a choice, not a task"
        return ""

    # ------------------------------------------------------------ dependsOn

    def depends_on(self, task: TaskNode) -> None:
        entries = getattr(task.model, "dependsOn", None)
        if not isinstance(entries, list):
            return
        rep, resolutions, by_id = self.reporter, self.resolutions, self.by_id
        for j, name in enumerate(entries):
            if not isinstance(name, str):
                continue
            ptr = task.pointer + (_DEPENDS_ON[j] if j < SUFFIXES else f"/dependsOn/{j}")
            resolutions[ptr] = res = _resolution(REF_DEPENDS, ptr, name, None, True, None, task, task.scope)
            target = by_id.get(name)
            if not isinstance(target, TaskNode):
                res.ok = False
                subject = _task_subject(task)
                if target is not None:
                    rep.report(
                        "TASK_DEPENDENCY_UNKNOWN",
                        ptr,
                        f"`dependsOn` of `{task.label}` names `{name}`, which is not a task: {self.describe(target)}",
                        subject=subject,
                        hint="`dependsOn` names tasks of the same scope",
                    )
                elif not self.renamed(name, TaskNode):
                    same_scope = lambda: [t.id for t in task.scope.tasks if t.id is not None and not t.duplicate and t.id_ok]  # noqa: E731
                    found = self.suggest.closest(name, same_scope) or self.suggest.closest(name, self.task_ids)
                    rep.report(
                        "TASK_DEPENDENCY_UNKNOWN",
                        ptr,
                        f"`dependsOn` of `{task.label}` names `{name}`, but no task has that ID",
                        subject=subject,
                        hint=_did_you_mean(found) or "`dependsOn` names tasks of the same scope",
                    )
                continue
            res.target = target
            if target.scope is task.scope:
                if target.in_always and not task.in_always:
                    res.ok = False
                    rep.report(
                        "TASK_REFERENCE_SCOPE",
                        ptr,
                        f"`{task.label}` cannot depend on `{name}`: `{name}` is a cleanup task (in `always`), which runs after every task in `tasks`",
                        subject=_task_subject(task),
                        hint=f"move `{name}` into `tasks`, or drop this entry",
                    )
                    continue
                self.add_dep(task, target, ptr, explicit=True)
                continue
            if task.scope in self.cp.copy_scopes.get(name, ()):
                res.ok = False  # a later copy of a duplicated ID (reported) is meant: nothing more
                continue
            res.ok = False
            rep.report(
                "TASK_REFERENCE_SCOPE",
                ptr,
                f"`dependsOn` of `{task.label}` names `{name}`, which is not in the same scope: it is in {target.scope.label}",
                subject=_task_subject(task),
                hint=self.depends_hint(task, target),
            )

    def depends_hint(self, task: TaskNode, target: TaskNode) -> str:
        """Where the dependency belongs instead."""
        s_t, s_x = task.scope, target.scope
        if s_t.group is s_x.group:
            # the target's scope is an ancestor of the task's: order the enclosing task
            c, pos = s_t, task
            while c.depth > s_x.depth and c.parent is not None:
                pos = c.owner if isinstance(c.owner, TaskNode) else pos
                c = c.parent
            if c is s_x and pos is not target:
                return f"`{task.label}` runs inside `{pos.label}`: add `{target.label}` to the `dependsOn` of `{pos.label}` instead"
            # the target is nested inside a task of this scope: depend on that task
            c = s_x
            while c.depth > s_t.depth and c.parent is not None:
                if c.parent is s_t and isinstance(c.owner, TaskNode):
                    owner = c.owner
                    if owner is not task:
                        return f"`{target.label}` runs inside `{owner.label}`: depend on `{owner.label}` instead"
                    break
                c = c.parent
        return "`dependsOn` names tasks of the same scope"

    # --------------------------------------------------------- task reads

    def read_task(
        self,
        kind: str,
        ptr: str,
        source: Any,
        port: Any,
        reader: TaskNode | None,
        scope: ScopeNode,
    ) -> None:
        if not isinstance(source, str):
            return
        target = self.by_id.get(source)
        if not isinstance(port, str):
            port = None
        if type(target) is TaskNode and scope is target.scope and target is not reader and not target.in_always:
            # the common case, inline: a task of the reader's own scope (no boundary crossed);
            # Resolution(kind, ptr, source, target, True, port, reader, scope) without the
            # dataclass call (as in `enter`)
            res = _new(Resolution)
            res.kind = kind
            res.pointer = ptr
            res.source = source
            res.target = target
            res.ok = True
            res.port = port
            res.reader = reader
            res.scope = scope
            self.resolutions[ptr] = res
            if reader is not None:
                dep = reader.deps.get(target)  # add_dep(reader, target, ptr, explicit=False)
                if dep is None:  # Dependency(target, [ptr], False, True), likewise
                    dep = _new(Dependency)
                    dep.task = target
                    dep.pointers = [ptr]
                    dep.explicit = False
                    dep.reads = True
                    reader.deps[target] = dep
                else:
                    dep.pointers.append(ptr)
                    dep.reads = True
            return
        self.read_target(kind, ptr, source, port, reader, scope, target)

    def read_target(
        self,
        kind: str,
        ptr: str,
        source: str,
        port: str | None,
        reader: TaskNode | None,
        scope: ScopeNode,
        target: Any,
    ) -> None:
        """`read_task` once `source` is looked up (`target`: what the ID names, if anything)."""
        if type(target) is TaskNode:
            res = _resolution(kind, ptr, source, target, True, port, reader, scope)
            self.resolutions[ptr] = res
        else:
            self.resolutions[ptr] = res = _resolution(kind, ptr, source, None, False, port, reader, scope)
            rep = self.reporter
            src_ptr = f"{ptr}/source"
            subject = self.subject(reader, scope, ptr)
            if target is not None:
                if isinstance(target, ChoiceNode):
                    hint = f"read a choice with `{{kind: choice, source: {source}}}`"
                else:
                    hint = f"read what the group produces through a `call` task of `{source}`"
                rep.report(
                    "TASK_REFERENCE_UNKNOWN",
                    src_ptr,
                    f"`{source}` is not a task: {self.describe(target)}",
                    subject=subject,
                    hint=hint,
                )
                return
            if self.renamed(source, TaskNode):
                return
            if source in self.cp.input_by_name or (scope.group is not None and source in scope.group.input_by_name):
                hint = f"to read the input `{source}`, write `{{kind: input, source: {source}}}`"
            else:
                hint = _did_you_mean(self.suggest.closest(source, self.task_ids))
            rep.report(
                "TASK_REFERENCE_UNKNOWN",
                src_ptr,
                f"no task has the ID `{source}`",
                subject=subject,
                hint=hint,
            )
            return
        if target is reader:
            self.add_dep(reader, target, ptr, explicit=False)  # a self-dependency: reported as a cycle
            return
        s_x = target.scope
        c, pos = scope, reader
        depth = s_x.depth
        while c.depth > depth and c.parent is not None:
            pos = c.owner if type(c.owner) is TaskNode else None
            c = c.parent
        if c is s_x:
            if pos is target:
                # read from inside the task's own child scope: it depends on itself
                self.add_dep(target, target, ptr, explicit=False)
                return
            if not target.in_always:
                key = (kind, source, port)
                c = scope
                while c is not s_x:  # the capture on each scope crossed (one per key; its pointers in walk order)
                    cap = c.captures.get(key)
                    if cap is None:
                        cap = c.captures[key] = _capture(kind, source, port, target)
                    cap.pointers.append(ptr)
                    c = c.parent
                if pos is not None:  # add_dep(pos, target, ptr, explicit=False), inline
                    dep = pos.deps.get(target)
                    if dep is None:
                        pos.deps[target] = _dependency(target, [ptr], False, True)
                    else:
                        dep.pointers.append(ptr)
                        dep.reads = True
                return
        res.ok = False
        if self.cp.copy_visible(source, scope):
            return  # the reader means a later copy of a duplicated ID (reported): nothing more
        rep = self.reporter
        src_ptr = f"{ptr}/source"
        subject = self.subject(reader, scope, ptr)
        if target.in_always:
            rep.report(
                "TASK_REFERENCE_SCOPE",
                src_ptr,
                f"`{source}` is a cleanup task (in `always` of {s_x.label}): nothing may read its ports",
                subject=subject,
                hint=f"if other tasks need its result, move `{source}` into `tasks`",
            )
            return
        self.not_visible(target, res, reader, scope, src_ptr, subject)

    def not_visible(
        self,
        target: TaskNode,
        res: Resolution,
        reader: TaskNode | None,
        scope: ScopeNode,
        src_ptr: str,
        subject: dict[str, str],
    ) -> None:
        rep = self.reporter
        s_x = target.scope
        name = target.id or ""
        export = res.port if res.port is not None else name
        if s_x.group is not scope.group:
            if scope.group is not None:
                g = scope.group
                rep.report(
                    "TASK_REFERENCE_SCOPE",
                    src_ptr,
                    f"task `{name}` is outside group `{g.id}`: a group body sees only the group's inputs",
                    subject=subject,
                    hint=(
                        f"declare an input of group `{g.id}` for it and bind it at each call, e.g. "
                        f"`{{name: {export}, value: {{kind: output, source: {name}{_port_text(res.port)}}}}}`"
                    ),
                )
            else:
                top = self.chain(s_x, None)
                rep.report(
                    "TASK_REFERENCE_SCOPE",
                    src_ptr,
                    f"task `{name}` is not visible here: it is in {s_x.label}",
                    subject=subject,
                    hint=self.chain_hint(top, name, res.port, None),
                )
            return
        lca, cx, cp = self.lca(s_x, scope)
        if (
            cp is not None
            and cx is not None
            and cx.owner is cp.owner
            and cx.role is ScopeRole.BRANCH
            and cp.role is ScopeRole.BRANCH
        ):
            par = cx.owner
            rep.report(
                "TASK_REFERENCE_SIBLING",
                src_ptr,
                f"task `{name}` is in branch {cx.branch} of parallel `{par.label}`, which runs concurrently with this branch ({cp.branch}): branches cannot read each other",
                subject=subject,
                hint=self.chain_hint(self.chain(s_x, cx), name, res.port, par, f" from a later task, once `{par.label}` completes"),
            )
            return
        position = cp.owner if cp is not None else reader
        hint = None
        if cx is not None and cx.owner is not position:
            hint = self.chain_hint(self.chain(s_x, cx), name, res.port, cx.owner)
        rep.report(
            "TASK_REFERENCE_SCOPE",
            src_ptr,
            f"task `{name}` is not visible here: it is in {s_x.label}",
            subject=subject,
            hint=hint,
        )

    @staticmethod
    def chain(start: ScopeNode, stop: ScopeNode | None) -> list[ScopeNode]:
        """Scopes from `start` up to `stop` (inclusive; None: to the top of the tree)."""
        out = [start]
        c = start
        while c is not stop and c.parent is not None:
            c = c.parent
            out.append(c)
        return out

    @staticmethod
    def exported_as(scope: ScopeNode, source: str | None, port: str | None) -> str | None:
        """The name under which `scope`'s `outputs` already export port `port` of task
        `source` (None: the whole task), if one of them does."""
        if source is None:
            return None
        for o in scope.outputs:
            v = o.model.value if o.usable and isinstance(o.model, TaskOutput) else None
            if type(v) is OutputValue and v.source == source and v.port == port:
                return o.name
        return None

    def chain_hint(self, chain: list[ScopeNode], source: str, port: str | None, top: Any, after: str = "") -> str:
        """How to make port `port` of task `source` (in `chain[0]`) visible: exported from
        each scope of `chain` in turn, then read from `top` (the task owning the last
        scope; None: a group's body, read from a call). An export that already exists is
        used, under its own name; exports are proposed only where none exists."""
        name = port if port is not None else source
        parts: list[str] = []
        existing: ScopeNode | None = None
        existing_name = name
        src: str | None = source
        for s in chain:
            have = None if parts else self.exported_as(s, src, port)
            if have is not None:
                existing, name, existing_name = s, have, have
            elif not parts:
                parts.append(f"export `{name}` from {s.label} (its `outputs`)")
            else:
                parts.append(f"then from {s.label}")
            owner = s.owner
            src, port = (owner.id if isinstance(owner, TaskNode) else None), name
        notes = []
        for s in chain:
            if s.role in (ScopeRole.BODY, ScopeRole.OTHERWISE) and isinstance(s.owner, TaskNode) and isinstance(
                s.owner.model, ConditionalTask
            ):
                notes.append(f"both sides of `{s.owner.label}` must export it")
            elif s.role is ScopeRole.FOREACH_BODY and isinstance(s.owner, TaskNode):
                notes.append(f"`{s.owner.label}` exports it as an array, one element per item")
        last = chain[-1]
        read = None
        if isinstance(top, TaskNode):
            read = f"read port `{name}` of `{top.label}`{after}"
        elif isinstance(last.owner, GroupNode):
            read = f"read port `{name}` of a `call` task of `{last.owner.id}`{after}"
        if read is not None:
            parts.append(f"then {read}" if parts else read)
        text = ", ".join(parts)
        if existing is not None:
            text = f"{existing.label} already exports it as `{existing_name}`" + (f"; {text}" if len(parts) > 1 else f", so {text}")
        if notes:
            text += " (" + "; ".join(notes) + ")"
        return text

    @staticmethod
    def lca(a: ScopeNode, b: ScopeNode) -> tuple[ScopeNode | None, ScopeNode | None, ScopeNode | None]:
        """Lowest common scope of `a` and `b` (same tree) and the child of it on the way
        to each (None when that side is the common scope itself)."""
        ca: ScopeNode | None = None
        cb: ScopeNode | None = None
        x, y = a, b
        while x.depth > y.depth and x.parent is not None:
            ca, x = x, x.parent
        while y.depth > x.depth and y.parent is not None:
            cb, y = y, y.parent
        while x is not y and x.parent is not None and y.parent is not None:
            ca, x = x, x.parent
            cb, y = y, y.parent
        if x is not y:
            return None, None, None
        return x, ca, cb

    # --------------------------------------------------------- other reads

    def read_input(self, ptr: str, source: Any, reader: TaskNode | None, scope: ScopeNode) -> None:
        if not isinstance(source, str):
            return
        group = scope.group
        available = group.input_by_name if group is not None else self.cp.input_by_name
        decl = available.get(source)
        if decl is not None:
            self.resolutions[ptr] = _resolution(REF_INPUT, ptr, source, decl, True, None, reader, scope)
            key = (REF_INPUT, source, None)
            c = scope
            while c.parent is not None:  # the capture on each scope up to the root or the group body
                cap = c.captures.get(key)
                if cap is None:
                    cap = c.captures[key] = _capture(REF_INPUT, source, None, decl)
                cap.pointers.append(ptr)
                c = c.parent
            return
        self.resolutions[ptr] = _resolution(REF_INPUT, ptr, source, None, False, None, reader, scope)
        rep = self.reporter
        src_ptr = f"{ptr}/source"
        subject = self.subject(reader, scope, ptr)
        if "inputs" in dropped_fields(group.model if group is not None else self.plan):
            return  # the inputs list had a shape error (reported): the name may be declared there
        other = self.group_input_owner.get(source)
        if group is not None:
            if source in self.cp.input_by_name:
                rep.report(
                    "TASK_REFERENCE_SCOPE",
                    src_ptr,
                    f"`{source}` is a workflow input: the body of group `{group.id}` sees only the group's inputs",
                    subject=subject,
                    hint=(
                        f"declare `{source}` in the `inputs` of group `{group.id}` and bind it at each call: "
                        f"`{{name: {source}, value: {{kind: input, source: {source}}}}}`"
                    ),
                )
            elif other is not None and other is not group:
                rep.report(
                    "TASK_REFERENCE_SCOPE",
                    src_ptr,
                    f"`{source}` is an input of group `{other.id}`, not of group `{group.id}`",
                    subject=subject,
                    hint=f"declare `{source}` in the `inputs` of group `{group.id}` and bind it at each call",
                )
            else:
                found = self.suggest.closest(source, lambda: list(group.input_by_name))
                rep.report(
                    "TASK_REFERENCE_UNKNOWN",
                    src_ptr,
                    f"group `{group.id}` has no input `{source}`",
                    subject=subject,
                    hint=_did_you_mean(found) or f"declare it in the `inputs` of group `{group.id}`",
                )
            return
        if other is not None:
            rep.report(
                "TASK_REFERENCE_SCOPE",
                src_ptr,
                f"`{source}` is an input of group `{other.id}`: only the group's body can read it",
                subject=subject,
                hint=f"declare `{source}` in the plan's `inputs` to read it here",
            )
            return
        found = self.suggest.closest(source, lambda: list(self.cp.input_by_name))
        if found is None and isinstance(self.cp.by_id.get(source), TaskNode):
            hint = f"to read the task `{source}`, write `{{kind: output, source: {source}, port: ...}}`"
        else:
            hint = _did_you_mean(found) or "declare it in the plan's `inputs`"
        rep.report(
            "TASK_REFERENCE_UNKNOWN",
            src_ptr,
            f"the workflow has no input `{source}`",
            subject=subject,
            hint=hint,
        )

    def read_choice(self, ptr: str, source: Any, reader: TaskNode | None, scope: ScopeNode) -> None:
        if not isinstance(source, str):
            return
        self.resolutions[ptr] = res = _resolution("choice", ptr, source, None, True, None, reader, scope)
        target = self.by_id.get(source)
        if isinstance(target, ChoiceNode):
            res.target = target
            target.reads.append(ptr)
            return
        res.ok = False
        if target is None and "choices" in dropped_fields(self.plan):
            return  # the choices list had a shape error (reported)
        if target is None and self.renamed(source, ChoiceNode):
            return
        if isinstance(target, TaskNode):
            hint = f"`{source}` is a task: read it with `{{kind: output, source: {source}, port: ...}}`"
        elif isinstance(target, GroupNode):
            hint = f"`{source}` is a group, not a choice"
        elif source in self.cp.input_by_name:
            hint = f"`{source}` is an input: read it with `{{kind: input, source: {source}}}`"
        else:
            hint = _did_you_mean(self.suggest.closest(source, self.choice_ids)) or "declare it in the plan's `choices`"
        self.reporter.report(
            "CHOICE_UNKNOWN",
            f"{ptr}/source",
            f"no choice has the ID `{source}`",
            subject=self.subject(reader, scope, ptr),
            hint=hint,
        )

    def read_item(self, kind: str, ptr: str, reader: TaskNode | None, scope: ScopeNode) -> None:
        self.resolutions[ptr] = res = _resolution(kind, ptr, None, None, True, None, reader, scope)
        body = scope.foreach
        if body is not None and isinstance(owner := body.owner, TaskNode):
            res.target = owner
            key = (kind, None, None)
            c = scope
            while c is not body and c.parent is not None:  # the capture on each scope up to the foreach body
                cap = c.captures.get(key)
                if cap is None:
                    cap = c.captures[key] = _capture(kind, None, None, owner)
                cap.pointers.append(ptr)
                c = c.parent
            return
        res.ok = False
        if reader is not None and isinstance(reader.model, ForeachTask) and ptr.startswith(f"{reader.pointer}/items"):
            detail = f"the `items` of `{reader.id}` are evaluated before its body, outside any foreach body"
            hint = "read the collection from a task or an input; `item` and `index` belong in the body"
        elif scope.group is not None:
            detail = f"the body of group `{scope.group.id}` does not see the caller's foreach"
            hint = "pass the item to the group as an input"
        else:
            detail = "it is not inside any foreach body"
            hint = "`item` and `index` are read inside the `body` of a `foreach`"
        self.reporter.report(
            "TASK_ITEM_SCOPE",
            ptr,
            f"`{{kind: {kind}}}` has no current item here: {detail}",
            subject=self.subject(reader, scope, ptr),
            hint=hint,
        )

    # ---------------------------------------------------------------- calls

    def call(self, task: TaskNode) -> None:
        model: CallTask = task.model
        name = model.group
        if not isinstance(name, str):
            return
        rep = self.reporter
        ptr = task.pointer
        target = self.cp.by_id.get(name)
        if not isinstance(target, GroupNode):
            task.broken = True  # unknown group: unknown ports
            if target is None and "groups" in dropped_fields(self.plan):
                return  # the groups list had a shape error (reported)
            if target is None and self.renamed(name, GroupNode):
                return
            if isinstance(target, TaskNode):
                hint = f"`{name}` is a task, not a group; to run a task's steps again, make them a group"
            elif isinstance(target, ChoiceNode):
                hint = f"`{name}` is a choice, not a group"
            else:
                pool = lambda: [g.id for g in self.cp.groups if not g.duplicate and g.id_ok]  # noqa: E731
                hint = _did_you_mean(self.suggest.closest(name, pool)) or "declare the group in the plan's `groups`"
            rep.report(
                "TASK_GROUP_UNKNOWN",
                f"{ptr}/group",
                f"call `{task.label}` names group `{name}`, which does not exist",
                subject={"task": task.id} if task.id else None,
                hint=hint,
            )
            return
        group = target
        task.group = group
        group.calls.append(task)
        self.calls.append(task)
        if is_broken(group.model):
            task.broken = True  # a group in error has unknown outputs: so has the call
        if "inputs" in dropped_fields(group.model):
            return  # the group's inputs had a shape error (reported): bindings cannot be judged
        bound: set[str] = set()
        explained: set[str] = set()
        """Required inputs an unknown binding is a misspelling of: reported once, there."""
        bad_names = self.identity.bad_names
        for i, b in enumerate(model.inputs):
            if not isinstance(b, TaskOutput) or not isinstance(b.name, str):
                continue
            if bad_names and not self.identity.name_ok(f"{ptr}/inputs/{i}/name"):
                continue  # already reported (invalid or a second binding of the name)
            bound.add(b.name)
            if b.name not in group.input_by_name:
                nptr = f"{ptr}/inputs/{i}/name"
                found = self.suggest.closest(b.name, lambda: [d.name for d in group.inputs if d.usable])
                if found is not None:
                    explained.add(found)
                declared = ", ".join(f"`{d.name}`" for d in group.inputs if d.usable) or "none"
                rep.report(
                    "TASK_GROUP_INPUTS",
                    nptr,
                    f"group `{group.id}` has no input `{b.name}`",
                    subject={"task": task.id, "input": b.name} if task.id else {"input": b.name},
                    hint=_did_you_mean(found) or f"the group's inputs: {declared}",
                    related=[rep.related(f"{group.pointer}/inputs", f"the inputs of `{group.id}`")],
                )
        if "inputs" in dropped_fields(model):
            return  # the call's own bindings had a shape error (reported)
        for decl in group.inputs:
            if not decl.usable or decl.name in bound or decl.name in explained or not decl.required:
                continue
            if group.input_by_name.get(decl.name) is not decl:
                continue
            bound.add(decl.name)  # one diagnostic per missing name
            rep.report(
                "TASK_GROUP_INPUTS",
                f"{ptr}/inputs",
                f"call `{task.label}` leaves the required input `{decl.name}` of group `{group.id}` unbound",
                subject={"task": task.id, "input": decl.name} if task.id else {"input": decl.name},
                hint=f"bind it: `{{name: {decl.name}, value: ...}}`",
                related=[rep.related(decl.pointer, f"`{decl.name}` is declared here")],
            )

    # ---------------------------------------------------------------- ports

    @staticmethod
    def scope_ports(scope: ScopeNode | None) -> dict[str, str]:
        out: dict[str, str] = {}
        if scope is not None:
            for o in scope.outputs:
                out.setdefault(o.name, o.pointer)
        return out

    def ports(self, task: TaskNode) -> None:
        m = task.model
        kind = type(m)  # (exact classes, the models are final: a failed isinstance of a model class is costly)
        if task.broken or kind in _CATALOG_PORTS:
            return  # unknown ports, or ports the types pass finds (the catalog's, the resultType's)
        if kind is ValueTask:
            out: dict[str, str] = {}
            i = -1  # (counted, as in `enter`)
            for o in m.outputs:
                i += 1
                if isinstance(o, TaskOutput) and isinstance(name := o.name, str):
                    out.setdefault(name, task.pointer + (_OUTPUT[i] if i < SUFFIXES else f"/outputs/{i}"))
            task.ports = out
        elif kind is SequenceTask or kind is ForeachTask:  # its one child scope, if any, is its body
            task.ports = self.scope_ports(task.children[0] if task.children else None)
        elif kind is ConditionalTask:
            then = self.scope_ports(task.child(BODY))
            other = self.scope_ports(task.child(OTHERWISE))
            if then.keys() != other.keys():
                task.broken = True  # TASK_BRANCH_OUTPUTS (the structure pass): unknown ports
                return
            task.ports = then
        elif kind is ParallelTask:
            out = {}
            for branch in task.children:
                for o in branch.outputs:
                    if o.name in out:
                        task.broken = True  # TASK_BRANCH_OUTPUTS (the structure pass)
                        return
                    out[o.name] = o.pointer
            task.ports = out
        elif kind is CallTask and task.group is not None:
            task.ports = task.group.ports

    # ================================================================ 3. order

    def order(self) -> None:
        order_list = self.order_list
        for scope in self.cp.scopes:
            tasks = scope.tasks
            if len(tasks) == 1 and tasks[0] not in tasks[0].deps and self.fast_paths:
                scope.order.append(tasks[0])  # (most nested scopes: one task, not depending on itself)
            else:
                scope.order = order_list(scope, tasks)
            if scope.always:
                scope.always_order = order_list(scope, scope.always)

    def order_list(self, scope: ScopeNode, nodes: list[TaskNode]) -> list[TaskNode]:
        """`nodes` (a scope's `tasks` or `always`) in topological order; each cycle among
        them reported once."""
        order, acyclic = self._topo(nodes)
        if not acyclic:
            for scc in self.cycles(nodes):
                scope.has_cycle = True
                self.report_cycle(scc)
        return order

    @staticmethod
    def same_list(a: TaskNode, b: TaskNode) -> bool:
        return a.scope is b.scope and a.in_always == b.in_always

    def topo(self, nodes: list[TaskNode]) -> list[TaskNode]:
        return self._topo(nodes)[0]

    @staticmethod
    def _topo(nodes: list[TaskNode]) -> tuple[list[TaskNode], bool]:
        """The order of `topo`, and whether the list's dependencies have no cycle (every
        task was ordered, and no task depends on itself)."""
        n = len(nodes)
        if n == 0:
            return [], True
        # The common case: every dependency on a task of the list points to an earlier one.
        # Kahn's algorithm taking the lowest index first then gives the list order itself.
        self_loop = False
        scope, in_always = nodes[0].scope, nodes[0].in_always  # (the same for every task of the list)
        for i, t in enumerate(nodes):
            if not t.deps:
                continue
            for d in t.deps:
                if d is t:
                    self_loop = True
                elif d.index >= i and d.scope is scope and d.in_always == in_always:
                    break  # a later task first: order them
            else:
                continue
            break
        else:
            return list(nodes), not self_loop
        indeg = [0] * n
        succ: list[list[int]] = [[] for _ in range(n)]
        self_loop = False
        for i, t in enumerate(nodes):
            scope, in_always = t.scope, t.in_always
            for d in t.deps:
                if d is t:
                    self_loop = True
                elif d.scope is scope and d.in_always == in_always:  # same_list(d, t)
                    succ[d.index].append(i)
                    indeg[i] += 1
        heap = [i for i in range(n) if indeg[i] == 0]
        heapq.heapify(heap)
        out: list[TaskNode] = []
        done = [False] * n
        while heap:
            i = heapq.heappop(heap)
            out.append(nodes[i])
            done[i] = True
            for j in succ[i]:
                indeg[j] -= 1
                if indeg[j] == 0:
                    heapq.heappush(heap, j)
        acyclic = len(out) == n and not self_loop
        if len(out) < n:  # on or behind a cycle (reported): list order
            out.extend(nodes[i] for i in range(n) if not done[i])
        return out, acyclic

    def cycles(self, nodes: list[TaskNode]) -> list[list[TaskNode]]:
        """Strongly connected components with a cycle (size > 1, or a self-dependency),
        each in list order, ordered by their first task."""
        succ = [[d.index for d in t.deps if self.same_list(d, t)] for t in nodes]
        if not any(succ):
            return []
        return [[nodes[i] for i in comp] for comp in _tarjan(succ)]

    def report_cycle(self, scc: list[TaskNode]) -> None:
        members = set(scc)
        first = scc[0]
        for t in scc:
            t.cyclic = True
            for d, dep in t.deps.items():
                if d in members:
                    for p in dep.pointers:
                        res = self.cp.resolutions.get(p)
                        if res is not None:
                            res.ok = False
        rep = self.reporter
        if len(scc) == 1:
            dep = first.deps[first]
            ptr = dep.pointers[0]
            if ptr.startswith(f"{first.pointer}/dependsOn/"):
                how = "its `dependsOn` names itself"
            elif any(ptr.startswith(f"{c.pointer}/") for c in first.children):
                how = "a value inside its own body reads its ports, which exist only after the body has run"
            else:
                how = "it reads its own ports"
            rep.report(
                "TASK_DEPENDENCY_CYCLE",
                ptr,
                f"task `{first.label}` depends on itself: {how}",
                subject={"task": first.id} if first.id else None,
                hint="a task can read only tasks that run before it",
            )
            return
        # the first-written task's first dependency into the cycle, then a shortest way back
        nxt = next(d for d in first.deps if d in members and d is not first)
        path = self.path_back(nxt, first, members)
        cycle = [first] + path
        steps = " -> ".join(f"`{t.label}`" for t in cycle)
        names = ", ".join(f"`{t.label}`" for t in scc)
        related = []
        for a, b in zip(cycle[1:], cycle[2:]):
            related.append(rep.related(a.deps[b].pointers[0], f"`{a.label}` depends on `{b.label}` here"))
        rep.report(
            "TASK_DEPENDENCY_CYCLE",
            first.deps[nxt].pointers[0],
            f"tasks {names} depend on each other in a cycle: {steps}",
            subject={"task": first.id} if first.id else None,
            hint="remove one of these dependencies (a `dependsOn` entry or a read), or move the work into one task",
            related=related,
        )

    @staticmethod
    def path_back(start: TaskNode, goal: TaskNode, members: set[TaskNode]) -> list[TaskNode]:
        """A shortest dependency path start -> ... -> goal inside one component."""
        prev: dict[TaskNode, TaskNode | None] = {start: None}
        queue = deque([start])
        while queue:
            v = queue.popleft()
            if v is goal:
                break
            for d in v.deps:
                if d in members and d not in prev:
                    prev[d] = v
                    queue.append(d)
        path: list[TaskNode] = []
        v: TaskNode | None = goal
        while v is not None:
            path.append(v)
            v = prev.get(v)
        path.reverse()
        return path

    # =============================================================== 4. groups

    def group_cycles(self) -> None:
        groups = self.cp.groups
        if not groups:
            return
        position = {g: i for i, g in enumerate(groups)}
        edges: list[dict[int, TaskNode]] = [{} for _ in groups]  # callee -> first call task
        for task in self.calls:
            caller = task.scope.group
            if caller is not None:
                edges[position[caller]].setdefault(position[task.group], task)
        if not any(edges):
            return
        for comp in _tarjan([list(row) for row in edges]):
            members = set(comp)
            first = comp[0]
            for i in comp:
                groups[i].cyclic = True
            nxt = next((j for j in edges[first] if j in members), first)
            call = edges[first][nxt]
            cycle = [first] + (self._group_path(nxt, first, members, edges) if nxt != first else [first])
            rep = self.reporter
            if len(comp) == 1:
                message = f"group `{groups[first].id}` calls itself (through `{call.id}`): a group cannot run itself"
            else:
                names = ", ".join(f"`{groups[i].id}`" for i in comp)
                steps = " -> ".join(f"`{groups[i].id}`" for i in cycle)
                message = f"groups {names} call each other in a loop: {steps}"
            related = [
                rep.related(f"{edges[a][b].pointer}/group", f"`{groups[a].id}` calls `{groups[b].id}` here")
                for a, b in zip(cycle[1:], cycle[2:])
            ]
            rep.report(
                "TASK_GROUP_CYCLE",
                f"{call.pointer}/group",
                message,
                # the group of the loop, and the call in its body that the repair edits
                subject={"group": groups[first].id, "task": call.id} if call.id else {"group": groups[first].id},
                hint="a group is compiled once per call from its one definition; break the loop by removing one of these calls",
                related=related,
            )

    @staticmethod
    def _group_path(start: int, goal: int, members: set[int], edges: list[dict[int, TaskNode]]) -> list[int]:
        prev: dict[int, int | None] = {start: None}
        queue = deque([start])
        while queue:
            v = queue.popleft()
            if v == goal:
                break
            for w in edges[v]:
                if w in members and w not in prev:
                    prev[w] = v
                    queue.append(w)
        path: list[int] = []
        cur: int | None = goal
        while cur is not None:
            path.append(cur)
            cur = prev.get(cur)
        path.reverse()
        return path

    # ================================================================== run

    def run(self) -> CheckedPlan:
        self.build()
        self.resolve()
        self.order()
        self.group_cycles()
        return self.cp


_CATALOG_PORTS = frozenset({OperationTask, TransformTask})
"""Task classes whose ports the plan does not declare (TaskNode.ports stays None)."""

_LEAF_TASKS = frozenset({OperationTask, TransformTask, ValueTask, CallTask})
"""Task classes without child scopes."""

_NO_CHILDREN: list[ScopeNode] = ()  # type: ignore[assignment]
"""The `children` of every task of a leaf class made inline (one empty tuple, not a list
per task: nothing adds child scopes to such a task, and every reader only iterates them)."""

_new = object.__new__
"""An IR node without its dataclass `__init__`, on the hot paths that set every field."""


# The IR nodes made once per reference, task or scope, without the dataclass call (its
# argument tuple, keyword dict, frame and default factories): every field set, in the
# class's order. tests/test_scope_fast_paths.py holds each to its class's constructor.


def _resolution(
    kind: str, pointer: str, source: str | None, target: Any, ok: bool, port: str | None,
    reader: TaskNode | None, scope: ScopeNode | None,
) -> Resolution:
    res = _new(Resolution)
    res.kind = kind
    res.pointer = pointer
    res.source = source
    res.target = target
    res.ok = ok
    res.port = port
    res.reader = reader
    res.scope = scope
    return res


_dependency = maker(Dependency, ("task", "pointers", "explicit", "reads"))


def _capture(kind: str, source: str | None, port: str | None, target: Any) -> Capture:
    cap = _new(Capture)
    cap.kind = kind
    cap.source = source
    cap.port = port
    cap.target = target
    cap.pointers = []
    return cap


def _output_decl(name: str, model: TaskOutput, pointer: str, usable: bool) -> OutputDecl:
    decl = _new(OutputDecl)
    decl.name = name
    decl.model = model
    decl.pointer = pointer
    decl.usable = usable
    return decl


def _scope_node(
    pointer: str, model: Any, role: ScopeRole, owner: Any, parent: ScopeNode | None,
    branch: int | None, depth: int, group: GroupNode | None, foreach: ScopeNode | None,
) -> ScopeNode:
    """`ScopeNode(pointer, model, role, owner, parent, branch, depth, group, foreach)`
    without the dataclass call (every field set; tests/test_scope_fast_paths.py compares
    them all against `make_task`'s)."""
    node = _new(ScopeNode)
    node.pointer = pointer
    node.model = model
    node.role = role
    node.owner = owner
    node.parent = parent
    node.branch = branch
    node.depth = depth
    node.group = group
    node.foreach = foreach
    node.tasks = []
    node.always = []
    node.outputs = []
    node.order = []
    node.always_order = []
    node.captures = {}
    node.has_cycle = False
    return node

_NO_VALUES = frozenset({SequenceTask, ParallelTask})
"""Task classes without values of their own (only their child scopes have some)."""

_COMPOUND_TASKS = frozenset({SequenceTask, ForeachTask, ConditionalTask, ParallelTask})
"""Task classes with child scopes that `make_compound` makes (the others: `make_task`)."""

_READERS = CONTAINER_VALUES | {OutputValue, PresentValue, InputValue, ChoiceValue, ItemValue, IndexValue}
"""Value classes that read something, or may hold a value that does (`values` looks at these only)."""


def _tarjan(succ: list[list[int]]) -> list[list[int]]:
    """Cyclic strongly connected components (size > 1 or a self-loop) of a graph given
    by successor lists, each sorted, ordered by their smallest vertex. Iterative (no
    recursion limit), linear in vertices plus edges."""
    n = len(succ)
    index = [-1] * n
    low = [0] * n
    on_stack = [False] * n
    stack: list[int] = []
    found: list[list[int]] = []
    counter = 0
    for start in range(n):
        if index[start] != -1:
            continue
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack[start] = True
        work = [(start, 0)]
        while work:
            v, pi = work[-1]
            row = succ[v]
            if pi < len(row):
                work[-1] = (v, pi + 1)
                w = row[pi]
                if index[w] == -1:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack[w] = True
                    work.append((w, 0))
                elif on_stack[w] and index[w] < low[v]:
                    low[v] = index[w]
                continue
            work.pop()
            if work:
                u = work[-1][0]
                if low[v] < low[u]:
                    low[u] = low[v]
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack[w] = False
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1 or v in succ[v]:
                    found.append(sorted(comp))
    found.sort(key=lambda c: c[0])
    return found


def run(plan: TaskPlan, identity: IdentityTable, reporter: Reporter) -> CheckedPlan:
    """Build the scope tree, resolve every reference, order every scope, check groups;
    report what is wrong (each independent error once) and return the CheckedPlan."""
    with gc_paused():
        return _ScopePass(plan, identity, reporter).run()


__all__ = ["run"]


def _task_node(
    t: Any, ptr: str, scope: ScopeNode, index: int, duplicate: bool, id_ok: bool, children: list[ScopeNode]
) -> TaskNode:
    """`TaskNode(t.id, t, ptr, scope, index, False, children, {}, False, duplicate, id_ok)`
    for a task without marks (so its `id` is a string, and it is not broken; a cleanup
    task's caller sets `in_always`), without the dataclass call (its argument tuple, frame
    and defaults), every field set (tests/test_scope_fast_paths.py compares them all).
    `children`: a list to fill, or `_NO_CHILDREN` for a task of a leaf class."""
    node = _new(TaskNode)
    node.id = t.id
    node.model = t
    node.pointer = ptr
    node.scope = scope
    node.index = index
    node.in_always = False
    node.children = children
    node.deps = {}
    node.broken = False
    node.duplicate = duplicate
    node.id_ok = id_ok
    node.cyclic = False
    node.group = None
    node.ports = None
    return node
