"""The shape pass: a document tree -> TaskPlan models (closed objects, tagged unions).

Reports PLAN_VERSION, PLAN_LIMIT (too many tasks), PLAN_FIELD_UNKNOWN,
PLAN_FIELD_REQUIRED, PLAN_FIELD_TYPE, PLAN_NAME_INVALID, TASK_KIND_INVALID,
TASK_KIND_FIELD and TASK_VALUE_INVALID (unknown value kind).

How it works
------------
A valid plan is one call of `fast_plan_validator()`: TaskPlan's validator with
the hooks described below reduced to their normalising (taskplan.model.plan,
"The fast validator"). A document it refuses is one
`validate_model(TaskPlan, tree, context=...)` call. Both run with the garbage
collector paused: validation allocates hundreds of thousands of objects and
cannot make cycles. The tasks are counted (PLAN_LIMIT) in the document before
either, except in a document `canonical_plan_validator()` accepts (it is tried
first): there they are counted in its models, and only a count over the limit
is taken again in the document.

When a node fails, the validators of `taskplan.model.plan` hand its
ValidationError to `_Shaper.recover` instead of failing the plan. The error's
locations are relative to that node: `recover` maps them to relative pointers
by walking the node's raw data alongside each `loc` (skipping elements that are
not keys or indices of the raw data, such as the `int`/`float` members of a
number union), records them against the raw node, salvages the node (see the
docstring of `taskplan.model.plan` for what a broken node looks like) and
returns what stands for it, so that its parent validates. A node that is not an
object at all raises a `tp_not_object` error to its parent, which reports it at
the exact position and puts a placeholder in that slot. Only when something was
recorded is the raw tree walked once to give every recorded node its absolute
pointer; a finding's subject is told from its pointer (passes/subjects.py).

Nothing is reported about the inside of a task or value of unknown kind: it is
not validated.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass
from typing import Any, Callable

from pydantic import TypeAdapter, ValidationError
from pydantic_core import PydanticCustomError

from taskplan.config import DEFAULT_LIMITS, Limits
from taskplan.diagnostics import Reporter
from taskplan.gcpause import gc_paused
from taskplan.model.plan import (
    PLAN_NAME_PATTERN,
    ArrayValue,
    CallTask,
    ObjectValue,
    OperationTask,
    ValueTask,
    ChoiceAlternative,
    ConditionalTask,
    FieldValue,
    ForeachTask,
    JsonValue,
    ParallelTask,
    PlanningChoice,
    PredicateValue,
    SequenceTask,
    TaskGroup,
    TaskInput,
    TaskOutput,
    TransformTask,
    TASK_FIELDS_ALL,
    TASK_KIND_FIELDS,
    TASK_KINDS,
    VALUE_FIELDS_ALL,
    VALUE_KIND_FIELDS,
    VALUE_KINDS,
    InvalidTask,
    InvalidType,
    InvalidValue,
    Node,
    PlanTask,
    ShapeRecovery,
    TaskPlan,
    TaskScope,
    TaskType,
    TaskValue,
    canonical_plan_validator,
    fast_plan_validator,
    has_shape_error,
    mark_shape_error,
    model_fields,
    validate_model,
)
from taskplan.passes.subjects import subject_at
from taskplan.source import pointer as jp
from taskplan.source.document import SourceDocument

_NAME_RE = re.compile(PLAN_NAME_PATTERN)

_TASK_ADAPTER: TypeAdapter = TypeAdapter(PlanTask)
_NAMED_ADAPTER: TypeAdapter = TypeAdapter(TaskOutput)
_VALUE_ADAPTER: TypeAdapter = TypeAdapter(TaskValue)
_SCOPE_ADAPTER: TypeAdapter = TypeAdapter(TaskScope)


def shape(document: SourceDocument, reporter: Reporter, limits: Limits = DEFAULT_LIMITS) -> TaskPlan | None:
    """Shape `document` into a TaskPlan. Returns None only when nothing more can be
    checked (PLAN_VERSION, a document that is not a mapping, too many tasks)."""
    tree = document.tree
    if not isinstance(tree, dict):
        reporter.report(
            "PLAN_FIELD_TYPE",
            "",
            f"a TaskPlan must be an object (a mapping), got {_json_type(tree)}",
            hint="start the document with `version: 1` and `root: {tasks: [...]}`",
        )
        return None
    if not _check_version(tree, reporter):
        return None

    shaper = _Shaper()
    with gc_paused():
        plan = _validate(canonical_plan_validator(), tree)
    if plan is not None:
        # The tasks counted in the models: the canonical validator made one model per task
        # and per scope of the document (test_shape_canonical), and they are cheaper to
        # walk. Over the limit, `_check_task_count` counts again, in the document, to
        # report at the first task over it.
        if _count_plan_tasks(plan) > limits.max_tasks and not _check_task_count(tree, reporter, limits):
            return None
    else:
        if not _check_task_count(tree, reporter, limits):
            return None
        with gc_paused():
            plan = _validate(fast_plan_validator(), tree)
            if plan is None:
                try:
                    plan = validate_model(TaskPlan, tree, context=shaper)
                except ValidationError:  # pragma: no cover - recover() never gives up on the plan
                    plan = None
    if shaper.records:
        shaper.emit(tree, reporter)
    if plan is None:
        return None
    if plan.name is not None and not _NAME_RE.match(plan.name):
        reporter.report(
            "PLAN_NAME_INVALID",
            "/name",
            f"the plan name `{_short(plan.name)}` is not a valid name",
            hint="use 1-63 lower-case letters, digits and hyphens, starting with a letter or digit, e.g. `pr-review`",
        )
    return plan


def _validate(validator: Any, tree: dict) -> TaskPlan | None:
    """The plan, when `validator` (a fast one, or None when it could not be built) accepts
    the document (nothing in error); else None, and the next way decides. The canonical
    validator (`canonical_plan_validator`: no Python per node) is tried first; a
    document it refuses (one with nulls or empty fields of other kinds, or in error) is
    for `fast_plan_validator`, and one that refuses too is validated the usual way (its
    errors found and recovered from). Lists stop at their first error, so a refusal
    costs little when the document is in the wire form throughout."""
    if validator is None:
        return None
    try:
        return validator.validate_python(tree)
    except Exception:  # noqa: BLE001 - anything at all: the next way decides
        return None


# ------------------------------------------------------------------ pre-checks


def _check_version(tree: dict, reporter: Reporter) -> bool:
    if "version" not in tree:
        reporter.report(
            "PLAN_VERSION",
            "",
            "the document has no `version`; a TaskPlan declares `version: 1`",
            hint="add `version: 1` at the top of the document",
        )
        return False
    version = tree["version"]
    if type(version) is int and version == 1:
        return True
    reporter.report(
        "PLAN_VERSION",
        "/version",
        f"`version` must be the integer 1, got {_describe(version)}",
        hint="write `version: 1` (this compiler knows TaskPlan version 1 only)",
    )
    return False


def _check_task_count(tree: dict, reporter: Reporter, limits: Limits) -> bool:
    """Count tasks (every depth, `always`, group bodies) in the raw tree, before
    validating anything; report at the first task over the limit, in document order
    (found by a second walk, only then)."""
    limit = limits.max_tasks
    scopes = _raw_scopes(tree)
    if sum(_count_tasks(scope) for _, scope in scopes) <= limit:
        return True
    pointer = ""
    count = 0
    stack: list[tuple[bool, Any, tuple]] = [(False, scope, path) for path, scope in reversed(scopes)]
    while stack:  # pre-order: a task, then its child scopes, then its next sibling
        is_task, node, path = stack.pop()
        if is_task:
            count += 1
            if count > limit:
                pointer = jp.from_path(path)
                break
            stack += [(False, scope, path + suffix) for suffix, scope in reversed(_raw_children(node))]
        elif type(node) is dict:
            items = [
                (True, task, path + (key, i))
                for key in ("tasks", "always")
                if type(node.get(key)) is list
                for i, task in enumerate(node[key])
            ]
            stack += items[::-1]
    reporter.report(
        "PLAN_LIMIT",
        pointer,
        f"the plan has more than {limit} tasks (the limit `max_tasks`)",
        hint="split the plan, or raise the limit in the compiler's settings",
    )
    return False


def _count_plan_tasks(plan: TaskPlan) -> int:
    """`_count_tasks` of every scope of the document (`_raw_scopes`), counted in the models
    the canonical validator made of it (no placeholders: a compound task by its class)."""
    count = 0
    pending = [plan.root, *(group.body for group in plan.groups)]
    compound = _COMPOUND_TASKS
    while pending:
        scope = pending.pop()
        for tasks in (scope.tasks, scope.always):
            count += len(tasks)
            for task in tasks:
                kind = type(task)
                if kind in compound:
                    if kind is ParallelTask:
                        pending += task.branches
                    else:
                        pending.append(task.body)
                        if kind is ConditionalTask and task.otherwise is not None:
                            pending.append(task.otherwise)
    return count


_COMPOUND_TASKS = frozenset({SequenceTask, ConditionalTask, ParallelTask, ForeachTask})


def _raw_scopes(tree: dict) -> list[tuple[tuple, Any]]:
    scopes: list[tuple[tuple, Any]] = [(("root",), tree.get("root"))]
    groups = tree.get("groups")
    if type(groups) is list:
        scopes += [(("groups", i, "body"), g.get("body")) for i, g in enumerate(groups) if type(g) is dict]
    return scopes


def _raw_children(task: Any) -> list[tuple[tuple, Any]]:
    if type(task) is not dict:
        return []
    out = [((name,), task[name]) for name in ("body", "otherwise") if type(task.get(name)) is dict]
    branches = task.get("branches")
    if type(branches) is list:
        out += [(("branches", i), b) for i, b in enumerate(branches)]
    return out


def _count_tasks(scope: Any) -> int:
    """The tasks of `scope` at every depth: what `_raw_children` finds, without a list of
    (suffix, scope) pairs per compound task (only the count is wanted)."""
    count = 0
    pending = [scope]
    while pending:
        scope = pending.pop()
        if type(scope) is not dict:
            continue
        for key in ("tasks", "always"):
            tasks = scope.get(key)
            if type(tasks) is list:
                count += len(tasks)
                for task in tasks:
                    if type(task) is dict and ("body" in task or "otherwise" in task or "branches" in task):
                        for name in ("body", "otherwise"):
                            child = task.get(name)
                            if type(child) is dict:
                                pending.append(child)
                        branches = task.get("branches")
                        if type(branches) is list:
                            pending += branches
    return count


# ------------------------------------------------------------------- recording


@dataclass(slots=True)
class _Finding:
    code: str
    tokens: tuple  # pointer tokens relative to the recorded raw node
    message: str
    key: bool = False
    hint: str | None = None
    suggests: str | None = None  # PLAN_FIELD_UNKNOWN: the required field it probably means


@dataclass(slots=True)
class _Record:
    raw: Any
    findings: list[_Finding]


_CATEGORY_NAME = {
    "task": "task",
    "value": "value",
    "type": "type",
    "scope": "scope",
    "output": "named value",
    "input": "input",
    "group": "group",
    "choice": "choice",
    "alternative": "alternative",
    "plan": "plan",
}

_UNSALVAGEABLE = object()


class _Shaper(ShapeRecovery):
    """The shape pass's validation context: records findings per raw node and salvages."""

    def __init__(self) -> None:
        super().__init__()
        self.records: list[_Record] = []
        self._recording = True

    # -- called by the model validators

    def unknown_kind(self, category: str, raw: dict) -> Any:
        self.seen = True
        kinds = TASK_KINDS if category == "task" else VALUE_KINDS
        kind = raw.get("kind")
        label = f"{category} kind"
        if "kind" not in raw or kind is None:  # values only: a task defaults to operation
            finding = _Finding(
                "PLAN_FIELD_REQUIRED",
                (),
                "the value has no `kind`",
                hint=f"a value is an object tagged by `kind`: one of {', '.join(kinds)}",
            )
        elif type(kind) is not str:
            finding = _Finding(
                "PLAN_FIELD_TYPE", ("kind",), f"`kind` must be a string, got {_describe(kind)}"
            )
        else:
            close = _closest(kind, kinds)
            finding = _Finding(
                "TASK_KIND_INVALID" if category == "task" else "TASK_VALUE_INVALID",
                ("kind",),
                f"unknown {label} `{_short(kind)}`",
                hint=(f"did you mean `{close}`? " if close else "") + f"the {label}s are {', '.join(kinds)}",
            )
        self._record(raw, [finding])
        kind_name = kind if type(kind) is str else None
        if category == "task":
            result: Any = InvalidTask(
                id=_str_or_none(raw.get("id")),
                kind=kind_name,
                raw=raw,
                objective=_str_or_none(raw.get("objective")),
                dependsOn=_str_list(raw.get("dependsOn")),
            )
        else:
            result = InvalidValue(kind=kind_name, raw=raw)
        self.cache[id(raw)] = result
        return result

    def recover(
        self,
        category: str,
        cls: type[Node],
        raw: dict,
        data: dict,
        error: ValidationError,
        validate: Callable[[Any], Any],
    ) -> Any:
        self.seen = True
        errors = error.errors(include_url=False)
        fresh = [e for e in errors if e["type"] != "tp_recorded"]
        if fresh:
            self._record(raw, self._findings(category, cls, raw, fresh))
        model, broken = self._salvage(category, cls, data, errors, validate)
        if category == "value":
            result: Any = InvalidValue(kind=_str_or_none(raw.get("kind")), raw=raw) if broken else model
        elif category == "type":
            result = InvalidType(kind=_str_or_none(raw.get("kind")), raw=raw) if broken else model
        elif model is _UNSALVAGEABLE:
            if category == "task":
                result = self._invalid_task(cls, raw)
            else:
                # No stand-in for a nameless named value, input, alternative, group or
                # choice: its parent leaves the whole list out (and has a shape error).
                raise PydanticCustomError("tp_recorded", "reported where it was found")
        else:
            result = model
            if category in ("task", "group"):
                self.settle(result)
        self.cache[id(raw)] = result
        return result

    def settle(self, node: Any) -> None:
        for scope in _child_scopes(node):
            if has_shape_error(scope):
                mark_shape_error(node)
                return

    # -- salvage

    def _salvage(
        self, category: str, cls: type[Node], data: dict, errors: list[dict], validate: Callable[[Any], Any]
    ) -> tuple[Any, bool]:
        """Re-validate `data` without its offending fields. Returns (the model, or
        _UNSALVAGEABLE when a required field without a stand-in is broken; whether
        the node had an error in its own fields).

        An offending field is dropped (left at its default) when optional; a value,
        type or scope field (required or not) gets a placeholder; a list element
        that is not an object gets a placeholder in its slot when the list holds
        tasks, values or scopes. A value or type with an error in its own fields
        is broken as a whole (its caller makes it a placeholder)."""
        fields = model_fields(cls)
        drop: set[str] = set()
        substitute: dict[str, Any] = {}
        elements: dict[str, dict[int, Any]] = {}
        named: dict[str, dict[int, tuple[set, list]] | None] = {}
        own_error = False
        whole = category in ("value", "type")
        for e in errors:
            loc = e["loc"]
            if not loc or type(loc[0]) is not str:
                return _UNSALVAGEABLE, True
            name = loc[0]
            if name not in fields:
                drop.add(name)
                own_error = True
                continue
            slot = _SLOTS.get((cls, name))
            if slot == "named" and len(loc) >= 2 and type(loc[1]) is int:
                fix = named.setdefault(name, {})
                if fix is None:
                    continue
                item = fix.setdefault(loc[1], (set(), [False]))
                if len(loc) == 3 and type(loc[2]) is str and loc[2] not in model_fields(TaskOutput):
                    item[0].add(loc[2])  # an unknown key of the named value
                    continue
                if len(loc) == 3 and loc[2] == "value":
                    item[1][0] = True  # its value is not an object (or missing): a placeholder
                    continue
                named[name] = None  # a nameless item, or not an object: the list is left out
                own_error = True
                if not fields[name].is_required():
                    drop.add(name)
                continue
            if (
                slot in ("tasks", "values", "scopes")
                and len(loc) == 2
                and type(loc[1]) is int
                and e["type"] in ("tp_not_object", "tp_recorded")
            ):
                elements.setdefault(name, {})[loc[1]] = slot
                continue
            if slot in ("value", "type", "scope") and not whole and (len(loc) == 1 or e["type"] == "missing"):
                if slot == "value":
                    substitute[name] = InvalidValue(kind=None, raw=data.get(name))
                elif slot == "type":
                    substitute[name] = InvalidType(kind=None, raw=data.get(name))
                else:
                    scope = TaskScope()
                    mark_shape_error(scope)
                    substitute[name] = scope
                    own_error = True  # the owner's exports are unknown
                continue
            own_error = True
            if whole:
                continue
            if fields[name].is_required():
                return _UNSALVAGEABLE, True
            drop.add(name)
        if whole and own_error:
            return None, True
        named = {k: v for k, v in named.items() if v is not None and k not in drop}
        cleaned = {
            k: v for k, v in data.items() if k not in drop and k not in substitute and k not in elements and k not in named
        }
        for name in substitute:
            if fields[name].is_required():
                cleaned[name] = _STAND_INS[_SLOTS[(cls, name)]]
        self._recording = False
        try:
            model = validate(cleaned)
        except ValidationError:
            return _UNSALVAGEABLE, True
        finally:
            self._recording = True
        if not isinstance(model, cls):  # pragma: no cover - a validator returned a placeholder
            return _UNSALVAGEABLE, True
        for name, placeholder in substitute.items():
            setattr(model, name, placeholder)
        for name, slots in elements.items():
            setattr(model, name, self._elements(data[name], slots, _SLOTS[(cls, name)]))
        for name, fixes in named.items():
            setattr(model, name, self._named(data[name], fixes))
        if own_error:
            mark_shape_error(model, drop)
        return model, own_error

    def _elements(self, items: list, slots: dict[int, str], what: str) -> list:
        """A list whose elements `slots` were not objects: placeholders there, the
        other elements as validated (recovered ones come from the cache)."""
        out = []
        for i, item in enumerate(items):
            if i in slots:
                out.append(_placeholder(what, item))
            else:
                out.append(self._revalidate(item, what))
        return out

    def _named(self, items: list, fixes: dict[int, tuple[set, list]]) -> list:
        """A list of named values some of which had errors of their own (unknown keys,
        a value that is not an object): those get the keys left out and a placeholder
        value; the others are validated as they are."""
        out = []
        self._recording = False
        try:
            for i, item in enumerate(items):
                fix = fixes.get(i)
                if fix is None:
                    out.append(_NAMED_ADAPTER.validate_python(item, context=self))
                    continue
                unknown, (bad_value,) = fix
                cleaned = {k: v for k, v in item.items() if k not in unknown and v is not None}
                if bad_value:
                    cleaned["value"] = _STAND_INS["value"]
                named = _NAMED_ADAPTER.validate_python(cleaned, context=self)
                if bad_value:
                    named.value = InvalidValue(kind=None, raw=item.get("value"))
                if unknown:
                    mark_shape_error(named, unknown)
                out.append(named)
        finally:
            self._recording = True
        return out

    def _revalidate(self, item: Any, what: str) -> Any:
        adapter = {"tasks": _TASK_ADAPTER, "values": _VALUE_ADAPTER, "scopes": _SCOPE_ADAPTER}[what]
        self._recording = False
        try:
            return adapter.validate_python(item, context=self)
        except ValidationError:  # pragma: no cover - the first pass recovered this element
            return _placeholder(what, item)
        finally:
            self._recording = True

    def _invalid_task(self, cls: type[Node], raw: dict) -> InvalidTask:
        """A task of known kind whose required part is broken: keep its ID and its
        child scopes (their errors were recorded when they were first validated)."""
        kind = _str_or_none(raw.get("kind")) or "operation"
        scopes: list[tuple[str, TaskScope]] = []
        self._recording = False
        try:
            for name in ("body", "otherwise"):
                if name in TASK_KIND_FIELDS.get(kind, ()) and type(raw.get(name)) is dict:
                    scopes.append((f"/{name}", self._revalidate(raw[name], "scopes")))
            branches = raw.get("branches")
            if kind == "parallel" and type(branches) is list:
                for i, branch in enumerate(branches):
                    if type(branch) is dict:
                        scopes.append((f"/branches/{i}", self._revalidate(branch, "scopes")))
        finally:
            self._recording = True
        return InvalidTask(
            id=_str_or_none(raw.get("id")),
            kind=kind,
            raw=raw,
            objective=_str_or_none(raw.get("objective")),
            dependsOn=_str_list(raw.get("dependsOn")),
            scopes=scopes,
        )

    # -- findings

    def _record(self, raw: Any, findings: list[_Finding]) -> None:
        if self._recording and findings:
            self.records.append(_Record(raw, findings))

    def _findings(self, category: str, cls: type[Node], raw: dict, errors: list[dict]) -> list[_Finding]:
        out: list[_Finding] = []
        type_errors: dict[tuple, list[dict]] = {}
        for e in errors:
            loc = e["loc"]
            tokens, target, complete = _walk(raw, loc)
            etype = e["type"]
            # the object the error is about: this node, or a named value in one of its lists
            o_category, o_cls, o_raw, depth = category, cls, raw, 1
            if len(loc) >= 3 and _SLOTS.get((cls, loc[0])) == "named" and type(loc[1]) is int:
                item = _walk(raw, loc[:2])[1]
                if type(item) is dict:
                    o_category, o_cls, o_raw, depth = "output", TaskOutput, item, 3
            if etype == "missing" or (complete and target is None and etype != "unexpected_keyword_argument"):
                name = loc[-1] if loc else "?"
                if complete:  # written as null: null means absent
                    out.append(_Finding("PLAN_FIELD_REQUIRED", tokens, f"`{name}` is required; null means absent", key=True))
                else:
                    known = len(loc) == depth
                    owner = "the " + _node_name(o_category, o_cls, o_raw) if known else "the object"
                    out.append(
                        _Finding(
                            "PLAN_FIELD_REQUIRED",
                            tokens,
                            f"{owner} is missing the required field `{name}`",
                            hint=_required_hint(o_cls, str(name)) if known else None,
                        )
                    )
            elif etype == "unexpected_keyword_argument":  # a dataclass's unknown field
                name = str(loc[-1])
                if len(loc) == depth:
                    what = _node_name(o_category, o_cls, o_raw)
                    out.append(self._unknown_field(o_category, o_cls, o_raw, name, tokens, what))
                else:
                    out.append(_Finding("PLAN_FIELD_UNKNOWN", tokens, f"unknown field `{name}`", key=True))
            else:
                type_errors.setdefault(tokens, []).append(e)
        for tokens, group in type_errors.items():
            out.append(_type_finding(tokens, group, raw))
        if category == "task" and raw.get("kind") is None and "operation" not in raw:
            out = _kind_left_out(out, raw)
        return out

    def _unknown_field(
        self, category: str, cls: type[Node], raw: dict, name: str, tokens: tuple, what: str
    ) -> _Finding:
        known = list(model_fields(cls))
        if category in ("task", "value"):
            all_fields = TASK_FIELDS_ALL if category == "task" else VALUE_FIELDS_ALL
            if name in all_fields and name not in known:
                by_kind = TASK_KIND_FIELDS if category == "task" else VALUE_KIND_FIELDS
                owners = [k for k, fs in by_kind.items() if name in fs]
                kind = raw.get("kind") or "operation"
                return _Finding(
                    "TASK_KIND_FIELD",
                    tokens,
                    f"`{name}` is a field of {_kinds_phrase(owners, category)}, not of a{'n' if kind[0] in 'aeiou' else ''} `{kind}` {category}",
                    key=True,
                    hint=f"remove `{name}` (or leave it empty), or set `kind` to the kind you mean",
                )
        close = _closest(name, known)
        suggests = close if close and model_fields(cls)[close].is_required() and close not in raw else None
        return _Finding(
            "PLAN_FIELD_UNKNOWN",
            tokens,
            f"unknown field `{_short(name)}` in the {what}",
            key=True,
            hint=(f"did you mean `{close}`?" if close else f"the fields of a {_CATEGORY_NAME[category]} are " + ", ".join(f"`{f}`" for f in known)),
            suggests=suggests,
        )

    # -- output

    def emit(self, tree: dict, reporter: Reporter) -> None:
        """Give every recorded node its absolute pointer (one walk of the raw tree) and report."""
        wanted = {id(r.raw) for r in self.records}
        where = _locate(tree, wanted)
        seen: set[tuple] = set()
        pending: list[tuple[_Finding, str]] = []
        suppressed: set[tuple[str, str]] = set()
        for record in self.records:
            base = where.get(id(record.raw), "")
            for f in record.findings:
                pointer = jp.join(base, *f.tokens)
                if f.suggests:
                    suppressed.add((jp.parent(pointer), f.suggests))
                pending.append((f, pointer))
        for f, pointer in pending:
            if f.code == "PLAN_FIELD_REQUIRED" and not f.key:
                missing = f.message.rsplit("`", 2)[-2] if f.message.endswith("`") else None
                if missing and (pointer, missing) in suppressed:
                    continue  # the unknown field next to it is this one, misspelt
            dedupe = (f.code, pointer, f.key, f.message if f.code == "PLAN_FIELD_REQUIRED" else "")
            if dedupe in seen:
                continue
            seen.add(dedupe)
            subject = subject_at(tree, pointer) or None
            reporter.report(f.code, pointer, f.message, key=f.key, subject=subject, hint=f.hint)


# ---------------------------------------------------------------------- helpers

_SLOTS: dict[tuple[type, str], str] = {
    # a single value, type or scope: a placeholder stands in when it is broken
    (TaskOutput, "value"): "value",
    (ChoiceAlternative, "value"): "value",
    (TaskInput, "default"): "value",
    (ConditionalTask, "condition"): "value",
    (ForeachTask, "items"): "value",
    (TaskInput, "type"): "type",
    (PlanningChoice, "type"): "type",
    (TransformTask, "resultType"): "type",
    (TaskType, "items"): "type",
    (SequenceTask, "body"): "scope",
    (ConditionalTask, "body"): "scope",
    (ConditionalTask, "otherwise"): "scope",
    (ForeachTask, "body"): "scope",
    (TaskGroup, "body"): "scope",
    (TaskPlan, "root"): "scope",
    # lists whose elements get a placeholder in their slot
    (TaskScope, "tasks"): "tasks",
    (TaskScope, "always"): "tasks",
    (ArrayValue, "items"): "values",
    (FieldValue, "items"): "values",
    (JsonValue, "items"): "values",
    (PredicateValue, "items"): "values",
    (ParallelTask, "branches"): "scopes",
    # lists of named values, salvaged item by item
    (OperationTask, "inputs"): "named",
    (TransformTask, "inputs"): "named",
    (CallTask, "inputs"): "named",
    (ValueTask, "outputs"): "named",
    (TaskScope, "outputs"): "named",
    (ObjectValue, "members"): "named",
}
_STAND_INS = {"value": {"kind": "null"}, "type": {"kind": "any"}, "scope": {}}


def _placeholder(what: str, raw: Any) -> Any:
    if what == "tasks":
        return InvalidTask(id=None, kind=None, raw=raw)
    if what == "values":
        return InvalidValue(kind=None, raw=raw)
    scope = TaskScope()
    mark_shape_error(scope)
    return scope


def _child_scopes(node: Any) -> list:
    out: list = []
    if not isinstance(node, Node):
        return out
    for name in ("body", "otherwise"):
        scope = getattr(node, name, None)
        if isinstance(scope, TaskScope):
            out.append(scope)
    branches = getattr(node, "branches", None)
    if isinstance(branches, list):
        out.extend(b for b in branches if isinstance(b, TaskScope))
    return out


def _walk(raw: Any, loc: tuple) -> tuple[tuple, Any, bool]:
    """Follow a pydantic `loc` through the raw data: (pointer tokens, the node reached,
    whether every element of `loc` was followed). Elements that are not keys or
    indices of the raw data (union member names) are skipped."""
    tokens: list = []
    node = raw
    followed = 0
    for element in loc:
        if type(node) is dict and type(element) is str and element in node:
            tokens.append(element)
            node = node[element]
            followed += 1
        elif type(node) is list and type(element) is int and 0 <= element < len(node):
            tokens.append(element)
            node = node[element]
            followed += 1
        else:
            break
    return tuple(tokens), node, followed == len(loc)


_EXPECT = {
    "string_type": "a string",
    "int_type": "an integer",
    "float_type": "a number",
    "bool_type": "a boolean",
    "list_type": "a list",
    "dict_type": "an object (a mapping)",
    "dataclass_type": "an object (a mapping)",
    "finite_number": "a finite number",
    "literal_error": "one of the allowed values",
}


def _type_finding(tokens: tuple, errors: list[dict], raw: Any) -> _Finding:
    _, node, _ = _walk(raw, tokens)
    types = {e["type"] for e in errors}
    if "tp_not_object" in types:
        expected = next(e for e in errors if e["type"] == "tp_not_object")["msg"].removeprefix("expected ")
    elif "finite_number" in types:
        expected = "a finite number"
    elif {"int_type", "float_type"} <= types:
        expected = "a number"
    else:
        expected = " or ".join(sorted({_EXPECT.get(t, "") or e["msg"] for t, e in ((e["type"], e) for e in errors)}))
    field = _field_label(tokens)
    hint = None
    if "tp_not_object" in types and "value object" in expected:
        hint = _literal_hint(node)
    return _Finding(
        "PLAN_FIELD_TYPE",
        tokens,
        f"{field} must be {expected}, got {_describe(node)}",
        hint=hint,
    )


def _literal_hint(node: Any) -> str | None:
    if isinstance(node, bool):
        return f"write `{{kind: boolean, boolean: {str(node).lower()}}}`"
    if isinstance(node, (int, float)):
        return f"write `{{kind: number, number: {node}}}`"
    if isinstance(node, str):
        return f"write `{{kind: string, text: {json.dumps(_short(node), ensure_ascii=False)}}}` for the text, or `{{kind: input|output|choice, source: ...}}` to read a name"
    if node is None:
        return "write `{kind: null}` for the null literal"
    if isinstance(node, list):
        return "write `{kind: array, items: [...]}` with a value object per item"
    return None


def _field_label(tokens: tuple) -> str:
    if not tokens:
        return "the node"
    last = tokens[-1]
    if type(last) is int:
        owner = next((t for t in reversed(tokens) if type(t) is str), None)
        return f"item {last} of `{owner}`" if owner else f"item {last}"
    return f"`{last}`"


def _kind_left_out(findings: list[_Finding], raw: dict) -> list[_Finding]:
    """A task written without `kind` (so an operation task) whose fields of other kinds
    all belong to one kind K (or each to all of a few kinds): it is a K task with its
    `kind` left out. One finding, TASK_KIND_FIELD at the first such field with the hint
    to set `kind: K`, instead of one per field and the missing `operation` (decisions.md)."""
    foreign = [f for f in findings if f.code == "TASK_KIND_FIELD" and len(f.tokens) == 1]
    if not foreign:
        return findings
    names = [str(f.tokens[0]) for f in foreign]
    kinds = [k for k, fields in TASK_KIND_FIELDS.items() if k != "operation" and all(n in fields for n in names)]
    if not kinds:
        return findings  # fields of different kinds: no kind was simply left out
    fields = ", ".join(f"`{n}`" for n in names)
    ident = raw.get("id")
    task = f"task `{_short(ident)}`" if type(ident) is str else "the task"
    missing = "is missing the required field `operation`"
    kept = [
        f for f in findings
        if f.code != "TASK_KIND_FIELD" and not (f.code == "PLAN_FIELD_REQUIRED" and not f.key and f.message.endswith(missing))
    ]
    kept.append(
        _Finding(
            "TASK_KIND_FIELD",
            foreign[0].tokens,
            f"{task} has no `kind`, so it is an `operation` task, but {fields} "
            + ("is a field" if len(names) == 1 else "are fields")
            + f" of {_kinds_phrase(kinds, 'task')}",
            key=True,
            hint=f"set `kind: {kinds[0]}`" if len(kinds) == 1 else f"set `kind` to {_or_list(kinds)}",
        )
    )
    return kept


def _or_list(items: list[str]) -> str:
    quoted = [f"`{i}`" for i in items]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]


def _node_name(category: str, cls: type[Node], raw: dict) -> str:
    if category == "task":
        kind = getattr(model_fields(cls).get("kind"), "default", None)
        kind = raw.get("kind") if type(raw.get("kind")) is str else kind
        ident = raw.get("id")
        return f"{kind} task" + (f" `{_short(ident)}`" if type(ident) is str else "")
    if category == "value":
        return f"`{raw.get('kind')}` value"
    if category in ("group", "choice") and type(raw.get("id")) is str:
        return f"{category} `{_short(raw['id'])}`"
    if category in ("input", "output") and type(raw.get("name")) is str:
        return f"{_CATEGORY_NAME[category]} `{_short(raw['name'])}`"
    return _CATEGORY_NAME[category]


def _required_hint(cls: type[Node], name: str) -> str | None:
    fields = model_fields(cls)
    desc = fields[name].description if name in fields else None
    return f"`{name}`: {desc}" if desc else None


def _kinds_phrase(kinds: list[str], category: str) -> str:
    names = [f"`{k}`" for k in kinds]
    if len(names) == 1:
        return f"{names[0]} {category}s"
    return f"{', '.join(names[:-1])} and {names[-1]} {category}s"


def _closest(word: str, candidates) -> str | None:
    lowered = {c.lower(): c for c in candidates}
    if word.lower() in lowered:
        return lowered[word.lower()]
    match = difflib.get_close_matches(word.lower(), list(lowered), n=1, cutoff=0.6)
    return lowered[match[0]] if match else None


def _locate(tree: dict, wanted: set[int]) -> dict[int, str]:
    """id(raw node) -> its pointer."""
    out: dict[int, str] = {}
    stack: list[tuple[Any, tuple]] = [(tree, ())]
    while stack:
        node, path = stack.pop()
        if type(node) is dict:
            if id(node) in wanted and id(node) not in out:
                out[id(node)] = jp.from_path(path)
            for key, child in node.items():
                if type(child) in (dict, list):
                    stack.append((child, path + (key,)))
        elif type(node) is list:
            if id(node) in wanted and id(node) not in out:
                out[id(node)] = jp.from_path(path)
            for i in range(len(node) - 1, -1, -1):
                child = node[i]
                if type(child) in (dict, list):
                    stack.append((child, path + (i,)))
    return out


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _describe(value: Any) -> str:
    kind = _json_type(value)
    if isinstance(value, bool):
        return f"{kind} ({str(value).lower()})"
    if isinstance(value, (int, float)):
        text = repr(value)
        return f"{kind} ({text if len(text) <= 24 else text[:21] + '...'})"
    if isinstance(value, str):
        return f"{kind} ({json.dumps(_short(value), ensure_ascii=False)})"
    return kind


def _short(text: str, limit: int = 40) -> str:
    text = str(text)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _str_or_none(value: Any) -> str | None:
    return value if type(value) is str else None


def _str_list(value: Any) -> list[str]:
    if type(value) is list and all(type(v) is str for v in value):
        return list(value)
    return []
