"""The operation-task fast paths of the structure and identity passes agree with the
general paths they stand in for:

- structure (`_Structure.plain_operation`): an operation task with an objective and
  bindings of plain values is skipped without calling `task`;
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
    def plain_operation(self, task) -> bool:
        return False  # every operation task through `task`


class _GeneralIdentity(identity_pass._Identity):
    def tasks(self, tasks: list, prefix: str) -> None:
        for i, t in enumerate(tasks):
            self.task(t, f"{prefix}{i}")


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
