"""The structure pass: rules about one node at a time that need no name resolution
(objectives, bounds, branch counts, value and type well-formedness, choice structure).

Reports TASK_OBJECTIVE_REQUIRED, TASK_PARALLEL_INVALID, TASK_ITERATION_BOUND,
TASK_BRANCH_OUTPUTS (by name; the types of branch outputs are the types pass's),
TASK_VALUE_INVALID, TASK_TYPE_INVALID, TASK_PREDICATE_INVALID,
TASK_TRANSFORM_TYPE, TASK_DEFAULT_REQUIRED and CHOICE_INVALID.

It walks the models in document order with their pointers. Nothing is
reported inside a placeholder (`InvalidTask`, `InvalidValue`, `InvalidType`)
except in the child scopes an `InvalidTask` kept, nor about a field the shape
pass already reported (`dropped_fields`). A node found in error here is marked
with `mark_broken` when its ports or type are unknown because of it: a type
(TASK_TYPE_INVALID), a value (TASK_VALUE_INVALID, TASK_PREDICATE_INVALID), a
conditional or parallel task (TASK_BRANCH_OUTPUTS), a transform
(TASK_TRANSFORM_TYPE) and a choice (CHOICE_INVALID). Linear in the plan's size.
"""

from __future__ import annotations

import difflib
from typing import Any

from taskplan.config import DEFAULT_LIMITS, Limits
from taskplan.diagnostics import Reporter
from taskplan.model.plan import (
    PREDICATES,
    TYPE_KINDS,
    ArrayValue,
    BooleanValue,
    ChoiceValue,
    IndexValue,
    InputValue,
    ItemValue,
    OperationTask,
    OutputValue,
    PresentValue,
    ConditionalTask,
    FieldValue,
    ForeachTask,
    InvalidTask,
    InvalidType,
    InvalidValue,
    JsonValue,
    NullValue,
    NumberValue,
    ObjectValue,
    ParallelTask,
    PlanningChoice,
    PredicateValue,
    SequenceTask,
    StringValue,
    TaskGroup,
    TaskInput,
    TaskOutput,
    TaskPlan,
    TaskScope,
    TaskType,
    TransformTask,
    ValueTask,
    CallTask,
    dropped_fields,
    has_shape_error,
    is_broken,
    mark_broken,
    scopes_of,
)

MAX_SAFE_INTEGER = 2**53 - 1
MAX_ENUM = 256
MAX_ITEMS = (1, 10_000)
MAX_CONCURRENCY = (1, 100)

def run(plan: TaskPlan, reporter: Reporter, limits: Limits = DEFAULT_LIMITS) -> None:
    _Structure(reporter, limits).plan(plan)


class _Structure:
    fast_paths = True
    """The inline operation task and `quiet` (off: every task through `task`, for the
    test that holds them to it)."""

    def __init__(self, reporter: Reporter, limits: Limits):
        self.reporter = reporter
        self.max_depth = limits.max_value_depth

    def report(self, code: str, pointer: str, message: str, subject: dict | None, **kw: Any) -> None:
        self.reporter.report(code, pointer, message, subject=subject or None, **kw)

    # ----------------------------------------------------------------- document

    def plan(self, plan: TaskPlan) -> None:
        for i, declared in enumerate(plan.inputs):
            self.declared_input(declared, f"/inputs/{i}", {"input": declared.name})
        self.scope(plan.root, "/root", None)
        for i, group in enumerate(plan.groups):
            self.group(group, f"/groups/{i}")
        for i, choice in enumerate(plan.choices):
            self.choice(choice, f"/choices/{i}")

    def group(self, group: TaskGroup, ptr: str) -> None:
        subject = {"group": group.id}
        self.objective(group, ptr, subject, "group")
        for i, declared in enumerate(group.inputs):
            self.declared_input(declared, f"{ptr}/inputs/{i}", {"group": group.id, "input": declared.name})
        self.scope(group.body, f"{ptr}/body", subject)

    def declared_input(self, declared: TaskInput, ptr: str, subject: dict) -> None:
        """A workflow or group input: its type, its default, and that an optional one has a default."""
        self.type_(declared.type, f"{ptr}/type", subject)
        if declared.default is not None:
            self.value(declared.default, f"{ptr}/default", subject, 1)
        elif not declared.required and "default" not in dropped_fields(declared):
            self.report(
                "TASK_DEFAULT_REQUIRED",
                ptr,
                f"input `{declared.name}` is optional (`required: false`) but has no `default`",
                subject,
                hint="add a literal `default` that fits its type, or make it required",
            )

    # ------------------------------------------------------------------- scopes

    def scope(self, scope: TaskScope, ptr: str | tuple, subject: dict | None) -> None:
        """`ptr`: the scope's pointer, or unformatted (`_pointer`): a scope whose tasks
        `quiet` accepts (the common case) has its pointer formatted by no one."""
        if scope.tasks:
            self.tasks(scope.tasks, ptr, "tasks")
        if scope.always:
            self.tasks(scope.always, ptr, "always")
        outputs = scope.outputs
        if outputs:
            if self.max_depth >= 1 and _plain_values(outputs):  # (a top-level value is not too deep)
                return
            self.named(outputs, f"{_pointer(ptr)}/outputs", subject)

    def tasks(self, tasks: list, ptr: str | tuple, where: str) -> None:
        """The tasks of a scope's `tasks` or `always` (`ptr`: the scope's pointer, maybe
        unformatted). An operation task with an objective and bindings of values `value`
        has nothing to say about (the commonest task) is told inline (`_plain_values`,
        inline); any other task that `quiet` accepts, without its pointer (its child
        scopes get theirs unformatted)."""
        fast = self.fast_paths and self.max_depth >= 1
        quiet = self.quiet
        nothing = _NOTHING_TO_CHECK
        for i, t in enumerate(tasks):
            if fast and type(t) is OperationTask:
                objective = t.objective
                if objective and not objective.isspace():  # (`objective.strip()`)
                    for item in t.inputs:  # (`_plain_values(t.inputs)`, inline)
                        v = item.value
                        kind = type(v)
                        if kind not in nothing and (kind is not NumberValue or not -MAX_SAFE_INTEGER <= v.number <= MAX_SAFE_INTEGER):
                            break
                    else:
                        continue
            if not quiet(t):
                self.task(t, f"{_pointer(ptr)}/{where}/{i}")
            elif type(t) in _COMPOUND_TASKS:
                self.inside(t, (ptr, where, i))

    # A task whose own fields `task` has nothing to report about (nor to mark) is told
    # by `quiet`, without building its pointer, subject or its lists' pointers; only its
    # child scopes are walked then (`inside`). `quiet` refuses whatever it does not
    # follow exactly (marks, placeholders, enums, ...): those take `task`.
    # tests/test_structure_identity_fast_paths.py holds it to `task`.

    def quiet(self, task: Any) -> bool:
        """Whether `task(task, ptr)` would report nothing and mark nothing before and after
        walking the task's child scopes."""
        kind = type(task)
        if kind not in _QUIET_KINDS or task._marks or not self.fast_paths or self.max_depth < 1:
            return False
        objective = task.objective
        if objective is None or not objective or objective.isspace():
            return False
        quiet_value = self.quiet_value
        if kind is ValueTask:
            for item in task.outputs:
                v = item.value
                if type(v) not in _NOTHING_TO_CHECK and not quiet_value(v, 1):
                    return False
            return True
        if kind is OperationTask or kind is CallTask or kind is TransformTask:
            for item in task.inputs:
                v = item.value
                if type(v) not in _NOTHING_TO_CHECK and not quiet_value(v, 1):
                    return False
            return kind is not TransformTask or _quiet_result(task.resultType)
        if kind is SequenceTask:
            return type(task.body) is TaskScope
        if kind is ForeachTask:
            return (
                type(task.body) is TaskScope
                and quiet_value(task.items, 1)
                and MAX_ITEMS[0] <= task.maxItems <= MAX_ITEMS[1]
                and MAX_CONCURRENCY[0] <= task.maxConcurrency <= MAX_CONCURRENCY[1]
            )
        if kind is ConditionalTask:  # (conditional_outputs: the two sides declare the same names)
            body, otherwise = task.body, task.otherwise
            if type(body) is not TaskScope or body._marks or not quiet_value(task.condition, 1):
                return False
            names = {o.name for o in body.outputs}
            if otherwise is None:
                return not names
            return type(otherwise) is TaskScope and not otherwise._marks and names == {o.name for o in otherwise.outputs}
        # a parallel task (parallel_outputs: no name declared by two branches)
        branches = task.branches
        if len(branches) < 2 or not MAX_CONCURRENCY[0] <= task.maxConcurrency <= MAX_CONCURRENCY[1]:
            return False
        seen: set[str] = set()
        for branch in branches:
            if type(branch) is not TaskScope:
                return False
            mine = {o.name for o in branch.outputs}
            if not seen.isdisjoint(mine):
                return False
            seen |= mine
        return True

    def quiet_value(self, value: Any, depth: int) -> bool:
        """Whether `value(value, ptr, subject, depth)` would report nothing and mark nothing."""
        kind = type(value)
        if kind is InvalidValue:
            return True
        if depth > self.max_depth:
            return False
        if kind in _NOTHING_TO_CHECK:
            return True
        if kind is NumberValue:
            return -MAX_SAFE_INTEGER <= value.number <= MAX_SAFE_INTEGER
        if kind is ObjectValue:
            for member in value.members:
                if not self.quiet_value(member.value, depth + 1):
                    return False
            return True
        if kind in _ITEM_VALUES:
            items = value.items
            if kind is FieldValue or kind is JsonValue:
                if len(items) != 1:
                    return False
            elif kind is PredicateValue and PREDICATES.get(value.predicate) != len(items):
                return False
            for item in items:
                if not self.quiet_value(item, depth + 1):
                    return False
            return True
        return False

    def inside(self, task: Any, ptr: tuple) -> None:
        """The child scopes of a compound task `quiet` accepted, as `task` walks them
        (`ptr`: the task's pointer, unformatted; so are theirs)."""
        subject = {"task": task.id}
        kind = type(task)
        if kind is ParallelTask:
            for i, branch in enumerate(task.branches):
                self.scope(branch, (ptr, "branches", i), subject)
            return
        self.scope(task.body, (ptr, "body"), subject)
        if kind is ConditionalTask and task.otherwise is not None:
            self.scope(task.otherwise, (ptr, "otherwise"), subject)

    def named(self, items: list[TaskOutput], ptr: str, subject: dict | None) -> None:
        plain = self.max_depth >= 1  # a top-level value is not too deep
        for i, item in enumerate(items):
            v = item.value
            kind = type(v)
            if plain and (kind in _NOTHING_TO_CHECK or (kind is NumberValue and -MAX_SAFE_INTEGER <= v.number <= MAX_SAFE_INTEGER)):
                continue  # nothing to check (_plain_value, inline): skipped without building a pointer
            self.value(v, f"{ptr}/{i}/value", subject, 1)

    # -------------------------------------------------------------------- tasks
    #
    # Tasks and values are told apart by exact class (the shape pass builds no subclasses).

    def task(self, task: Any, ptr: str) -> None:
        kind = type(task)
        if kind is InvalidTask:
            subject = {"task": task.id} if task.id else None
            for suffix, child in scopes_of(task):
                self.scope(child, ptr + suffix, subject)
            return
        subject = {"task": task.id}
        objective = task.objective
        if objective is None or not objective or objective.isspace():  # (`not objective.strip()`)
            self.objective(task, ptr, subject, "task")
        for name in ("inputs", "outputs"):
            items = getattr(task, name, None)
            if items:
                self.named(items, f"{ptr}/{name}", subject)
        if kind is SequenceTask:
            self.scope(task.body, f"{ptr}/body", subject)
        elif kind is TransformTask:
            self.type_(task.resultType, f"{ptr}/resultType", subject)
            self.transform(task, ptr, subject)
        elif kind is ConditionalTask:
            self.value(task.condition, f"{ptr}/condition", subject, 1)
            self.scope(task.body, f"{ptr}/body", subject)
            if task.otherwise is not None:
                self.scope(task.otherwise, f"{ptr}/otherwise", subject)
            self.conditional_outputs(task, ptr, subject)
        elif kind is ForeachTask:
            self.value(task.items, f"{ptr}/items", subject, 1)
            self.bound(task, "maxItems", MAX_ITEMS, ptr, subject)
            self.bound(task, "maxConcurrency", MAX_CONCURRENCY, ptr, subject)
            self.scope(task.body, f"{ptr}/body", subject)
        elif kind is ParallelTask:
            branches = task.branches
            if len(branches) < 2 and "branches" not in dropped_fields(task):
                self.report(
                    "TASK_PARALLEL_INVALID",
                    f"{ptr}/branches",
                    f"parallel task `{task.id}` has {len(branches)} branch{'' if len(branches) == 1 else 'es'}; it needs at least two",
                    subject,
                    hint="add a branch, or use a `sequence` task for a single scope",
                )
            self.bound(task, "maxConcurrency", MAX_CONCURRENCY, ptr, subject)
            for i, branch in enumerate(branches):
                self.scope(branch, f"{ptr}/branches/{i}", subject)
            self.parallel_outputs(task, ptr, subject)

    def objective(self, node: Any, ptr: str, subject: dict, what: str) -> None:
        objective = node.objective
        if objective is None:
            if _maybe_written(node, "objective"):
                return  # the shape pass reported the field it was written under
            self.report(
                "TASK_OBJECTIVE_REQUIRED",
                ptr,
                f"{what} `{node.id}` has no `objective`",
                subject,
                hint=f"add `objective:` with one sentence saying what the {what} achieves",
            )
        elif not objective.strip():
            self.report(
                "TASK_OBJECTIVE_REQUIRED",
                f"{ptr}/objective",
                f"the objective of {what} `{node.id}` is blank",
                subject,
                hint=f"write one sentence saying what the {what} achieves",
            )

    def bound(self, task: Any, name: str, bounds: tuple[int, int], ptr: str, subject: dict) -> None:
        value = getattr(task, name)
        low, high = bounds
        if not low <= value <= high:
            self.report(
                "TASK_ITERATION_BOUND",
                f"{ptr}/{name}",
                f"`{name}` of task `{task.id}` is {value}; it must be between {low} and {high}",
                subject,
            )

    def conditional_outputs(self, task: ConditionalTask, ptr: str, subject: dict) -> None:
        body, otherwise = task.body, task.otherwise
        if has_shape_error(body) or (otherwise is not None and has_shape_error(otherwise)):
            return
        sides = [("body", body.outputs), ("otherwise", otherwise.outputs if otherwise is not None else [])]
        names = [{o.name for o in outputs} for _, outputs in sides]
        found = False
        for s, (side, outputs) in enumerate(sides):
            other_side, other_names = sides[1 - s][0], names[1 - s]
            seen: set[str] = set()
            for i, output in enumerate(outputs):
                if output.name in seen:
                    continue
                seen.add(output.name)
                if output.name not in other_names:
                    found = True
                    absent = " (an absent `otherwise` is an empty scope)" if otherwise is None else ""
                    self.report(
                        "TASK_BRANCH_OUTPUTS",
                        f"{ptr}/{side}/outputs/{i}/name",
                        f"conditional `{task.id}`: `{side}` declares output `{output.name}` but `{other_side}` does not{absent}",
                        subject | {"port": output.name},
                        hint=f"declare `{output.name}` on both sides (a `{{kind: null}}` value on the side that has none), or on neither",
                    )
        if found:
            mark_broken(task, "TASK_BRANCH_OUTPUTS")

    def parallel_outputs(self, task: ParallelTask, ptr: str, subject: dict) -> None:
        first: dict[str, int] = {}
        found = False
        for b, branch in enumerate(task.branches):
            mine: set[str] = set()
            for i, output in enumerate(branch.outputs):
                name = output.name
                if name in mine:
                    continue  # twice in one branch: NAME_DUPLICATE (identity)
                mine.add(name)
                if name in first:
                    found = True
                    self.report(
                        "TASK_BRANCH_OUTPUTS",
                        f"{ptr}/branches/{b}/outputs/{i}/name",
                        f"parallel `{task.id}`: output `{name}` is declared by branch {first[name]} and again by branch {b}",
                        subject | {"port": name},
                        hint="the ports of a parallel task are the union of its branches' outputs: give each a distinct name",
                        related=[
                            self.reporter.related(
                                f"{ptr}/branches/{first[name]}/outputs/{_index(task.branches[first[name]].outputs, name)}/name",
                                "first declared here",
                            )
                        ],
                    )
                else:
                    first[name] = b
        if found:
            mark_broken(task, "TASK_BRANCH_OUTPUTS")

    def transform(self, task: TransformTask, ptr: str, subject: dict) -> None:
        result = task.resultType
        if is_broken(result):
            return
        where = f"{ptr}/resultType"
        if result.kind != "object":
            self.report(
                "TASK_TRANSFORM_TYPE",
                f"{where}/kind",
                f"the resultType of transform `{task.id}` is `{result.kind}`; it must be an object",
                subject,
                hint="wrap the result in an object type: `{kind: object, fields: [{name: result, type: ...}]}`",
            )
            mark_broken(task, "TASK_TRANSFORM_TYPE")
            return
        found = False
        if result.nullable:
            found = True
            self.report(
                "TASK_TRANSFORM_TYPE",
                f"{where}/nullable",
                f"the resultType of transform `{task.id}` is nullable; a transform's result is an object, never null",
                subject,
                hint="remove `nullable: true` (make a field nullable instead if the model may have no answer)",
            )
        if not result.fields:
            self.report(
                "TASK_TRANSFORM_TYPE",
                where,
                f"the resultType of transform `{task.id}` has no fields",
                subject,
                hint="declare the fields the transform produces",
            )
            mark_broken(task, "TASK_TRANSFORM_TYPE")
            return
        if self.strict_fields(result, where, task.id, subject) or found:
            mark_broken(task, "TASK_TRANSFORM_TYPE")

    def strict_fields(self, object_type: TaskType, ptr: str, task_id: str, subject: dict) -> bool:
        """Every field fully typed, required or nullable, without a default; nested
        objects declare fields too."""
        found = False
        for i, declared in enumerate(object_type.fields):
            fptr = f"{ptr}/fields/{i}"
            name = declared.name
            if declared.default is not None:
                found = True
                self.report(
                    "TASK_TRANSFORM_TYPE",
                    f"{fptr}/default",
                    f"field `{name}` of the resultType of transform `{task_id}` has a default; a transform's result has none",
                    subject,
                    hint="remove the default: a model fills every field",
                )
            if not declared.required and not (isinstance(declared.type, TaskType) and declared.type.nullable):
                found = True
                self.report(
                    "TASK_TRANSFORM_TYPE",
                    fptr,
                    f"field `{name}` of the resultType of transform `{task_id}` is optional but not nullable",
                    subject,
                    hint="make it required, and `nullable: true` if it may have no value",
                )
            found = self.strict_type(declared.type, f"{fptr}/type", name, task_id, subject) or found
        return found

    def strict_type(self, declared: Any, ptr: str, name: str, task_id: str, subject: dict) -> bool:
        if is_broken(declared):
            return False
        if declared.kind == "any":
            self.report(
                "TASK_TRANSFORM_TYPE",
                f"{ptr}/kind",
                f"field `{name}` of the resultType of transform `{task_id}` is `any`; a transform's result is fully typed",
                subject,
                hint="give the field a concrete type",
            )
            return True
        if declared.kind == "object":
            if not declared.fields:
                self.report(
                    "TASK_TRANSFORM_TYPE",
                    ptr,
                    f"field `{name}` of the resultType of transform `{task_id}` is an object without fields; "
                    "a transform's objects declare their fields",
                    subject,
                    hint="declare the fields of the object the model fills",
                )
                return True
            return self.strict_fields(declared, ptr, task_id, subject)
        if declared.kind == "array" and declared.items is not None:
            return self.strict_type(declared.items, f"{ptr}/items", name, task_id, subject)
        return False

    # -------------------------------------------------------------------- types

    def type_(self, declared: Any, ptr: str, subject: dict | None) -> None:
        if isinstance(declared, InvalidType):
            return
        kind, enum, items, declared_fields = declared.kind, declared.enum, declared.items, declared.fields
        errors = 0
        if kind not in TYPE_KINDS:
            close = difflib.get_close_matches(kind, TYPE_KINDS, n=1)
            self.report(
                "TASK_TYPE_INVALID",
                f"{ptr}/kind",
                f"unknown type kind `{kind}`",
                subject,
                hint=(f"did you mean `{close[0]}`? " if close else "") + "the type kinds are " + ", ".join(TYPE_KINDS),
            )
            mark_broken(declared, "TASK_TYPE_INVALID")
            return
        if enum is not None:
            if kind != "string":
                errors += 1
                self.report(
                    "TASK_TYPE_INVALID",
                    f"{ptr}/enum",
                    f"`enum` is for string types only, not `{kind}`",
                    subject,
                )
            elif not enum:
                errors += 1
                self.report("TASK_TYPE_INVALID", f"{ptr}/enum", "`enum` is empty; it lists 1-256 strings", subject)
            else:
                if len(enum) > MAX_ENUM:
                    errors += 1
                    self.report(
                        "TASK_TYPE_INVALID",
                        f"{ptr}/enum/{MAX_ENUM}",
                        f"`enum` has {len(enum)} strings; at most {MAX_ENUM} are allowed",
                        subject,
                    )
                seen: dict[str, int] = {}
                for i, text in enumerate(enum):
                    if text in seen:
                        errors += 1
                        self.report(
                            "TASK_TYPE_INVALID",
                            f"{ptr}/enum/{i}",
                            f"`enum` lists `{text}` twice",
                            subject,
                            related=[self.reporter.related(f"{ptr}/enum/{seen[text]}", "first listed here")],
                        )
                    else:
                        seen[text] = i
        if kind == "array":
            if items is None and "items" not in dropped_fields(declared):
                errors += 1
                self.report(
                    "TASK_TYPE_INVALID",
                    ptr,
                    "an array type needs `items`: the type of its elements",
                    subject,
                    hint="add `items: {kind: ...}` (use `{kind: any}` for opaque elements)",
                )
        elif items is not None:
            errors += 1
            self.report("TASK_TYPE_INVALID", f"{ptr}/items", f"`items` is for array types only, not `{kind}`", subject)
        if kind != "object" and declared_fields:
            errors += 1
            self.report("TASK_TYPE_INVALID", f"{ptr}/fields", f"`fields` is for object types only, not `{kind}`", subject)
        if errors:
            mark_broken(declared, "TASK_TYPE_INVALID")
        if items is not None:
            self.type_(items, f"{ptr}/items", subject)
        for i, declared_field in enumerate(declared_fields):
            fptr = f"{ptr}/fields/{i}"
            self.type_(declared_field.type, f"{fptr}/type", subject)
            if declared_field.default is not None:
                self.value(declared_field.default, f"{fptr}/default", subject, 1)

    # ------------------------------------------------------------------- values

    def value(self, value: Any, ptr: str, subject: dict | None, depth: int) -> None:
        if type(value) is InvalidValue:
            return
        if depth > self.max_depth:
            self.report(
                "TASK_VALUE_INVALID",
                ptr,
                f"values are nested more than {self.max_depth} deep here",
                subject,
                hint="flatten the value, or build it in steps with `value` tasks",
            )
            mark_broken(value, "TASK_VALUE_INVALID")
            return
        kind = type(value)
        if kind is NumberValue:
            number = value.number
            if not -MAX_SAFE_INTEGER <= number <= MAX_SAFE_INTEGER:
                self.report(
                    "TASK_VALUE_INVALID",
                    f"{ptr}/number",
                    f"the number {_number_text(number)} is outside ±(2^53-1), the range every runtime represents exactly",
                    subject,
                    hint="pass large numbers as text (`{kind: string, text: ...}`)",
                )
                mark_broken(value, "TASK_VALUE_INVALID")
        elif kind is ObjectValue:
            plain = depth < self.max_depth  # a member is not too deep
            for i, member in enumerate(value.members):
                if not (plain and _plain_value(member.value)):  # (nothing to check: no pointer)
                    self.value(member.value, f"{ptr}/members/{i}/value", subject, depth + 1)
        elif kind in _ITEM_VALUES:
            if (kind is FieldValue or kind is JsonValue) and len(value.items) != 1:
                self.report(
                    "TASK_VALUE_INVALID",
                    f"{ptr}/items",
                    f"a `{value.kind}` value takes exactly one item, got {len(value.items)}",
                    subject,
                    hint="`items: [<the value>]`",
                )
                mark_broken(value, "TASK_VALUE_INVALID")
            elif kind is PredicateValue:
                self.predicate(value, ptr, subject)
            plain = depth < self.max_depth  # an item is not too deep
            for i, item in enumerate(value.items):
                if not (plain and _plain_value(item)):  # (nothing to check: no pointer)
                    self.value(item, f"{ptr}/items/{i}", subject, depth + 1)

    def predicate(self, value: PredicateValue, ptr: str, subject: dict | None) -> None:
        arity = PREDICATES.get(value.predicate)
        if arity is None:
            close = difflib.get_close_matches(value.predicate, list(PREDICATES), n=1)
            self.report(
                "TASK_PREDICATE_INVALID",
                f"{ptr}/predicate",
                f"unknown predicate `{value.predicate}`",
                subject,
                hint=(f"did you mean `{close[0]}`? " if close else "") + "the predicates are " + ", ".join(PREDICATES),
            )
            mark_broken(value, "TASK_PREDICATE_INVALID")
        elif len(value.items) != arity:
            self.report(
                "TASK_PREDICATE_INVALID",
                f"{ptr}/items",
                f"`{value.predicate}` takes {arity} operand{'s' if arity > 1 else ''}, got {len(value.items)}",
                subject,
            )
            mark_broken(value, "TASK_PREDICATE_INVALID")

    # ------------------------------------------------------------------ choices

    def choice(self, choice: PlanningChoice, ptr: str) -> None:
        subject = {"choice": choice.id}
        dropped = dropped_fields(choice)
        errors = 0
        self.type_(choice.type, f"{ptr}/type", subject)
        if choice.question is None or not choice.question.strip():
            if not (choice.question is None and _maybe_written(choice, "question")):
                errors += 1
                self.report(
                    "CHOICE_INVALID",
                    f"{ptr}/question" if choice.question is not None else ptr,
                    f"choice `{choice.id}` has {'a blank' if choice.question is not None else 'no'} `question`",
                    subject,
                    hint="ask the question the person answers, e.g. `Which tone should the review use?`",
                )
        alternatives = choice.alternatives
        if len(alternatives) < 2 and "alternatives" not in dropped:
            errors += 1
            self.report(
                "CHOICE_INVALID",
                f"{ptr}/alternatives",
                f"choice `{choice.id}` has {len(alternatives)} alternative{'' if len(alternatives) == 1 else 's'}; it needs at least two",
                subject,
                hint="a choice with one alternative is no choice: use the value directly",
            )
        ids: dict[str, int] = {}
        for i, alternative in enumerate(alternatives):
            aptr = f"{ptr}/alternatives/{i}"
            if alternative.id in ids:
                errors += 1
                self.report(
                    "CHOICE_INVALID",
                    f"{aptr}/id",
                    f"choice `{choice.id}` has two alternatives `{alternative.id}`",
                    subject,
                    related=[self.reporter.related(f"{ptr}/alternatives/{ids[alternative.id]}/id", "first declared here")],
                )
            else:
                ids[alternative.id] = i
            self.value(alternative.value, f"{aptr}/value", subject, 1)
            bad = _non_literal(alternative.value, f"{aptr}/value")
            if bad is not None:
                errors += 1
                where, kind = bad
                self.report(
                    "CHOICE_INVALID",
                    where,
                    f"alternative `{alternative.id}` of choice `{choice.id}` is not a literal: a{'n' if kind[0] in 'aeiou' else ''} `{kind}` value is computed, not data",
                    subject,
                    hint="an alternative is data: null, string, number, boolean, or an object or array of those",
                )
        for name in ("recommended", "selected"):
            chosen = getattr(choice, name)
            if chosen is not None and chosen not in ids and "alternatives" not in dropped:
                errors += 1
                close = difflib.get_close_matches(chosen, list(ids), n=1)
                self.report(
                    "CHOICE_INVALID",
                    f"{ptr}/{name}",
                    f"`{name}` of choice `{choice.id}` names `{chosen}`, which is not one of its alternatives",
                    subject,
                    hint=(f"did you mean `{close[0]}`? " if close else "")
                    + ("the alternatives are " + ", ".join(f"`{a}`" for a in ids) if ids else "add the alternatives first"),
                )
        if errors:
            mark_broken(choice, "CHOICE_INVALID")


# ---------------------------------------------------------------------- helpers

_LITERALS = (NullValue, StringValue, NumberValue, BooleanValue)

_ITEM_VALUES = frozenset({ArrayValue, FieldValue, JsonValue, PredicateValue})
"""Value classes that hold `items`."""

_NOTHING_TO_CHECK = frozenset(
    {NullValue, StringValue, BooleanValue, InputValue, OutputValue, ChoiceValue, ItemValue, IndexValue, PresentValue}
)
"""Value classes `value` finds nothing to report about (at a depth within the limit)."""


_QUIET_KINDS = frozenset(
    {OperationTask, ValueTask, CallTask, TransformTask, SequenceTask, ForeachTask, ConditionalTask, ParallelTask}
)
"""Task classes `_Structure.quiet` looks at (not a placeholder)."""

_COMPOUND_TASKS = frozenset({SequenceTask, ForeachTask, ConditionalTask, ParallelTask})
"""Task classes with child scopes."""

_QUIET_LEAF_TYPES = frozenset({"string", "number", "integer", "boolean"})


def _quiet_result(result: Any) -> bool:
    """Whether `type_` and `transform` report nothing about a transform's `resultType` and
    mark nothing: a non-nullable object type with fields, each of them strict."""
    return (
        type(result) is TaskType
        and not result._marks
        and result.kind == "object"
        and not result.nullable
        and bool(result.fields)
        and _quiet_strict(result)
    )


def _quiet_strict(declared: Any) -> bool:
    """Whether `type_` and `strict_type` report nothing about the type of a field of a
    transform's result (enums, `any` and anything marked are left to them)."""
    if type(declared) is not TaskType or declared._marks or declared.enum is not None:
        return False
    kind, items, fields = declared.kind, declared.items, declared.fields
    if kind in _QUIET_LEAF_TYPES:
        return items is None and not fields
    if kind == "object":
        if items is not None or not fields:
            return False
        for f in fields:
            if type(f) is not TaskInput or f.default is not None:
                return False
            field_type = f.type
            if not f.required and not (type(field_type) is TaskType and field_type.nullable):
                return False
            if not _quiet_strict(field_type):
                return False
        return True
    if kind == "array":
        return items is not None and not fields and _quiet_strict(items)
    return False


def _pointer(ptr: str | tuple) -> str:
    """A pointer as `tasks` and `inside` pass it on unformatted: a tuple of a pointer (a
    string or such a tuple) and the tokens to append (names of fields, indices; none
    needs escaping). A tuple costs a third of the f-string it stands for, which only a
    task with something to report, or a scope's outputs, need."""
    if type(ptr) is str:
        return ptr
    return "/".join([_pointer(ptr[0]), *map(str, ptr[1:])])


def _plain_value(value: Any) -> bool:
    """Whether `value` (at a depth within the limit) is one `value` has nothing to report about."""
    kind = type(value)
    if kind in _NOTHING_TO_CHECK:
        return True
    return kind is NumberValue and -MAX_SAFE_INTEGER <= value.number <= MAX_SAFE_INTEGER


def _non_literal(value: Any, ptr: str) -> tuple[str, str] | None:
    """The first part of `value` that is not a literal: (its pointer, its kind). A value
    already in error is not looked at again."""
    if isinstance(value, (InvalidValue,) + _LITERALS) or is_broken(value):
        return None
    if isinstance(value, ObjectValue):
        for i, member in enumerate(value.members):
            bad = _non_literal(member.value, f"{ptr}/members/{i}/value")
            if bad:
                return bad
        return None
    if isinstance(value, ArrayValue):
        for i, item in enumerate(value.items):
            bad = _non_literal(item, f"{ptr}/items/{i}")
            if bad:
                return bad
        return None
    return ptr, value.kind


def _maybe_written(node: Any, name: str) -> bool:
    """Whether the shape pass left out a key that may have been `name` (misspelt)."""
    dropped = dropped_fields(node)
    if not dropped:
        return False
    return name in dropped or bool(difflib.get_close_matches(name, [d.lower() for d in dropped], n=1, cutoff=0.6))


def _index(outputs: list[TaskOutput], name: str) -> int:
    for i, output in enumerate(outputs):
        if output.name == name:
            return i
    return 0


def _number_text(number: int | float) -> str:
    text = repr(number)
    return text if len(text) <= 30 else text[:27] + "..."


def _plain_values(items: list) -> bool:
    """Whether `value` has nothing to say about the value of any of `items` (bindings or
    outputs) at the top level (`_plain_value` of each, inline: no pointer is built)."""
    for item in items:
        v = item.value
        kind = type(v)
        if kind in _NOTHING_TO_CHECK:
            continue
        if kind is not NumberValue or not -MAX_SAFE_INTEGER <= v.number <= MAX_SAFE_INTEGER:
            return False
    return True
