"""A reference interpreter of TaskPlans, written from the language spec
(/work/shared/spec/taskplan.md) and docs/language.md, on the plan's raw tree.

It runs a plan that checks clean (the compiler said so); it does not check
anything the compiler checks. Planning choices resolve as `compile --auto`
does: `selected`, else `recommended`.

Conventions where the spec fixes nothing, shared with the executor
(executor.py), so that they cancel out in a comparison:
- concurrency is simulated: `parallel` branches and the iterations of a
  `foreach` with `parallel: true` run one after the other, in list order; every
  branch / iteration runs even when an earlier one failed, and the task fails
  after the last one; a sequential `foreach` stops at the first failing item;
- a failing cleanup task does not stop the later cleanup tasks; the scope then
  fails;
- predicates evaluate all their operands (no short circuit);
- a cleanup guard waits for every producer the cleanup task reads to have
  "produced a result" (taskplan.md, Scopes): to have run to completion. A
  nullable operation that answered null has produced a result (null); `present`
  is the test for a non-null one (see finding 1 in tests/test_semantics.py);
- `json` is `canonical_json` (keys sorted, no spaces).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .common import Failure, OracleBug, canonical_json, equal, is_number, norm, order
from .stubs import CatalogIndex, Stubs


def _list(node: Any, key: str) -> list:
    value = node.get(key) if isinstance(node, dict) else None
    return value if isinstance(value, list) else []


def _get(node: Any, key: str, default: Any = None) -> Any:
    value = node.get(key) if isinstance(node, dict) else None
    return default if value is None else value


# ------------------------------------------------------------------ types


def type_schema(t: dict) -> dict:
    """A TaskType as the JSON Schema the model is asked to answer in (strict structured
    output: every object closed, every field listed; an optional field answers null)."""
    kind = _get(t, "kind", "any")
    nullable = bool(_get(t, "nullable", False))
    if kind == "object":
        props, required = {}, []
        for f in _list(t, "fields"):
            sub = type_schema(f["type"])
            if _get(f, "required", True) is False and not _get(f["type"], "nullable", False):
                sub = _nullable(sub)
            props[f["name"]] = sub
            required.append(f["name"])
        schema: dict = {"type": "object", "properties": props, "required": required, "additionalProperties": False}
    elif kind == "array":
        schema = {"type": "array", "items": type_schema(t["items"])}
    elif kind in ("string", "number", "integer", "boolean"):
        schema = {"type": kind}
        if kind == "string" and _list(t, "enum"):
            schema["enum"] = list(t["enum"])
    else:
        return {}
    return _nullable(schema) if nullable else schema


def _nullable(schema: dict) -> dict:
    out = dict(schema)
    out["type"] = [schema["type"], "null"]
    if "enum" in out:
        out["enum"] = [*out["enum"], None]
    return out


def fits(value: Any, t: dict) -> bool:
    """Whether a value is of a TaskType (a transform's answer is checked so)."""
    kind = _get(t, "kind", "any")
    if kind == "any":
        return True
    if value is None:
        return bool(_get(t, "nullable", False))
    if kind == "string":
        return isinstance(value, str) and (not _list(t, "enum") or value in t["enum"])
    if kind == "integer":
        return is_number(value) and float(value).is_integer()
    if kind == "number":
        return is_number(value)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "array":
        return isinstance(value, list) and all(fits(v, t["items"]) for v in value)
    if kind == "object":
        if not isinstance(value, dict):
            return False
        declared = {f["name"]: f for f in _list(t, "fields")}
        if any(k not in declared for k in value):
            return False
        for name, f in declared.items():
            if name not in value:
                if _get(f, "required", True):
                    return False
            elif not fits(value[name], f["type"]):
                return False
        return True
    raise OracleBug(f"type kind {kind}")


# ------------------------------------------------------------------ environment


@dataclass
class Env:
    """What a value can read at one place: the inputs of the workflow or group, the
    results of the tasks run so far (own scope and ancestors), the foreach item."""

    inputs: dict
    parent: "Env | None" = None
    results: dict = field(default_factory=dict)
    loop: tuple | None = None  # (item, index) of the nearest foreach body

    def child(self, loop: tuple | None = None) -> "Env":
        return Env(self.inputs, self, {}, loop if loop is not None else self.loop)

    def lookup(self, task_id: str) -> tuple[bool, Any]:
        env: Env | None = self
        while env is not None:
            if task_id in env.results:
                return True, env.results[task_id]
            env = env.parent
        return False, None


@dataclass
class Outcome:
    ok: bool
    outputs: Any
    error: str | None
    calls: list[tuple]
    cleanups: list[tuple]
    unsound: list[str] = field(default_factory=list)
    """Requests that broke their port's business type (stubs.Stubs.unsound)."""


# ------------------------------------------------------------------ the interpreter


class Interpreter:
    def __init__(self, plan: dict, catalog: CatalogIndex, stubs: Stubs, tolerate: frozenset = frozenset()):
        self.plan = plan
        self.tolerate = tolerate
        """Names of known findings (tests/test_semantics.py) where the interpreter takes the
        compiler's reading, so that the broad comparisons stay green while the finding's own
        xfail test pins the spec's reading."""
        self.catalog = catalog
        self.stubs = stubs
        self.groups = {g["id"]: g for g in _list(plan, "groups")}
        self.cleanups: list[tuple] = []
        self.choices = {}
        for c in _list(plan, "choices"):
            pick = _get(c, "selected") or _get(c, "recommended")
            alternative = next(a for a in _list(c, "alternatives") if a["id"] == pick)
            self.choices[c["id"]] = alternative["value"]
        self.kinds: dict[str, str] = {}  # task ID -> kind, over the whole plan
        self._index(plan.get("root") or {})
        for g in self.groups.values():
            self._index(_get(g, "body", {}))

    def _index(self, scope: dict) -> None:
        for t in _list(scope, "tasks") + _list(scope, "always"):
            self.kinds[t["id"]] = _get(t, "kind", "operation")
            for sub in self._scopes(t):
                self._index(sub)

    @staticmethod
    def _scopes(task: dict) -> list[dict]:
        kind = _get(task, "kind", "operation")
        if kind in ("sequence", "foreach"):
            return [_get(task, "body", {})]
        if kind == "conditional":
            return [_get(task, "body", {}), _get(task, "otherwise", {})]
        if kind == "parallel":
            return [b or {} for b in _list(task, "branches")]
        return []

    # -------------------------------------------------------------- entry

    def run(self, inputs: dict) -> Outcome:
        bound = {}
        for decl in _list(self.plan, "inputs"):
            name = decl["name"]
            if name in inputs:
                bound[name] = self.defaults(norm(inputs[name]), decl["type"])
            elif decl.get("default") is not None:
                bound[name] = self.defaults(self.literal(decl["default"]), decl["type"])
            elif _get(decl, "required", True):
                raise OracleBug(f"input {name} not given")
            else:
                bound[name] = None
        try:
            outputs = self.scope(self.plan.get("root") or {}, Env(bound))
            return Outcome(True, norm(outputs), None, list(self.stubs.calls), self.cleanups, list(self.stubs.unsound))
        except Failure as exc:
            return Outcome(False, None, str(exc), list(self.stubs.calls), self.cleanups, list(self.stubs.unsound))

    # -------------------------------------------------------------- scopes

    def reads(self, node: Any, *, present: bool = True) -> set[str]:
        """The task IDs a task (or value) reads, at any depth below it (its nested
        scopes included, groups excluded: a call reads only what it binds)."""
        found: set[str] = set()

        def walk(n: Any, key: str | None = None) -> None:
            if isinstance(n, dict):
                k = n.get("kind")
                if k == "output" and isinstance(n.get("source"), str) and "source" in n and key != "type":
                    found.add(n["source"])
                elif k == "present" and present and isinstance(n.get("source"), str):
                    found.add(n["source"])
                for sub_key, v in n.items():
                    if sub_key in ("resultType", "type", "default"):
                        continue
                    walk(v, sub_key)
            elif isinstance(n, list):
                for v in n:
                    walk(v, key)

        walk(node)
        return found

    def topo(self, tasks: list[dict], extra: dict[str, set[str]] | None = None) -> list[dict]:
        """Tasks in a topological order of their dependencies, ties in list order."""
        ids = {t["id"]: i for i, t in enumerate(tasks)}
        deps: dict[int, set[int]] = {}
        for i, t in enumerate(tasks):
            names = set(_list(t, "dependsOn")) | self.reads(t)
            deps[i] = {ids[n] for n in names if n in ids and ids[n] != i}
        done: list[int] = []
        left = set(range(len(tasks)))
        while left:
            ready = [i for i in sorted(left) if not (deps[i] & left)]
            if not ready:
                raise OracleBug("dependency cycle in a valid plan")
            done.append(ready[0])
            left.discard(ready[0])
        return [tasks[i] for i in done]

    def scope(self, scope: dict, env: Env) -> dict:
        error: Failure | None = None
        for task in self.topo(_list(scope, "tasks")):
            try:
                env.results[task["id"]] = self.task(task, env)
            except Failure as exc:
                error = exc
                break
        outputs: dict = {}
        if error is None:
            try:
                outputs = {o["name"]: self.value(o["value"], env) for o in _list(scope, "outputs")}
            except Failure as exc:
                error = exc
        own = {t["id"] for t in _list(scope, "tasks")}
        for task in self.topo(_list(scope, "always")):
            producers = self.reads(task, present=False) & own
            if all(self._produced(p, env) for p in producers):
                try:
                    self.task(task, env)
                    self.cleanups.append((task["id"], "ran"))
                except Failure as exc:
                    self.cleanups.append((task["id"], "failed"))
                    error = error or exc
            else:
                self.cleanups.append((task["id"], "skipped"))
        if error is not None:
            raise error
        return outputs

    def defaults(self, value: Any, t: dict) -> Any:
        """A bound input with the defaults of its type's optional object fields filled in
        where the caller left them out (docs/diagnostics.md, TASK_DEFAULT_INVALID: a
        default "of an optional field inside an object type stands in for a value the
        caller left out"), given or the input's own default (finding 2, fixed in the
        compiler: the workflow input's schema carries each field's default)."""
        kind = _get(t, "kind", "any")
        if kind == "object" and isinstance(value, dict):
            out = dict(value)
            for f in _list(t, "fields"):
                if f["name"] in out:
                    out[f["name"]] = self.defaults(out[f["name"]], f["type"])
                elif f.get("default") is not None:
                    out[f["name"]] = self.literal(f["default"])
            return out
        if kind == "array" and isinstance(value, list):
            return [self.defaults(v, t["items"]) for v in value]
        return value

    def _produced(self, producer: str, env: Env) -> bool:
        """Whether a producer of a cleanup task has produced a result: run to completion
        (finding 1, fixed: a null result is a result)."""
        return producer in env.results

    # -------------------------------------------------------------- tasks

    def task(self, task: dict, env: Env) -> Any:
        kind = _get(task, "kind", "operation")
        if kind == "operation":
            op = self.catalog.resolve(task["operation"])
            request = {b["name"]: self.value(b["value"], env) for b in _list(task, "inputs")}
            request.update(op.fixed)
            return self.stubs.operation(op.key, request)
        if kind == "transform":
            named = {b["name"]: self.value(b["value"], env) for b in _list(task, "inputs")}
            answer = self.stubs.model(task["objective"], named, type_schema(task["resultType"]))
            if not fits(answer, task["resultType"]):
                raise Failure(f"transform {task['id']}: the model's answer does not fit resultType")
            return answer
        if kind == "value":
            return {o["name"]: self.value(o["value"], env) for o in _list(task, "outputs")}
        if kind == "sequence":
            return self.scope(_get(task, "body", {}), env.child())
        if kind == "conditional":
            condition = self.value(task["condition"], env)
            if not isinstance(condition, bool):
                raise Failure("condition is not a boolean")
            side = _get(task, "body", {}) if condition else _get(task, "otherwise", {})
            return self.scope(side, env.child())
        if kind == "parallel":
            merged: dict = {}
            error = None
            for branch in _list(task, "branches"):
                try:
                    merged.update(self.scope(branch or {}, env.child()))
                except Failure as exc:
                    error = error or exc
            if error is not None:
                raise error
            return merged
        if kind == "foreach":
            items = self.value(task["items"], env)
            if not isinstance(items, list):
                raise Failure("foreach items is not an array")
            if len(items) > int(_get(task, "maxItems", 100)):
                raise Failure(f"foreach {task['id']}: {len(items)} items, more than maxItems")
            body = _get(task, "body", {})
            results, error = [], None
            for index, item in enumerate(items):
                try:
                    results.append(self.scope(body, env.child(loop=(item, index))))
                except Failure as exc:
                    error = error or exc
                    if not _get(task, "parallel", False):
                        break
            if error is not None:
                raise error
            return {o["name"]: [r[o["name"]] for r in results] for o in _list(body, "outputs")}
        if kind == "call":
            group = self.groups[task["group"]]
            given = {b["name"]: self.value(b["value"], env) for b in _list(task, "inputs")}
            bound = {}
            for decl in _list(group, "inputs"):
                name = decl["name"]
                if name in given:
                    bound[name] = self.defaults(given[name], decl["type"])
                elif decl.get("default") is not None:
                    bound[name] = self.defaults(self.literal(decl["default"]), decl["type"])
                else:
                    bound[name] = None
            return self.scope(_get(group, "body", {}), Env(bound))
        raise OracleBug(f"task kind {kind}")

    # -------------------------------------------------------------- values

    def literal(self, value: dict) -> Any:
        return self.value(value, Env({}))

    def read(self, env: Env, source: str) -> Any:
        found, result = env.lookup(source)
        if not found:
            raise OracleBug(f"read of {source}, which has not run")
        return result

    def value(self, v: dict, env: Env) -> Any:
        kind = v.get("kind")
        if kind in ("null", None):
            return None
        if kind == "string":
            return v["text"]
        if kind == "number":
            return norm(v["number"])
        if kind == "boolean":
            return v["boolean"]
        if kind == "object":
            return {m["name"]: self.value(m["value"], env) for m in _list(v, "members")}
        if kind == "array":
            return [self.value(i, env) for i in _list(v, "items")]
        if kind == "input":
            return env.inputs[v["source"]]
        if kind == "choice":
            return self.literal(self.choices[v["source"]])
        if kind == "item":
            if env.loop is None:
                raise OracleBug("item outside foreach")
            return env.loop[0]
        if kind == "index":
            if env.loop is None:
                raise OracleBug("index outside foreach")
            return env.loop[1]
        if kind == "output":
            result = self.read(env, v["source"])
            port = v.get("port")
            if port is None:
                return result
            if self.kinds.get(v["source"]) == "operation":
                if result is None:  # a nullable result: every port reads as nullable
                    return None
                if not isinstance(result, dict) or port not in result:
                    raise Failure(f"{v['source']}: the result has no field {port!r}")
            elif port not in result:
                raise OracleBug(f"{v['source']} has no port {port}")
            return result[port]
        if kind == "present":
            found, result = env.lookup(v["source"])
            return found and result is not None
        if kind == "field":
            obj = self.value(v["items"][0], env)
            if obj is None:
                return None
            if not isinstance(obj, dict) or v["port"] not in obj:
                raise Failure(f"field {v['port']!r} is missing")
            return obj[v["port"]]
        if kind == "json":
            return canonical_json(self.value(v["items"][0], env))
        if kind == "predicate":
            args = [self.value(i, env) for i in _list(v, "items")]
            p = v["predicate"]
            if p in ("not", "and", "or"):
                if not all(isinstance(a, bool) for a in args):
                    raise Failure(f"{p} of a non-boolean")
                return (not args[0]) if p == "not" else (all(args) if p == "and" else any(args))
            if p == "equal":
                return equal(args[0], args[1])
            if p == "not_equal":
                return not equal(args[0], args[1])
            ops = {"less": "<", "less_equal": "<=", "greater": ">", "greater_equal": ">="}
            return order(ops[p], args[0], args[1])
        raise OracleBug(f"value kind {kind}")


def interpret(plan: dict, catalog: CatalogIndex, stubs: Stubs, inputs: dict, tolerate: frozenset = frozenset()) -> Outcome:
    return Interpreter(plan, catalog, stubs, tolerate).run(inputs)
