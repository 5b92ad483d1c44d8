"""The shape pass: version, limits, closed objects, JSON types, tagged unions, the wire
form, and recovery (one bad node hides nothing else; later passes see what is sound)."""

from __future__ import annotations

import dataclasses
import json
import textwrap

import pytest
from pydantic import ValidationError

from taskplan.config import Limits
from taskplan.diagnostics import Diagnostics, Reporter
from taskplan.model.plan import (
    ConditionalTask,
    ForeachTask,
    InvalidTask,
    InvalidType,
    InvalidValue,
    OperationTask,
    SequenceTask,
    StringValue,
    TaskPlan,
    TaskScope,
    ValueTask,
    dropped_fields,
    effective_name,
    has_shape_error,
    is_broken,
    mark_broken,
    scopes_of,
    validate_model,
)
from taskplan.model.schema import taskplan_schema
from taskplan.passes import structure
from taskplan.passes.shape import shape
from taskplan.source.read import read_document


def run(text: str, *, limits: Limits | None = None, path: str = "t.taskplan.yaml", dedent: bool = True):
    """Read and shape `text`: (plan or None, sorted diagnostics)."""
    if dedent:
        text = textwrap.dedent(text)
    sink = Diagnostics()
    document = read_document(text.encode("utf-8"), path, sink)
    assert document.ok, [d.message for d in sink.sorted()]
    plan = shape(document, Reporter(document, sink), limits or Limits())
    return plan, sink.sorted()


def codes(diagnostics) -> list[tuple[str, str]]:
    return [(d.code, d.location.pointer) for d in diagnostics]


def at(diagnostic) -> tuple[int, int]:
    return diagnostic.location.line, diagnostic.location.column


VALID = """\
version: 1
name: demo
inputs:
  - {name: repo, type: {kind: string}}
root:
  tasks:
    - id: fetch
      operation: github.get_repo
      objective: Fetch the repository
      inputs:
        - {name: repo, value: {kind: input, source: repo}}
    - id: report
      kind: value
      objective: Report the name
      dependsOn: [fetch]
      outputs:
        - {name: name, value: {kind: output, source: fetch, port: name}}
"""


# ------------------------------------------------------------------ the valid path


def test_a_valid_plan_shapes_without_diagnostics():
    plan, diagnostics = run(VALID)
    assert diagnostics == []
    assert isinstance(plan, TaskPlan)
    fetch, report = plan.root.tasks
    assert isinstance(fetch, OperationTask) and fetch.kind == "operation"
    assert isinstance(report, ValueTask) and report.dependsOn == ["fetch"]
    assert not has_shape_error(fetch) and not is_broken(report)


def test_marks_are_a_slot_not_a_field_of_the_language():
    """The models are slotted (no `__dict__`); a node's marks live in its `_marks` slot,
    which the input cannot set, `==` does not compare and the JSON Schema does not show."""
    plan, diagnostics = run(VALID)
    assert diagnostics == [] and not hasattr(plan, "__dict__") and plan.root._marks is None
    again, _ = run(VALID)
    mark_broken(again.root.tasks[1], "X")
    assert is_broken(again.root.tasks[1]) and again == plan
    plan, diagnostics = run("version: 1\nroot: {tasks: [], _marks: {broken: x}}\n")
    assert codes(diagnostics) == [("PLAN_FIELD_UNKNOWN", "/root/_marks")]
    assert has_shape_error(plan.root) and dropped_fields(plan.root) == {"_marks"}
    assert "_marks" not in json.dumps(taskplan_schema()) and "_marks" not in json.dumps(taskplan_schema(wire=True))


def test_plain_validation_without_the_shape_pass_still_raises():
    """Other passes' tests validate models directly: errors must not be swallowed there."""
    with pytest.raises(ValidationError):
        validate_model(TaskPlan, {"version": 1, "root": {"tasks": [{"id": "a", "kind": "nope"}]}})
    with pytest.raises(ValidationError):
        validate_model(TaskPlan, {"version": 1, "root": {"tasks": [{"id": "a", "kind": "value", "outputs": 5}]}})


# ------------------------------------------------------------- document and version


def test_a_document_that_is_not_a_mapping():
    plan, diagnostics = run("- version: 1\n")
    assert plan is None
    assert codes(diagnostics) == [("PLAN_FIELD_TYPE", "")]


@pytest.mark.parametrize("version", ['"1"', "1.0", "2", "true", "null", "[1]"])
def test_a_version_other_than_the_integer_1_is_the_only_diagnostic(version):
    plan, diagnostics = run(f"version: {version}\nroot: {{tasks: [{{id: a, kind: bogus}}]}}\nbad: 1\n")
    assert plan is None
    assert codes(diagnostics) == [("PLAN_VERSION", "/version")]
    assert at(diagnostics[0]) == (1, 10)


def test_a_missing_version_is_reported_at_the_document():
    plan, diagnostics = run("root: {tasks: []}\nunknown: 1\n")
    assert plan is None
    assert codes(diagnostics) == [("PLAN_VERSION", "")]


def test_too_many_tasks_is_a_limit_counted_before_validating():
    text = """\
    version: 1
    root:
      tasks:
        - {id: a, kind: value}
        - id: b
          kind: sequence
          body:
            tasks:
              - {id: c, kind: value}
              - {id: d, kind: what}
    groups:
      - id: g
        body: {tasks: [{id: e, kind: value}]}
    """
    plan, diagnostics = run(text, limits=Limits(max_tasks=3))
    assert plan is None
    assert codes(diagnostics) == [("PLAN_LIMIT", "/root/tasks/1/body/tasks/1")]
    plan, diagnostics = run(text, limits=Limits(max_tasks=5))
    assert plan is not None and codes(diagnostics) == [("TASK_KIND_INVALID", "/root/tasks/1/body/tasks/1/kind")]


def test_too_many_tasks_in_a_plan_without_errors_is_the_same_limit():
    """A document the canonical validator accepts has its tasks counted in the models
    (`_count_plan_tasks`): over the limit, the same PLAN_LIMIT at the first task over, and
    nothing else; at the limit, the plan."""
    text = """\
    version: 1
    root:
      tasks:
        - {id: a, kind: value}
        - id: b
          kind: parallel
          branches:
            - {tasks: [{id: c, kind: value}]}
            - {always: [{id: d, kind: value}]}
        - id: e
          kind: conditional
          condition: {kind: boolean, boolean: true}
          body: {tasks: [{id: f, kind: value}]}
          otherwise: {tasks: [{id: g, kind: foreach, items: {kind: array}, body: {tasks: [{id: h, kind: value}]}}]}
      always: [{id: i, kind: value}]
    groups:
      - id: grp
        body: {tasks: [{id: j, kind: sequence, body: {tasks: [{id: k, kind: value}]}}]}
    """
    from taskplan.model.plan import canonical_plan_validator
    from taskplan.passes.shape import _count_plan_tasks

    plan, diagnostics = run(text, limits=Limits(max_tasks=11))
    assert plan is not None and diagnostics == []
    tree = read_document(textwrap.dedent(text).encode(), "t.taskplan.yaml", Diagnostics()).tree
    assert _count_plan_tasks(canonical_plan_validator().validate_python(tree)) == 11
    for limit, first_over in [(10, "/groups/0/body/tasks/0/body/tasks/0"), (8, "/root/always/0"),
                              (7, "/root/tasks/2/otherwise/tasks/0/body/tasks/0"), (3, "/root/tasks/1/branches/1/always/0"),
                              (0, "/root/tasks/0")]:
        plan, diagnostics = run(text, limits=Limits(max_tasks=limit))
        assert plan is None and codes(diagnostics) == [("PLAN_LIMIT", first_over)]


def test_plan_name():
    plan, diagnostics = run("version: 1\nname: My Plan\nroot: {}\n")
    assert codes(diagnostics) == [("PLAN_NAME_INVALID", "/name")]
    assert at(diagnostics[0]) == (2, 7)
    assert plan.name == "My Plan"  # never normalised
    plan, diagnostics = run("version: 1\nname: pr-review-2\nroot: {}\n")
    assert diagnostics == [] and effective_name(plan, "x/whatever.taskplan.yaml") == "pr-review-2"
    plan, _ = run("version: 1\nroot: {}\n")
    assert effective_name(plan, "plans/PR Review.taskplan.yaml") == "pr-review"
    assert effective_name(plan, "-") == "taskplan"


# ---------------------------------------------------------------- closed objects


def test_unknown_field_points_at_the_key_with_a_suggestion():
    plan, diagnostics = run(
        """\
        version: 1
        root:
          tasks:
            - id: a
              kind: value
              objective: A.
              dependson: [b]
        """
    )
    (d,) = diagnostics
    assert (d.code, d.location.pointer, at(d)) == ("PLAN_FIELD_UNKNOWN", "/root/tasks/0/dependson", (7, 7))
    assert d.location.end_column == 7 + len("dependson")
    assert d.hint == "did you mean `dependsOn`?"
    assert dict(d.subject) == {"task": "a"}
    task = plan.root.tasks[0]
    assert isinstance(task, ValueTask) and has_shape_error(task) and "dependson" in dropped_fields(task)


def test_unknown_field_without_a_close_one_lists_the_fields():
    _, diagnostics = run("version: 1\nroot: {tasks: [], zzzzzz: 1}\n")
    (d,) = diagnostics
    assert d.code == "PLAN_FIELD_UNKNOWN" and "`tasks`" in d.hint and "`always`" in d.hint


def test_missing_required_field_points_at_the_object():
    plan, diagnostics = run(
        """\
        version: 1
        root:
          tasks:
            - kind: value
              objective: No ID.
            - id: op
              objective: No operation.
        """
    )
    assert codes(diagnostics) == [
        ("PLAN_FIELD_REQUIRED", "/root/tasks/0"),
        ("PLAN_FIELD_REQUIRED", "/root/tasks/1"),
    ]
    assert [at(d) for d in diagnostics] == [(4, 7), (6, 7)]
    assert "`id`" in diagnostics[0].message and "`operation`" in diagnostics[1].message
    first, second = plan.root.tasks
    assert isinstance(first, InvalidTask) and first.id is None and first.kind == "value"
    assert isinstance(second, InvalidTask) and second.id == "op"


def test_a_misspelt_required_field_is_reported_once():
    _, diagnostics = run(
        """\
        version: 1
        root:
          tasks:
            - id: a
              kind: value
              objective: A.
              outputs:
                - {name: x, vaule: {kind: null}}
        """
    )
    assert codes(diagnostics) == [("PLAN_FIELD_UNKNOWN", "/root/tasks/0/outputs/0/vaule")]


def test_null_means_absent_so_a_required_null_is_missing_at_its_key():
    plan, diagnostics = run(
        """\
        version: 1
        root:
          tasks:
            - id: a
              kind: value
              objective: A.
              outputs:
                - {name: x, value: {kind: string, text: null}}
        """
    )
    (d,) = diagnostics
    assert (d.code, d.location.pointer) == ("PLAN_FIELD_REQUIRED", "/root/tasks/0/outputs/0/value/text")
    assert at(d) == (8, 43)  # the key `text`
    assert isinstance(plan.root.tasks[0].outputs[0].value, InvalidValue)


def test_a_missing_root_still_checks_the_rest():
    plan, diagnostics = run("version: 1\ngroups:\n  - {id: g, objective: G., body: {}, bogus: 1}\n")
    assert codes(diagnostics) == [("PLAN_FIELD_REQUIRED", ""), ("PLAN_FIELD_UNKNOWN", "/groups/0/bogus")]
    assert isinstance(plan.root, TaskScope) and has_shape_error(plan.root) and has_shape_error(plan)
    assert plan.groups[0].id == "g"


# ------------------------------------------------------------------- JSON types


@pytest.mark.parametrize(
    ("line", "pointer", "column", "expected"),
    [
        ('maxItems: "10"', "/root/tasks/0/maxItems", 17, "an integer"),
        ("maxItems: 10.0", "/root/tasks/0/maxItems", 17, "an integer"),
        ("maxItems: true", "/root/tasks/0/maxItems", 17, "an integer"),
        ("parallel: 1", "/root/tasks/0/parallel", 17, "a boolean"),
        ("dependsOn: {a: 1}", "/root/tasks/0/dependsOn", 18, "a list"),
        ("dependsOn: [a, 2]", "/root/tasks/0/dependsOn/1", 22, "a string"),
        ('dependsOn: "a"', "/root/tasks/0/dependsOn", 18, "a list"),
        ("body: 5", "/root/tasks/0/body", 13, "a scope object"),
        ("items: [1, 2]", "/root/tasks/0/items", 14, "a value object"),
    ],
)
def test_wrong_json_types_point_at_the_value(line, pointer, column, expected):
    text = (
        "version: 1\n"
        "root:\n"
        "  tasks:\n"
        "    - id: each\n"
        "      kind: foreach\n"
        "      objective: Loop.\n"
        f"      {line}\n"
    )
    if not line.startswith("items"):
        text += "      items: {kind: array}\n"
    if not line.startswith("body"):
        text += "      body: {}\n"
    _, diagnostics = run(text, dedent=False)
    (d,) = diagnostics
    assert (d.code, d.location.pointer) == ("PLAN_FIELD_TYPE", pointer)
    assert at(d) == (7, column)
    assert expected in d.message and "got" in d.message


@pytest.mark.parametrize(
    ("number", "expected"),
    [('"5"', "a number"), ("true", "a number"), (".inf", "a finite number"), ("-.inf", "a finite number"), (".nan", "a finite number")],
)
def test_number_literals(number, expected):
    plan, diagnostics = run(
        f"version: 1\nroot:\n  outputs:\n    - {{name: n, value: {{kind: number, number: {number}}}}}\n", dedent=False
    )
    (d,) = diagnostics
    assert (d.code, d.location.pointer) == ("PLAN_FIELD_TYPE", "/root/outputs/0/value/number")
    assert expected in d.message
    assert isinstance(plan.root.outputs[0].value, InvalidValue)


def test_a_bare_scalar_where_a_value_is_expected():
    plan, diagnostics = run(
        """\
        version: 1
        root:
          tasks:
            - id: a
              kind: value
              objective: A.
              outputs:
                - {name: x, value: hello}
                - {name: y, value: {kind: string, text: fine}}
        """
    )
    (d,) = diagnostics
    assert (d.code, d.location.pointer, at(d)) == ("PLAN_FIELD_TYPE", "/root/tasks/0/outputs/0/value", (8, 28))
    assert "kind: string, text: \"hello\"" in d.hint
    task = plan.root.tasks[0]
    assert not has_shape_error(task), "the binding's value is the error, not the task"
    assert isinstance(task.outputs[0].value, InvalidValue) and isinstance(task.outputs[1].value, StringValue)


def test_a_task_that_is_not_an_object_keeps_its_slot():
    plan, diagnostics = run("version: 1\nroot:\n  tasks:\n    - oops\n    - {id: b, kind: value, objective: B.}\n")
    assert codes(diagnostics) == [("PLAN_FIELD_TYPE", "/root/tasks/0")]
    first, second = plan.root.tasks
    assert isinstance(first, InvalidTask) and first.id is None
    assert isinstance(second, ValueTask) and second.id == "b"


# ------------------------------------------------------------------ tagged unions


def test_unknown_task_kind_is_not_checked_further():
    plan, diagnostics = run(
        """\
        version: 1
        root:
          tasks:
            - id: loop
              kind: forech
              objective: Loop.
              wrong: field
              body: {tasks: [{id: inner, kind: bogus}]}
        """
    )
    (d,) = diagnostics
    assert (d.code, d.location.pointer, at(d)) == ("TASK_KIND_INVALID", "/root/tasks/0/kind", (5, 13))
    assert d.hint.startswith("did you mean `foreach`?")
    task = plan.root.tasks[0]
    assert isinstance(task, InvalidTask) and task.id == "loop" and task.kind == "forech"
    assert scopes_of(task) == []


def test_kind_that_is_not_a_string():
    plan, diagnostics = run("version: 1\nroot: {tasks: [{id: a, kind: 5}]}\n")
    assert codes(diagnostics) == [("PLAN_FIELD_TYPE", "/root/tasks/0/kind")]
    assert isinstance(plan.root.tasks[0], InvalidTask) and plan.root.tasks[0].id == "a"


def test_unknown_and_missing_value_kinds():
    plan, diagnostics = run(
        """\
        version: 1
        root:
          outputs:
            - {name: a, value: {kind: strng, text: x}}
            - {name: b, value: {text: x}}
            - {name: c, value: {kind: [x]}}
        """
    )
    assert codes(diagnostics) == [
        ("TASK_VALUE_INVALID", "/root/outputs/0/value/kind"),
        ("PLAN_FIELD_REQUIRED", "/root/outputs/1/value"),
        ("PLAN_FIELD_TYPE", "/root/outputs/2/value/kind"),
    ]
    assert diagnostics[0].hint.startswith("did you mean `string`?")
    assert [type(o.value) for o in plan.root.outputs] == [InvalidValue] * 3
    assert plan.root.outputs[0].value.kind == "strng"


def test_a_field_of_another_kind():
    plan, diagnostics = run(
        """\
        version: 1
        root:
          tasks:
            - id: a
              kind: value
              objective: A.
              operation: github.get_repo
              outputs:
                - {name: x, value: {kind: string, text: x, source: y}}
        """
    )
    assert codes(diagnostics) == [
        ("TASK_KIND_FIELD", "/root/tasks/0/operation"),
        ("TASK_KIND_FIELD", "/root/tasks/0/outputs/0/value/source"),
    ]
    assert at(diagnostics[0]) == (7, 7)
    assert "`operation` tasks" in diagnostics[0].message
    assert isinstance(plan.root.tasks[0], ValueTask) and has_shape_error(plan.root.tasks[0])


@pytest.mark.parametrize("empty", ["null", "[]", "false", '""', "{}", "{tasks: [], outputs: null}"])
def test_empty_fields_of_another_kind_are_accepted(empty):
    plan, diagnostics = run(
        "version: 1\nroot:\n  tasks:\n"
        f"    - {{id: a, kind: value, objective: A., body: {empty}, resultType: {empty}, inputs: {empty}}}\n",
        dedent=False,
    )
    assert diagnostics == []
    assert isinstance(plan.root.tasks[0], ValueTask) and not has_shape_error(plan.root.tasks[0])


def test_defaults_of_another_kind_are_accepted_other_values_are_not():
    plan, diagnostics = run(
        "version: 1\nroot:\n  tasks:\n"
        "    - {id: a, kind: value, objective: A., maxItems: 100, maxConcurrency: 4, parallel: false}\n"
        "    - {id: b, kind: value, objective: B., maxItems: 5}\n",
        dedent=False,
    )
    assert codes(diagnostics) == [("TASK_KIND_FIELD", "/root/tasks/1/maxItems")]


# --------------------------------------------------------------------- wire form

COMPACT = """\
version: 1
inputs:
  - {name: flag, type: {kind: boolean}}
  - {name: tags, type: {kind: array, items: {kind: string}}, required: false, default: {kind: array, items: []}}
root:
  tasks:
    - id: pick
      kind: conditional
      objective: Pick.
      condition: {kind: input, source: flag}
      body:
        tasks:
          - id: fetch
            operation: github.get_repo
            objective: Fetch.
            inputs:
              - {name: repo, value: {kind: string, text: x}}
        outputs:
          - {name: r, value: {kind: output, source: fetch}}
    - id: each
      kind: foreach
      objective: Each.
      items: {kind: input, source: tags}
      body:
        outputs:
          - {name: t, value: {kind: item}}
choices:
  - id: tone
    question: Which tone?
    type: {kind: string, enum: [a, b]}
    alternatives:
      - {id: a, value: {kind: string, text: a}}
      - {id: b, value: {kind: string, text: b}}
"""

WIRE = {
    "version": 1,
    "name": None,
    "request": None,
    "inputs": [
        {"name": "flag", "type": {"kind": "boolean", "nullable": False, "enum": None, "items": None, "fields": [], "description": None},
         "required": True, "default": None, "description": None},
        {"name": "tags", "type": {"kind": "array", "nullable": False, "enum": [], "fields": None, "description": None,
                                  "items": {"kind": "string", "nullable": None, "enum": None, "items": None, "fields": None, "description": None}},
         "required": False, "default": {"kind": "array", "items": [], "text": None, "members": [], "source": None, "port": None},
         "description": None},
    ],
    "root": {
        "tasks": [
            {"id": "pick", "kind": "conditional", "objective": "Pick.", "dependsOn": [],
             "condition": {"kind": "input", "source": "flag", "number": None, "items": [], "predicate": None},
             "body": {"tasks": [
                 {"id": "fetch", "kind": None, "objective": "Fetch.", "dependsOn": None, "operation": "github.get_repo",
                  "inputs": [{"name": "repo", "value": {"kind": "string", "text": "x", "boolean": None}}],
                  "outputs": [], "body": None, "branches": [], "parallel": False, "maxItems": 100, "maxConcurrency": 4,
                  "resultType": None, "group": None, "condition": None, "otherwise": None, "items": None}],
                 "outputs": [{"name": "r", "value": {"kind": "output", "source": "fetch", "port": None}}], "always": []},
             "otherwise": None, "branches": None, "operation": None},
            {"id": "each", "kind": "foreach", "objective": "Each.", "dependsOn": [],
             "items": {"kind": "input", "source": "tags"}, "parallel": False, "maxItems": 100, "maxConcurrency": 4,
             "body": {"tasks": None, "outputs": [{"name": "t", "value": {"kind": "item", "source": None}}], "always": None},
             "group": "", "inputs": [], "outputs": None},
        ],
        "outputs": None,
        "always": [],
    },
    "groups": None,
    "choices": [
        {"id": "tone", "question": "Which tone?", "type": {"kind": "string", "enum": ["a", "b"], "nullable": False, "items": None, "fields": [], "description": None},
         "alternatives": [{"id": "a", "description": None, "value": {"kind": "string", "text": "a"}},
                          {"id": "b", "description": None, "value": {"kind": "string", "text": "b"}}],
         "recommended": None, "selected": None},
    ],
}


def test_the_wire_form_and_the_compact_form_shape_to_equal_models():
    compact, diagnostics = run(COMPACT, dedent=False)
    assert diagnostics == []
    wire, diagnostics = run(json.dumps(WIRE, indent=1), path="t.taskplan.json", dedent=False)
    assert diagnostics == [], [(d.code, d.location.pointer, d.message) for d in diagnostics]
    assert wire == compact
    assert dataclasses.asdict(wire) == dataclasses.asdict(compact)
    # and so does plain validation, without the shape pass
    assert validate_model(TaskPlan, WIRE) == compact


# ---------------------------------------------------------------------- recovery

SEVERAL = """\
version: 1
inputs:
  - {name: repo, type: {kind: string}, requird: true}
root:
  tasks:
    - id: one
      kind: value
      objective: One.
      outputs:
        - {name: a, value: {kind: number, number: "1"}}
    - id: two
      kind: sequence
      objective: Two.
      body:
        tasks:
          - {id: three, kind: vale, objective: Three.}
          - id: four
            operation: github.get_repo
            objective: Four.
            inputs: [{name: repo, value: {kind: input, source: repo}}]
            maxItems: 7
        outputs: {x: 1}
    - id: five
      kind: foreach
      objective: Five.
      items: {kind: input, source: repo}
      maxConcurrency: many
      body: {}
groups:
  - id: g
    objective: G.
    body: {tasks: [{id: six, kind: call, objective: Six.}]}
choices:
  - {id: tone, question: Which one, type: {kind: string}, alternatives: [], recomended: a}
"""


def test_several_independent_errors_are_each_reported_once_without_follow_ons():
    plan, diagnostics = run(SEVERAL, dedent=False)
    assert codes(diagnostics) == [
        ("PLAN_FIELD_UNKNOWN", "/inputs/0/requird"),
        ("PLAN_FIELD_TYPE", "/root/tasks/0/outputs/0/value/number"),
        ("TASK_KIND_INVALID", "/root/tasks/1/body/tasks/0/kind"),
        ("TASK_KIND_FIELD", "/root/tasks/1/body/tasks/1/maxItems"),
        ("PLAN_FIELD_TYPE", "/root/tasks/1/body/outputs"),
        ("PLAN_FIELD_TYPE", "/root/tasks/2/maxConcurrency"),
        ("PLAN_FIELD_REQUIRED", "/groups/0/body/tasks/0"),
        ("PLAN_FIELD_UNKNOWN", "/choices/0/recomended"),
    ]
    # everything sound is still there for later passes
    one, two, five = plan.root.tasks
    assert isinstance(one, ValueTask) and isinstance(one.outputs[0].value, InvalidValue) and not has_shape_error(one)
    assert isinstance(two, SequenceTask) and has_shape_error(two), "its scope's exports are unknown"
    assert has_shape_error(two.body) and "outputs" in dropped_fields(two.body)
    three, four = two.body.tasks
    assert isinstance(three, InvalidTask) and three.id == "three"
    assert isinstance(four, OperationTask) and four.inputs[0].name == "repo" and has_shape_error(four)
    assert isinstance(five, ForeachTask) and five.maxConcurrency == 4 and has_shape_error(five)
    assert isinstance(plan.groups[0].body.tasks[0], InvalidTask) and plan.groups[0].body.tasks[0].id == "six"
    assert plan.inputs[0].name == "repo" and has_shape_error(plan.inputs[0])
    assert plan.choices[0].alternatives == [] and has_shape_error(plan.choices[0])
    # ... and the structure pass reports what is wrong in what is sound, and only that
    sink = Diagnostics()
    sink_document = read_document(SEVERAL.encode(), "t.taskplan.yaml", Diagnostics())
    structure.run(plan, Reporter(sink_document, sink))
    assert codes(sink.sorted()) == [("CHOICE_INVALID", "/choices/0/alternatives")]


TEXT_NO_ID = """\
version: 1
root:
  tasks:
    - kind: conditional
      objective: Pick.
      condition: {kind: boolean, boolean: true}
      body:
        tasks:
          - {id: inner, kind: value, bogus: 1}
      otherwise:
        tasks:
          - {id: other, kind: parallel, objective: P., branches: []}
"""


def test_a_task_missing_its_id_keeps_its_child_scopes_checked():
    plan, diagnostics = run(TEXT_NO_ID, dedent=False)
    assert codes(diagnostics) == [
        ("PLAN_FIELD_REQUIRED", "/root/tasks/0"),
        ("PLAN_FIELD_UNKNOWN", "/root/tasks/0/body/tasks/0/bogus"),
    ]
    task = plan.root.tasks[0]
    assert isinstance(task, InvalidTask) and task.id is None and task.kind == "conditional"
    suffixes = [suffix for suffix, _ in scopes_of(task)]
    assert suffixes == ["/body", "/otherwise"]
    assert scopes_of(task)[0][1].tasks[0].id == "inner"
    sink = Diagnostics()
    document = read_document(TEXT_NO_ID.encode(), "t.taskplan.yaml", Diagnostics())
    structure.run(plan, Reporter(document, sink))
    assert codes(sink.sorted()) == [
        ("TASK_OBJECTIVE_REQUIRED", "/root/tasks/0/body/tasks/0"),
        ("TASK_PARALLEL_INVALID", "/root/tasks/0/otherwise/tasks/0/branches"),
    ]


def test_a_required_value_or_type_that_is_broken_gets_a_placeholder():
    plan, diagnostics = run(
        """\
        version: 1
        inputs:
          - {name: a}
          - {name: b, type: string}
        root:
          tasks:
            - {id: t, kind: transform, objective: T., resultType: {kind: object, fields: 5}}
            - {id: c, kind: conditional, objective: C., body: {}}
        """
    )
    assert codes(diagnostics) == [
        ("PLAN_FIELD_REQUIRED", "/inputs/0"),
        ("PLAN_FIELD_TYPE", "/inputs/1/type"),
        ("PLAN_FIELD_TYPE", "/root/tasks/0/resultType/fields"),
        ("PLAN_FIELD_REQUIRED", "/root/tasks/1"),
    ]
    assert [type(i.type) for i in plan.inputs] == [InvalidType, InvalidType]
    assert [i.name for i in plan.inputs] == ["a", "b"]
    transform, conditional = plan.root.tasks
    assert isinstance(transform.resultType, InvalidType) and transform.resultType.kind == "object"
    assert isinstance(conditional, ConditionalTask) and isinstance(conditional.condition, InvalidValue)


def test_a_nameless_item_leaves_its_list_out_and_says_so():
    plan, diagnostics = run(
        """\
        version: 1
        inputs:
          - {type: {kind: string}}
          - {name: ok, type: {kind: string}}
        root:
          tasks:
            - id: a
              operation: x.y
              objective: A.
              inputs:
                - {value: {kind: null}}
                - {name: q, value: 5}
        """
    )
    assert codes(diagnostics) == [
        ("PLAN_FIELD_REQUIRED", "/inputs/0"),
        ("PLAN_FIELD_REQUIRED", "/root/tasks/0/inputs/0"),
        ("PLAN_FIELD_TYPE", "/root/tasks/0/inputs/1/value"),  # still reported: an independent error
    ]
    assert plan.inputs == [] and "inputs" in dropped_fields(plan)
    task = plan.root.tasks[0]
    assert task.inputs == [] and "inputs" in dropped_fields(task) and has_shape_error(task)


def test_shape_is_deterministic():
    first = [d.to_json() for d in run(SEVERAL, dedent=False)[1]]
    second = [d.to_json() for d in run(SEVERAL, dedent=False)[1]]
    assert first == second


def test_deep_nesting_never_raises():
    depth = 60
    value = {"kind": "null"}
    for _ in range(depth):
        value = {"kind": "array", "items": [value]}
    scope: dict = {"tasks": [{"id": "leaf", "kind": "value", "objective": "L.", "outputs": [{"name": "v", "value": value}]}]}
    for i in range(40):
        scope = {"tasks": [{"id": f"s{i}", "kind": "sequence", "objective": "S.", "body": scope, "bogus": i}]}
    text = json.dumps({"version": 1, "root": scope})
    plan, diagnostics = run(text, path="deep.taskplan.json", dedent=False)
    assert plan is not None
    assert len(diagnostics) == 40 and {d.code for d in diagnostics} == {"PLAN_FIELD_UNKNOWN"}


def test_named_values_are_salvaged_one_by_one():
    plan, diagnostics = run(
        """\
        version: 1
        root:
          tasks:
            - id: a
              kind: value
              objective: A.
              outputs:
                - {name: x, value: null}
                - {name: y, value: {kind: object, members: [{name: m, value: 3}, {name: n, valu: {kind: item}}]}, note: hi}
                - {name: z, value: {kind: string, text: fine}}
        """
    )
    assert [(d.code, d.location.pointer, d.location.line, d.location.column) for d in diagnostics] == [
        ("PLAN_FIELD_REQUIRED", "/root/tasks/0/outputs/0/value", 8, 21),
        ("PLAN_FIELD_TYPE", "/root/tasks/0/outputs/1/value/members/0/value", 9, 70),
        ("PLAN_FIELD_UNKNOWN", "/root/tasks/0/outputs/1/value/members/1/valu", 9, 84),
        ("PLAN_FIELD_UNKNOWN", "/root/tasks/0/outputs/1/note", 9, 107),
    ]
    assert diagnostics[2].hint == "did you mean `value`?"
    task = plan.root.tasks[0]
    assert [o.name for o in task.outputs] == ["x", "y", "z"] and not has_shape_error(task)
    x, y, z = task.outputs
    assert isinstance(x.value, InvalidValue) and not has_shape_error(x)
    assert has_shape_error(y) and "note" in dropped_fields(y)
    members = y.value.members
    assert isinstance(members[0].value, InvalidValue) and isinstance(members[1].value, InvalidValue)
    assert "valu" in dropped_fields(members[1])
    assert isinstance(z.value, StringValue)


def _without_kind(fields: str) -> str:
    lines = ["version: 1", "root:", "  tasks:", "    - id: judge", "      objective: Judge the text"]
    return "\n".join(lines + [f"      {line.strip()}" for line in fields.splitlines()]) + "\n"


@pytest.mark.parametrize(
    "fields, kind, at",
    [
        ("inputs: [{name: t, value: {kind: string, text: hi}}]\n      resultType: {kind: object, fields: [{name: ok, type: {kind: boolean}}]}", "transform", "resultType"),
        ("outputs: [{name: o, value: {kind: string, text: hi}}]", "value", "outputs"),
        ("items: {kind: array, items: []}\n      body: {tasks: []}", "foreach", "items"),
        ("group: g", "call", "group"),
    ],
)
def test_a_task_with_its_kind_left_out_is_one_diagnostic_setting_the_kind(fields, kind, at):
    """Before: the missing `operation` (PLAN_FIELD_REQUIRED) and one TASK_KIND_FIELD per field
    ("remove it, or set `kind`"), for one mistake."""
    _, diagnostics = run(_without_kind(fields), dedent=False)
    assert codes(diagnostics) == [("TASK_KIND_FIELD", f"/root/tasks/0/{at}")]
    assert diagnostics[0].hint == f"set `kind: {kind}`"
    assert "task `judge` has no `kind`" in diagnostics[0].message
    assert dict(diagnostics[0].subject) == {"task": "judge"}


def test_a_task_without_kind_whose_field_several_kinds_have_offers_those_kinds():
    _, diagnostics = run(
        _without_kind("body: {tasks: [{id: x, kind: value, objective: O, outputs: [{name: o, value: {kind: null}}]}]}"),
        dedent=False,
    )
    assert codes(diagnostics) == [("TASK_KIND_FIELD", "/root/tasks/0/body")]
    assert diagnostics[0].hint == "set `kind` to `sequence`, `conditional` or `foreach`"


@pytest.mark.parametrize(
    "fields",
    [
        "outputs: [{name: o, value: {kind: null}}]\nresultType: {kind: object, fields: []}",  # two kinds' fields
        "operation: x.y\nresultType: {kind: object, fields: []}",  # an operation task with a stray field
    ],
)
def test_a_task_whose_fields_are_of_no_one_kind_gets_a_diagnostic_per_field(fields):
    _, diagnostics = run(_without_kind(fields), dedent=False)
    assert [d.code for d in diagnostics if d.code == "TASK_KIND_FIELD"] == ["TASK_KIND_FIELD"] * (2 if "outputs" in fields else 1)
    assert all(not (d.hint or "").startswith("set `kind") for d in diagnostics)
