"""Differential semantic test: does the compiled workflow do what the plan says?

A reference interpreter runs each plan (tests/semantics/interpreter.py, written from
the language spec on the plan's raw tree); a workflow executor runs its compiled
workflow (tests/semantics/executor.py, written from docs/workflow-dialect.md); both
call the same deterministic stubs (tests/semantics/stubs.py) under several stub
configurations (nulls, omitted optional fields, sparse inputs so defaults apply, answers
and inputs at the edges of their schemas and types, each enum value in turn, an
operation or model call that fails). Success, the root's outputs, the operation and
model calls with their requests, and which cleanup ran must agree; and every request
must fit its operation's input schema (tests/semantics/soundness.py: a business-type
violation is a typing soundness finding, a bound or pattern one the runtime's).

Inputs: the valid fixtures, examples/, tests/sample_plans.py, the docs' plan examples,
benchmarks/generate.py, the oracle's own targeted plans (tests/semantics/plans/), and
hypothesis over generated and mutated plans that still check clean."""

from __future__ import annotations

import copy
import json
import re
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
for extra in (TESTS, TESTS / "faults"):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

from semantics.harness import (  # noqa: E402
    ROOT, Case, Scenario, compile_case, compare_case, example_cases, fixture_cases, run_pair, scenarios,
    targeted_cases,
)
from semantics.stubs import StubConfig  # noqa: E402


def _report(reports) -> str:
    lines = []
    for r in reports:
        if r.diffs:
            lines.append(f"{r.case} [{r.scenario}]")
            lines += [f"  - {d}" for d in r.diffs]
    return "\n".join(lines)


def _assert_agree(case: Case) -> int:
    reports = compare_case(case)
    bad = [r for r in reports if r.diffs]
    assert not bad, _report(bad)
    return len(reports)


# ------------------------------------------------------------------ the plans of the repository


@pytest.mark.parametrize("case", fixture_cases() + example_cases(), ids=lambda c: c.name)
def test_fixture_and_example_plans_do_what_their_workflow_does(case):
    assert _assert_agree(case) >= 5


@pytest.mark.parametrize("case", targeted_cases(), ids=lambda c: c.name)
def test_targeted_plans_do_what_their_workflow_does(case):
    assert _assert_agree(case) >= 5


def test_the_sample_plan_does_what_its_workflow_does():
    from sample_plans import WEEKLY

    _assert_agree(Case("weekly", WEEKLY.encode(), "weekly.taskplan.yaml"))


_DOC_EXAMPLE = re.compile(r"<!-- example: plan name=(?P<name>\S+)(?: catalog=(?P<catalog>\S+))? -->\n```yaml\n(?P<body>.*?)```",
                          re.S)


def _doc_cases() -> list[Case]:
    text = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")
    return [Case(f"language-{m['name']}", m["body"].encode(), f"{m['name']}.taskplan.yaml",
                 (m["catalog"],) if m["catalog"] else ()) for m in _DOC_EXAMPLE.finditer(text)]


@pytest.mark.parametrize("case", _doc_cases(), ids=lambda c: c.name)
def test_the_language_pages_plans_do_what_their_workflow_does(case):
    _assert_agree(case)


@pytest.mark.parametrize("n", [15, 31])
def test_benchmark_plans_do_what_their_workflow_does(tmp_path, n):
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from generate import catalog, plan
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    catalog_path = tmp_path / "catalog.json"
    catalog_path.write_text(json.dumps(catalog(50)))
    _assert_agree(Case(f"benchmark-{n}", json.dumps(plan(n, 50)).encode(), f"bench{n}.taskplan.json",
                       (str(catalog_path),)))


# ------------------------------------------------------------------ the comparison can fail


def _steps(doc: dict):
    """Every step of a workflow document (steps, finally, switch-case steps), with its list."""
    def walk(steps):
        for step in steps:
            yield step, steps
            if step.get("type") == "switch":
                for case in step.get("cases", []) + ([step["default"]] if step.get("default") else []):
                    yield from walk(case.get("steps") or [])
    for wf in doc["workflows"].values():
        yield from walk(wf.get("steps") or [])
        yield from walk(wf.get("finally") or [])


def _swap_request_ports(doc):
    step = next(s for s, _ in _steps(doc) if s["id"] == "fetch_pr")
    request = step["input"]["request"]
    request["owner"], request["repo"] = request["repo"], request["owner"]


def _stringify_a_request_port(doc):
    step = next(s for s, _ in _steps(doc) if s["id"] == "fetch_pr")
    step["input"]["request"]["pull_number"] = "${json(data.inputs.pull_number)}"


def _drop_a_fixed_input(doc):
    step = next(s for s, _ in _steps(doc) if s["id"] == "fetch_pr")
    del step["input"]["request"]["api_version"]


def _lose_an_enum_value(doc):
    step = next(s for s, _ in _steps(doc) if s["id"] == "summarize")
    step["schema"]["properties"]["event"]["enum"].remove("COMMENT")


def _drop_cleanup_guard(doc):
    step = next(s for s, _ in _steps(doc) if s["id"] == "drop_scratch")
    del step["when"]


def _drop_cleanup_step(doc):
    doc["workflows"]["main"]["finally"] = []


def _flip_switch(doc):
    step = next(s for s, _ in _steps(doc) if s["type"] == "switch")
    step["cases"][0]["call"], step["default"]["call"] = step["default"]["call"], step["cases"][0]["call"]
    step["cases"][0]["input"], step["default"]["input"] = step["default"].get("input", {}), step["cases"][0].get("input", {})


def _collect_the_wrong_field(doc):
    step = next(s for s, _ in _steps(doc) if s["id"] == "__review_files.collect.note")
    step["path"] = ["verdict"]


def _reorder_steps(doc):
    steps = doc["workflows"]["main"]["steps"]
    steps[0], steps[1] = steps[1], steps[0]


def _lose_a_bound(doc):
    step = next(s for s, _ in _steps(doc) if s["id"] == "__review_files.validate")
    step["max_items"] = 10_000


def _lose_a_default(doc):
    doc["workflows"]["greet.group"]["inputs"]["how"]["default"] = "loud"


BROKEN = {
    "swap-request-ports": ("examples-pr-review", _swap_request_ports, None),
    "stringify-a-request-port": ("examples-pr-review", _stringify_a_request_port, None),
    "drop-a-fixed-input": ("examples-pr-review", _drop_a_fixed_input, None),
    "lose-an-enum-value": ("examples-pr-review", _lose_an_enum_value, None),
    "drop-cleanup-guard": ("examples-pr-review", _drop_cleanup_guard, StubConfig(fail_op="workspace.create")),
    "drop-cleanup-step": ("examples-pr-review", _drop_cleanup_step, None),
    "flip-switch": ("examples-pr-review", _flip_switch, None),
    "collect-the-wrong-field": ("examples-pr-review", _collect_the_wrong_field, None),
    "reorder-independent-steps": ("order", _reorder_steps, None),
    "lose-a-bound": ("examples-pr-review", _lose_a_bound, None),
    "change-a-default": ("values", _lose_a_default, None),
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_a_deliberately_broken_workflow_is_caught(name):
    """The comparison must be able to fail: each mutation of a compiled workflow (a
    miscompile that still validates) is reported as a difference."""
    case_name, mutation, config = BROKEN[name]
    case = next(c for c in example_cases() + targeted_cases() if c.name == case_name)
    compiled = compile_case(case)
    broken = copy.deepcopy(compiled.workflow)
    mutation(broken)
    plan_scenarios = scenarios(compiled)
    if config is not None:
        plan_scenarios = [Scenario(config, sparse=True)] + plan_scenarios
    if name == "lose-a-bound":
        compiled.case.inputs = None
        # more files than the plan's maxItems (300) allows: the stub gives 0-3, so shrink the plan's bound
        next(t for t in compiled.plan["root"]["tasks"] if t["id"] == "review_files")["maxItems"] = 1
        broken_step = next(s for s, _ in _steps(compiled.workflow) if s["id"] == "__review_files.validate")
        broken_step["max_items"] = 1
    reports = [run_pair(compiled, s, broken) for s in plan_scenarios]
    assert any(r.diffs for r in reports), f"{name}: no difference found"
    if name in ("stringify-a-request-port", "drop-a-fixed-input"):  # caught as a request that does not fit
        assert any(d.startswith("typing (workflow's run)") for r in reports for d in r.diffs), name
    if name == "lose-an-enum-value":  # the model answers each enum value in turn
        assert any(r.diffs for r in reports if "pick=2" in r.scenario), name
    # and the unbroken workflow agrees on the same scenarios
    assert not any(run_pair(compiled, s).diffs for s in plan_scenarios), name


# ------------------------------------------------------------------ the request check

from semantics.soundness import check_request  # noqa: E402

_PORTS = {
    "type": "object",
    "properties": {
        "n": {"type": "integer", "minimum": 1},
        "s": {"type": "string", "pattern": "^a"},
        "e": {"type": "string", "enum": ["a", "b"]},
        "k": {"type": "integer", "enum": [1, 2]},
        "m": {"enum": ["a", 1]},
        "o": {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"],
              "additionalProperties": False},
        "p": {"type": "object", "properties": {"x": {"type": "string"}}, "patternProperties": {"^y": {}},
              "additionalProperties": False},
        "u": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        "w": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
        "l": {"type": ["string", "integer"]},
        "t": {"type": "array", "items": {"$ref": "#/$defs/item"}},
    },
    "required": ["n"],
    "additionalProperties": False,
    "$defs": {"item": {"type": "object", "properties": {"z": {"type": "boolean"}}, "required": ["z"]}},
}


@pytest.mark.parametrize("request_, typing, runtime", [
    ({"n": 1}, 0, 0),
    ({"n": 0}, 0, 1),                          # a bound: the runtime's
    ({"n": 1, "s": "b"}, 0, 1),                # a pattern: the runtime's
    ({"n": 1.5}, 1, 0),                        # a number for an integer
    ({}, 1, 0),                                # a required port left out
    ({"n": 1, "zz": 1}, 1, 0),                 # a port the closed request does not declare
    ({"n": 1, "e": "c"}, 1, 0),                # outside a string enum
    ({"n": 1, "k": 3}, 0, 1),                  # outside an integer enum (not a business enum)
    ({"n": 1, "m": None}, 0, 1),               # null into a mixed enum (any)
    ({"n": 1, "o": {"x": "a", "y": 1}}, 1, 0),  # a closed object's extra property
    ({"n": 1, "o": {}}, 1, 0),
    ({"n": 1, "p": {"x": "a", "q": 1}}, 0, 1),  # patternProperties keeps it open
    ({"n": 1, "u": 3}, 1, 0),                  # anyOf of one type and null: that type
    ({"n": 1, "w": True}, 0, 1),               # other anyOf: any
    ({"n": 1, "l": None}, 0, 1),               # a list of kinds: any
    ({"n": 1, "t": [{"z": "no"}]}, 1, 0),      # through items and $ref
])
def test_the_request_check_tells_typing_from_run_time(request_, typing, runtime):
    found = check_request(request_, _PORTS)
    assert (len(found[0]), len(found[1])) == (typing, runtime), found


# ------------------------------------------------------------------ generated and mutated plans

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from faults.fuzz import DrawRng, generated, mutant  # noqa: E402
from faults.seeds import plan_seeds  # noqa: E402

from semantics.harness import compare_if_clean  # noqa: E402

BUDGET = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@BUDGET
@given(st.data())
def test_generated_valid_plans_do_what_their_workflow_does(data):
    text, display, catalogs = generated(DrawRng(data), "yaml")
    reports = compare_if_clean(text, display, catalogs)
    assert reports is not None, text.decode()
    bad = [r for r in reports if r.diffs]
    assert not bad, _report(bad) + "\n" + text.decode()


@BUDGET
@given(st.data(), st.sampled_from(plan_seeds()))
def test_mutated_plans_that_still_check_clean_do_what_their_workflow_does(data, seed):
    text, display, catalogs, log = mutant(seed, DrawRng(data), "yaml")
    reports = compare_if_clean(text, display, catalogs)
    if reports is None:
        return  # the mutant no longer checks clean: nothing to compare
    bad = [r for r in reports if r.diffs]
    assert not bad, _report(bad) + f"\nmutations: {log}\n" + text.decode()


# ------------------------------------------------------------------ findings
#
# Each finding is a plan whose compiled workflow did something other than the spec
# says the plan means, run by the interpreter with the spec's reading
# (`tolerate=frozenset()`). One still open is a strict xfail, listed in harness.KNOWN
# so that the broad comparisons above take the compiler's reading instead of failing
# on it again and again; a fixed one is a plain test. All four found so far are fixed.


def _spec_reading(text: str, config: StubConfig, *, inputs: dict | None = None,
                  catalogs: tuple[str, ...] = ("tests/semantics/oracle.catalog.yaml",)) -> list[str]:
    compiled = compile_case(Case("finding", text.encode(), "finding.taskplan.yaml", catalogs, inputs))
    return run_pair(compiled, Scenario(config), tolerate=frozenset()).diffs


FINDING_1 = """\
version: 1
root:
  tasks:
    - id: find
      objective: Look the key up (the store answers null when it is absent)
      operation: kv.lookup
      inputs: [{name: key, value: {kind: string, text: k}}]
  always:
    - id: report
      objective: Report what the lookup answered, null included
      operation: kv.close
      inputs: [{name: handle, value: {kind: json, items: [{kind: output, source: find, port: null}]}}]
"""


def test_finding_1_cleanup_runs_after_a_producer_that_answered_null():
    """Finding 1 (fixed in ba2a2cf). taskplan.md, Scopes: "the cleanup task runs only
    when every producer it reads has produced a result ... so a partial failure never
    feeds a missing value to cleanup". `find` succeeded and answered null (its output
    schema allows it): it has produced a result, null, which `report` reads as `"null"`.
    The workflow guarded `report` with `present(data.steps.find.result)`, false for a
    null result, so `report` never ran when the store had nothing; it now tests the
    step's record, `present(data.steps.find)`."""
    assert _spec_reading(FINDING_1, StubConfig(nulls="all")) == []


def test_finding_1_does_not_touch_a_producer_with_a_value():
    assert _spec_reading(FINDING_1, StubConfig(nulls="none")) == []


FINDING_2 = """\
version: 1
inputs:
  - name: person
    type:
      kind: object
      fields:
        - {name: login, type: {kind: string}}
        - {name: team, type: {kind: string}, required: false, default: {kind: string, text: core}}
root:
  tasks:
    - id: who
      kind: value
      objective: Read the team
      outputs:
        - {name: team, value: {kind: field, items: [{kind: input, source: person}], port: team}}
  outputs:
    - {name: team, value: {kind: output, source: who, port: team}}
"""


def test_finding_2_an_object_fields_default_stands_in_for_a_left_out_field():
    """docs/diagnostics.md (TASK_DEFAULT_INVALID): "An input's default (of the workflow,
    of a group, or of an optional field inside an object type) stands in for a value the
    caller left out". Given `person: {login: ada}`, the plan's `team` is `core`. The
    workflow's input schema for `person` carried no default for `team`, and the read (a
    `value.project` with `required: true`) failed on the missing field; now the schema
    carries `default: core`, which the runtime fills in when it binds the input
    (docs/workflow-dialect.md, Workflow)."""
    assert _spec_reading(FINDING_2, StubConfig(), inputs={"person": {"login": "ada"}}) == []


def test_finding_2_does_not_touch_a_field_that_is_given():
    assert _spec_reading(FINDING_2, StubConfig(), inputs={"person": {"login": "ada", "team": "web"}}) == []


# Typing soundness (stubs.Stubs.operation, soundness.py): every request is validated
# against its operation's input schema, as the runtime does; one that breaks its port's
# business type, for a plan the compiler accepted and stubs that answered within their
# output schemas, is a finding.

FINDING_3 = """\
version: 1
root:
  tasks:
    - id: first
      objective: Store an entry
      operation: kv.put
      inputs: [{name: entry, value: {kind: object, members: [{name: name, value: {kind: string, text: n}}]}}]
    - id: again
      objective: Store the entry the store answered
      operation: kv.put
      inputs: [{name: entry, value: {kind: output, source: first, port: entry}}]
"""


def _check_codes(text: str, catalogs: tuple[str, ...] = ("tests/semantics/oracle.catalog.yaml",)) -> list[tuple[str, str]]:
    from taskplan.api import check_plan

    result = check_plan("finding.taskplan.yaml", catalogs=[ROOT / c for c in catalogs], text=text.encode())
    return [(d.code, d.location.pointer) for d in result.diagnostics]


def test_finding_3_an_open_object_does_not_fit_a_closed_port():
    """Finding 3 (fixed in ea94e80). catalog.md: `additionalProperties: false` closes an
    object, and the effective request is validated against the input schema. kv.put's
    output `entry` declares `name` (required), `size`, `owner`, `color` and does not
    close the object: the store may answer more properties. Its input port `entry` is
    closed. The types pass accepted `again.entry <- first.entry` (P declared no field R
    lacks), but an answer within the output schema, `{name: ..., zz_extra: ...}`, made a
    request the runtime refuses: the plan checked clean and could not run. An open P no
    longer fits a closed R (`open_object`)."""
    assert _check_codes(FINDING_3) == [("TASK_INPUT_TYPE", "/root/tasks/1/inputs/0/value")]


def test_finding_3_a_closed_object_built_from_the_fields_still_fits():
    built = FINDING_3.replace(
        "{kind: output, source: first, port: entry}",
        "{kind: object, members: [{name: name, value: {kind: field, items: [{kind: output, source: first, port: entry}], port: name}}]}",
    )
    assert _check_codes(built) == []
    for config in (StubConfig(edge="high"), StubConfig(edge="low"), StubConfig()):
        assert _spec_reading(built, config) == []


FINDING_3_GROUP = """\
version: 1
groups:
  - id: keep
    objective: Keep an entry's name
    inputs:
      - name: e
        type:
          kind: object
          fields:
            - {name: name, type: {kind: string}}
            - {name: owner, type: {kind: string, nullable: true}}
            - {name: size, type: {kind: integer}, required: false}
            - {name: color, type: {kind: string, enum: [red, blue]}, required: false}
    body:
      tasks:
        - id: k
          kind: value
          objective: Keep
          outputs: [{name: name, value: {kind: field, items: [{kind: input, source: e}], port: name}}]
      outputs: [{name: name, value: {kind: output, source: k, port: name}}]
root:
  tasks:
    - id: first
      objective: Store an entry
      operation: kv.put
      inputs: [{name: entry, value: {kind: object, members: [{name: name, value: {kind: string, text: n}}]}}]
    - id: call
      kind: call
      objective: Keep the stored entry's name
      group: keep
      inputs: [{name: e, value: {kind: output, source: first, port: entry}}]
  outputs:
    - {name: name, value: {kind: output, source: call, port: name}}
"""


def test_finding_3_an_open_object_does_not_fit_a_group_input():
    """Finding 3 again, through a group: `keep`'s input `e` is a plan object type (closed:
    the compiled input schema has `additionalProperties: false`), and the call bound it to
    kv.put's open `entry`; the workflow's `keep.group` refused the bound input when the
    store answered one more property. Now the call is refused when checked."""
    assert _check_codes(FINDING_3_GROUP) == [("TASK_GROUP_INPUT_TYPE", "/root/tasks/1/inputs/0/value")]


FINDING_4 = """\
version: 1
root:
  tasks:
    - id: m
      objective: Read the metadata
      operation: meta.get
      inputs: [{name: key, value: {kind: string, text: k}}]
    - id: use
      kind: sequence
      objective: Keep the plain field, inside a sequence
      body:
        tasks:
          - id: v
            kind: value
            objective: Keep it
            outputs: [{name: plain, value: {kind: output, source: m, port: plain}}]
        outputs: [{name: plain, value: {kind: output, source: v, port: plain}}]
  outputs:
    - {name: plain, value: {kind: output, source: use, port: plain}}
"""


def test_finding_4_an_answer_within_the_output_schema_passes_a_capture():
    """Finding 4 (fixed in b228f14). meta.get's output `tagged` is `{type: object, properties: {a},
    allOf: [{properties: {b}, required: [b]}], unevaluatedProperties: false}`: in JSON
    Schema 2020-12, `b` is evaluated by the allOf, so `{a: .., b: ..}` is within the
    schema, and every answer has `b`, which the allOf requires (`sized` the same through
    anyOf). The plan reads only `plain`
    inside a sequence and means `plain`. The workflow passes the captured result whole
    to the child workflow `use.body` as an input whose type is the business type of the
    result, where `tagged` became `{properties: {a}, additionalProperties: false}`: the
    runtime checks a bound input against its type (docs/workflow-dialect.md, Workflow)
    and refuses every answer the operation may give, so `use` never runs.
    docs/decisions.md, Catalog: "`additionalProperties: false` (or `unevaluatedProperties:
    false`) closes it" and "`allOf` ... ignored": right for additionalProperties, which
    sees sibling `properties` only, but unevaluatedProperties also admits what the
    applicators evaluate. Probably taskplan/catalog/jsonschema_types.py (closing on
    unevaluatedProperties) and the capture input types that lower renders from it; the
    same closed type is every workflow output's type reading the port."""
    assert _spec_reading(FINDING_4, StubConfig(), catalogs=("tests/semantics/findings.catalog.yaml",)) == []


def test_finding_4_does_not_touch_an_operation_that_fails():
    assert _spec_reading(FINDING_4, StubConfig(fail_op="meta.get"),
                         catalogs=("tests/semantics/findings.catalog.yaml",)) == []


# ------------------------------------------------------------------ the long run

def test_the_long_run_makes_and_compares_a_case_of_every_kind():
    """benchmarks/semantics_long.py: a case of its own kinds is made and compared (the
    script must not rot between long runs); seed and index chosen so that each checks
    clean."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import semantics_long
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    results = [semantics_long.run_case("7", kind, i, 120)
               for kind, i in (("mcp", 3), ("rebind", 1))]
    assert all(r["clean"] and r["scenarios"] >= 5 and not r["problems"] for r in results), \
        [(r["kind"], r["i"], r["clean"], r["problems"][:1]) for r in results]
