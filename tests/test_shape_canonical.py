"""The canonical validator (`canonical_plan_validator`) is held to the usual way: a
document it accepts validates to the same models (with the same marks) as
with `fast_plan_validator()` and with `validate_model(TaskPlan, ...)`; it accepts the compact
documents it is for, and refuses what the normalising would change."""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from taskplan.diagnostics import Diagnostics
from taskplan.model.plan import TaskPlan, _same, canonical_plan_validator, fast_plan_validator, validate_model
from taskplan.passes.shape import _count_plan_tasks, _count_tasks, _raw_children, _raw_scopes
from taskplan.source.read import read_document
from test_shape_fuzz import BASE as FUZZ_BASE
from test_shape_fuzz import NAMES, REPLACEMENTS, get, paths

ROOT = Path(__file__).resolve().parent.parent
BASE = copy.deepcopy(FUZZ_BASE)
BASE["choices"][0].pop("selected")  # (written null there): the compact form
PLANS = sorted(
    p for d in ("fixtures", "examples") for p in (ROOT / d).rglob("*") if p.name.endswith((".taskplan.yaml", ".taskplan.json"))
)


def tree_of(path: Path):
    document = read_document(path.read_bytes(), str(path), Diagnostics())
    return document.tree if document.ok else None


def accepted(tree) -> bool:
    """Whether the canonical validator accepts `tree`; when it does, that it agrees
    with the usual way."""
    canonical, fast = canonical_plan_validator(), fast_plan_validator()
    assert canonical is not None and fast is not None
    try:
        plan = canonical.validate_python(tree)
    except Exception:  # noqa: BLE001 - refused: the fast validator decides
        return False
    assert _same(plan, fast.validate_python(tree))
    assert _same(plan, validate_model(TaskPlan, tree))
    # the shape pass counts the tasks of what it accepts in the models
    assert _count_plan_tasks(plan) == sum(_count_tasks(scope) for _, scope in _raw_scopes(tree))
    return True


@pytest.mark.parametrize("path", PLANS, ids=lambda p: str(p.relative_to(ROOT)))
def test_what_it_accepts_of_the_fixtures_validates_as_the_usual_way(path):
    tree = tree_of(path)
    if tree is not None:
        accepted(tree)


def test_it_accepts_the_compact_plans():
    assert accepted(copy.deepcopy(BASE))
    assert not accepted(copy.deepcopy(FUZZ_BASE))  # `selected: null`
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from generate import plan as generate_plan
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    assert accepted(json.loads(json.dumps(generate_plan(150, 50))))
    valid = [p for p in PLANS if "valid" in p.parts]
    assert sum(accepted(tree_of(p)) for p in valid) >= 3


@pytest.mark.parametrize(
    "change",
    [
        lambda t: t["root"]["tasks"][0].update(kind=None),  # null means absent: a default
        lambda t: t["root"]["tasks"][0].update(objective=None),
        lambda t: t["root"]["tasks"][0].update(body=None, outputs=[], maxItems=100),  # empty fields of other kinds
        lambda t: t["inputs"][1]["type"]["items"].update(enum=[]),  # the wire form's "no enum"
        lambda t: t["root"]["tasks"][0]["inputs"][0]["value"].update(port=None),
        lambda t: t["groups"][0].update(inputs=None),
    ],
)
def test_it_refuses_what_the_normalising_changes(change):
    tree = copy.deepcopy(BASE)
    assert accepted(copy.deepcopy(tree))
    change(tree)
    assert not accepted(tree)
    assert _same(fast_plan_validator().validate_python(tree), validate_model(TaskPlan, tree))


def test_a_null_kind_keeps_its_normalising():
    tree = copy.deepcopy(BASE)
    tree["root"]["tasks"][1]["otherwise"]["outputs"][0]["value"] = {"kind": None}  # YAML's `{kind: null}`
    assert accepted(tree)


BLANKS = [None, [], "", False, {}, 100, 4]
FIELDS = ["kind", "objective", "dependsOn", "outputs", "inputs", "body", "otherwise", "branches", "items", "port",
          "text", "members", "source", "enum", "fields", "nullable", "description", "maxItems", "maxConcurrency",
          "parallel", "group", "operation", "resultType", "condition", "default", "required", "name", "selected"]


@st.composite
def changed(draw):
    """The compact BASE with a few changes: a field written null or empty (or at another
    kind's default), or a node deleted, retyped or renamed (as in test_shape_fuzz)."""
    tree = copy.deepcopy(BASE)
    for _ in range(draw(st.integers(0, 3))):
        spots = list(paths(tree))
        prefix, key = draw(st.sampled_from(spots))
        container, action = get(tree, prefix), draw(st.sampled_from(["blank", "delete", "retype", "rename"]))
        if action == "blank" and isinstance(container[key], dict):
            container[key][draw(st.sampled_from(FIELDS))] = copy.deepcopy(draw(st.sampled_from(BLANKS)))
        elif action == "delete":
            del container[key]
        elif action == "retype":
            container[key] = copy.deepcopy(draw(st.sampled_from(REPLACEMENTS)))
        elif action == "rename" and isinstance(container, dict):
            container[draw(st.sampled_from(NAMES))] = container.pop(key)
    return tree


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(changed())
def test_what_it_accepts_validates_as_the_usual_way(tree):
    accepted(tree)


def reference_count(scope) -> int:
    """Tasks at every depth, as the spec counts them (`_raw_children`, recursively)."""
    if type(scope) is not dict:
        return 0
    total = 0
    for key in ("tasks", "always"):
        if type(scope.get(key)) is list:
            total += len(scope[key])
            total += sum(reference_count(child) for task in scope[key] for _, child in _raw_children(task))
    return total


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(changed())
def test_the_task_count_is_the_spec_count(tree):
    for _, scope in _raw_scopes(tree):
        assert _count_tasks(scope) == reference_count(scope)


def test_a_kind_is_compared_with_its_literal_only_where_no_tag_chose_the_class():
    """The canonical validator takes the `kind` of a class its tagged union chose (`_TAGGED`)
    as it is, and compares it with the literal only for the operation task, which a task
    without a usable tag is tried as: an unknown kind is refused, a known one is its class's."""
    from taskplan.model.plan import _TAGGED, TASK_CLASSES, OperationTask, ValueTask

    assert OperationTask not in _TAGGED and ValueTask in _TAGGED
    tree = copy.deepcopy(BASE)
    for kind in ("foo", "Operation"):
        tree["root"]["tasks"][0]["kind"] = kind
        assert not accepted(copy.deepcopy(tree))
    plan = canonical_plan_validator().validate_python(copy.deepcopy(BASE))
    kind_of = {cls: kind for kind, cls in TASK_CLASSES.items()}
    assert all(t.kind == kind_of[type(t)] for t in plan.root.tasks)
