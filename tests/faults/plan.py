"""Walking a plan's tree: tasks, scopes and values with their RFC 6901 pointers and
what surrounds them (the scope, the enclosing tasks, the group), so that an operator
can pick a place where exactly one rule is broken."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator


def esc(token: Any) -> str:
    return str(token).replace("~", "~0").replace("/", "~1")


def join(pointer: str, *tokens: Any) -> str:
    return pointer + "".join("/" + esc(t) for t in tokens)


def get(tree: Any, pointer: str) -> Any:
    node = tree
    if pointer == "":
        return node
    for raw in pointer[1:].split("/"):
        token = raw.replace("~1", "/").replace("~0", "~")
        node = node[int(token)] if isinstance(node, list) else node[token]
    return node


def seq(node: Any, key: str) -> list:
    """node[key] as a list (absent and null are empty)."""
    value = node.get(key) if isinstance(node, dict) else None
    return value if isinstance(value, list) else []


COMPOUND_SCOPES = {"sequence": ("body",), "foreach": ("body",), "conditional": ("body", "otherwise")}


@dataclass
class Scope:
    pointer: str
    node: dict
    owner: "Task | None"  # the compound task that owns it (None: root or a group body)
    group: str | None  # the group whose body it is in, at any depth
    role: str  # "root", "group", "body", "otherwise", "branch"
    branch: int | None = None

    @property
    def tasks(self) -> list:
        return seq(self.node, "tasks")


@dataclass
class Task:
    pointer: str
    node: dict
    scope: Scope
    section: str  # "tasks" | "always"
    index: int
    ancestors: list["Task"] = field(default_factory=list)

    @property
    def id(self) -> Any:
        return self.node.get("id")

    @property
    def kind(self) -> str:
        return self.node.get("kind") or "operation"

    @property
    def group(self) -> str | None:
        return self.scope.group

    @property
    def in_foreach(self) -> bool:
        return any(a.kind == "foreach" for a in self.ancestors)

    @property
    def depth(self) -> int:
        return len(self.ancestors)


def child_scopes(task: dict, pointer: str) -> Iterator[tuple[str, dict, str, int | None]]:
    kind = task.get("kind") or "operation"
    for key in COMPOUND_SCOPES.get(kind, ()):
        node = task.get(key)
        if isinstance(node, dict):
            yield join(pointer, key), node, key, None
    if kind == "parallel":
        for i, node in enumerate(seq(task, "branches")):
            if isinstance(node, dict):
                yield join(pointer, "branches", i), node, "branch", i


def scopes(tree: dict) -> list[Scope]:
    """Every scope, in document order: root (and everything nested), then group bodies."""
    out: list[Scope] = []

    def visit(scope: Scope, ancestors: list[Task]) -> None:
        out.append(scope)
        for section in ("tasks", "always"):
            for i, node in enumerate(seq(scope.node, section)):
                if not isinstance(node, dict):
                    continue
                task = Task(join(scope.pointer, section, i), node, scope, section, i, ancestors)
                for ptr, child, role, branch in child_scopes(node, task.pointer):
                    visit(Scope(ptr, child, task, scope.group, role, branch), ancestors + [task])

    if isinstance(tree.get("root"), dict):
        visit(Scope("/root", tree["root"], None, None, "root"), [])
    for gi, group in enumerate(seq(tree, "groups")):
        if isinstance(group, dict) and isinstance(group.get("body"), dict):
            visit(Scope(join("/groups", gi, "body"), group["body"], None, group.get("id"), "group"), [])
    return out


def tasks(tree: dict) -> list[Task]:
    """Every task, in document order (a task before the tasks nested in it)."""
    out: list[Task] = []

    def visit(scope: Scope, ancestors: list[Task]) -> None:
        for section in ("tasks", "always"):
            for i, node in enumerate(seq(scope.node, section)):
                if not isinstance(node, dict):
                    continue
                task = Task(join(scope.pointer, section, i), node, scope, section, i, ancestors)
                out.append(task)
                for ptr, child, role, branch in child_scopes(node, task.pointer):
                    visit(Scope(ptr, child, task, scope.group, role, branch), ancestors + [task])

    if isinstance(tree.get("root"), dict):
        visit(Scope("/root", tree["root"], None, None, "root"), [])
    for gi, group in enumerate(seq(tree, "groups")):
        if isinstance(group, dict) and isinstance(group.get("body"), dict):
            visit(Scope(join("/groups", gi, "body"), group["body"], None, group.get("id"), "group"), [])
    return out


@dataclass
class Value:
    pointer: str
    node: dict
    where: str  # binding, output, export, condition, items, default, alternative, member, item, operand
    task: Task | None
    depth: int  # 1 for a value written directly in its slot


VALUE_CHILD_LISTS = ("items",)


def _nested(value: dict, pointer: str, task: Task | None, depth: int) -> Iterator[Value]:
    kind = value.get("kind")
    if kind == "object":
        for i, member in enumerate(seq(value, "members")):
            if isinstance(member, dict) and isinstance(member.get("value"), dict):
                yield from _value(member["value"], join(pointer, "members", i, "value"), "member", task, depth + 1)
    elif kind in ("array", "field", "json", "predicate"):
        for i, item in enumerate(seq(value, "items")):
            if isinstance(item, dict):
                yield from _value(item, join(pointer, "items", i), "item" if kind == "array" else "operand", task, depth + 1)


def _value(value: dict, pointer: str, where: str, task: Task | None, depth: int) -> Iterator[Value]:
    yield Value(pointer, value, where, task, depth)
    yield from _nested(value, pointer, task, depth)


def values(tree: dict, *, nested: bool = True) -> list[Value]:
    """Every TaskValue written in the plan (in bindings, outputs, exports, conditions,
    foreach items, defaults and alternatives), outermost first."""
    out: list[Value] = []

    def add(value: Any, pointer: str, where: str, task: Task | None) -> None:
        if isinstance(value, dict):
            if nested:
                out.extend(_value(value, pointer, where, task, 1))
            else:
                out.append(Value(pointer, value, where, task, 1))

    def named(owner: Any, pointer: str, key: str, where: str, task: Task | None) -> None:
        for i, entry in enumerate(seq(owner, key)):
            if isinstance(entry, dict):
                add(entry.get("value"), join(pointer, key, i, "value"), where, task)

    for i, inp in enumerate(seq(tree, "inputs")):
        if isinstance(inp, dict):
            add(inp.get("default"), join("/inputs", i, "default"), "default", None)
    for task in tasks(tree):
        named(task.node, task.pointer, "inputs", "binding", task)
        named(task.node, task.pointer, "outputs", "output", task)
        for key in ("condition", "items"):
            if key in task.node and task.kind in ("conditional", "foreach"):
                add(task.node.get(key), join(task.pointer, key), key, task)
    for scope in scopes(tree):
        named(scope.node, scope.pointer, "outputs", "export", scope.owner)
    for gi, group in enumerate(seq(tree, "groups")):
        for i, inp in enumerate(seq(group, "inputs")):
            if isinstance(inp, dict):
                add(inp.get("default"), join("/groups", gi, "inputs", i, "default"), "default", None)
    for ci, choice in enumerate(seq(tree, "choices")):
        for ai, alt in enumerate(seq(choice, "alternatives")):
            if isinstance(alt, dict):
                add(alt.get("value"), join("/choices", ci, "alternatives", ai, "value"), "alternative", None)
    return out


def declared_ids(tree: dict) -> list[str]:
    """Task, group and choice IDs, in document order."""
    ids = [t.id for t in tasks(tree) if isinstance(t.id, str)]
    ids += [g.get("id") for g in seq(tree, "groups") if isinstance(g, dict)]
    ids += [c.get("id") for c in seq(tree, "choices") if isinstance(c, dict)]
    return ids


def references(tree: dict) -> list[tuple[str, str]]:
    """Every place that names a task, group or choice: (pointer of the naming string,
    the name) for output/present/choice sources, dependsOn entries and call groups."""
    out: list[tuple[str, str]] = []
    for v in values(tree):
        if v.node.get("kind") in ("output", "present", "choice") and isinstance(v.node.get("source"), str):
            out.append((join(v.pointer, "source"), v.node["source"]))
    for t in tasks(tree):
        for i, dep in enumerate(seq(t.node, "dependsOn")):
            if isinstance(dep, str):
                out.append((join(t.pointer, "dependsOn", i), dep))
        if t.kind == "call" and isinstance(t.node.get("group"), str):
            out.append((join(t.pointer, "group"), t.node["group"]))
    return out


def rename_everywhere(tree: dict, old: str, new: str) -> None:
    """Rename a task, group or choice ID: its declaration and every reference to it."""
    for t in tasks(tree):
        if t.id == old:
            t.node["id"] = new
        if isinstance(t.node.get("dependsOn"), list):
            t.node["dependsOn"] = [new if d == old else d for d in t.node["dependsOn"]]
        if t.kind == "call" and t.node.get("group") == old:
            t.node["group"] = new
    for g in seq(tree, "groups"):
        if g.get("id") == old:
            g["id"] = new
    for c in seq(tree, "choices"):
        if c.get("id") == old:
            c["id"] = new
    for v in values(tree):
        if v.node.get("kind") in ("output", "present", "choice") and v.node.get("source") == old:
            v.node["source"] = new


def reads_of(tree: dict, task_id: str) -> list[Value]:
    """Values that read task `task_id` (output or present)."""
    return [v for v in values(tree) if v.node.get("kind") in ("output", "present") and v.node.get("source") == task_id]


def is_referenced(tree: dict, name: str) -> bool:
    return any(n == name for _, n in references(tree))


def fresh_id(tree: dict, base: str = "fault") -> str:
    taken = set(declared_ids(tree))
    i = 0
    while f"{base}_{i}" in taken:
        i += 1
    return f"{base}_{i}"
