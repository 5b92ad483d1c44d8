"""PlanningGraph.check(): the invariants of a lowered graph, each violation found and
reported in a fixed order; and the same problems as the straightforward reference
below (several walks of each step) on random graphs."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from taskplan.ir.graph import Expr, Literal, PlanningGraph, Step, Workflow, WorkflowOutput, step_path

# ----------------------------------------------------------------- reference

_REF_RE = re.compile(r'data\.steps(?:\.([A-Za-z0-9_-]+)|\["((?:[^"\\]|\\.)*)"\])|"(?:[^"\\]|\\.)*"')


def _walk(value):
    if isinstance(value, Expr):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _walk(v)
    elif isinstance(value, list):
        for v in value:
            yield from _walk(v)


def _refs(expr):
    out = []
    for m in _REF_RE.finditer(expr.text):
        if m.group(1) is not None:
            out.append(m.group(1))
        elif m.group(2) is not None:
            out.append(json.loads(f'"{m.group(2)}"'))
    return out


def _calls(step):
    f = step.fields
    out = [f[k] for k in ("call", "workflow") if isinstance(f.get(k), str)]
    for k in ("branches", "cases"):
        out.extend(item["call"] for item in f.get(k, ()) if "call" in item)
    if isinstance(f.get("default"), dict) and "call" in f["default"]:
        out.append(f["default"]["call"])
    return out


def reference_check(graph):
    problems = []
    if graph.entrypoint not in graph.workflows:
        problems.append(f"entrypoint `{graph.entrypoint}` is not a workflow")
    for wf in graph.workflows.values():
        seen = set()
        for steps in (wf.steps, wf.finally_):
            for step in steps:
                if step.id in seen:
                    problems.append(f"{wf.name}: step `{step.id}` appears twice")
                refs = _refs(step.when) if step.when is not None else []
                for e in _walk(step.fields):
                    refs.extend(_refs(e))
                for ref in refs:
                    if ref not in seen:
                        problems.append(f"{wf.name}: step `{step.id}` reads `{ref}` before it runs")
                for target in _calls(step):
                    if target not in graph.workflows:
                        problems.append(f"{wf.name}: step `{step.id}` calls unknown workflow `{target}`")
                seen.add(step.id)
        for name, out in wf.outputs.items():
            for ref in _refs(out.expr):
                if ref not in seen:
                    problems.append(f"{wf.name}: output `{name}` reads unknown step `{ref}`")
    return problems


# --------------------------------------------------------------------- cases


def _graph(**workflows):
    g = PlanningGraph(name="g", plan_path="p.yaml", digest="sha256:0")
    for name, wf in workflows.items():
        wf.name = name
        g.workflows[name] = wf
    return g


def _step(step_id, fields=None, when=None):
    return Step(step_id, "set", "/root/tasks/0", fields or {}, key=("task", step_id), when=when)


def test_a_sound_graph_has_no_problems():
    main = Workflow("main", "/root")
    main.steps = [
        _step("a", {"value": Literal("data.steps.z is text")}),
        _step("__a.b", {"value": step_path("a", "value")}),
        _step("c", {"value": {"x": [step_path("__a.b", "value", "k")]}, "call": "sub"}),
    ]
    main.finally_ = [_step("d", when=Expr('present(data.steps["__a.b"].value)'))]
    main.outputs["o"] = WorkflowOutput(step_path("c", "value"))
    g = _graph(main=main, sub=Workflow("sub", "/root/tasks/2/body"))
    assert g.check() == reference_check(g) == []


def test_every_violation_in_order():
    main = Workflow("main", "/root")
    main.steps = [
        _step("a", {"value": Expr('data.steps.b.value == "data.steps.q.value"')}),  # reads b before it runs
        _step("b", {"cases": [{"when": Expr("true"), "call": "nowhere"}], "default": {"call": "gone"}}),
        _step("b", {"value": Expr('data.steps["__x.\\u0079"].value'), "workflow": "missing"}),  # twice, reads __x.y
        _step("c", {"branches": [{"call": "sub"}, {"call": "lost"}]}, when=Expr("present(data.steps.zz)")),
    ]
    main.outputs["o"] = WorkflowOutput(Expr('data.steps["no\\"pe"].value'))
    g = _graph(main=main, sub=Workflow("sub", "/s"))
    g.entrypoint = "start"
    problems = g.check()
    assert problems == reference_check(g)
    assert problems == [
        "entrypoint `start` is not a workflow",
        "main: step `a` reads `b` before it runs",
        "main: step `b` calls unknown workflow `nowhere`",
        "main: step `b` calls unknown workflow `gone`",
        "main: step `b` appears twice",
        "main: step `b` reads `__x.y` before it runs",
        "main: step `b` calls unknown workflow `missing`",
        "main: step `c` reads `zz` before it runs",
        "main: step `c` calls unknown workflow `lost`",
        'main: output `o` reads unknown step `no"pe`',
    ]


class _Dict(dict):
    pass


class _List(list):
    pass


class _Expr(Expr):
    __slots__ = ()


def test_subclasses_are_walked_like_their_bases():
    main = Workflow("main", "/root")
    main.steps = [_step("a", _Dict(value=_List([_Dict(x=_Expr("data.steps.q.value"))]), other=_Expr("data.steps.r")))]
    g = _graph(main=main)
    assert g.check() == reference_check(g) == [
        "main: step `a` reads `q` before it runs",
        "main: step `a` reads `r` before it runs",
    ]


# ---------------------------------------------------------------- properties

ids = st.sampled_from(["a", "b", "__a.x", "c-d", 'q"t', "é", "x\\y"])
exprs = st.one_of(
    st.builds(lambda i, f: step_path(i, f), ids, st.sampled_from(["value", "result"])),
    st.builds(lambda i: Expr(f'present({step_path(i, "value").text}) and "data.steps.{i}" == data.inputs.x'), ids),
    st.builds(lambda i: Expr(f'data.steps["{json.dumps(i)[1:-1]}"]'), ids),
    st.builds(Expr, st.text(alphabet='data.steps["]\\ab_', max_size=24)),
)
leaves = st.one_of(exprs, st.builds(Literal, st.text(max_size=5)), st.text(max_size=5), st.integers(), st.none())
trees = st.recursive(leaves, lambda c: st.one_of(st.lists(c, max_size=3), st.dictionaries(st.text(max_size=3), c, max_size=3)), max_leaves=8)
call_fields = st.fixed_dictionaries(
    {},
    optional={
        "call": st.sampled_from(["main", "sub", "none"]),
        "workflow": st.one_of(st.sampled_from(["sub", "gone"]), st.integers()),
        "branches": st.lists(st.fixed_dictionaries({}, optional={"call": st.sampled_from(["sub", "x"]), "input": trees}), max_size=2),
        "default": st.one_of(st.fixed_dictionaries({}, optional={"call": st.sampled_from(["sub", "y"])}), st.text(max_size=2)),
    },
)
steps = st.builds(
    lambda i, fields, extra, when: _step(i, {**fields, **extra}, when),
    ids,
    st.dictionaries(st.sampled_from(["value", "input", "schema", "from"]), trees, max_size=3),
    call_fields,
    st.one_of(st.none(), exprs),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(steps, max_size=6), st.lists(steps, max_size=2), st.dictionaries(st.text(max_size=2), exprs, max_size=2),
       st.sampled_from(["main", "sub", "other"]))
def test_check_matches_the_reference(main_steps, cleanup, outputs, entrypoint):
    main = Workflow("main", "/root", steps=main_steps, finally_=cleanup)
    main.outputs = {k: WorkflowOutput(e) for k, e in outputs.items()}
    g = _graph(main=main, sub=Workflow("sub", "/s", steps=[_step("a", {"value": step_path("a", "value")})]))
    g.entrypoint = entrypoint
    try:
        expected = reference_check(g)
    except ValueError as exc:  # a quoted ID that is not a JSON string body: both fail alike
        with pytest.raises(type(exc)):
            g.check()
    else:
        assert g.check() == expected
