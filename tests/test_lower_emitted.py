"""Lowering makes each step's emitted data (`Step.data`) with the step, and `to_data()`
assembles it; the general rendering (`graph._step_data` of the step's fields) is what a
step without it (built elsewhere, or a copy) is emitted from. The two must agree on
every step of every graph lowering makes: the bundled example, every valid fixture,
generated plans of every construct. And lowering's memoised JSON Schemas are
`to_json_schema`'s, on random types."""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings

from taskplan import api
from taskplan.ir import graph as graph_ir
from taskplan.model.btype import ANY, make, to_json_schema
from taskplan.passes.lower import _Lowerer

from test_btype_hypothesis import btypes
from test_graph_check_self_check import CASES

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"
if str(BENCHMARKS) not in sys.path:
    sys.path.insert(0, str(BENCHMARKS))
from generate import catalog as generated_catalog  # noqa: E402
from generate import plan as generated_plan  # noqa: E402


def _compile(plan, catalogs, choose):
    result = api.compile_plan(plan, catalogs=catalogs, choose=choose, auto=True)
    assert result.graph is not None, [(d.code, d.message) for d in result.diagnostics]
    return result.graph


def _assert_emitted_is_general(g: graph_ir.PlanningGraph) -> None:
    steps = g.steps()
    assert steps
    for wf, step in steps:
        assert step.data is not None, (wf.name, step.id)
        general = copy.copy(step)
        general.data = None
        assert graph_ir._step_data(general) == step.data, (wf.name, step.id)
        # the same keys in the same order (YAML writes them in order)
        assert json.dumps(graph_ir._step_data(general)) == json.dumps(step.data), (wf.name, step.id)
    copied = copy.deepcopy(g)  # a copy is rendered from its fields, to the same data
    assert all(s.data is None for _, s in copied.steps())
    assert json.dumps(copied.to_data()) == json.dumps(g.to_data())


@pytest.mark.parametrize("name", [n for n in CASES if n != "generated-31"])
def test_emitted_steps_are_the_general_rendering(name):
    plan, catalogs, choose = CASES[name]
    _assert_emitted_is_general(_compile(plan, catalogs, choose))


@pytest.mark.parametrize("n", [15, 31, 76])
def test_emitted_steps_of_generated_plans(tmp_path, n):
    plan = tmp_path / "generated.taskplan.json"
    plan.write_text(json.dumps(generated_plan(n, 40)))
    catalog = tmp_path / "generated.catalog.json"
    catalog.write_text(json.dumps(generated_catalog(40)))
    _assert_emitted_is_general(_compile(plan, [catalog], {}))


class _Bare(_Lowerer):
    def __init__(self):  # only the schema memo
        self.schemas = {}


@settings(max_examples=300, deadline=None)
@given(btypes())
def test_memoised_schemas_are_to_json_schema(t):
    lowerer = _Bare()
    assert lowerer._schema(t) == to_json_schema(t)
    assert json.dumps(lowerer._schema(t)) == json.dumps(to_json_schema(t))
    assert lowerer._schema(None) == {}


def test_memoised_schemas_of_edge_types():
    lowerer = _Bare()
    never_items = make("array", items=make("never"))
    for t in (ANY, make("never"), make("null"), never_items, make("array"), make("object", closed=True)):
        assert lowerer._schema(t) == to_json_schema(t)
