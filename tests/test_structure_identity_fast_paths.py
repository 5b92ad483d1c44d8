"""The operation-task fast paths of the structure and identity passes agree with the
general paths they stand in for:

- structure (`_Structure.tasks`, `_Structure.quiet`): an operation task with an objective and
  bindings of plain values, and any task whose own fields have nothing to report, are
  told without calling `task`;
- identity (`_Identity.tasks`): an operation task's ID is declared and its bindings
  are found to hold nothing to report inline, without calling `task` / `named_values`.

Each plan is checked twice, by the passes and by the passes with every operation task
taking the general path (`task`); the diagnostics, in the order reported (and for
identity the table), must be the same."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from taskplan.config import Limits
from taskplan.diagnostics import Diagnostics, Reporter
from taskplan.passes import identity as identity_pass
from taskplan.passes import structure as structure_pass
from taskplan.passes.shape import shape
from taskplan.source.read import read_document


class _GeneralStructure(structure_pass._Structure):
    fast_paths = False  # every task through `task`


class _GeneralIdentity(identity_pass._Identity):
    fast_paths = False  # every task through `task`


_VALUES = st.sampled_from(
    [
        {"kind": "null"},
        {"kind": "string", "text": "x"},
        {"kind": "boolean", "boolean": True},
        {"kind": "number", "number": 10},
        {"kind": "number", "number": 2**53},
        {"kind": "number", "number": -(2**53) + 1},
        {"kind": "number", "number": 1.5},
        {"kind": "input", "source": "topic"},
        {"kind": "output", "source": "a", "port": "id"},
        {"kind": "choice", "source": "c"},
        {"kind": "item"},
        {"kind": "index"},
        {"kind": "present", "source": "a"},
        {"kind": "json", "items": [{"kind": "item"}]},
        {"kind": "json", "items": []},
        {"kind": "array", "items": [{"kind": "object", "members": [{"name": "m", "value": {"kind": "null"}}]}]},
        {"kind": "object", "members": [{"name": "m", "value": {"kind": "null"}}, {"name": "m", "value": {"kind": "null"}}]},
        {"kind": "predicate", "predicate": "nope", "items": []},
        {"kind": "field", "port": "p", "items": [{"kind": "number", "number": 2**60}]},
    ]
)
_IDS = st.sampled_from(["a", "b", "a", "bad id", "__x", "", "x" * 65, "ok-1_2"])
_NAMES = st.sampled_from(["query", "limit", "query", "bad name", ""])
_OBJECTIVES = st.sampled_from([None, "", "   ", "Call it", "\n"])

_OPERATION = st.builds(
    lambda ident, objective, inputs: {
        "id": ident,
        "operation": "svc.op",
        **({} if objective is None else {"objective": objective}),
        "inputs": [{"name": n, "value": v} for n, v in inputs],
    },
    _IDS,
    _OBJECTIVES,
    st.lists(st.tuples(_NAMES, _VALUES), max_size=3),
)
_TASKS = st.lists(
    st.one_of(
        _OPERATION,
        _OPERATION.map(lambda t: {"id": "s", "kind": "sequence", "objective": "s", "body": {"tasks": [t]}}),
    ),
    max_size=6,
)


def _run(doc: dict, depth: int, general: bool) -> tuple[list, list, list]:
    sink = Diagnostics()
    document = read_document(json.dumps(doc).encode(), "t.json", sink)
    limits = Limits(max_value_depth=depth)
    plan = shape(document, Reporter(document, sink), limits)
    assert plan is not None
    found = Diagnostics()
    reporter = Reporter(document, found)
    (_GeneralStructure if general else structure_pass._Structure)(reporter, limits).plan(plan)
    walker = (_GeneralIdentity if general else identity_pass._Identity)(reporter)
    walker.plan(plan)
    table = walker.table
    declared = [(d.id, d.kind, d.pointer, d.valid, d.copies) for d in table.declarations.values()]
    diagnostics = [(d.code, d.location.pointer, d.message) for d in found._items]
    return diagnostics, declared, sorted(table.bad_names | table.copies | table.invalid_ids)


@settings(max_examples=300, deadline=None)
@given(_TASKS, _TASKS, st.sampled_from([0, 1, 2, 32]))
def test_inline_operation_paths_agree_with_the_general_paths(tasks, always, depth):
    doc = {"version": 1, "root": {"tasks": tasks, "always": always}}
    assert _run(doc, depth, False) == _run(doc, depth, True)


# Every task kind, with fields `_Structure.quiet` must refuse or accept exactly as `task`
# reports about them: objectives, bounds, branch counts, branch outputs, conditions, items,
# resultTypes (strict or not), nested values at every depth limit.

_TYPES = st.deferred(
    lambda: st.one_of(
        st.sampled_from(
            [
                {"kind": "string"},
                {"kind": "number"},
                {"kind": "boolean", "nullable": True},
                {"kind": "any"},
                {"kind": "strng"},
                {"kind": "array"},
                {"kind": "string", "enum": ["a", "b"]},
                {"kind": "string", "enum": ["a", "a"]},
                {"kind": "number", "enum": ["a"]},
                {"kind": "object"},
                {"kind": "string", "items": {"kind": "string"}},
            ]
        ),
        st.builds(lambda t: {"kind": "array", "items": t}, _TYPES),
        st.builds(
            lambda fields: {"kind": "object", "fields": fields},
            st.lists(
                st.builds(
                    lambda n, t, req, default: {
                        "name": n,
                        "type": t,
                        **({} if req is None else {"required": req}),
                        **({} if default is None else {"default": default}),
                    },
                    _NAMES,
                    _TYPES,
                    st.sampled_from([None, True, False]),
                    st.sampled_from([None, {"kind": "string", "text": "d"}]),
                ),
                max_size=3,
            ),
        ),
    )
)
_FIELD_TYPES = st.sampled_from(
    [
        {"kind": "string"},
        {"kind": "integer", "nullable": True},
        {"kind": "any"},
        {"kind": "array"},
        {"kind": "array", "items": {"kind": "boolean"}},
        {"kind": "array", "items": {"kind": "any"}},
        {"kind": "string", "items": {"kind": "string"}},
        {"kind": "number", "fields": [{"name": "f", "type": {"kind": "string"}}]},
        {"kind": "object"},
        {"kind": "object", "fields": [{"name": "f", "type": {"kind": "string"}}]},
        {"kind": "object", "fields": [{"name": "f", "type": {"kind": "string"}, "required": False}]},
        {"kind": "string", "enum": ["a"]},
        {"kind": "string", "enum": ["a", "a"]},
    ]
)
_STRICTISH = st.builds(
    lambda fields, nullable: {"kind": "object", "fields": fields, **({"nullable": True} if nullable else {})},
    st.lists(
        st.builds(
            lambda n, t, req: {"name": n, "type": t, **({} if req is None else {"required": req})},
            st.sampled_from(["f", "g", "h"]),
            _FIELD_TYPES,
            st.sampled_from([None, None, False]),
        ),
        max_size=3,
    ),
    st.booleans(),
)
_RESULTS = st.one_of(_TYPES, _TYPES.map(lambda t: {**t, "nullable": True}), _STRICTISH)
_OUTS = st.lists(st.tuples(_NAMES, _VALUES), max_size=3).map(lambda xs: [{"name": n, "value": v} for n, v in xs])
_COMMON = st.fixed_dictionaries({"id": st.sampled_from(["a", "b", "c", "d", "e", "a", "bad id", "__x", ""]), "objective": st.sampled_from(["Do it"] * 6 + ["", " "])})


def _task(children):
    scope = st.fixed_dictionaries({"tasks": st.lists(children, max_size=2)}, optional={"outputs": _OUTS, "always": st.lists(children, max_size=1)})
    def kind(name, required, **optional):
        fields = st.fixed_dictionaries(required, optional=optional)
        return st.tuples(_COMMON, fields).map(lambda cf: {**cf[0], "kind": name, **cf[1]})
    bound = st.sampled_from([0, 1, 4, 100, 101, 10_000, 10_001])
    return st.one_of(
        _OPERATION,
        kind("value", {"outputs": _OUTS}),
        kind("call", {"group": st.just("g"), "inputs": _OUTS}),
        kind("transform", {"inputs": _OUTS, "resultType": _RESULTS}),
        kind("sequence", {"body": scope}),
        kind("foreach", {"items": _VALUES, "body": scope}, maxItems=bound, maxConcurrency=bound),
        kind("conditional", {"condition": _VALUES, "body": scope}, otherwise=scope),
        kind("parallel", {"branches": st.lists(scope, max_size=3)}, maxConcurrency=bound),
        st.just({"id": "broken", "kind": "nope", "objective": "x"}),
    )


_ANY_TASKS = st.lists(st.recursive(_OPERATION, _task, max_leaves=8), max_size=4)


@settings(max_examples=400, deadline=None)
@given(_ANY_TASKS, _ANY_TASKS, st.sampled_from([0, 1, 2, 3, 32]))
def test_quiet_tasks_agree_with_the_rules_walk(tasks, always, depth):
    doc = {"version": 1, "root": {"tasks": tasks, "always": always}}
    assert _run(doc, depth, False) == _run(doc, depth, True)


def test_quiet_tasks_of_the_benchmark_plan_agree_with_the_rules_walk():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from generate import plan

    doc = plan(200, 50)
    assert _run(doc, 32, False) == _run(doc, 32, True)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(_STRICTISH, _RESULTS), min_size=1, max_size=3))
def test_quiet_transforms_agree_with_the_rules_walk(results):
    tasks = [{"id": f"t{i}", "kind": "transform", "objective": "Judge", "resultType": r} for i, r in enumerate(results)]
    doc = {"version": 1, "root": {"tasks": tasks}}
    assert _run(doc, 32, False) == _run(doc, 32, True)


def test_quiet_transform_fields_agree_with_the_rules_walk_exhaustively():
    """Every field type of `_FIELD_TYPES` (and nested in an array and an object), required
    or not, with or without a default, in a nullable result or not."""
    import itertools

    kinds = list(_FIELD_TYPES.elements)
    kinds += [{"kind": "array", "items": k} for k in _FIELD_TYPES.elements]
    kinds += [{"kind": "object", "fields": [{"name": "n", "type": k}]} for k in _FIELD_TYPES.elements]
    for field_type, required, default, nullable in itertools.product(kinds, [None, False], [None, {"kind": "string", "text": "d"}], [False, True]):
        field = {"name": "f", "type": field_type, **({} if required is None else {"required": required})}
        if default is not None:
            field["default"] = default
        result = {"kind": "object", "fields": [field], **({"nullable": True} if nullable else {})}
        doc = {"version": 1, "root": {"tasks": [{"id": "t", "kind": "transform", "objective": "Judge", "resultType": result}]}}
        assert _run(doc, 32, False) == _run(doc, 32, True), result


_DUPLICATE_MEMBERS = {"kind": "object", "members": [{"name": "m", "value": {"kind": "null"}}, {"name": "m", "value": {"kind": "null"}}]}
_BAD_MEMBER = {"kind": "array", "items": [{"kind": "object", "members": [{"name": "bad name", "value": {"kind": "null"}}]}]}


def test_names_inside_every_task_field_agree_with_the_general_path():
    """A value or type with names to report in each field of each task kind that
    `_Identity.tasks` tells inline (and `_Structure.quiet` accepts)."""
    scope = {"tasks": [{"id": "x", "operation": "svc.op", "objective": "Do"}]}
    fields = [
        ("value", "outputs", [{"name": "o", "value": _DUPLICATE_MEMBERS}]),
        ("call", "inputs", [{"name": "o", "value": _BAD_MEMBER}]),
        ("transform", "inputs", [{"name": "o", "value": _DUPLICATE_MEMBERS}, {"name": "o", "value": {"kind": "null"}}]),
        ("conditional", "condition", _DUPLICATE_MEMBERS),
        ("conditional", "condition", {"kind": "predicate", "predicate": "not", "items": [_BAD_MEMBER]}),
        ("foreach", "items", _BAD_MEMBER),
    ]
    results = [
        {"kind": "object", "fields": [{"name": "f", "type": {"kind": "string"}, "default": _DUPLICATE_MEMBERS}]},
        {"kind": "object", "fields": [{"name": "f", "type": {"kind": "string"}, "default": {"kind": "string", "text": "d"}}]},
        {"kind": "object", "fields": [{"name": "f", "type": {"kind": "object", "fields": [{"name": "g", "type": {"kind": "string"}}, {"name": "g", "type": {"kind": "string"}}]}}]},
        {"kind": "object", "fields": [{"name": "f", "type": {"kind": "array", "items": {"kind": "object", "fields": [{"name": "bad name", "type": {"kind": "string"}}]}}}]},
        {"kind": "array", "items": {"kind": "object", "fields": [{"name": "f", "type": {"kind": "string"}}, {"name": "f", "type": {"kind": "string"}}]}},
        {"kind": "object", "fields": [{"name": "f", "type": {"kind": "string"}}, {"name": "f", "type": {"kind": "string"}}]},
        {"kind": "object", "fields": [{"name": "f", "type": {"kind": "string"}}, {"name": "g", "type": {"kind": "string"}}]},
    ]
    tasks = []
    for kind, name, value in fields:
        task = {"id": f"t{len(tasks)}", "kind": kind, "objective": "Do", name: value}
        task.setdefault("inputs" if kind == "transform" else "body", scope)
        if kind == "transform":
            task["resultType"] = results[-1]
        elif kind == "call":
            task["group"] = "g"
            del task["body"]
        elif kind == "value":
            del task["body"]
        tasks.append(task)
    tasks += [{"id": f"r{i}", "kind": "transform", "objective": "Do", "resultType": r} for i, r in enumerate(results)]
    for task in tasks:
        doc = {"version": 1, "root": {"tasks": [task]}}
        general = _run(doc, 32, True)
        if task["id"] != f"r{len(results) - 1}":  # (the last result: a clean one)
            assert general[0], task  # each other one has something to report
        assert _run(doc, 32, False) == general, task


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=70) | st.from_regex(r"[A-Za-z0-9_\-é\n ]{0,70}", fullmatch=True))
def test_the_charset_check_agrees_with_strip(text):
    """`identity`'s check (an ASCII identifier, else `strip`) is `not text.strip(ID_CHARS)`."""
    expected = 0 < len(text) <= identity_pass.ID_MAX and not text.strip(identity_pass.ID_CHARS)
    assert identity_pass.is_valid_id(text) == (expected and not text.startswith("__"))
    assert identity_pass._plain_named([_output(text)], True) == expected


def _output(name: str):
    from taskplan.model.plan import NullValue, TaskOutput

    return TaskOutput(name=name, value=NullValue(kind="null"))


def test_the_inline_declaration_has_every_field_of_the_dataclass():
    """`_Identity.tasks` builds a `Declaration` without its `__init__`: the fields it sets
    are all of them (a field added to the class must be added there too)."""
    import dataclasses

    from taskplan.ir.checked import Declaration

    doc = {"version": 1, "root": {"tasks": [{"id": "a", "operation": "svc.op", "objective": "Do"}]}}
    sink = Diagnostics()
    document = read_document(json.dumps(doc).encode(), "t.json", sink)
    plan = shape(document, Reporter(document, sink), Limits())
    walker = identity_pass._Identity(Reporter(document, sink))
    walker.plan(plan)
    built = walker.table.declarations["a"]
    expected = Declaration("a", "task", "/root/tasks/0", plan.root.tasks[0], True)
    for f in dataclasses.fields(Declaration):
        assert getattr(built, f.name) == getattr(expected, f.name), f.name


def test_unformatted_pointers_format_as_the_f_strings_they_stand_for():
    """`structure._pointer` (the pointers `tasks` and `inside` pass on as tuples) gives what
    the general path's f-strings give, at any nesting."""
    ptr = "/root"
    lazy: object = "/root"
    for where, i, child in [("tasks", 3, ("body",)), ("always", 0, ("branches", 1)), ("tasks", 12, ("otherwise",))]:
        assert structure_pass._pointer((lazy, where, i)) == f"{ptr}/{where}/{i}"
        lazy, ptr = ((lazy, where, i), *child), f"{ptr}/{where}/{i}/" + "/".join(map(str, child))
        assert structure_pass._pointer(lazy) == ptr
    assert structure_pass._pointer("/groups/0/body") == "/groups/0/body"


def test_the_index_table_is_str_of_each_position_and_grows():
    """`identity._indices(n)` (the list positions `tasks` concatenates to its prefix) holds
    `str(i)` at every `i < n`, past the table it starts with too; the pointers of a list
    longer than that table are the general path's."""
    start = len(identity_pass._INDICES)
    table = identity_pass._indices(start + 5)
    assert len(table) >= start + 5 and all(text == str(i) for i, text in enumerate(table))
    assert identity_pass._indices(3) is identity_pass._INDICES
    n = len(identity_pass._INDICES) + 3
    doc = {"version": 1, "root": {"tasks": [{"id": f"t{i}", "operation": "svc.op", "objective": "Do"} for i in range(n)]}}
    sink = Diagnostics()
    document = read_document(json.dumps(doc).encode(), "t.json", sink)
    plan = shape(document, Reporter(document, sink), Limits())
    walker = identity_pass._Identity(Reporter(document, sink))
    walker.plan(plan)
    assert [d.pointer for d in walker.table.declarations.values()] == [f"/root/tasks/{i}" for i in range(n)]
