"""The usage pass: exports that nothing can ever read (TASK_OUTPUT_UNUSED, a warning).

An export is a named value the plan itself declares so that something else may
read it:

- an entry of a non-root scope's `outputs` (the body of a sequence, conditional
  or foreach, a branch of a parallel, a group body): it becomes a port of the
  compound task that owns the scope (of every `call` of the group);
- an entry of a `value` task's `outputs`: a port of that task.

It is unused when no reference reads that port: no `{kind: output, source: T,
port: name}` and no whole read (`port: null` reads every port). An enclosing
scope's `outputs` reading it is a read (a re-export); the outer export is then
judged itself. `present` reads whether a task produced a result, not its ports.
The root scope's outputs are the plan's results, never unused; operation and
transform ports are not exports (a result may be ignored on purpose) and are not
judged. A conditional's port is declared on both sides: it is reported once, at
`body`.

No cascades (diagnostics.md: one mistake, one diagnostic). Nothing is judged:

- about a task or group in error: `TaskNode.broken` (a placeholder, a shape error,
  unknown ports), a later copy of a duplicated ID, an ID in error, a task or
  group with an error in its own fields (found by an earlier pass: a condition,
  items, branches, values, inputs, ...) and everything nested in it, an export
  whose own entry holds an error; a group nothing calls, or whose calls are not
  judged;
- where an error may hide a reader: a port is judged only when the scope holding
  the task (with everything nested in it) has no error and no reference that
  resolves to nothing; for a group, the scopes holding its calls. A reference in
  error that names a task (not visible, a `present` read of a sibling branch, a
  port the task does not have) counts as reading every port of it: once
  repaired, it may read any of them.

Runs last among the check passes (after types), on the CheckedPlan: the errors it
looks at are those of read, shape, structure, identity, scope and types. Linear in
the plan's size: one walk over the resolutions, one over the errors found so far
(each placed in its innermost task and scope by walking up its pointer, a prefix
visited once), one over the scopes and tasks. Reports in document order (the sink
sorts anyway).
"""

from __future__ import annotations

from taskplan.diagnostics import Reporter
from taskplan.ir.checked import (
    BODY,
    OTHERWISE,
    REF_OUTPUT,
    REF_PRESENT,
    CheckedPlan,
    GroupNode,
    OutputDecl,
    ScopeNode,
    TaskNode,
)
from taskplan.model.plan import TaskOutput, ValueTask, is_broken

CODE = "TASK_OUTPUT_UNUSED"


class _Usage:
    def __init__(self, checked: CheckedPlan, reporter: Reporter):
        self.cp = checked
        self.rep = reporter
        self.reads: dict[TaskNode, set[str] | None] = {}
        """Task whose ports the plan declares -> the ports read (None: read whole, so every port)."""
        self.dirty: set[ScopeNode] = set()
        """Scopes holding an error (at any depth below them, within their group): a
        reader of the ports of their tasks may be hidden by it."""
        self.reported: set[TaskNode | GroupNode] = set()
        """Tasks and groups with an error in their own fields (not in their child scopes)."""
        self.touched: set[str] = set()
        """Every pointer from an error up to (not including) its innermost scope."""
        self.silenced: set[ScopeNode] = set()
        """Scopes nested (at any depth) in a task or group of `reported`."""

    # ------------------------------------------------------------- reads

    def collect_reads(self) -> None:
        reads = self.reads
        for res in self.cp.resolutions.values():
            kind = res.kind
            if kind != REF_OUTPUT and kind != REF_PRESENT:
                continue
            target = res.target
            if type(target) is not TaskNode:
                if res.scope is not None:
                    self.mark_dirty(res.scope)  # reads nothing: it may have meant anything
                continue
            known = target.ports
            if known is None:
                continue  # ports the plan does not declare (an operation's, a transform's): never judged
            port = res.port
            if kind == REF_PRESENT:
                if res.ok:
                    continue  # whether it produced a result: none of its ports
                port = None  # a reference in error: once repaired, it may read any port
            if port is None or not res.ok or port not in known:
                reads[target] = None
                continue
            if target in reads:
                seen = reads[target]
                if seen is not None:
                    seen.add(port)
            else:
                reads[target] = {port}

    def is_read(self, task: TaskNode, port: str) -> bool:
        if task not in self.reads:
            return False
        seen = self.reads[task]
        return seen is None or port in seen

    # ------------------------------------------------------------ errors

    def collect_errors(self) -> None:
        """Place every error of an earlier pass in this plan: the innermost task whose
        own fields hold it is `reported`, the innermost scope holding it is dirty."""
        path = self.rep.document.path
        by_pointer = self.cp.by_pointer
        touched = self.touched
        for d in self.rep.sink.errors():
            loc = d.location
            if loc.file != path:
                continue
            ptr = loc.pointer
            while ptr and ptr not in touched:
                node = by_pointer.get(ptr)
                kind = type(node)
                if kind is ScopeNode:
                    self.mark_dirty(node)
                    break
                touched.add(ptr)
                if kind is TaskNode or kind is GroupNode:
                    self.reported.add(node)  # type: ignore[arg-type]  (its own fields hold an error)
                cut = ptr.rfind("/")
                if cut <= 0:
                    break
                ptr = ptr[:cut]
        silenced = self.silenced
        reported = self.reported
        for scope in self.cp.scopes:  # parents before children (document order)
            owner = scope.owner
            if owner in reported or (type(owner) is TaskNode and owner.scope in silenced):
                silenced.add(scope)

    def mark_dirty(self, scope: ScopeNode | None) -> None:
        """`scope` and the scopes enclosing it (within its group) hold an error."""
        dirty = self.dirty
        while scope is not None and scope not in dirty:
            dirty.add(scope)
            scope = scope.parent

    # ----------------------------------------------------------- judging

    def run(self) -> None:
        self.collect_reads()
        self.collect_errors()
        for scope in self.cp.scopes:
            owner = scope.owner
            if owner is None or not scope.outputs:
                continue  # the root scope's outputs are the plan's results
            if isinstance(owner, GroupNode):
                self.group_exports(owner, scope)
            elif scope.role is not OTHERWISE:  # a conditional's port: judged once, at `body`
                self.task_exports(owner, scope)
        for task in self.cp.tasks:
            if type(task.model) is ValueTask and self.judged(task):
                self.value_outputs(task)

    def sound(self, task: TaskNode) -> bool:
        """A declaration in no error, none around it."""
        return (
            not task.broken
            and not task.duplicate
            and task.id_ok
            and task.id is not None
            and task not in self.reported
            and task.scope not in self.silenced
        )

    def judged(self, task: TaskNode) -> bool:
        """Whether `task`'s ports can be judged: sound, with ports the plan declares, and
        no error where its readers can be."""
        return self.sound(task) and task.ports is not None and task.scope not in self.dirty

    def entry_ok(self, decl: OutputDecl) -> bool:
        """Whether the export's own entry is sound (nothing in it reported)."""
        return decl.usable and not is_broken(decl.model) and decl.pointer not in self.touched

    def task_exports(self, task: TaskNode, scope: ScopeNode) -> None:
        if not self.judged(task):
            return
        other = task.child(OTHERWISE) if scope.role is BODY else None
        seen: set[str] = set()
        for decl in scope.outputs:
            if decl.name in seen or not self.entry_ok(decl):
                continue
            seen.add(decl.name)
            if self.is_read(task, decl.name):
                continue
            twin = None
            if other is not None:
                twin = next((o for o in other.outputs if o.name == decl.name), None)
                if twin is not None and not self.entry_ok(twin):
                    continue
            self.report(decl, task, None, twin)

    def group_exports(self, group: GroupNode, scope: ScopeNode) -> None:
        if group.duplicate or not group.id_ok or is_broken(group.model) or group in self.reported:
            return
        calls = group.calls
        if not calls:
            return  # a group nothing calls: the group is unused, not its outputs
        for call in calls:
            if not self.judged(call):
                return
        seen: set[str] = set()
        for decl in scope.outputs:
            if decl.name in seen or not self.entry_ok(decl):
                continue
            seen.add(decl.name)
            if not any(self.is_read(call, decl.name) for call in calls):
                self.report(decl, calls[0], group, None)

    def value_outputs(self, task: TaskNode) -> None:
        model: ValueTask = task.model
        seen: set[str] = set()
        touched = self.touched
        i = -1  # (a counter: cheaper than enumerate for a few outputs)
        for o in model.outputs:
            i += 1
            if not isinstance(o, TaskOutput) or not isinstance(name := o.name, str) or name in seen:
                continue
            seen.add(name)
            # (the output's pointer made only to look it up in a non-empty `touched`, or to report)
            if (touched and f"{task.pointer}/outputs/{i}" in touched) or is_broken(o) or self.is_read(task, name):
                continue
            ptr = f"{task.pointer}/outputs/{i}"
            self.rep.report(
                CODE,
                f"{ptr}/name",
                f"output `{name}` of value task `{task.id}` is never read",
                subject={"task": task.id or "", "port": name},
                hint=f"read it (e.g. `{{kind: output, source: {task.id}, port: {name}}}`) or remove it from `outputs`",
            )

    def report(self, decl: OutputDecl, task: TaskNode, group: GroupNode | None, twin: OutputDecl | None) -> None:
        """`decl`, an export of `task`'s scope (of `group`'s body, `task` its first call), is never read."""
        rep = self.rep
        name = decl.name
        example = f"{{kind: output, source: {task.id}, port: {name}}}"
        if group is not None:
            message = f"output `{name}` of group `{group.id}` is never read: no call of it reads it"
            subject = {"group": group.id, "port": name}
            related = [rep.related(group.pointer, f"group `{group.id}` is declared here")]
        else:
            message = f"output `{name}` of `{task.id}` is never read"
            subject = {"task": task.id or "", "port": name}
            related = [rep.related(task.pointer, f"`{task.id}` is declared here")]
        where = "`outputs`"
        if twin is not None:
            related.append(rep.related(f"{twin.pointer}/name", "`otherwise` declares it too"))
            where = "the `outputs` of both `body` and `otherwise`"
        rep.report(
            CODE,
            f"{decl.pointer}/name",
            message,
            subject=subject,
            hint=f"read it (e.g. `{example}`) or remove it from {where}",
            related=related,
        )


def run(checked: CheckedPlan, reporter: Reporter) -> None:
    """Report every export of the plan that nothing reads (a warning each)."""
    _Usage(checked, reporter).run()


__all__ = ["CODE", "run"]
