"""The fast paths of lowering and of the graph's data held to the general way, on
random input: `generated_id` (each part's plainness remembered), the path builders (a name's
segment remembered; a task's or a generated step's ID, a captured task's input name not
tested), `render_tree`
(leaves of a mapping inline), a step's data (fields dispatched by a table), the Expr,
Literal and Step (and Workflow, WorkflowInput, WorkflowOutput) made without a class call and the IDs of a
task's fixed roles; a port read from its task's step (its path inline), and an operation's
binding that reads a port (its commonest case inline) held to the general read."""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from taskplan import api
from taskplan.ir import graph
from taskplan.ir.graph import Expr, Literal, Step
from taskplan.passes.lower import clean_segment, generated_id, role_id
from taskplan.passes import lower
from taskplan.workflow import dialect

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT / "benchmarks") not in sys.path:
    sys.path.insert(0, str(ROOT / "benchmarks"))
from generate import catalog as generated_catalog  # noqa: E402
from generate import plan as generated_plan  # noqa: E402

_NAME_RE = re.compile(r"^[A-Za-z0-9_-]+$")

names = st.one_of(
    st.sampled_from(["a", "b-1", "__x", "has.dot", "", "with space", "é", "new\n", "x\ny", "0", "a${b}"]),
    st.text(alphabet="ab_-.é\n ${}", max_size=6),
)


# ------------------------------------------------------------------- references


def reference_quote(name):
    """A JSON string literal whose `${` is written `$\\u007b` (dialect.expression_string)."""
    return json.dumps(name, ensure_ascii=False).replace("${", "$\\u007b")


def reference_segment(name):
    if isinstance(name, int):
        return f"[{name}]"
    return f".{name}" if _NAME_RE.match(name) else f"[{reference_quote(name)}]"


def reference_step_path(step_id, field_name, *names):
    key = f".{step_id}" if _NAME_RE.match(step_id) else f'["{step_id}"]'
    return f"data.steps{key}.{field_name}" + "".join(map(reference_segment, names))


def reference_input_path(name, *names):
    key = f".{name}" if _NAME_RE.match(name) else f"[{reference_quote(name)}]"
    return f"data.inputs{key}" + "".join(map(reference_segment, names))


def reference_render(tree):
    if isinstance(tree, Expr):
        return "${" + tree.text + "}"
    if isinstance(tree, Literal):
        return dialect.escape_literal(tree.value)
    if isinstance(tree, str):
        return dialect.escape_literal(tree)
    if isinstance(tree, dict):
        return {k: reference_render(v) for k, v in tree.items()}
    if isinstance(tree, list):
        return [reference_render(v) for v in tree]
    return tree


_AS_WRITTEN = {"schema", "path", "template", "max_items", "max_concurrency", "call", "workflow", "required", "effect"}


def reference_step_data(step):
    out = {"id": step.id, "type": step.type}
    if step.title:
        out["title"] = step.title
    out["source"] = step.source
    if step.when is not None:
        out["when"] = "${" + step.when.text + "}"
    for name, value in step.fields.items():
        if name in _AS_WRITTEN:
            out[name] = value
        elif name in ("branches", "cases"):
            out[name] = [{k: (reference_render(v) if k in ("input", "when") else v) for k, v in item.items()} for item in value]
        elif name == "default" and isinstance(value, dict):
            out[name] = {k: (reference_render(v) if k == "input" else v) for k, v in value.items()}
        else:
            out[name] = reference_render(value)
    return out


def _text(made):
    """The text of an Expr a path builder made (without calling the class): checked to be
    the Expr the class call makes of it."""
    general = Expr(made.text)
    assert type(made) is Expr
    assert all(getattr(made, name) == getattr(general, name) for name in Expr.__slots__)
    return made.text


# ------------------------------------------------------------------- properties


@settings(max_examples=300, deadline=None)
@given(st.lists(names, min_size=1, max_size=4))
def test_generated_id_is_the_cleaned_segments(parts):
    assert generated_id(*parts) == "__" + ".".join(map(clean_segment, parts))


@settings(max_examples=300, deadline=None)
@given(names, st.sampled_from(["value", "result"]), st.lists(st.one_of(names, st.integers(0, 12), st.booleans()), max_size=3))
def test_paths_are_the_segments(name, field_name, rest):
    assert _text(graph.step_path(name, field_name, *rest)) == reference_step_path(name, field_name, *rest)
    assert _text(graph.input_path(name, *rest)) == reference_input_path(name, *rest)
    assert _text(graph.path("data.item", *rest)) == "data.item" + "".join(map(reference_segment, rest))


class _Dict(dict):
    pass


class _Expr(Expr):
    __slots__ = ()


leaves = st.one_of(
    st.builds(Expr, st.text(max_size=8)),
    st.builds(_Expr, st.text(max_size=8)),
    st.builds(Literal, st.recursive(
        st.one_of(st.text(alphabet="a${}", max_size=5), st.integers(), st.none()),
        lambda c: st.one_of(st.lists(c, max_size=2), st.dictionaries(st.text(alphabet="a$", max_size=3), c, max_size=2)),
        max_leaves=4,
    )),
    st.text(alphabet="ab${}", max_size=6),
    st.integers(),
    st.floats(allow_nan=False),
    st.booleans(),
    st.none(),
)
trees = st.recursive(
    leaves,
    lambda c: st.one_of(
        st.lists(c, max_size=3),
        st.dictionaries(st.text(max_size=3), c, max_size=4),
        st.builds(_Dict, st.dictionaries(st.text(max_size=3), c, max_size=2)),
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(trees)
def test_render_tree_is_the_general_rendering(tree):
    assert graph.render_tree(tree) == reference_render(tree)


field_values = st.fixed_dictionaries(
    {},
    optional={
        "input": trees,
        "value": trees,
        "from": st.builds(Expr, st.text(max_size=5)),
        "schema": st.dictionaries(st.text(max_size=3), st.text(max_size=3), max_size=2),
        "path": st.lists(st.text(max_size=3), max_size=2),
        "effect": st.sampled_from(["read", "write"]),
        "workflow": st.text(max_size=4),
        "branches": st.lists(st.fixed_dictionaries({"call": st.text(max_size=3)}, optional={"input": trees}), max_size=2),
        "cases": st.lists(st.fixed_dictionaries({"when": st.builds(Expr, st.text(max_size=4)), "call": st.text(max_size=3)}, optional={"input": trees}), max_size=2),
        "default": st.fixed_dictionaries({"call": st.text(max_size=3)}, optional={"input": trees}),
        "items": st.builds(Expr, st.text(max_size=5)),
        "max_items": st.integers(0, 5),
    },
)


@settings(max_examples=300, deadline=None)
@given(field_values, st.one_of(st.none(), st.builds(Expr, st.text(max_size=4))), st.one_of(st.none(), st.text(max_size=3)))
def test_step_data_is_the_general_rendering(fields, when, title):
    step = Step("s", "set", "/root/tasks/0", fields, ("task", "s"), when, title)
    assert graph._step_data(step) == reference_step_data(step)


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=8))
def test_new_expr_is_the_class_call(text):
    made, general = graph.new_expr(text), Expr(text)
    assert type(made) is Expr
    assert (made.text, made.simple) == (general.text, general.simple)


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=8), st.booleans())
def test_new_expr_with_simple_is_the_class_call(text, simple):
    made, general = graph.new_expr(text, simple), Expr(text, simple=simple)
    assert type(made) is Expr
    assert (made.text, made.simple) == (general.text, general.simple)


@settings(max_examples=100, deadline=None)
@given(st.one_of(st.text(max_size=8), st.none(), st.integers(), st.lists(st.text(max_size=3), max_size=2)))
def test_new_literal_is_the_class_call(value):
    made, general = graph.new_literal(value), Literal(value)
    assert type(made) is Literal
    assert made.value is general.value


def test_lowered_steps_are_the_class_call(tmp_path):
    """Lowering makes each Step without calling the class (`_Lowerer._step`): every slot set,
    as the class call sets it, on every step of a plan of every construct (cleanup steps,
    with their guard, included)."""
    plan = tmp_path / "generated.taskplan.json"
    plan.write_text(json.dumps(generated_plan(31, 40)))
    catalog = tmp_path / "generated.catalog.json"
    catalog.write_text(json.dumps(generated_catalog(40)))
    result = api.compile_plan(plan, catalogs=[catalog], auto=True)
    assert result.graph is not None
    steps = result.graph.steps()
    assert steps and any(s.when is not None for _, s in steps)
    for _, made in steps:
        assert type(made) is Step
        general = Step(made.id, made.type, made.source, made.fields, made.key, made.when, None, made.data)
        assert all(getattr(made, name) is getattr(general, name) for name in Step.__slots__), made.id


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet="abzAZ09_-", min_size=1, max_size=8).filter(lambda s: not s.startswith("__")),
       st.sampled_from(["inputs", "prompt", "call", "validate"]))
def test_role_id_is_generated_id(task_id, role):
    assert role_id(task_id, role) == generated_id(task_id, role)


task_ids = st.text(alphabet="abzAZ09_-", min_size=1, max_size=12).filter(lambda s: not s.startswith("__"))


@settings(max_examples=200, deadline=None)
@given(task_ids, st.sampled_from(["value", "result"]), st.lists(st.one_of(names, st.integers(0, 12)), max_size=3))
def test_task_step_path_is_step_path(task_id, field_name, rest):
    assert _text(graph.task_step_path(task_id, field_name, *rest)) == reference_step_path(task_id, field_name, *rest)


@settings(max_examples=200, deadline=None)
@given(task_ids, st.booleans(), st.lists(st.one_of(names, st.integers(0, 12)), max_size=3))
def test_task_input_path_is_input_path(task_id, hashed, rest):
    # a captured task's input: its task ID, or the ID with a hash (`_distinct_names`)
    name = f"{task_id}-h{hashlib.sha256(task_id.encode()).hexdigest()[:6]}" if hashed else task_id
    assert _text(graph.task_input_path(name, *rest)) == reference_input_path(name, *rest)


@settings(max_examples=200, deadline=None)
@given(st.lists(names, min_size=2, max_size=4), st.sampled_from(["value", "json"]))
def test_generated_step_path_is_step_path(parts, field_name):
    step_id = generated_id(*parts)
    assert _text(graph.generated_step_path(step_id, field_name)) == reference_step_path(step_id, field_name)


def test_remembered_segments_are_bounded():
    for i in range(graph._SEGMENTS_MAX + 10):
        assert graph.path("data.item", f"n{i}", f"a b{i}").text == f'data.item.n{i}["a b{i}"]'
    assert len(graph._SEGMENTS) <= graph._SEGMENTS_MAX


def test_remembered_id_parts_are_bounded():
    from taskplan.passes import lower

    for i in range(lower._PLAIN_PARTS_MAX + 10):
        assert generated_id(f"t{i}", "in", f"a b{i}") == "__" + ".".join(map(clean_segment, (f"t{i}", "in", f"a b{i}")))
    assert len(lower._PLAIN_PARTS) <= lower._PLAIN_PARTS_MAX


def test_new_workflow_input_and_output_are_the_class_calls():
    made, general = graph.new_workflow("w", "/root"), graph.Workflow("w", "/root")
    assert type(made) is graph.Workflow
    assert all(getattr(made, name) == getattr(general, name) for name in graph.Workflow.__slots__)
    assert made.inputs is not graph.new_workflow("w", "/root").inputs  # containers of its own
    schema = {"type": "string"}
    made_input, general_input = graph.new_input(schema), graph.WorkflowInput(schema)
    assert type(made_input) is graph.WorkflowInput
    assert all(getattr(made_input, name) is getattr(general_input, name) for name in graph.WorkflowInput.__slots__)
    expr = Expr("data.inputs.a")
    for out_schema in (schema, None):
        made_output, general_output = graph.new_output(expr, out_schema), graph.WorkflowOutput(expr, out_schema)
        assert type(made_output) is graph.WorkflowOutput
        assert all(getattr(made_output, name) is getattr(general_output, name) for name in graph.WorkflowOutput.__slots__)


class _Task:
    """A task node as `_new_port_read` reads it: its model's class and its ID."""

    __slots__ = ("model", "id")

    def __init__(self, model, task_id):
        self.model, self.id = model, task_id


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet="abzAZ09_-", min_size=1, max_size=8), names)
def test_port_reads_are_task_step_path(task_id, port):
    """A port of a task read from its own step (`_new_port_read`, its path made inline) is
    `task_step_path` of the task's result field: plain and quoted port names alike."""
    reader = object.__new__(lower._Lowerer)
    reader.port_reads = {}
    for cls, field_name in lower._RESULT_FIELDS.items():
        made = reader._new_port_read(_Task(object.__new__(cls), task_id), port)
        general = graph.task_step_path(task_id, field_name, port)
        assert type(made) is Expr and (made.text, made.simple) == (general.text, general.simple)


def _port_plan(tmp_path):
    """Every port read an operation's binding may make, each also made by a value task's
    output (the general way, `_Lowerer._output`): a required port of a task of its scope (the
    binding's fast path), an optional port (a checked projection), a port of a task of an
    enclosing scope (an input of the body's workflow), the whole result."""
    cat = generated_catalog(1)
    out = cat["sources"][0]["operations"][0]["output"]
    out["required"] = [r for r in out["required"] if r != "status"]  # `status`: optional

    def op(task_id, value):
        return {"id": task_id, "objective": "o", "operation": "svc0.op0", "inputs": [{"name": "query", "value": value}]}

    def read(port):
        return {"kind": "output", "source": "p", "port": port}

    plan = {
        "version": 1, "name": "ports",
        "inputs": [{"name": "topic", "type": {"kind": "string"}}],
        "root": {"tasks": [
            op("p", {"kind": "input", "source": "topic"}),
            op("a", read("id")),
            op("b", read("status")),
            {"id": "v", "kind": "value", "objective": "o", "outputs": [
                {"name": "x", "value": read("id")}, {"name": "y", "value": read("status")}]},
            {"id": "w", "kind": "value", "objective": "o", "outputs": [{"name": "x", "value": {"kind": "json", "items": [read(None)]}}]},
            {"id": "s", "kind": "sequence", "objective": "o", "body": {"tasks": [
                op("c", read("id")),
                {"id": "d", "kind": "value", "objective": "o", "outputs": [{"name": "x", "value": read("id")}]},
            ]}},
        ]},
    }
    plan_path = tmp_path / "ports.taskplan.json"
    plan_path.write_text(json.dumps(plan))
    cat_path = tmp_path / "ports.catalog.json"
    cat_path.write_text(json.dumps(cat))
    return plan_path, cat_path


def test_binding_port_reads_are_the_general_reads(tmp_path):
    plan_path, cat_path = _port_plan(tmp_path)
    result = api.compile_plan(plan_path, catalogs=[cat_path])
    assert result.graph is not None, [(d.code, d.message) for d in result.diagnostics]
    steps = {s.id: s for _, s in result.graph.steps()}

    def query(task_id):
        return steps[task_id].fields["input"]["request"]["query"]

    value = steps["v"].fields["value"]
    assert query("a") is value["x"]  # one Expr for every read of the port
    assert query("a").text == "data.steps.p.result.id"
    # an optional port: a checked projection, for the binding as for the value task
    assert query("b").text == 'data.steps["__b.in.query.project"].value'
    assert value["y"].text == 'data.steps["__v.out.y.project"].value'
    for projection in ("__b.in.query.project", "__v.out.y.project"):
        assert steps[projection].fields["path"] == ["status"]
    # a task of the enclosing scope: the body's input, for the binding as for the value task
    assert query("c").text == steps["d"].fields["value"]["x"].text == "data.inputs.p.id"
    assert steps["w"].fields["value"]["x"].text == "json(data.steps.p.result)"


def test_lowered_workflow_inputs_are_the_class_call(tmp_path):
    """A child workflow's inputs (its captures) are made without calling the class: every
    slot set as `WorkflowInput(schema)` sets it."""
    plan = tmp_path / "generated.taskplan.json"
    plan.write_text(json.dumps(generated_plan(31, 40)))
    catalog = tmp_path / "generated.catalog.json"
    catalog.write_text(json.dumps(generated_catalog(40)))
    result = api.compile_plan(plan, catalogs=[catalog], auto=True)
    captured = [inp for wf in result.graph.workflows.values() if wf.name != "main" for inp in wf.inputs.values()]
    assert captured
    for made in captured:
        general = graph.WorkflowInput(made.schema)
        assert type(made) is graph.WorkflowInput
        assert all(getattr(made, name) is getattr(general, name) for name in graph.WorkflowInput.__slots__)
