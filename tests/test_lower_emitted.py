"""Lowering makes each step's emitted data (`Step.data`) with the step, and each
workflow's (`Workflow.data`) with the workflow, and `to_data()` assembles them; the general
rendering (`graph._step_data` of the step's fields, `graph._workflow_data` of the
workflow's parts) is what a step or workflow without it (built elsewhere, or a copy) is
emitted from. The two must agree on every step and workflow of every graph lowering
makes: the bundled example, every valid fixture, generated plans of every construct. And lowering's memoised JSON Schemas are
`to_json_schema`'s (and `strict_schema`'s), on random types, one dict shared by the types
of one schema."""

from __future__ import annotations

import copy
import dataclasses
import json
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from taskplan import api
from taskplan.ir import graph as graph_ir
from taskplan.model.btype import ANY, Field, make, to_json_schema
from taskplan.passes.lower import _Lowerer, strict_schema

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
    for wf in g.workflows.values():  # each workflow's data, made by lowering, is its parts rendered
        assert wf.data is not None, wf.name
        general = copy.copy(wf)
        general.data = None
        assert json.dumps(graph_ir._workflow_data(general)) == json.dumps(wf.data), wf.name
        # and it holds the very data of its steps (a step's data is what it emits)
        assert all(a is s.data for a, s in zip(wf.data["steps"], wf.steps))
        assert all(a is s.data for a, s in zip(wf.data.get("finally", ()), wf.finally_))
    copied = copy.deepcopy(g)  # a copy is rendered from its fields, to the same data
    assert all(s.data is None for _, s in copied.steps())
    assert all(wf.data is None for wf in copied.workflows.values())
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
    def __init__(self):  # only the schema memos
        self.schemas = {}
        self.interned = {}
        self.strict = {}
        self.any_schema = {}


@settings(max_examples=300, deadline=None)
@given(btypes())
def test_memoised_schemas_are_to_json_schema(t):
    lowerer = _Bare()
    assert lowerer._schema(t) == to_json_schema(t)
    assert json.dumps(lowerer._schema(t)) == json.dumps(to_json_schema(t))
    assert lowerer._schema(None) == {}


def _described(t, description):
    return dataclasses.replace(t, description=description)


DESCRIPTIONS = st.sampled_from([None, "", "d", "e"])
LEAVES = st.one_of(
    st.sampled_from([make(k) for k in ("string", "integer", "number", "boolean", "null", "any", "never")]),
    st.builds(
        lambda e, n: make("string", enum=e, nullable=n),
        st.lists(st.sampled_from("abc"), min_size=1, max_size=2, unique=True),
        st.booleans(),
    ),
    st.builds(lambda c, n: make("string", const=c, nullable=n), st.sampled_from("abc"), st.booleans()),
)
SCHEMA_TYPES = st.recursive(
    st.builds(_described, LEAVES, DESCRIPTIONS),
    lambda children: st.builds(
        _described,
        st.one_of(
            st.builds(lambda c, n: make("array", items=c, nullable=n), children, st.booleans()),
            st.builds(lambda n: make("array", items=make("never"), nullable=n), st.booleans()),
            st.builds(
                lambda fs, closed, n: make(
                    "object", fields=[Field(k, v, r) for k, (v, r) in fs.items()], closed=closed, nullable=n
                ),
                st.dictionaries(st.sampled_from("xyz"), st.tuples(children, st.booleans()), max_size=3),
                st.booleans(),
                st.booleans(),
            ),
            st.builds(lambda c: c.with_nullable(True), children),
        ),
        DESCRIPTIONS,
    ),
    max_leaves=6,
)
"""Types whose schemas often coincide (few names, values and descriptions), with what the
generic strategy leaves out: descriptions at every depth, `never`, arrays of `never`."""


@settings(max_examples=300, deadline=None)
@given(st.lists(SCHEMA_TYPES, min_size=1, max_size=6))
def test_shared_schemas_are_the_schemas_of_each_type(types):
    """Lowering makes one schema dict for the types of one schema: each type's is its
    `to_json_schema` (key order included), and two types share a dict only when their
    schemas are equal; likewise the strict schema of a transform's result (`strict_schema`)."""
    lowerer = _Bare()
    made = [(t, lowerer._schema(t), lowerer._strict_schema(t)) for t in types]
    for t, schema, strict in made:
        assert json.dumps(schema) == json.dumps(to_json_schema(t))
        assert json.dumps(strict) == json.dumps(strict_schema(t))
        assert lowerer._schema(t) is schema and lowerer._strict_schema(t) is strict
    for t, schema, strict in made:
        for u, other, other_strict in made:
            if other is schema:
                assert json.dumps(to_json_schema(u)) == json.dumps(to_json_schema(t))
            if other_strict is strict:
                assert json.dumps(strict_schema(u)) == json.dumps(strict_schema(t))
    for t, schema, strict in made:
        for u, other, other_strict in made:
            if repr(u) == repr(t):  # equal types, descriptions at every depth included: one dict
                assert other is schema and other_strict is strict


def test_equal_types_share_one_schema():
    lowerer = _Bare()
    def shape():
        return make("object", fields=[Field("a", make("string")), Field("b", make("array", items=make("integer")), False)])

    first, second = shape(), shape()
    assert first is not second
    assert lowerer._schema(first) is lowerer._schema(second)
    assert lowerer._schema(first)["properties"]["b"] is lowerer._schema(second)["properties"]["b"]
    assert lowerer._strict_schema(first) is lowerer._strict_schema(second)
    described = dataclasses.replace(shape(), description="other")
    assert lowerer._schema(described) is not lowerer._schema(first)
    assert lowerer._schema(described) == to_json_schema(described)
    assert lowerer._schema(None) is lowerer._schema(None) and lowerer._schema(None) == {}


def test_memoised_schemas_of_edge_types():
    lowerer = _Bare()
    never_items = make("array", items=make("never"))
    for t in (ANY, make("never"), make("null"), never_items, make("array"), make("object", closed=True)):
        assert lowerer._schema(t) == to_json_schema(t)


def test_schema_keys_are_equal_exactly_when_schemas_are():
    """`_schema_key` on types whose parts could be taken for one another: a leaf field
    and a nested one, descriptions on a field's type or on the object, const against a
    one-value enum, null in the values, required or optional, arrays of never and of any,
    field names that are kind names. Two keys are equal exactly when the schemas are (but
    for the description of an array's `never` items, which its key keeps and its schema
    does not show: two dicts for one schema, never one dict for two)."""
    from taskplan.passes.lower import _schema_key

    def obj(*fields, **kw):
        return make("object", fields=list(fields), **kw)

    string, integer = make("string"), make("integer")
    types = [
        obj(Field("a", string)),
        obj(Field("a", string, False)),
        obj(Field("a", _described(string, "d"))),
        _described(obj(Field("a", string)), "d"),
        obj(Field("a", obj(Field("a", string)))),
        obj(Field("a", obj())),
        obj(Field("a", obj(), False)),
        obj(Field("a", obj(closed=True))),
        obj(Field("a", make("array", items=string))),
        obj(Field("a", make("array", items=make("never")))),
        obj(Field("a", make("array"))),
        obj(Field("a", make("array", items=obj(Field("string", integer))))),
        obj(Field("string", integer)),
        obj(Field("a", make("string", const="x"))),
        obj(Field("a", make("string", enum=["x"]))),
        obj(Field("a", make("string", enum=["x"], nullable=True))),
        obj(Field("a", make("string", nullable=True))),
        obj(Field("a", make("null"))),
        obj(Field("a", string), Field("b", integer)),
        obj(Field("b", integer), Field("a", string)),
        obj(Field("a", string), Field("b", make("array", items=integer))),
        make("array", items=obj(Field("a", string))),
        make("array", items=make("never")),
        make("array", items=ANY),
        obj(Field("a", string), closed=True),
        obj(Field("a", string), nullable=True),
    ]
    for t in types:
        for u in types:
            same_schema = json.dumps(to_json_schema(t)) == json.dumps(to_json_schema(u))
            assert (_schema_key(t) == _schema_key(u)) == same_schema, (t, u)
    described_never = make("array", items=_described(make("never"), "d"))
    assert _schema_key(described_never) != _schema_key(make("array", items=make("never")))
    # a type built again part by part has the key of the first
    assert _schema_key(obj(Field("a", obj(Field("b", string))))) == _schema_key(obj(Field("a", obj(Field("b", make("string"))))))
