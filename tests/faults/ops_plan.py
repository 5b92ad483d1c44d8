"""Operators for every code a plan can trigger after reading: shape, identity,
structure, scope, groups, ports and types, artifacts, choices.

Each operator finds a place in a valid plan where one rule can be broken without
touching anything else (a task nothing reads, a port whose type it knows from the
catalog, a new task appended to the root scope), breaks it, and names the pointer
the diagnostic must carry."""

from __future__ import annotations

import copy
from typing import Any

from .core import Injection, operator
from .plan import (
    fresh_id,
    is_referenced,
    join,
    reads_of,
    rename_everywhere,
    scopes,
    seq,
    tasks,
    values,
)

OBJECTIVE = "Injected by a fault operator."


def _append_task(tree: dict, task: dict, scope_pointer: str = "/root") -> str:
    """Append `task` to the `tasks` of the scope at `scope_pointer`; its pointer."""
    scope = next(s for s in scopes(tree) if s.pointer == scope_pointer)
    if not isinstance(scope.node.get("tasks"), list):
        scope.node["tasks"] = []
    scope.node["tasks"].append(task)
    return join(scope_pointer, "tasks", len(scope.node["tasks"]) - 1)


def _value_task(tree: dict, value: Any, *, task_id: str | None = None) -> dict:
    return {"id": task_id or fresh_id(tree), "kind": "value", "objective": OBJECTIVE,
            "outputs": [{"name": "out", "value": value}]}


def _add_value(tree: dict, value: Any) -> str:
    """A new value task at the end of the root scope whose one output is `value`:
    the pointer of that value."""
    pointer = _append_task(tree, _value_task(tree, value))
    return join(pointer, "outputs", 0, "value")


def _string(text: str = "x") -> dict:
    return {"kind": "string", "text": text}


def _first(items, predicate=lambda x: True):
    return next((x for x in items if predicate(x)), None)


def _root_tasks(tree):
    return [t for t in tasks(tree) if t.group is None]


# ================================================================ shape: PLAN_FIELD_*


@operator("PLAN_FIELD_UNKNOWN")
def unknown_task_field(ctx):
    """A field no task kind has (`timeoutSeconds`) on a task: at the key."""
    t = _first(tasks(ctx.tree))
    t.node["timeoutSeconds"] = 30
    return ctx.tree, join(t.pointer, "timeoutSeconds")


@operator("PLAN_FIELD_UNKNOWN")
def unknown_value_field(ctx):
    """A field no value kind has (`format`) on a string literal."""
    v = _first(values(ctx.tree), lambda v: v.node.get("kind") == "string")
    if v is None:
        return None
    v.node["format"] = "text"
    return ctx.tree, join(v.pointer, "format")


@operator("PLAN_FIELD_UNKNOWN")
def unknown_document_field(ctx):
    """A field the document does not have (`owner`) at the top level."""
    ctx.tree["owner"] = "platform-team"
    return ctx.tree, "/owner"


@operator("PLAN_FIELD_UNKNOWN")
def unknown_type_field(ctx):
    """A JSON Schema keyword (`minLength`) in a TaskType."""
    for i, inp in enumerate(seq(ctx.tree, "inputs")):
        if isinstance(inp.get("type"), dict):
            inp["type"]["minLength"] = 1
            return ctx.tree, join("/inputs", i, "type", "minLength")
    return None


@operator("PLAN_FIELD_REQUIRED")
def input_without_type(ctx):
    """A workflow input without its `type`."""
    for i, inp in enumerate(seq(ctx.tree, "inputs")):
        if isinstance(inp.get("type"), dict):
            del inp["type"]
            return ctx.tree, join("/inputs", i)
    return None


@operator("PLAN_FIELD_REQUIRED")
def value_without_source(ctx):
    """An `input` value without its `source`."""
    v = _first(values(ctx.tree), lambda v: v.node.get("kind") == "input")
    if v is None:
        return None
    del v.node["source"]
    return ctx.tree, v.pointer


@operator("PLAN_FIELD_REQUIRED")
def required_field_null(ctx):
    """An `output` value's `source` written as null (null means absent): at the key."""
    v = _first(values(ctx.tree), lambda v: v.node.get("kind") == "output")
    if v is None:
        return None
    v.node["source"] = None
    return ctx.tree, join(v.pointer, "source")


@operator("PLAN_FIELD_TYPE")
def bare_scalar_value(ctx):
    """A binding's value written as a bare string instead of a tagged TaskValue."""
    v = _first(values(ctx.tree, nested=False), lambda v: v.where in ("binding", "output") and v.node.get("kind") == "string")
    if v is None:
        return None
    parent_pointer, key = v.pointer.rsplit("/", 1)
    from .plan import get

    get(ctx.tree, parent_pointer)[key] = v.node.get("text") or "text"
    return ctx.tree, v.pointer


@operator("PLAN_FIELD_TYPE")
def number_as_text(ctx):
    """A foreach's or parallel's `maxConcurrency` written as text (`"2"`)."""
    t = _first(tasks(ctx.tree), lambda t: t.kind in ("foreach", "parallel"))
    if t is None:
        return None
    t.node["maxConcurrency"] = str(t.node.get("maxConcurrency") or 4)
    return ctx.tree, join(t.pointer, "maxConcurrency")


@operator("PLAN_FIELD_TYPE")
def list_as_text(ctx):
    """A task's `dependsOn` written as one string instead of a list."""
    t = _first(tasks(ctx.tree), lambda t: seq(t.node, "dependsOn"))
    if t is None:
        return None
    t.node["dependsOn"] = t.node["dependsOn"][0]
    return ctx.tree, join(t.pointer, "dependsOn")


@operator("PLAN_FIELD_TYPE")
def object_as_list(ctx):
    """A sequence's `body` (a scope object) written as a list holding it."""
    t = _first(tasks(ctx.tree), lambda t: t.kind == "sequence" and isinstance(t.node.get("body"), dict))
    if t is None:
        return None
    t.node["body"] = [t.node["body"]]
    return ctx.tree, join(t.pointer, "body")


@operator("PLAN_NAME_INVALID")
def name_with_spaces(ctx):
    """A plan `name` with capitals and spaces."""
    ctx.tree["name"] = "Review A Pull Request"
    return ctx.tree, "/name"


@operator("PLAN_NAME_INVALID")
def name_too_long(ctx):
    """A plan `name` of 64 characters (at most 63 after the first)."""
    ctx.tree["name"] = "a" * 64
    return ctx.tree, "/name"


# ================================================================ identity


def _rename_first(ctx, new_for):
    t = _first(tasks(ctx.tree), lambda t: isinstance(t.id, str))
    new = new_for(t.id)
    pointer = join(t.pointer, "id")
    rename_everywhere(ctx.tree, t.id, new)
    return ctx.tree, pointer


@operator("TASK_ID_INVALID")
def id_with_a_space(ctx):
    """A task ID with a space, renamed consistently (every reference follows)."""
    return _rename_first(ctx, lambda old: old + " 2")


@operator("TASK_ID_INVALID")
def id_with_a_lookalike(ctx):
    """A task ID with a Cyrillic `а` for the Latin `a`, renamed consistently."""
    def swap(old: str) -> str:
        return old.replace("a", "\u0430", 1) if "a" in old else "\u0430" + old
    return _rename_first(ctx, swap)


@operator("TASK_ID_INVALID")
def id_too_long(ctx):
    """A task ID of 65 characters, renamed consistently."""
    return _rename_first(ctx, lambda old: (old + "_" * 65)[:65])


@operator("TASK_ID_INVALID")
def output_name_invalid(ctx):
    """A value task's output name with a dot, renamed consistently in every read."""
    for t in tasks(ctx.tree):
        if t.kind == "value" and seq(t.node, "outputs"):
            out = t.node["outputs"][0]
            old, new = out["name"], out["name"] + ".x"
            out["name"] = new
            for v in reads_of(ctx.tree, t.id):
                if v.node.get("port") == old:
                    v.node["port"] = new
            return ctx.tree, join(t.pointer, "outputs", 0, "name")
    return None


@operator("TASK_ID_RESERVED")
def id_reserved(ctx):
    """A task ID starting with `__`, renamed consistently."""
    return _rename_first(ctx, lambda old: "__" + old)


@operator("TASK_ID_RESERVED")
def group_id_reserved(ctx):
    """A group ID starting with `__`, renamed consistently (its calls follow)."""
    for i, g in enumerate(seq(ctx.tree, "groups")):
        rename_everywhere(ctx.tree, g["id"], "__" + g["id"])
        return ctx.tree, join("/groups", i, "id")
    return None


@operator("TASK_ID_DUPLICATE")
def task_id_twice(ctx):
    """A new value task at the end of the root scope with the ID of an earlier task."""
    first = _first(_root_tasks(ctx.tree), lambda t: isinstance(t.id, str))
    pointer = _append_task(ctx.tree, _value_task(ctx.tree, _string(), task_id=first.id))
    return ctx.tree, join(pointer, "id")


@operator("TASK_ID_DUPLICATE")
def nested_task_id_twice(ctx):
    """A new value task in the last nested scope of the root with the ID of the first task."""
    first = _first(_root_tasks(ctx.tree), lambda t: isinstance(t.id, str))
    nested = [s for s in scopes(ctx.tree) if s.group is None and s.owner is not None]
    if not nested:
        return None
    pointer = _append_task(ctx.tree, _value_task(ctx.tree, _string(), task_id=first.id), nested[-1].pointer)
    return ctx.tree, join(pointer, "id")


@operator("TASK_ID_DUPLICATE")
def choice_id_of_a_task(ctx):
    """A new choice (never read) whose ID is a task's."""
    first = _first(_root_tasks(ctx.tree), lambda t: isinstance(t.id, str))
    choices = ctx.tree.get("choices") if isinstance(ctx.tree.get("choices"), list) else []
    choices.append({"id": first.id, "question": "Which one?", "type": {"kind": "string"},
                    "alternatives": [{"id": "a", "value": _string("a")}, {"id": "b", "value": _string("b")}],
                    "recommended": "a"})
    ctx.tree["choices"] = choices
    return ctx.tree, join("/choices", len(choices) - 1, "id")


@operator("NAME_DUPLICATE")
def input_twice(ctx):
    """A workflow input declared twice (the copy appended)."""
    inputs = seq(ctx.tree, "inputs")
    if not inputs:
        return None
    inputs.append(copy.deepcopy(inputs[0]))
    return ctx.tree, join("/inputs", len(inputs) - 1, "name")


@operator("NAME_DUPLICATE")
def binding_twice(ctx):
    """An operation task's binding repeated (the copy appended)."""
    t = _first(tasks(ctx.tree), lambda t: t.kind == "operation" and seq(t.node, "inputs"))
    if t is None:
        return None
    t.node["inputs"].append(copy.deepcopy(t.node["inputs"][0]))
    return ctx.tree, join(t.pointer, "inputs", len(t.node["inputs"]) - 1, "name")


@operator("NAME_DUPLICATE")
def result_field_twice(ctx):
    """A transform's resultType field repeated."""
    t = _first(tasks(ctx.tree), lambda t: t.kind == "transform" and seq(t.node.get("resultType") or {}, "fields"))
    if t is None:
        return None
    fields = t.node["resultType"]["fields"]
    fields.append(copy.deepcopy(fields[0]))
    return ctx.tree, join(t.pointer, "resultType", "fields", len(fields) - 1, "name")


@operator("NAME_DUPLICATE")
def member_twice(ctx):
    """An object literal's member repeated."""
    v = _first(values(ctx.tree), lambda v: v.node.get("kind") == "object" and seq(v.node, "members"))
    if v is None:
        return None
    members = v.node["members"]
    members.append(copy.deepcopy(members[0]))
    return ctx.tree, join(v.pointer, "members", len(members) - 1, "name")


# ================================================================ structure


@operator("TASK_KIND_INVALID")
def kind_unknown(ctx):
    """An operation task's `kind` set to one that does not exist."""
    t = _first(tasks(ctx.tree), lambda t: t.kind == "operation")
    if t is None:
        return None
    t.node["kind"] = "operations"
    return ctx.tree, join(t.pointer, "kind")


@operator("TASK_KIND_INVALID")
def compound_kind_unknown(ctx):
    """A compound task's `kind` set to one that does not exist (its nested tasks go with it)."""
    t = _first(tasks(ctx.tree), lambda t: t.kind in ("sequence", "foreach", "conditional", "parallel"))
    if t is None:
        return None
    t.node["kind"] = "loop"
    return ctx.tree, join(t.pointer, "kind")


@operator("TASK_KIND_FIELD")
def foreach_field_on_an_operation(ctx):
    """`maxItems: 5` on an operation task."""
    t = _first(tasks(ctx.tree), lambda t: t.kind == "operation")
    if t is None:
        return None
    t.node["maxItems"] = 5
    return ctx.tree, join(t.pointer, "maxItems")


@operator("TASK_KIND_FIELD")
def operation_field_on_a_value_task(ctx):
    """`operation: ...` on a value task."""
    t = _first(tasks(ctx.tree), lambda t: t.kind == "value")
    if t is None:
        return None
    t.node["operation"] = "github.get_pull_request"
    return ctx.tree, join(t.pointer, "operation")


@operator("TASK_KIND_FIELD")
def value_field_on_another_value(ctx):
    """`text: ...` on a number literal."""
    v = _first(values(ctx.tree), lambda v: v.node.get("kind") == "number")
    if v is None:
        return None
    v.node["text"] = "seven"
    return ctx.tree, join(v.pointer, "text")


@operator("TASK_OBJECTIVE_REQUIRED")
def blank_objective(ctx):
    """A task's objective made blank."""
    t = _first(tasks(ctx.tree), lambda t: isinstance(t.node.get("objective"), str))
    t.node["objective"] = "   "
    return ctx.tree, join(t.pointer, "objective")


@operator("TASK_OBJECTIVE_REQUIRED")
def objective_missing(ctx):
    """A nested task without an objective: at the task."""
    t = _first(tasks(ctx.tree), lambda t: t.depth > 0 and "objective" in t.node)
    if t is None:
        return None
    del t.node["objective"]
    return ctx.tree, t.pointer


@operator("TASK_OBJECTIVE_REQUIRED")
def group_objective_blank(ctx):
    """A group's objective made blank."""
    for i, g in enumerate(seq(ctx.tree, "groups")):
        g["objective"] = ""
        return ctx.tree, join("/groups", i, "objective")
    return None


@operator("TASK_PARALLEL_INVALID")
def parallel_with_one_branch(ctx):
    """A new parallel task with one branch."""
    branch = {"tasks": [_value_task(ctx.tree, _string(), task_id=fresh_id(ctx.tree, "only"))]}
    pointer = _append_task(ctx.tree, {"id": fresh_id(ctx.tree), "kind": "parallel", "objective": OBJECTIVE,
                                      "branches": [branch]})
    return ctx.tree, join(pointer, "branches")


@operator("TASK_PARALLEL_INVALID")
def parallel_without_branches(ctx):
    """A new parallel task with `branches: []`."""
    pointer = _append_task(ctx.tree, {"id": fresh_id(ctx.tree), "kind": "parallel", "objective": OBJECTIVE,
                                      "branches": []})
    return ctx.tree, join(pointer, "branches")


@operator("TASK_ITERATION_BOUND")
def max_items_zero(ctx):
    """A foreach's `maxItems: 0`."""
    t = _first(tasks(ctx.tree), lambda t: t.kind == "foreach")
    if t is None:
        return None
    t.node["maxItems"] = 0
    return ctx.tree, join(t.pointer, "maxItems")


@operator("TASK_ITERATION_BOUND")
def max_items_too_many(ctx):
    """A foreach's `maxItems: 10001`."""
    t = _first(tasks(ctx.tree), lambda t: t.kind == "foreach")
    if t is None:
        return None
    t.node["maxItems"] = 10001
    return ctx.tree, join(t.pointer, "maxItems")


@operator("TASK_ITERATION_BOUND")
def concurrency_too_high(ctx):
    """A parallel's (or parallel foreach's) `maxConcurrency: 101`."""
    t = _first(tasks(ctx.tree), lambda t: t.kind in ("parallel", "foreach"))
    if t is None:
        return None
    t.node["maxConcurrency"] = 101
    return ctx.tree, join(t.pointer, "maxConcurrency")


@operator("TASK_BRANCH_OUTPUTS")
def conditional_side_extra_output(ctx):
    """A conditional's `body` declares one more output than `otherwise`."""
    t = _first(tasks(ctx.tree), lambda t: t.kind == "conditional" and isinstance(t.node.get("body"), dict))
    if t is None:
        return None
    body = t.node["body"]
    outputs = body.get("outputs") if isinstance(body.get("outputs"), list) else []
    outputs.append({"name": "injected_extra", "value": {"kind": "null"}})
    body["outputs"] = outputs
    return ctx.tree, join(t.pointer, "body", "outputs", len(outputs) - 1, "name")


@operator("TASK_BRANCH_OUTPUTS")
def conditional_sides_disagree(ctx):
    """A new conditional whose sides declare the same output with a string and an integer."""
    cond = {"kind": "boolean", "boolean": True}
    pointer = _append_task(ctx.tree, {
        "id": fresh_id(ctx.tree), "kind": "conditional", "objective": OBJECTIVE, "condition": cond,
        "body": {"outputs": [{"name": "r", "value": _string("yes")}]},
        "otherwise": {"outputs": [{"name": "r", "value": {"kind": "number", "number": 7}}]},
    })
    return ctx.tree, join(pointer, "otherwise", "outputs", 0, "value")


@operator("TASK_BRANCH_OUTPUTS")
def parallel_output_twice(ctx):
    """A parallel's second branch exports a name the first branch exports."""
    for t in tasks(ctx.tree):
        branches = seq(t.node, "branches") if t.kind == "parallel" else []
        if len(branches) >= 2 and seq(branches[0], "outputs"):
            copy_ = {"name": branches[0]["outputs"][0]["name"], "value": {"kind": "null"}}
            second = branches[1]
            outputs = second.get("outputs") if isinstance(second.get("outputs"), list) else []
            outputs.append(copy_)
            second["outputs"] = outputs
            return ctx.tree, join(t.pointer, "branches", 1, "outputs", len(outputs) - 1, "name")
    return None


@operator("TASK_VALUE_INVALID")
def value_kind_unknown(ctx):
    """A binding's value of a kind that does not exist."""
    v = _first(values(ctx.tree, nested=False), lambda v: v.where == "binding")
    if v is None:
        return None
    v.node.clear()
    v.node.update({"kind": "template", "text": "Hello"})
    return ctx.tree, join(v.pointer, "kind")


@operator("TASK_VALUE_INVALID")
def json_with_two_items(ctx):
    """A new `json` value with two items."""
    pointer = _add_value(ctx.tree, {"kind": "json", "items": [_string("a"), _string("b")]})
    return ctx.tree, join(pointer, "items")


@operator("TASK_VALUE_INVALID")
def field_without_items(ctx):
    """A `field` value's items emptied."""
    v = _first(values(ctx.tree), lambda v: v.node.get("kind") == "field")
    if v is None:
        return None
    v.node["items"] = []
    return ctx.tree, join(v.pointer, "items")


@operator("TASK_VALUE_INVALID")
def number_out_of_range(ctx):
    """A number literal of 2^53 (outside +-(2^53-1))."""
    v = _first(values(ctx.tree), lambda v: v.node.get("kind") == "number")
    if v is None:
        return None
    v.node["number"] = 2**53
    return ctx.tree, join(v.pointer, "number")


@operator("TASK_VALUE_INVALID")
def nested_65_deep(ctx):
    """A new value 65 arrays deep (the limit is 64): at the first value too deep."""
    value: dict = {"kind": "null"}
    for _ in range(64):
        value = {"kind": "array", "items": [value]}
    pointer = _add_value(ctx.tree, value)
    return ctx.tree, pointer + "/items/0" * 64


@operator("TASK_TYPE_INVALID")
def type_kind_unknown(ctx):
    """A workflow input's type kind misspelt."""
    for i, inp in enumerate(seq(ctx.tree, "inputs")):
        if isinstance(inp.get("type"), dict):
            inp["type"]["kind"] = "text"
            return ctx.tree, join("/inputs", i, "type", "kind")
    return None


@operator("TASK_TYPE_INVALID")
def enum_on_an_integer(ctx):
    """An `enum` on an integer-typed input."""
    for i, inp in enumerate(seq(ctx.tree, "inputs")):
        if isinstance(inp.get("type"), dict) and inp["type"].get("kind") == "integer":
            inp["type"]["enum"] = ["one", "two"]
            return ctx.tree, join("/inputs", i, "type", "enum")
    return None


@operator("TASK_TYPE_INVALID")
def array_without_items(ctx):
    """A transform's resultType field of kind array without `items`."""
    t = _first(tasks(ctx.tree), lambda t: t.kind == "transform" and seq(t.node.get("resultType") or {}, "fields"))
    if t is None:
        return None
    fields = t.node["resultType"]["fields"]
    fields.append({"name": "injected_list", "type": {"kind": "array"}})
    return ctx.tree, join(t.pointer, "resultType", "fields", len(fields) - 1, "type")


@operator("TASK_PREDICATE_INVALID")
def predicate_unknown(ctx):
    """A predicate's name misspelt."""
    v = _first(values(ctx.tree), lambda v: v.node.get("kind") == "predicate")
    if v is None:
        return None
    v.node["predicate"] = "xor"
    return ctx.tree, join(v.pointer, "predicate")


@operator("TASK_PREDICATE_INVALID")
def not_with_two_operands(ctx):
    """A new `not` with two operands."""
    pointer = _add_value(ctx.tree, {"kind": "predicate", "predicate": "not",
                                    "items": [{"kind": "boolean", "boolean": True}, {"kind": "boolean", "boolean": False}]})
    return ctx.tree, join(pointer, "items")


@operator("TASK_TRANSFORM_TYPE")
def transform_field_any(ctx):
    """A transform's resultType field of kind `any`."""
    t = _first(tasks(ctx.tree), lambda t: t.kind == "transform" and seq(t.node.get("resultType") or {}, "fields"))
    if t is None:
        return None
    fields = t.node["resultType"]["fields"]
    fields.append({"name": "injected_any", "type": {"kind": "any"}})
    return ctx.tree, join(t.pointer, "resultType", "fields", len(fields) - 1, "type", "kind")


@operator("TASK_TRANSFORM_TYPE")
def transform_field_optional(ctx):
    """A transform's resultType field optional but not nullable."""
    t = _first(tasks(ctx.tree), lambda t: t.kind == "transform" and seq(t.node.get("resultType") or {}, "fields"))
    if t is None:
        return None
    fields = t.node["resultType"]["fields"]
    fields.append({"name": "injected_optional", "type": {"kind": "string"}, "required": False})
    return ctx.tree, join(t.pointer, "resultType", "fields", len(fields) - 1)


@operator("TASK_TRANSFORM_TYPE")
def transform_result_not_object(ctx):
    """A new transform whose resultType is a string."""
    pointer = _append_task(ctx.tree, {"id": fresh_id(ctx.tree), "kind": "transform", "objective": OBJECTIVE,
                                      "inputs": [], "resultType": {"kind": "string"}})
    return ctx.tree, join(pointer, "resultType", "kind")


@operator("TASK_DEFAULT_REQUIRED")
def optional_input_without_default(ctx):
    """A required workflow input made optional, without a default."""
    for i, inp in enumerate(seq(ctx.tree, "inputs")):
        if inp.get("required", True) is not False and inp.get("default") is None:
            inp["required"] = False
            return ctx.tree, join("/inputs", i)
    return None


@operator("TASK_DEFAULT_REQUIRED")
def optional_group_input_without_default(ctx):
    """A new optional group input without a default."""
    for gi, g in enumerate(seq(ctx.tree, "groups")):
        inputs = g.get("inputs") if isinstance(g.get("inputs"), list) else []
        inputs.append({"name": "injected_opt", "type": {"kind": "string"}, "required": False})
        g["inputs"] = inputs
        return ctx.tree, join("/groups", gi, "inputs", len(inputs) - 1)
    return None


@operator("TASK_DEFAULT_INVALID")
def default_of_the_wrong_type(ctx):
    """A new optional input whose default does not fit its type."""
    inputs = ctx.tree.get("inputs") if isinstance(ctx.tree.get("inputs"), list) else []
    inputs.append({"name": "injected_limit", "type": {"kind": "integer"}, "required": False,
                   "default": _string("ten")})
    ctx.tree["inputs"] = inputs
    return ctx.tree, join("/inputs", len(inputs) - 1, "default")


@operator("TASK_DEFAULT_INVALID")
def default_not_a_literal(ctx):
    """An existing default replaced by a read of another input."""
    for i, inp in enumerate(seq(ctx.tree, "inputs")):
        if isinstance(inp.get("default"), dict):
            other = next((o["name"] for o in seq(ctx.tree, "inputs") if o is not inp), None)
            if other is None:
                return None
            inp["default"] = {"kind": "input", "source": other}
            return ctx.tree, join("/inputs", i, "default")
    return None


# ================================================================ choices


@operator("CHOICE_INVALID")
def recommended_unknown(ctx):
    """A choice's `recommended` naming no alternative."""
    for i, c in enumerate(seq(ctx.tree, "choices")):
        c["recommended"] = "no_such_alternative"
        return ctx.tree, join("/choices", i, "recommended")
    return None


@operator("CHOICE_INVALID")
def alternative_id_twice(ctx):
    """A choice's second alternative takes the first one's ID (selections adjusted)."""
    for i, c in enumerate(seq(ctx.tree, "choices")):
        alts = seq(c, "alternatives")
        if len(alts) >= 2:
            old, new = alts[1]["id"], alts[0]["id"]
            alts[1]["id"] = new
            for key in ("recommended", "selected"):
                if c.get(key) == old:
                    c[key] = new
            return ctx.tree, join("/choices", i, "alternatives", 1, "id")
    return None


@operator("CHOICE_INVALID")
def one_alternative(ctx):
    """A new choice (never read) with one alternative."""
    choices = ctx.tree.get("choices") if isinstance(ctx.tree.get("choices"), list) else []
    choices.append({"id": fresh_id(ctx.tree, "pick"), "question": "Which one?", "type": {"kind": "string"},
                    "alternatives": [{"id": "a", "value": _string("a")}], "recommended": "a"})
    ctx.tree["choices"] = choices
    return ctx.tree, join("/choices", len(choices) - 1, "alternatives")


@operator("CHOICE_UNKNOWN")
def choice_read_unknown(ctx):
    """A read of a choice that does not exist (an existing read renamed, else a new value task)."""
    v = _first(values(ctx.tree), lambda v: v.node.get("kind") == "choice")
    if v is None:
        pointer = _add_value(ctx.tree, {"kind": "choice", "source": "no_such_choice"})
        return ctx.tree, join(pointer, "source")
    v.node["source"] = "no_such_choice"
    return ctx.tree, join(v.pointer, "source")


def _choices_read(tree) -> set:
    return {v.node.get("source") for v in values(tree) if v.node.get("kind") == "choice"}


@operator("CHOICE_REQUIRED")
def selection_missing(ctx):
    """compile (without auto) of a plan where one choice that is read has no selection
    (every other choice selects its recommendation)."""
    read = _choices_read(ctx.tree)
    target = None
    for i, c in enumerate(seq(ctx.tree, "choices")):
        if target is None and c.get("id") in read:
            c["selected"] = None
            target = i
        elif c.get("selected") is None:
            c["selected"] = c.get("recommended") or seq(c, "alternatives")[0]["id"]
    if target is None:
        return None
    return Injection(ctx.dump(), join("/choices", target), compile=True)


# ================================================================ scope


@operator("TASK_REFERENCE_UNKNOWN")
def output_source_unknown(ctx):
    """An `output` read naming a task that exists nowhere."""
    v = _first(values(ctx.tree), lambda v: v.node.get("kind") == "output")
    if v is None:
        return None
    v.node["source"] = "no_such_task"
    return ctx.tree, join(v.pointer, "source")


@operator("TASK_REFERENCE_UNKNOWN")
def present_source_unknown(ctx):
    """A new `present` value naming a task that exists nowhere."""
    pointer = _add_value(ctx.tree, {"kind": "present", "source": "no_such_task"})
    return ctx.tree, join(pointer, "source")


@operator("TASK_REFERENCE_UNKNOWN")
def input_source_unknown(ctx):
    """An `input` read naming an input that exists nowhere."""
    v = _first(values(ctx.tree), lambda v: v.node.get("kind") == "input" and v.task is not None and v.task.group is None)
    if v is None:
        return None
    v.node["source"] = "no_such_input"
    return ctx.tree, join(v.pointer, "source")


def _nested_task(tree):
    return _first(tasks(tree), lambda t: t.group is None and t.depth > 0 and isinstance(t.id, str))


@operator("TASK_REFERENCE_SCOPE")
def read_into_a_body(ctx):
    """A new root task reading (whole result) a task nested in another task's body."""
    inner = _nested_task(ctx.tree)
    if inner is None:
        return None
    pointer = _add_value(ctx.tree, {"kind": "output", "source": inner.id, "port": None})
    return ctx.tree, join(pointer, "source")


@operator("TASK_REFERENCE_SCOPE")
def depends_into_a_body(ctx):
    """A root task's `dependsOn` naming a task nested in another task's body."""
    inner = _nested_task(ctx.tree)
    if inner is None:
        return None
    outer = inner.ancestors[0]
    t = _first(_root_tasks(ctx.tree), lambda t: t.depth == 0 and t.node is not outer.node and t.section == "tasks")
    deps = t.node.get("dependsOn") if isinstance(t.node.get("dependsOn"), list) else []
    deps.append(inner.id)
    t.node["dependsOn"] = deps
    return ctx.tree, join(t.pointer, "dependsOn", len(deps) - 1)


@operator("TASK_REFERENCE_SCOPE")
def read_a_cleanup_task(ctx):
    """A new root task reading a cleanup (`always`) task."""
    t = _first(tasks(ctx.tree), lambda t: t.section == "always" and t.scope.pointer == "/root")
    if t is None:
        return None
    pointer = _add_value(ctx.tree, {"kind": "present", "source": t.id})
    return ctx.tree, join(pointer, "source")


@operator("TASK_REFERENCE_SCOPE")
def group_reads_outside(ctx):
    """A new task in a group body reading a workflow input."""
    inputs = seq(ctx.tree, "inputs")
    for gi, g in enumerate(seq(ctx.tree, "groups")):
        if inputs and isinstance(g.get("body"), dict):
            name = inputs[0]["name"]
            if any(i.get("name") == name for i in seq(g, "inputs")):
                continue
            pointer = _append_task(ctx.tree, _value_task(ctx.tree, {"kind": "input", "source": name}),
                                   join("/groups", gi, "body"))
            return ctx.tree, join(pointer, "outputs", 0, "value", "source")
    return None


@operator("TASK_REFERENCE_SIBLING")
def parallel_branch_reads_its_sibling(ctx):
    """A new task in a parallel's second branch reading a task of its first branch (an
    existing parallel, else a new one)."""
    for t in tasks(ctx.tree):
        branches = seq(t.node, "branches") if t.kind == "parallel" else []
        if len(branches) >= 2 and seq(branches[0], "tasks") and isinstance(branches[0]["tasks"][0].get("id"), str):
            other = branches[0]["tasks"][0]["id"]
            pointer = _append_task(ctx.tree, _value_task(ctx.tree, {"kind": "present", "source": other}),
                                   join(t.pointer, "branches", 1))
            return ctx.tree, join(pointer, "outputs", 0, "value", "source")
    a = fresh_id(ctx.tree, "left")
    pointer = _append_task(ctx.tree, {"id": fresh_id(ctx.tree), "kind": "parallel", "objective": OBJECTIVE, "branches": [
        {"tasks": [_value_task(ctx.tree, _string(), task_id=a)]},
        {"tasks": [_value_task(ctx.tree, {"kind": "present", "source": a}, task_id=fresh_id(ctx.tree, "right"))]},
    ]})
    return ctx.tree, join(pointer, "branches", 1, "tasks", 0, "outputs", 0, "value", "source")


@operator("TASK_ITEM_SCOPE")
def item_outside_foreach(ctx):
    """A new root task reading `item`."""
    return ctx.tree, _add_value(ctx.tree, {"kind": "item"})


@operator("TASK_ITEM_SCOPE")
def index_in_a_group_body(ctx):
    """A new task in a group body reading `index` (a group does not see its caller's loop)."""
    for gi, g in enumerate(seq(ctx.tree, "groups")):
        if isinstance(g.get("body"), dict):
            pointer = _append_task(ctx.tree, _value_task(ctx.tree, {"kind": "index"}), join("/groups", gi, "body"))
            return ctx.tree, join(pointer, "outputs", 0, "value")
    return None


@operator("TASK_DEPENDENCY_UNKNOWN")
def depends_on_nothing(ctx):
    """A task's `dependsOn` naming a task that exists nowhere."""
    t = _first(tasks(ctx.tree), lambda t: t.section == "tasks")
    deps = t.node.get("dependsOn") if isinstance(t.node.get("dependsOn"), list) else []
    deps.append("no_such_task")
    t.node["dependsOn"] = deps
    return ctx.tree, join(t.pointer, "dependsOn", len(deps) - 1)


@operator("TASK_DEPENDENCY_UNKNOWN")
def depends_on_a_choice(ctx):
    """A task's `dependsOn` naming a choice (not a task)."""
    choices = seq(ctx.tree, "choices")
    if not choices:
        return None
    t = _first(tasks(ctx.tree), lambda t: t.section == "tasks")
    deps = t.node.get("dependsOn") if isinstance(t.node.get("dependsOn"), list) else []
    deps.append(choices[0]["id"])
    t.node["dependsOn"] = deps
    return ctx.tree, join(t.pointer, "dependsOn", len(deps) - 1)


@operator("TASK_DEPENDENCY_CYCLE")
def depends_on_itself(ctx):
    """A task naming itself in `dependsOn`."""
    t = _first(tasks(ctx.tree), lambda t: t.section == "tasks" and isinstance(t.id, str))
    deps = t.node.get("dependsOn") if isinstance(t.node.get("dependsOn"), list) else []
    deps.append(t.id)
    t.node["dependsOn"] = deps
    return ctx.tree, join(t.pointer, "dependsOn", len(deps) - 1)


def _reads_in(node: Any) -> set:
    """Task IDs read (output/present) anywhere inside `node`."""
    out = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, dict):
            if n.get("kind") in ("output", "present") and isinstance(n.get("source"), str):
                out.add(n["source"])
            stack.extend(n.values())
        elif isinstance(n, list):
            stack.extend(n)
    return out


@operator("TASK_DEPENDENCY_CYCLE")
def depends_on_a_reader(ctx):
    """Task A names in `dependsOn` a later task B of its scope that reads A: a cycle of two,
    at A's new entry."""
    for t in tasks(ctx.tree):
        if t.section != "tasks" or not isinstance(t.id, str):
            continue
        siblings = seq(t.scope.node, "tasks")
        for later in siblings[t.index + 1:]:
            if isinstance(later.get("id"), str) and t.id in _reads_in(later) | set(seq(later, "dependsOn")):
                deps = t.node.get("dependsOn") if isinstance(t.node.get("dependsOn"), list) else []
                deps.append(later["id"])
                t.node["dependsOn"] = deps
                return ctx.tree, join(t.pointer, "dependsOn", len(deps) - 1)
    return None


# ================================================================ groups


@operator("TASK_GROUP_UNKNOWN")
def call_unknown_group(ctx):
    """A call naming a group that does not exist (an existing call, else a new one)."""
    t = _first(tasks(ctx.tree), lambda t: t.kind == "call")
    if t is None:
        pointer = _append_task(ctx.tree, {"id": fresh_id(ctx.tree), "kind": "call", "objective": OBJECTIVE,
                                          "group": "no_such_group"})
        return ctx.tree, join(pointer, "group")
    t.node["group"] = "no_such_group"
    return ctx.tree, join(t.pointer, "group")


@operator("TASK_GROUP_UNKNOWN")
def call_a_task(ctx):
    """A new call naming a task (not a group)."""
    first = _first(_root_tasks(ctx.tree), lambda t: isinstance(t.id, str))
    pointer = _append_task(ctx.tree, {"id": fresh_id(ctx.tree), "kind": "call", "objective": OBJECTIVE,
                                      "group": first.id})
    return ctx.tree, join(pointer, "group")


@operator("TASK_GROUP_CYCLE")
def group_calls_itself(ctx):
    """An existing group's body calls the group, forwarding its own inputs."""
    for gi, g in enumerate(seq(ctx.tree, "groups")):
        body = g.get("body")
        if not isinstance(body, dict):
            continue
        bindings = [{"name": i["name"], "value": {"kind": "input", "source": i["name"]}} for i in seq(g, "inputs")]
        pointer = _append_task(ctx.tree, {"id": fresh_id(ctx.tree, "again"), "kind": "call", "objective": OBJECTIVE,
                                          "group": g["id"], "inputs": bindings}, join("/groups", gi, "body"))
        return ctx.tree, join(pointer, "group")
    return None


@operator("TASK_GROUP_CYCLE")
def new_group_loop(ctx):
    """Two new groups calling each other (never called from the plan)."""
    groups = ctx.tree.get("groups") if isinstance(ctx.tree.get("groups"), list) else []
    a, b = fresh_id(ctx.tree, "ping"), fresh_id(ctx.tree, "pong")
    groups.append({"id": a, "objective": OBJECTIVE, "body": {"tasks": [
        {"id": a + "_call", "kind": "call", "objective": OBJECTIVE, "group": b}]}})
    groups.append({"id": b, "objective": OBJECTIVE, "body": {"tasks": [
        {"id": b + "_call", "kind": "call", "objective": OBJECTIVE, "group": a}]}})
    ctx.tree["groups"] = groups
    return ctx.tree, join("/groups", len(groups) - 2, "body", "tasks", 0, "group")


@operator("TASK_GROUP_INPUTS")
def call_binds_unknown_input(ctx):
    """A call binding an input the group does not declare."""
    t = _first(tasks(ctx.tree), lambda t: t.kind == "call")
    if t is None:
        return None
    inputs = t.node.get("inputs") if isinstance(t.node.get("inputs"), list) else []
    inputs.append({"name": "zz_not_declared", "value": _string()})
    t.node["inputs"] = inputs
    return ctx.tree, join(t.pointer, "inputs", len(inputs) - 1, "name")


def _group(tree, group_id):
    return next((g for g in seq(tree, "groups") if g.get("id") == group_id), None)


@operator("TASK_GROUP_INPUTS")
def call_leaves_required_input_unbound(ctx):
    """A call's binding of a required group input removed: at the call's `inputs`."""
    for t in tasks(ctx.tree):
        if t.kind != "call":
            continue
        g = _group(ctx.tree, t.node.get("group"))
        required = {i["name"] for i in seq(g, "inputs") if i.get("required", True) is not False}
        bindings = seq(t.node, "inputs")
        for j, b in enumerate(bindings):
            if b.get("name") in required and len(bindings) > 1:
                del bindings[j]
                return ctx.tree, join(t.pointer, "inputs")
    return None


_WRONG = {
    "string": {"kind": "boolean", "boolean": True},
    "integer": {"kind": "string", "text": "seven"},
    "number": {"kind": "string", "text": "seven"},
    "boolean": {"kind": "number", "number": 1},
    "array": {"kind": "number", "number": 1},
    "object": {"kind": "number", "number": 1},
}


@operator("TASK_GROUP_INPUT_TYPE")
def call_binds_wrong_type(ctx):
    """A call's binding replaced by a literal of another kind than the group input's type."""
    for t in tasks(ctx.tree):
        if t.kind != "call":
            continue
        g = _group(ctx.tree, t.node.get("group"))
        types = {i["name"]: i.get("type") for i in seq(g, "inputs")}
        for j, b in enumerate(seq(t.node, "inputs")):
            declared = types.get(b.get("name"))
            if isinstance(declared, dict) and declared.get("kind") in _WRONG:
                b["value"] = copy.deepcopy(_WRONG[declared["kind"]])
                return ctx.tree, join(t.pointer, "inputs", j, "value")
    return None


# ================================================================ ports and types (need the catalogs)


def _operations(ctx) -> dict[str, list[dict]]:
    """Catalog operations by ID (every version)."""
    out: dict[str, list[dict]] = {}
    for catalog in ctx.catalogs():
        for source in seq(catalog, "sources"):
            for op in seq(source, "operations"):
                out.setdefault(op["id"], []).append(op)
    return out


def _resolve(ctx, ref: Any) -> dict | None:
    if not isinstance(ref, str):
        return None
    ident, _, pin = ref.partition("@")
    ops = _operations(ctx).get(ident, [])
    if pin:
        ops = [o for o in ops if str(o.get("version")) == pin]
    return ops[0] if len(ops) == 1 else None


def _artifacts(op: dict, key: str) -> dict[str, str]:
    arts = op.get("artifacts") or {}
    return {a["port"]: a["kind"] for a in seq(arts, key)}


def _schema(op: dict, port: str) -> dict | None:
    schema = op.get("input") or {}
    prop = (schema.get("properties") or {}).get(port)
    return _deref(schema, prop)


def _deref(root: dict, schema: Any) -> Any:
    for _ in range(10):
        if isinstance(schema, dict) and isinstance(schema.get("$ref"), str) and schema["$ref"].startswith("#/$defs/"):
            schema = (root.get("$defs") or {}).get(schema["$ref"].split("/")[-1])
        else:
            break
    return schema


def _simple_kind(schema: Any) -> str | None:
    """The JSON type of a schema that is one plain type (not a union, not nullable)."""
    if isinstance(schema, dict) and isinstance(schema.get("type"), str) and not any(
        k in schema for k in ("anyOf", "oneOf", "allOf")
    ):
        return schema["type"]
    return None


def _literal(root: dict, schema: Any, depth: int = 0) -> dict | None:
    """A TaskValue literal that fits a (simple) JSON Schema, or None."""
    schema = _deref(root, schema)
    if not isinstance(schema, dict) or depth > 8:
        return None
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    if "enum" in schema and schema["enum"]:
        first = schema["enum"][0]
        if isinstance(first, str):
            return _string(first)
    if kind == "string":
        return _string("x") if "pattern" not in schema else None
    if kind in ("integer", "number"):
        return {"kind": "number", "number": schema.get("minimum", 1)}
    if kind == "boolean":
        return {"kind": "boolean", "boolean": True}
    if kind == "array":
        return {"kind": "array", "items": []} if not schema.get("minItems") else None
    if kind == "object":
        members = []
        for name in schema.get("required") or []:
            member = _literal(root, (schema.get("properties") or {}).get(name), depth + 1)
            if member is None:
                return None
            members.append({"name": name, "value": member})
        return {"kind": "object", "members": members}
    return None


def _operation_tasks(ctx):
    """(task, operation) for every operation task whose operation the catalogs resolve."""
    for t in tasks(ctx.tree):
        if t.kind == "operation":
            op = _resolve(ctx, t.node.get("operation"))
            if op is not None:
                yield t, op


@operator("TASK_OPERATION_UNKNOWN")
def operation_unknown(ctx):
    """An operation task naming an operation no catalog declares."""
    t = _first(tasks(ctx.tree), lambda t: t.kind == "operation")
    if t is None:
        return None
    t.node["operation"] = "zz.no_such_operation"
    return ctx.tree, join(t.pointer, "operation")


@operator("TASK_OPERATION_UNKNOWN")
def version_pin_unknown(ctx):
    """An operation pinned to a version that is not declared."""
    for t, op in _operation_tasks(ctx):
        t.node["operation"] = op["id"] + "@99"
        return ctx.tree, join(t.pointer, "operation")
    return None


@operator("TASK_INPUT_UNKNOWN")
def binding_undeclared_port(ctx):
    """A binding of a port the operation's input schema does not declare."""
    for t, op in _operation_tasks(ctx):
        inputs = t.node.get("inputs") if isinstance(t.node.get("inputs"), list) else []
        inputs.append({"name": "zz_undeclared_port", "value": _string()})
        t.node["inputs"] = inputs
        return ctx.tree, join(t.pointer, "inputs", len(inputs) - 1, "name")
    return None


@operator("TASK_INPUT_REQUIRED")
def required_binding_removed(ctx):
    """The binding of a required port removed (other bindings stay): at `inputs`."""
    for t, op in _operation_tasks(ctx):
        required = set((op.get("input") or {}).get("required") or []) - set(op.get("fixed") or {})
        bindings = seq(t.node, "inputs")
        for j, b in enumerate(bindings):
            if b.get("name") in required and b["name"] not in _artifacts(op, "consumes") and len(bindings) > 1:
                del bindings[j]
                return ctx.tree, join(t.pointer, "inputs")
    return None


@operator("TASK_INPUT_REQUIRED")
def all_bindings_removed(ctx):
    """Every binding of a task whose operation has exactly one required port removed: at the task."""
    for t, op in _operation_tasks(ctx):
        required = set((op.get("input") or {}).get("required") or []) - set(op.get("fixed") or {})
        if len(required) == 1 and not set(_artifacts(op, "consumes")) & required and seq(t.node, "inputs"):
            del t.node["inputs"]
            return ctx.tree, t.pointer
    return None


@operator("TASK_INPUT_TYPE")
def binding_of_another_kind(ctx):
    """A binding replaced by a literal of another JSON type than its port's."""
    for t, op in _operation_tasks(ctx):
        for j, b in enumerate(seq(t.node, "inputs")):
            kind = _simple_kind(_schema(op, b.get("name")))
            if kind in _WRONG and b["name"] not in _artifacts(op, "consumes"):
                b["value"] = copy.deepcopy(_WRONG[kind])
                return ctx.tree, join(t.pointer, "inputs", j, "value")
    return None


@operator("TASK_INPUT_TYPE")
def null_for_a_required_port(ctx):
    """`null` bound to a required, non-nullable port."""
    for t, op in _operation_tasks(ctx):
        required = set((op.get("input") or {}).get("required") or [])
        for j, b in enumerate(seq(t.node, "inputs")):
            if b.get("name") in required and _simple_kind(_schema(op, b["name"])) and b["name"] not in _artifacts(op, "consumes"):
                b["value"] = {"kind": "null"}
                return ctx.tree, join(t.pointer, "inputs", j, "value")
    return None


@operator("TASK_INPUT_TYPE")
def text_outside_the_enum(ctx):
    """A string literal outside the port's enum."""
    for t, op in _operation_tasks(ctx):
        for j, b in enumerate(seq(t.node, "inputs")):
            schema = _schema(op, b.get("name"))
            if isinstance(schema, dict) and schema.get("enum") and b["name"] not in _artifacts(op, "consumes"):
                b["value"] = _string("zz-not-in-the-enum")
                return ctx.tree, join(t.pointer, "inputs", j, "value")
    return None


@operator("TASK_INPUT_CATALOG_OWNED")
def fixed_port_bound(ctx):
    """A binding of a port the catalog fixes, even to the fixed value."""
    for t, op in _operation_tasks(ctx):
        fixed = op.get("fixed") or {}
        for name, value in fixed.items():
            literal = _string(value) if isinstance(value, str) else {"kind": "number", "number": value} \
                if isinstance(value, (int, float)) and not isinstance(value, bool) else None
            if literal is None:
                continue
            inputs = t.node.get("inputs") if isinstance(t.node.get("inputs"), list) else []
            inputs.append({"name": name, "value": literal})
            t.node["inputs"] = inputs
            return ctx.tree, join(t.pointer, "inputs", len(inputs) - 1, "name")
    return None


@operator("TASK_OUTPUT_UNKNOWN")
def port_unknown(ctx):
    """An `output` read naming a port its task does not have."""
    v = _first(values(ctx.tree), lambda v: v.node.get("kind") == "output" and isinstance(v.node.get("port"), str))
    if v is None:
        return None
    v.node["port"] = "zz_no_such_port"
    return ctx.tree, join(v.pointer, "port")


@operator("TASK_OUTPUT_UNKNOWN")
def port_of_an_opaque_result(ctx):
    """A new read of a named port of an operation without an output schema."""
    for t, op in _operation_tasks(ctx):
        if op.get("output") is None and t.group is None and t.depth == 0 and t.section == "tasks":
            pointer = _add_value(ctx.tree, {"kind": "output", "source": t.id, "port": "content"})
            return ctx.tree, join(pointer, "port")
    return None


@operator("TASK_FIELD_UNKNOWN")
def field_unknown(ctx):
    """A `field` value naming a field its object does not declare."""
    v = _first(values(ctx.tree), lambda v: v.node.get("kind") == "field" and isinstance(v.node.get("port"), str))
    if v is None:
        return None
    v.node["port"] = "zz_no_such_field"
    return ctx.tree, join(v.pointer, "port")


@operator("TASK_FIELD_TYPE")
def field_of_a_string(ctx):
    """A new `field` value on a string literal."""
    pointer = _add_value(ctx.tree, {"kind": "field", "items": [_string("text")], "port": "length"})
    return ctx.tree, join(pointer, "items", 0)


@operator("TASK_FIELD_TYPE")
def field_of_an_opaque_result(ctx):
    """A new `field` value on the whole result of an operation without an output schema."""
    for t, op in _operation_tasks(ctx):
        if op.get("output") is None and t.group is None and t.depth == 0 and t.section == "tasks":
            pointer = _add_value(ctx.tree, {"kind": "field", "port": "content",
                                            "items": [{"kind": "output", "source": t.id, "port": None}]})
            return ctx.tree, join(pointer, "items", 0)
    return None


@operator("TASK_PREDICATE_TYPE")
def and_of_a_string(ctx):
    """A new `and` whose first operand is a string."""
    pointer = _add_value(ctx.tree, {"kind": "predicate", "predicate": "and",
                                    "items": [_string("yes"), {"kind": "boolean", "boolean": True}]})
    return ctx.tree, join(pointer, "items", 0)


@operator("TASK_PREDICATE_TYPE")
def ordering_of_mixed_kinds(ctx):
    """A new `less` between a number and a string."""
    pointer = _add_value(ctx.tree, {"kind": "predicate", "predicate": "less",
                                    "items": [{"kind": "number", "number": 1}, _string("2")]})
    return ctx.tree, join(pointer, "items", 1)


@operator("TASK_PREDICATE_TYPE")
def operand_of_an_existing_predicate(ctx):
    """An operand of an existing `and`/`or`/`not` replaced by a number."""
    v = _first(values(ctx.tree), lambda v: v.node.get("kind") == "predicate" and v.node.get("predicate") in ("and", "or", "not")
               and seq(v.node, "items"))
    if v is None:
        return None
    v.node["items"][0] = {"kind": "number", "number": 1}
    return ctx.tree, join(v.pointer, "items", 0)


@operator("TASK_CONDITION_TYPE")
def condition_of_text(ctx):
    """A conditional's condition replaced by a string literal."""
    t = _first(tasks(ctx.tree), lambda t: t.kind == "conditional")
    if t is None:
        return None
    t.node["condition"] = _string("yes")
    return ctx.tree, join(t.pointer, "condition")


@operator("TASK_CONDITION_TYPE")
def condition_of_a_number(ctx):
    """A new conditional whose condition is a number."""
    pointer = _append_task(ctx.tree, {"id": fresh_id(ctx.tree), "kind": "conditional", "objective": OBJECTIVE,
                                      "condition": {"kind": "number", "number": 1},
                                      "body": {"tasks": [_value_task(ctx.tree, _string(), task_id=fresh_id(ctx.tree, "then"))]}})
    return ctx.tree, join(pointer, "condition")


@operator("TASK_ITEMS_INVALID")
def items_of_text(ctx):
    """A foreach's items replaced by a string literal."""
    t = _first(tasks(ctx.tree), lambda t: t.kind == "foreach")
    if t is None:
        return None
    t.node["items"] = _string("a,b,c")
    return ctx.tree, join(t.pointer, "items")


@operator("TASK_ITEMS_INVALID")
def new_foreach_over_a_number(ctx):
    """A new foreach over a number."""
    pointer = _append_task(ctx.tree, {"id": fresh_id(ctx.tree), "kind": "foreach", "objective": OBJECTIVE,
                                      "items": {"kind": "number", "number": 3},
                                      "body": {"tasks": [_value_task(ctx.tree, {"kind": "index"}, task_id=fresh_id(ctx.tree, "each"))]}})
    return ctx.tree, join(pointer, "items")


# ================================================================ artifacts


@operator("TASK_ARTIFACT_BINDING")
def literal_for_an_artifact(ctx):
    """A binding of an artifact-consuming port replaced by a literal of the port's type."""
    for t, op in _operation_tasks(ctx):
        consumes = _artifacts(op, "consumes")
        for j, b in enumerate(seq(t.node, "inputs")):
            if b.get("name") in consumes:
                literal = _literal(op.get("input") or {}, _schema(op, b["name"]))
                if literal is None:
                    continue
                b["value"] = literal
                return ctx.tree, join(t.pointer, "inputs", j, "value")
    return None


@operator("TASK_ARTIFACT_PREREQUISITE_MISSING")
def consumer_without_producer(ctx):
    """A new operation task calling an operation that consumes an artifact kind no task of
    the plan produces, every required port bound to a fitting literal: at the consuming binding."""
    produced = set()
    for t, op in _operation_tasks(ctx):
        produced |= set(_artifacts(op, "produces").values())
    for ident, versions in sorted(_operations(ctx).items()):
        if len(versions) != 1:
            continue
        op = versions[0]
        consumes = _artifacts(op, "consumes")
        missing = [p for p, k in consumes.items() if k not in produced]
        if not missing:
            continue
        schema = op.get("input") or {}
        required = [p for p in schema.get("required") or [] if p not in (op.get("fixed") or {})]
        if any(p in consumes and p not in missing for p in required):
            continue
        bindings = []
        for name in required:
            literal = _literal(schema, (schema.get("properties") or {}).get(name))
            if literal is None:
                break
            bindings.append({"name": name, "value": literal})
        else:
            if missing[0] not in required:
                continue
            pointer = _append_task(ctx.tree, {"id": fresh_id(ctx.tree), "objective": OBJECTIVE, "operation": ident,
                                              "inputs": bindings})
            return ctx.tree, join(pointer, "inputs", required.index(missing[0]), "value")
    return None


@operator("TASK_ARTIFACT_BINDING")
def artifact_as_json_text(ctx):
    """A binding of a string artifact-consuming port wrapped in `json` (new text, no origin)."""
    for t, op in _operation_tasks(ctx):
        consumes = _artifacts(op, "consumes")
        for j, b in enumerate(seq(t.node, "inputs")):
            if b.get("name") in consumes and _simple_kind(_schema(op, b["name"])) == "string":
                b["value"] = {"kind": "json", "items": [b["value"]]}
                return ctx.tree, join(t.pointer, "inputs", j, "value")
    return None


# ================================================================ usage (warnings)


@operator("TASK_OUTPUT_UNUSED")
def body_exports_a_value_nothing_reads(ctx):
    """A sequence or foreach body gains an output (a literal) that nothing reads: at its name."""
    for t in tasks(ctx.tree):
        body = t.node.get("body")
        if t.kind in ("sequence", "foreach") and isinstance(body, dict):
            outputs = body.get("outputs") if isinstance(body.get("outputs"), list) else []
            taken = {o.get("name") for o in outputs if isinstance(o, dict)}
            name = next(f"unread_{i}" for i in range(len(taken) + 1) if f"unread_{i}" not in taken)
            outputs.append({"name": name, "value": _string("never read")})
            body["outputs"] = outputs
            return ctx.tree, join(t.pointer, "body", "outputs", len(outputs) - 1, "name")
    return None


@operator("TASK_OUTPUT_UNUSED")
def value_task_nothing_reads(ctx):
    """A new value task at the end of the root scope whose output nothing reads: at its name."""
    pointer = _append_task(ctx.tree, _value_task(ctx.tree, _string()))
    return ctx.tree, join(pointer, "outputs", 0, "name")
