"""Cross-pass properties, shared by tests/test_properties.py (hypothesis, a modest
budget) and benchmarks/fuzz_long.py (a seeded loop, as long as you like):

- `mutate`: structure-aware mutations of a valid plan (drop, swap, retype, rename,
  duplicate, deep-nest a field, a value or a task);
- `generate`: a random plan that is valid by construction (every task kind, operations
  of two fixture catalogs, groups and calls, choices, cleanup, captures, predicates);
- `check_properties`: checking never raises, never reports COMPILER_INTERNAL, exits
  0 or 1, and every location lies inside its file; a plan that checks clean compiles
  (with auto), its output validates (read back from its text), and compiling twice
  gives the same bytes.

Both take an `rng` with `choice(seq)`, `randint(a, b)` and `random()`: a
random.Random, or `DrawRng` over hypothesis' `data` (so hypothesis can shrink).
"""

from __future__ import annotations

import copy
import random
import os
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from .core import catalog_set, location_problems
from .plan import join, scopes, seq, tasks, values
from .seeds import ROOT, PlanSeed
from .serialize import dump


class DrawRng:
    """The rng interface over hypothesis' `data.draw`."""

    def __init__(self, data: Any):
        from hypothesis import strategies as st

        self._data = data
        self._st = st

    def choice(self, items):
        items = list(items)
        return items[self._data.draw(self._st.integers(0, len(items) - 1))]

    def randint(self, a: int, b: int) -> int:
        return self._data.draw(self._st.integers(a, b))

    def random(self) -> float:
        return self._data.draw(self._st.integers(0, 999)) / 1000


# ====================================================================== mutations

REPLACEMENTS: list[Any] = [
    None, 0, 1, -1, 7.5, 2**53, 10**30, True, False, "", "x", " ", "__x", "a b", "value", "operation", "string",
    "output", "input", "item", "null", [], [None], [{}], {}, {"kind": "null"}, {"kind": "bogus"}, {"kind": "value"},
    {"kind": "string", "text": "t"}, {"kind": "number", "number": 3}, {"kind": "boolean", "boolean": True},
    {"kind": "item"}, {"kind": "index"}, {"kind": "output", "source": "nowhere", "port": None},
    {"kind": "array", "items": []}, {"kind": "object", "members": []}, float("nan"), float("inf"),
]
KEYS = ["id", "kind", "name", "value", "type", "tasks", "body", "items", "inputs", "outputs", "objective", "source",
        "port", "fields", "required", "default", "branches", "condition", "otherwise", "nullable", "enum", "members",
        "dependsOn", "always", "group", "operation", "resultType", "maxItems", "parallel", "selected", "x-extra"]


def _nodes(tree: Any, path: tuple = ()) -> list[tuple]:
    """Every path to a node below the root."""
    out = []
    stack = [(tree, path)]
    while stack:
        node, p = stack.pop()
        if isinstance(node, dict):
            for k, v in node.items():
                out.append(p + (k,))
                stack.append((v, p + (k,)))
        elif isinstance(node, list):
            for i, v in enumerate(node):
                out.append(p + (i,))
                stack.append((v, p + (i,)))
    return out


def _parent(tree: Any, path: tuple) -> Any:
    node = tree
    for token in path[:-1]:
        node = node[token]
    return node


def _task_lists(tree: dict) -> list[list]:
    return [s.node[k] for s in scopes(tree) for k in ("tasks", "always") if isinstance(s.node.get(k), list)
            and s.node[k]]


def mutate(tree: dict, rng: Any, count: int | None = None) -> tuple[dict, list[str]]:
    """Apply 1-3 structure-aware mutations; the tree and a log of what was done."""
    tree = copy.deepcopy(tree)
    log: list[str] = []
    for _ in range(count if count is not None else rng.randint(1, 3)):
        action = rng.choice(["drop", "drop_task", "swap", "swap_tasks", "retype", "rename", "rename_id",
                             "duplicate", "duplicate_task", "deep_nest_value", "deep_nest_task", "move_task"])
        try:
            done = _MUTATIONS[action](tree, rng)
        except (KeyError, IndexError, TypeError, AttributeError, ValueError):
            done = None  # the spot chosen did not fit this action (the tree was already mutated)
        if done:
            log.append(f"{action}: {done}")
    return tree, log


def _drop(tree, rng):
    path = rng.choice(_nodes(tree))
    parent = _parent(tree, path)
    del parent[path[-1]]
    return "/".join(map(str, path))


def _drop_task(tree, rng):
    lists = _task_lists(tree)
    lst = rng.choice(lists)
    i = rng.randint(0, len(lst) - 1)
    gone = lst.pop(i)
    return f"task {gone.get('id') if isinstance(gone, dict) else gone!r}"


def _swap(tree, rng):
    lists = [p for p in _nodes(tree) if isinstance(_parent(tree, p + ("x",)), list) and len(_parent(tree, p + ("x",))) > 1]
    path = rng.choice(lists)
    lst = _parent(tree, path + ("x",))
    i, j = rng.randint(0, len(lst) - 1), rng.randint(0, len(lst) - 1)
    lst[i], lst[j] = lst[j], lst[i]
    return f"{'/'.join(map(str, path))}: {i}<->{j}"


def _swap_tasks(tree, rng):
    lst = rng.choice([lst for lst in _task_lists(tree) if len(lst) > 1])
    i, j = rng.randint(0, len(lst) - 1), rng.randint(0, len(lst) - 1)
    lst[i], lst[j] = lst[j], lst[i]
    return f"tasks {i}<->{j}"


def _retype(tree, rng):
    path = rng.choice(_nodes(tree))
    _parent(tree, path)[path[-1]] = copy.deepcopy(rng.choice(REPLACEMENTS))
    return "/".join(map(str, path))


def _rename(tree, rng):
    path = rng.choice([p for p in _nodes(tree) if isinstance(p[-1], str)])
    parent = _parent(tree, path)
    new = rng.choice(KEYS + [path[-1] + "s", path[-1].upper(), path[-1][:-1] or "k"])
    parent[new] = parent.pop(path[-1])
    return f"{'/'.join(map(str, path))} -> {new}"


def _rename_id(tree, rng):
    from .plan import rename_everywhere

    t = rng.choice([t for t in tasks(tree) if isinstance(t.id, str)])
    new = rng.choice(["renamed", t.id + "_2", "__" + t.id, t.id.upper(), "a b", t.id.replace("a", "\u0430")])
    if rng.random() < 0.5:
        rename_everywhere(tree, t.id, new)
        return f"{t.id} -> {new} everywhere"
    t.node["id"] = new
    return f"{t.id} -> {new} (declaration only)"


def _duplicate(tree, rng):
    path = rng.choice([p for p in _nodes(tree) if isinstance(_parent(tree, p), list)])
    lst = _parent(tree, path)
    lst.insert(path[-1], copy.deepcopy(lst[path[-1]]))
    return "/".join(map(str, path))


def _duplicate_task(tree, rng):
    lst = rng.choice(_task_lists(tree))
    lst.append(copy.deepcopy(rng.choice(lst)))
    return "a task"


def _deep_nest_value(tree, rng):
    v = rng.choice(values(tree))
    depth = rng.choice([2, 10, 63, 64, 65, 130])
    node = copy.deepcopy(v.node)
    for _ in range(depth):
        node = {"kind": "array", "items": [node]} if rng.random() < 0.5 else \
            {"kind": "object", "members": [{"name": "m", "value": node}]}
    holder = _parent(tree, tuple(_tokens(v.pointer)))
    holder[_tokens(v.pointer)[-1]] = node
    return f"{v.pointer} x{depth}"


def _deep_nest_task(tree, rng):
    lists = _task_lists(tree)
    lst = rng.choice(lists)
    i = rng.randint(0, len(lst) - 1)
    node = lst[i]
    depth = rng.choice([1, 2, 5, 40, 130])
    for k in range(depth):
        node = {"id": f"nest_{k}_{i}", "kind": "sequence", "objective": "Nested.", "body": {"tasks": [node]}}
    lst[i] = node
    return f"task {i} in {depth} sequences"


def _move_task(tree, rng):
    lists = _task_lists(tree)
    src, dst = rng.choice(lists), rng.choice(lists)
    task = src.pop(rng.randint(0, len(src) - 1))
    dst.insert(rng.randint(0, len(dst)), task)
    return "a task to another scope"


def _tokens(pointer: str) -> list:
    out: list = []
    for raw in pointer[1:].split("/"):
        token = raw.replace("~1", "/").replace("~0", "~")
        out.append(int(token) if token.isdigit() else token)
    return out


_MUTATIONS = {
    "drop": _drop, "drop_task": _drop_task, "swap": _swap, "swap_tasks": _swap_tasks, "retype": _retype,
    "rename": _rename, "rename_id": _rename_id, "duplicate": _duplicate, "duplicate_task": _duplicate_task,
    "deep_nest_value": _deep_nest_value, "deep_nest_task": _deep_nest_task, "move_task": _move_task,
}


# ====================================================================== valid plans


@dataclass
class _Readable:
    value: dict
    kind: str  # string | number | boolean | array | object


@dataclass
class _Gen:
    rng: Any
    counter: int = 0
    groups: list[dict] = field(default_factory=list)
    choices: list[dict] = field(default_factory=list)
    operations: list[dict] = field(default_factory=list)
    """Catalog operations the generator may call (see `_eligible_operations`)."""

    def new_id(self, prefix: str = "t") -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"


GENERATOR_CATALOGS = ("fixtures/catalogs/review.catalog.yaml", "fixtures/catalogs/ops.catalog.yaml")
"""The catalogs generated plans call operations from."""

_PLAIN = {"string", "integer", "number", "boolean"}


def _plain_kind(schema: Any) -> str | None:
    """The kind of a schema a literal or a read can satisfy without guessing: a plain
    type without enum, pattern, bounds or format."""
    if not isinstance(schema, dict) or set(schema) - {"type", "description"}:
        return None
    t = schema.get("type")
    return t if isinstance(t, str) and t in _PLAIN else None


def _eligible_operations(catalogs: tuple[str, ...] = GENERATOR_CATALOGS) -> list[dict]:
    """Operations of `catalogs` (GENERATOR_CATALOGS by default) that consume no artifact
    and whose required, non-fixed inputs are all plain (or enums of strings): each with
    its reference (pinned when the ID has several versions), its inputs and its readable
    ports."""
    from .seeds import read_tree

    out = []
    for path in catalogs:
        catalog = read_tree(ROOT / path, catalog=True)
        ops = [op for source in seq(catalog, "sources") for op in seq(source, "operations")]
        ids = Counter(op["id"] for op in ops)
        for op in ops:
            if (op.get("artifacts") or {}).get("consumes"):
                continue
            schema = op.get("input") or {}
            if schema.get("type") != "object":
                continue
            fixed = set(op.get("fixed") or {})
            inputs = []
            for name in schema.get("required") or []:
                if name in fixed:
                    continue
                prop = (schema.get("properties") or {}).get(name)
                kind = _plain_kind(prop)
                if kind is None and isinstance(prop, dict) and prop.get("type") == "string" and prop.get("enum") \
                        and set(prop) <= {"type", "enum", "description"}:
                    kind = "enum:" + str(prop["enum"][0])
                if kind is None:
                    break
                inputs.append((name, kind))
            else:
                output = op.get("output")
                ports = []
                if isinstance(output, dict):
                    required = set(output.get("required") or [])
                    for name, prop in (output.get("properties") or {}).items():
                        kind = _plain_kind(prop)
                        if kind is not None and name in required:
                            ports.append((name, kind))
                ref = f"{op['id']}@{op['version']}" if ids[op["id"]] > 1 else op["id"]
                out.append({"ref": ref, "inputs": inputs, "ports": ports})
    return out


_OPERATIONS: dict[tuple[str, ...], list[dict]] = {}


def generate(rng: Any, *, operations: bool = False, catalogs: tuple[str, ...] = GENERATOR_CATALOGS) -> dict:
    """A random plan, valid by construction; with `operations`, it also calls operations
    of `catalogs` (GENERATOR_CATALOGS by default; check it against them)."""
    g = _Gen(rng)
    if operations:
        if catalogs not in _OPERATIONS:
            _OPERATIONS[catalogs] = _eligible_operations(catalogs)
        g.operations = _OPERATIONS[catalogs]
    plan: dict = {"version": 1, "name": "generated"}
    inputs = []
    readables: list[_Readable] = []
    for kind in ("string", "number", "boolean", "array"):
        if rng.random() < 0.6:
            name = f"in_{kind}"
            t = {"kind": kind} if kind != "array" else {"kind": "array", "items": {"kind": "string"}}
            decl: dict = {"name": name, "type": t}
            if rng.random() < 0.3:
                decl["required"] = False
                decl["default"] = _literal(kind, g.rng)
            inputs.append(decl)
            readables.append(_Readable({"kind": "input", "source": name}, kind))
    if inputs:
        plan["inputs"] = inputs
    if rng.random() < 0.4:
        cid = g.new_id("choice")
        g.choices.append({"id": cid, "question": "Which one?", "type": {"kind": "string", "enum": ["a", "b"]},
                          "alternatives": [{"id": "a", "value": {"kind": "string", "text": "a"}},
                                           {"id": "b", "value": {"kind": "string", "text": "b"}}],
                          "recommended": rng.choice(["a", "b"])})
        readables.append(_Readable({"kind": "choice", "source": cid}, "string"))
    if rng.random() < 0.4:
        gid = g.new_id("group")
        body_readables = [_Readable({"kind": "input", "source": "topic"}, "string")]
        body = _scope(g, body_readables, depth=2, item=False)
        body.setdefault("outputs", []).append({"name": "echo", "value": {"kind": "input", "source": "topic"}})
        g.groups.append({"id": gid, "objective": "A reusable step.",
                         "inputs": [{"name": "topic", "type": {"kind": "string"}}], "body": body})
    plan["root"] = _scope(g, readables, depth=0, item=False)
    if g.groups:
        plan["groups"] = g.groups
    if g.choices:
        plan["choices"] = g.choices
    return plan


# Literal text that must come out of the compiler as the same text: expression-like
# (`${`, a `$literal` key's name), YAML-special scalars, white space, line breaks.
_TEXTS = ("text", "Hi ${name}", "${data.inputs.topic}", "$literal", "yes", "null", "1e3", "0x1F",
          " spaced ", "two\nlines", "# not a comment", "caf\u00e9", "")


def _literal(kind: str, rng: random.Random | None = None) -> dict:
    return {
        "string": {"kind": "string", "text": rng.choice(_TEXTS) if rng is not None else "text"},
        "number": {"kind": "number", "number": 3},
        "integer": {"kind": "number", "number": 4},
        "boolean": {"kind": "boolean", "boolean": True},
        "array": {"kind": "array", "items": [{"kind": "string", "text": "x"}]},
        "object": {"kind": "object", "members": [{"name": "a", "value": {"kind": "number", "number": 1}}]},
    }[kind]


def _value(g: _Gen, readables: list[_Readable], kind: str | None = None) -> dict:
    """A value of `kind` (any kind when None) from what is readable, or a literal."""
    rng = g.rng
    pool = [r for r in readables if kind is None or r.kind == kind or (kind == "number" and r.kind == "integer")]
    roll = rng.random()
    if pool and roll < 0.5:
        return copy.deepcopy(rng.choice(pool).value)
    if kind == "boolean" and roll < 0.8:
        nums = [r for r in readables if r.kind in ("number", "integer")]
        strs = [r for r in readables if r.kind == "string" and r.value.get("kind") == "input"]
        if nums and rng.random() < 0.5:
            return {"kind": "predicate", "predicate": rng.choice(["less", "greater_equal", "not_equal"]),
                    "items": [copy.deepcopy(rng.choice(nums).value), {"kind": "number", "number": 2}]}
        if strs:
            return {"kind": "predicate", "predicate": "equal",
                    "items": [copy.deepcopy(rng.choice(strs).value), {"kind": "string", "text": "yes"}]}
        return {"kind": "predicate", "predicate": "not", "items": [{"kind": "boolean", "boolean": False}]}
    if kind == "string" and roll < 0.7 and readables:
        return {"kind": "json", "items": [copy.deepcopy(rng.choice(readables).value)]}
    if kind is None and roll < 0.75 and readables:
        members = [{"name": f"m{i}", "value": copy.deepcopy(r.value)} for i, r in enumerate(readables[-3:])]
        return {"kind": "object", "members": members}
    return _literal(kind or rng.choice(["string", "number", "boolean", "array", "object"]), rng)


def _kind_of(value: dict, readables: list[_Readable]) -> str:
    for r in readables:
        if r.value == value:
            return r.kind
    k = value.get("kind")
    return {"predicate": "boolean", "json": "string"}.get(k, k)


def _scope(g: _Gen, readables: list[_Readable], depth: int, item: bool) -> dict:
    rng = g.rng
    visible = list(readables)
    if item:
        visible.append(_Readable({"kind": "index"}, "integer"))
        visible.append(_Readable({"kind": "item"}, "string"))
    out_tasks = []
    ids = []
    for _ in range(rng.randint(1, 3 if depth < 3 else 1)):
        task, ports = _task(g, visible, depth)
        if ids and rng.random() < 0.3:
            task["dependsOn"] = [rng.choice(ids)]
        ids.append(task["id"])
        out_tasks.append(task)
        visible.extend(ports)
    scope: dict = {"tasks": out_tasks}
    own = visible[len(readables) + (2 if item else 0):]
    if own and rng.random() < 0.8:
        scope["outputs"] = [{"name": f"x{i}", "value": copy.deepcopy(r.value)}
                            for i, r in enumerate(own[: rng.randint(1, min(3, len(own)))])]
    if rng.random() < 0.25:
        cleanup = {"id": g.new_id("cleanup"), "kind": "value", "objective": "Clean up.",
                   "outputs": [{"name": "done", "value": copy.deepcopy(rng.choice(visible).value) if visible
                                else {"kind": "null"}}]}
        scope["always"] = [cleanup]
    return scope


def _exports(scope: dict, readables_before: list[_Readable], task_id: str, all_readables: list[_Readable]) -> list[_Readable]:
    out = []
    for o in scope.get("outputs", []):
        out.append(_Readable({"kind": "output", "source": task_id, "port": o["name"]}, _kind_of(o["value"], all_readables)))
    return out


def _task(g: _Gen, visible: list[_Readable], depth: int) -> tuple[dict, list[_Readable]]:
    rng = g.rng
    kinds = ["value", "value", "transform"] + (["sequence", "conditional", "foreach", "parallel"] if depth < 3 else [])
    if g.operations:
        kinds += ["operation", "operation"]
    if g.groups and depth > 0 or (g.groups and rng.random() < 0.5):
        kinds.append("call")
    kind = rng.choice(kinds)
    tid = g.new_id()
    task: dict = {"id": tid, "kind": kind, "objective": f"Do {tid}."}
    ports: list[_Readable] = []
    if kind == "value":
        outputs = []
        for i in range(rng.randint(1, 2)):
            value = _value(g, visible)
            outputs.append({"name": f"o{i}", "value": value})
            ports.append(_Readable({"kind": "output", "source": tid, "port": f"o{i}"}, _kind_of(value, visible)))
        task["outputs"] = outputs
    elif kind == "transform":
        task["inputs"] = [{"name": f"i{i}", "value": _value(g, visible)} for i in range(rng.randint(0, 2))]
        task["resultType"] = {"kind": "object", "fields": [{"name": "summary", "type": {"kind": "string"}},
                                                            {"name": "score", "type": {"kind": "integer"}}]}
        ports += [_Readable({"kind": "output", "source": tid, "port": "summary"}, "string"),
                  _Readable({"kind": "output", "source": tid, "port": "score"}, "integer")]
    elif kind == "sequence":
        task["body"] = _scope(g, visible, depth + 1, item=False)
        ports += _exports(task["body"], visible, tid, visible + _body_readables(task["body"], visible))
    elif kind == "conditional":
        task["condition"] = _value(g, visible, "boolean")
        body = _scope(g, visible, depth + 1, item=False)
        names = [o["name"] for o in body.get("outputs", [])]
        kinds = [_kind_of(o["value"], visible + _body_readables(body, visible)) for o in body.get("outputs", [])]
        task["body"] = body
        if names or rng.random() < 0.5:
            task["otherwise"] = {"outputs": [{"name": n, "value": _value(g, visible, k if k in _LITERAL_KINDS else None)}
                                             for n, k in zip(names, kinds)]}
            # both sides must agree on kinds: keep only outputs whose otherwise value has the same kind
            keep = [i for i, (o, k) in enumerate(zip(task["otherwise"]["outputs"], kinds))
                    if k in _LITERAL_KINDS and _kind_of(o["value"], visible) == k]
            body["outputs"] = [body["outputs"][i] for i in keep]
            task["otherwise"]["outputs"] = [task["otherwise"]["outputs"][i] for i in keep]
            ports += [_Readable({"kind": "output", "source": tid, "port": body["outputs"][j]["name"]}, kinds[i])
                      for j, i in enumerate(keep)]
        else:
            body.pop("outputs", None)
    elif kind == "foreach":
        arrays = [r for r in visible if r.kind == "array" and r.value.get("kind") == "input"]
        task["items"] = copy.deepcopy(arrays[0].value) if arrays and rng.random() < 0.6 else \
            {"kind": "array", "items": [{"kind": "string", "text": "a"}, {"kind": "string", "text": "b"}]}
        task["parallel"] = rng.random() < 0.5
        task["maxItems"] = rng.randint(2, 50)
        task["body"] = _scope(g, visible, depth + 1, item=True)
        ports += [_Readable({"kind": "output", "source": tid, "port": o["name"]}, "array")
                  for o in task["body"].get("outputs", [])]
    elif kind == "parallel":
        branches = []
        for b in range(rng.randint(2, 3)):
            branch = _scope(g, visible, depth + 1, item=False)
            for o in branch.get("outputs", []):
                o["name"] = f"b{b}_{o['name']}"
            branches.append(branch)
            ports += _exports(branch, visible, tid, visible + _body_readables(branch, visible))
        task["branches"] = branches
        task["maxConcurrency"] = rng.randint(1, 4)
    elif kind == "operation":
        op = rng.choice(g.operations)
        task["operation"] = op["ref"]
        bindings = []
        for name, want in op["inputs"]:
            if want.startswith("enum:"):
                value: dict = {"kind": "string", "text": want[5:]}
            else:
                value = _value(g, visible, want) if want != "boolean" or rng.random() < 0.5 else _literal("boolean")
                if want == "integer" and value.get("kind") not in ("output", "index"):
                    value = {"kind": "number", "number": rng.randint(1, 50)}
            bindings.append({"name": name, "value": value})
        task["inputs"] = bindings
        ports += [_Readable({"kind": "output", "source": tid, "port": name}, kind) for name, kind in op["ports"]]
    elif kind == "call":
        group = rng.choice(g.groups)
        task["group"] = group["id"]
        task["inputs"] = [{"name": "topic", "value": _value(g, visible, "string")}]
        ports += [_Readable({"kind": "output", "source": tid, "port": o["name"]}, "string" if o["name"] == "echo" else "any")
                  for o in group["body"].get("outputs", [])]
    return task, [p for p in ports if p.kind != "any"]


_LITERAL_KINDS = ("string", "number", "boolean", "array", "object")


def _body_readables(scope: dict, outer: list[_Readable]) -> list[_Readable]:
    """What a body's tasks made readable (for the kinds of its exports)."""
    out = []
    for t in scope.get("tasks", []):
        if t.get("kind") == "value":
            for o in t["outputs"]:
                out.append(_Readable({"kind": "output", "source": t["id"], "port": o["name"]}, _kind_of(o["value"], outer)))
        elif t.get("kind") == "transform":
            out += [_Readable({"kind": "output", "source": t["id"], "port": "summary"}, "string"),
                    _Readable({"kind": "output", "source": t["id"], "port": "score"}, "integer")]
    return out


# ====================================================================== the properties


@dataclass
class Verdict:
    problems: list[str]
    clean: bool = False
    compiled: bool = False
    codes: list[str] = field(default_factory=list)


def check_properties(data: bytes, display: str, catalogs: tuple[str, ...] = ()) -> Verdict:
    """Every property of one document (its bytes, shown as `display`, relative to the
    repository root, checked against `catalogs`)."""
    from taskplan.api import check_plan, compile_plan
    from taskplan.model.plan import OperationTask
    from taskplan.passes.validate import validate_text

    problems: list[str] = []
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        loaded = catalog_set(catalogs)
        result = check_plan(display, catalogs=loaded, text=data)
        codes = [d.code for d in result.diagnostics]
        if "COMPILER_INTERNAL" in codes:
            problems += [f"COMPILER_INTERNAL: {d.message}" for d in result.diagnostics if d.code == "COMPILER_INTERNAL"]
        if result.exit_code not in (0, 1):
            problems.append(f"exit code {result.exit_code}")
        texts = {p: d.text for p, d in result.documents.items()}
        problems += location_problems(result.diagnostics, texts)
        keys = [d.sort_key for d in result.diagnostics]
        if keys != sorted(keys):
            problems.append("diagnostics not sorted")
        if len({(d.code, d.location, d.message) for d in result.diagnostics}) != len(keys):
            problems.append("a diagnostic reported twice")
        verdict = Verdict(problems, clean=result.ok, codes=codes)
        if not result.ok:
            return verdict
        compiled = compile_plan(display, catalogs=loaded, text=data, auto=True)
        undecidable = {c.pointer for c in result.plan.choices if getattr(c.model, "recommended", None) is None}
        errors = [d for d in compiled.diagnostics if d.is_error]  # (warnings: TASK_OUTPUT_UNUSED)
        if errors and all(d.code == "CHOICE_REQUIRED" and d.location.pointer in undecidable for d in errors):
            return verdict  # auto takes recommendations; a choice without one needs --choose (by design)
        calls = [t for t in result.plan.tasks if isinstance(t.model, OperationTask)]
        if not catalogs and calls:
            # without a catalog, check accepts operation calls and compile refuses them (by
            # design): exactly one diagnostic, at the first call, and nothing written
            first = calls[0]
            if [(d.code, d.location.pointer) for d in errors] != [("TASK_OPERATION_UNKNOWN", f"{first.pointer}/operation")] \
                    or compiled.yaml is not None:
                problems.append("without a catalog, compile does not refuse the operation calls once: "
                                + "; ".join(f"{d.code} {d.location.pointer}: {d.message}" for d in compiled.diagnostics))
            return verdict
        if compiled.exit_code != 0 or compiled.yaml is None:
            problems.append("checks clean but does not compile: "
                            + "; ".join(f"{d.code} {d.location.pointer}: {d.message}" for d in compiled.diagnostics))
            return verdict
        verdict.compiled = True
        graph_problems = compiled.graph.check() if compiled.graph is not None else ["no graph"]
        if graph_problems:  # compile leaves PlanningGraph.check() to the tests
            problems.append("the PlanningGraph breaks its invariants: " + "; ".join(graph_problems[:5]))
        validation = validate_text(compiled.yaml.encode("utf-8"), "compiled.workflow.yaml")
        if validation.diagnostics:
            problems.append("the output does not validate: "
                            + "; ".join(f"{d.code} {d.location.pointer}: {d.message}" for d in validation.diagnostics[:5]))
        again = compile_plan(display, catalogs=loaded, text=data, auto=True)
        if again.yaml != compiled.yaml:
            problems.append("compiling twice gives different bytes")
        return verdict
    finally:
        os.chdir(cwd)


def mutant(seed: PlanSeed, rng: Any, fmt: str | None = None) -> tuple[bytes, str, tuple[str, ...], list[str]]:
    """A mutated seed: (bytes, display path, catalogs, log)."""
    tree, log = mutate(seed.tree(), rng)
    fmt = fmt or seed.fmt
    display = f"fixtures/valid/{seed.name}.taskplan.{fmt}"
    return dump(tree, fmt), display, tuple(str(p.relative_to(ROOT)) for p in seed.catalogs), log


def generated(rng: Any, fmt: str = "yaml", *, operations: bool = True) -> tuple[bytes, str, tuple[str, ...]]:
    """A generated plan: (bytes, display path, catalogs to check it against)."""
    tree = generate(rng, operations=operations)
    return dump(tree, fmt), f"generated.taskplan.{fmt}", GENERATOR_CATALOGS if operations else ()


__all__ = ["DrawRng", "Verdict", "check_properties", "generate", "generated", "mutant", "mutate", "join", "seq"]
