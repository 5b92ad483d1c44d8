"""The compile's self-check covers PlanningGraph.check(): every violation of the graph's
invariants that `check()` finds, `validate_data` (run by compile on the emitted data
right after lowering) reports too, at the same workflow and step. That is why compile
does not run `check()` itself; the tests run it on every graph they compile
(test_snapshots, test_benchmark_inputs, test_api).

The graphs are real lowered graphs (the bundled example, every valid fixture, generated
plans); each test breaks one in one way (`check()` must then report a problem, else
the case proves nothing) and asks validate_data about the data `to_data()` gives:

- the entrypoint is not a workflow;
- a step ID appears twice in a workflow (`steps` and `finally` share IDs);
- an expression reads a step before it runs: its own result, a later step, a cleanup
  step from `steps`, an unknown step, a step of another workflow; at every place
  lowering writes an expression (a guard, an expression field, a data tree leaf, a
  case's condition and inputs, ...), plain and quoted IDs, inside `present(...)`,
  `json(...)` and comparisons;
- a call of an unknown workflow, at every kind of call site;
- an output reads an unknown step.

Every problem must be matched by a finding that names the same thing; a hypothesis
test does the same with several mutations at once."""

from __future__ import annotations

import copy
import json
import re
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from taskplan import api
from taskplan.ir.graph import Expr, PlanningGraph, Step, WorkflowOutput, step_path
from taskplan.passes.validate import Finding, validate_data
from taskplan.source import pointer as jp
from taskplan.workflow.emit import emit_yaml

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
BENCHMARKS = ROOT / "benchmarks"
if str(BENCHMARKS) not in sys.path:
    sys.path.insert(0, str(BENCHMARKS))

from generate import catalog as generated_catalog  # noqa: E402
from generate import plan as generated_plan  # noqa: E402


def _cases() -> dict[str, tuple[Path | None, list[Path], dict[str, str]]]:
    cases: dict[str, tuple[Path | None, list[Path], dict[str, str]]] = {
        "pr-review-example": (ROOT / "examples/pr-review.taskplan.yaml", [ROOT / "examples/catalog.yaml"], {}),
    }
    manifest = YAML(typ="safe").load((FIXTURES / "valid" / "manifest.yaml").read_text(encoding="utf-8")) or {}
    for case in manifest.get("cases") or []:
        catalogs = [FIXTURES / "catalogs" / c for c in case.get("catalogs") or []]
        cases[Path(case["plan"]).name.split(".")[0]] = (FIXTURES / "valid" / case["plan"], catalogs, dict(case.get("choose") or {}))
    cases["generated-31"] = (None, [], {})
    return cases


CASES = _cases()


@lru_cache(maxsize=None)
def _lowered(name: str, tmp: str) -> PlanningGraph:
    plan, catalogs, choose = CASES[name]
    if plan is None:  # a generated plan: every construct the benchmark mixes
        plan = Path(tmp) / "generated.taskplan.json"
        plan.write_text(json.dumps(generated_plan(31, 50)))
        catalogs = [Path(tmp) / "generated.catalog.json"]
        catalogs[0].write_text(json.dumps(generated_catalog(50)))
    result = api.compile_plan(plan, catalogs=catalogs, choose=choose, auto=True)
    assert result.graph is not None, [(d.code, d.message) for d in result.diagnostics]
    assert result.graph.check() == []
    return result.graph


@pytest.fixture(scope="module")
def graphs(tmp_path_factory) -> dict[str, PlanningGraph]:
    tmp = str(tmp_path_factory.mktemp("graphs"))
    return {name: _lowered(name, tmp) for name in CASES}


# ------------------------------------------------------------------ matching


def _self_check(graph: PlanningGraph) -> list[Finding]:
    data = graph.to_data()
    return validate_data(data, emit_yaml(data)).findings


_PROBLEMS = [
    (re.compile(r"entrypoint `(?P<name>.*)` is not a workflow"), "entrypoint"),
    (re.compile(r"(?P<wf>[^:]*): step `(?P<step>.*)` appears twice"), "twice"),
    (re.compile(r"(?P<wf>[^:]*): step `(?P<step>.*)` reads `(?P<ref>.*)` before it runs"), "reads"),
    (re.compile(r"(?P<wf>[^:]*): step `(?P<step>.*)` calls unknown workflow `(?P<name>.*)`"), "calls"),
    (re.compile(r"(?P<wf>[^:]*): output `(?P<output>.*)` reads unknown step `(?P<ref>.*)`"), "output"),
]


def _covers(problem: str, findings: list[Finding], strict: bool) -> bool:
    """Whether a finding reports `problem` (a message of `check()`): the same workflow and
    step (or output, or the entrypoint), and the same name in its message.

    Not `strict`: a read or a call may be reported at another step (or output) of the
    workflow with the same message, a read also in another workflow (a shared step ID:
    the message names no workflow), a call of an unknown workflow anywhere in the
    document (the entrypoint naming the same unknown workflow, say). validate_data's findings have no YAML positions, so one message
    at two steps is one diagnostic (reported once; compile needs one to fail); that
    happens when a mutation breaks several steps alike (a renamed step's readers)."""
    for pattern, kind in _PROBLEMS:
        m = pattern.fullmatch(problem)
        if m is not None:
            break
    else:
        raise AssertionError(f"a problem this test does not know: {problem}")
    g = m.groupdict()
    for f in findings:
        msg, code = f.diagnostic.message, f.diagnostic.code
        if kind == "entrypoint":
            ok = f.pointer == "/entrypoint" and f"unknown workflow `{g['name']}`" in msg
        elif kind == "output":
            where = jp.from_path(("workflows", g["wf"], "outputs", g["output"], "expr"))
            ok = (f.pointer == where or (f.workflow == g["wf"] and not strict)) and code == "WORKFLOW_REFERENCE"
            ok = ok and f"step `{g['ref']}`" in msg
        else:
            # a read's message names no workflow: the same message from a step of another
            # workflow is the same positionless diagnostic (reported once)
            same_wf = f.workflow == g["wf"] or (kind == "reads" and not strict)
            ok = same_wf and (f.step == g["step"] or (kind != "twice" and not strict))
            if kind == "twice":
                ok = ok and code == "WORKFLOW_SCHEMA" and f"step ID `{g['step']}` is declared twice" in msg
            elif kind == "reads":
                ok = ok and code == "WORKFLOW_REFERENCE" and f"step `{g['ref']}`" in msg
            else:
                # not strict: the same unknown name may be reported once for the whole
                # document (at the entrypoint too: positionless findings, one message once)
                ok = (ok or not strict) and code == "WORKFLOW_REFERENCE" and f"unknown workflow `{g['name']}`" in msg
        if ok:
            return True
    return False


def _assert_covered(graph: PlanningGraph, strict: bool = True) -> None:
    problems = graph.check()
    assert problems, "the mutation broke no invariant: it proves nothing"
    findings = _self_check(graph)
    missed = [p for p in problems if not _covers(p, findings, strict)]
    assert not missed, (missed, [(f.workflow, f.step, f.diagnostic.message) for f in findings])


# ------------------------------------------------------------------ places


def _expr_slots(step: Step) -> list[tuple[Any, Any]]:
    """Every place of `step` that holds an Expr, as (holder, key): `when`, expression
    fields, data tree leaves, case conditions, call inputs. (The step itself is the
    holder of `when`.)"""
    out: list[tuple[Any, Any]] = [(step, "when")] if step.when is not None else []
    stack: list[Any] = [step.fields]
    while stack:
        node = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for key, value in items:
            if isinstance(value, Expr):
                out.append((node, key))
            elif isinstance(value, (dict, list)):
                stack.append(value)
    return out


def _tree_holders(step: Step) -> list[dict]:
    """The data trees of `step` a new member can be added to (objects whose members are
    evaluated): a `set` value, an executor request, call inputs, template values."""
    f = step.fields
    out = [f[k] for k in ("value", "values") if isinstance(f.get(k), dict)]
    if isinstance(f.get("input"), dict):
        out.append(f["input"])
        if isinstance(f["input"].get("request"), dict):
            out.append(f["input"]["request"])
    for k in ("branches", "cases"):
        out.extend(item["input"] for item in f.get(k, ()) if isinstance(item.get("input"), dict))
    if isinstance(f.get("default"), dict) and isinstance(f["default"].get("input"), dict):
        out.append(f["default"]["input"])
    return out


def _call_sites(step: Step) -> list[tuple[dict, str]]:
    f = step.fields
    out = [(f, k) for k in ("call", "workflow") if isinstance(f.get(k), str)]
    for k in ("branches", "cases"):
        out.extend((item, "call") for item in f.get(k, ()) if "call" in item)
    if isinstance(f.get("default"), dict) and "call" in f["default"]:
        out.append((f["default"], "call"))
    return out


def _set(holder: Any, key: Any, expr: Expr) -> None:
    if isinstance(holder, Step):
        holder.when = expr
    else:
        holder[key] = expr


def _reading(target: str, form: int) -> Expr:
    """An expression that reads step `target`, in one of the forms lowering writes."""
    read = step_path(target, "value")
    if form == 0:
        return read
    if form == 1:
        return Expr(f"present({read.text})")
    if form == 2:
        return Expr(f"json({read.text})")
    return Expr(f'data.inputs.x == "data.steps.elsewhere" and {read.text} != null', simple=False)


def _bad_targets(graph: PlanningGraph, wf_name: str, section: str, index: int) -> list[str]:
    """Step IDs a step at `index` of `section` in workflow `wf_name` must not read."""
    wf = graph.workflows[wf_name]
    steps = wf.steps if section == "steps" else wf.finally_
    here = {s.id for s in wf.steps + wf.finally_}
    out = [steps[index].id, "nowhere", "__nowhere.at.all"]
    out += [s.id for s in steps[index + 1 : index + 2] if s.id not in {x.id for x in steps[: index + 1]}]
    if section == "steps" and wf.finally_:
        out.append(wf.finally_[0].id)
    elsewhere = [s.id for other in graph.workflows.values() if other is not wf for s in other.steps if s.id not in here]
    out += elsewhere[:1]
    return out


def _positions(graph: PlanningGraph) -> list[tuple[str, str, int]]:
    return [
        (wf.name, section, i)
        for wf in graph.workflows.values()
        for section, steps in (("steps", wf.steps), ("finally", wf.finally_))
        for i in range(len(steps))
    ]


def _step_at(graph: PlanningGraph, wf_name: str, section: str, i: int) -> Step:
    wf = graph.workflows[wf_name]
    return (wf.steps if section == "steps" else wf.finally_)[i]


# --------------------------------------------------------------------- cases


@pytest.mark.parametrize("name", list(CASES))
def test_an_unknown_entrypoint(graphs, name):
    g = copy.deepcopy(graphs[name])
    g.entrypoint = "nowhere"
    _assert_covered(g)


@pytest.mark.parametrize("name", list(CASES))
def test_a_step_id_twice(graphs, name):
    graph = graphs[name]
    for wf in graph.workflows.values():
        every = wf.steps + wf.finally_
        for j in range(1, len(every)):
            g = copy.deepcopy(graph)
            copied = g.workflows[wf.name]
            again = (copied.steps + copied.finally_)[j]
            again.id = (copied.steps + copied.finally_)[j - 1].id
            _assert_covered(g, strict=False)  # the renamed step's readers now read an unknown step


@pytest.mark.parametrize("name", list(CASES))
def test_a_read_before_the_step_runs_at_every_expression(graphs, name):
    """Every expression of every step replaced in turn, a guard added to every step, a
    member added to every data tree: each reads a step it must not (the targets and the
    forms taken in turn, so that every target kind and every form occurs at every kind
    of place). Each mutation is undone before the next one."""
    graph = copy.deepcopy(graphs[name])
    tried = 0
    for wf_name, section, i in _positions(graph):
        step = _step_at(graph, wf_name, section, i)
        targets = _bad_targets(graph, wf_name, section, i)
        places: list[tuple[Any, Any]] = _expr_slots(step) + [(step, "when")]
        places += [(holder, "injected") for holder in _tree_holders(step)]
        for k, (holder, key) in enumerate(places):
            before = holder.when if isinstance(holder, Step) else holder.get(key) if isinstance(holder, dict) else holder[key]
            _set(holder, key, _reading(targets[(i + k) % len(targets)], (i + k) % 4))
            _assert_covered(graph)
            if isinstance(holder, dict) and before is None:
                del holder[key]
            else:
                _set(holder, key, before)
            tried += 1
        assert graph.check() == []
    assert tried > 0


@pytest.mark.parametrize("name", list(CASES))
def test_a_call_of_an_unknown_workflow_at_every_call_site(graphs, name):
    graph = graphs[name]
    tried = 0
    for wf_name, section, i in _positions(graph):
        for k in range(len(_call_sites(_step_at(graph, wf_name, section, i)))):
            g = copy.deepcopy(graph)
            holder, key = _call_sites(_step_at(g, wf_name, section, i))[k]
            holder[key] = "nowhere.body"
            _assert_covered(g)
            tried += 1
    assert tried > 0 or name not in ("pr-review-example", "generated-31")


def test_an_unknown_workflow_named_by_the_entrypoint_and_a_call_is_reported(graphs):
    """Both name `nowhere`: without positions the two findings have one message, which
    validate_data reports once; compile still fails (hypothesis found the pair)."""
    g = copy.deepcopy(graphs["generated-31"])
    g.entrypoint = "nowhere"
    holder, key = next(site for _, s in g.steps() for site in _call_sites(s))
    holder[key] = "nowhere"
    assert len(g.check()) == 2
    messages = [f.diagnostic.message for f in _self_check(g)]
    assert "unknown workflow `nowhere`" in messages
    _assert_covered(g, strict=False)


@pytest.mark.parametrize("name", list(CASES))
def test_an_output_reading_an_unknown_step(graphs, name):
    graph = graphs[name]
    tried = 0
    for wf in graph.workflows.values():
        here = {s.id for s in wf.steps + wf.finally_}
        elsewhere = [s.id for other in graph.workflows.values() for s in other.steps if s.id not in here]
        for out in wf.outputs:
            for n, target in enumerate(["nowhere", "__no.such.step"] + elsewhere[:1]):
                g = copy.deepcopy(graph)
                g.workflows[wf.name].outputs[out] = WorkflowOutput(_reading(target, n % 4))
                _assert_covered(g)
                tried += 1
    assert tried > 0 or name not in ("pr-review-example", "generated-31")


# ---------------------------------------------------------------- properties


@st.composite
def _mutations(draw, graph: PlanningGraph) -> PlanningGraph:
    """A copy of `graph` with one to four mutations, each of the kinds above, some of
    which may cancel out or break nothing."""
    g = copy.deepcopy(graph)
    positions = _positions(g)
    ids = sorted({s.id for _, s in g.steps()}) + ["nowhere", "__x.y"]
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["entrypoint", "id", "read", "guard", "call", "output", "move"]))
        wf_name, section, i = draw(st.sampled_from(positions))
        step = _step_at(g, wf_name, section, i)
        if kind == "entrypoint":
            g.entrypoint = draw(st.sampled_from(list(g.workflows) + ["nowhere"]))
        elif kind == "id":
            step.id = draw(st.sampled_from(ids))
        elif kind in ("read", "guard"):
            slots = _expr_slots(step)
            expr = _reading(draw(st.sampled_from(ids)), draw(st.integers(0, 3)))
            if kind == "read" and slots:
                holder, key = draw(st.sampled_from(slots))
                _set(holder, key, expr)
            else:
                step.when = expr
        elif kind == "call":
            sites = _call_sites(step)
            if sites:
                holder, key = draw(st.sampled_from(sites))
                holder[key] = draw(st.sampled_from(list(g.workflows) + ["nowhere"]))
        elif kind == "output":
            wf = g.workflows[wf_name]
            if wf.outputs:
                name = draw(st.sampled_from(sorted(wf.outputs)))
                wf.outputs[name] = WorkflowOutput(_reading(draw(st.sampled_from(ids)), draw(st.integers(0, 3))))
        else:  # move a step to another place of its workflow (reads may now come first)
            wf = g.workflows[wf_name]
            steps = wf.steps if section == "steps" else wf.finally_
            steps.insert(draw(st.integers(0, len(steps) - 1)), steps.pop(i))
    return g


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data(), name=st.sampled_from(list(CASES)))
def test_the_self_check_reports_whatever_check_finds(graphs, data, name):
    g = data.draw(_mutations(graphs[name]))
    problems = g.check()
    if problems:
        _assert_covered(g, strict=False)
