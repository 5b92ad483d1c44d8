"""The structure pass: one test (or a few) per rule, exact pointers, nothing inside
placeholders, nothing about what the shape pass already reported, and the marks it
leaves for later passes."""

from __future__ import annotations

import json
import textwrap

import pytest

from taskplan.config import Limits
from taskplan.diagnostics import Diagnostics, Reporter
from taskplan.model.plan import is_broken
from taskplan.passes import structure
from taskplan.passes.shape import shape
from taskplan.source.read import read_document


def check(text: str, *, limits: Limits | None = None, dedent: bool = True, path: str = "t.taskplan.yaml"):
    """Read, shape and structure-check `text`: (plan, shape diagnostics, structure diagnostics)."""
    if dedent:
        text = textwrap.dedent(text)
    limits = limits or Limits()
    sink = Diagnostics()
    document = read_document(text.encode("utf-8"), path, sink)
    assert document.ok, [d.message for d in sink.sorted()]
    plan = shape(document, Reporter(document, sink), limits)
    shaped = sink.sorted()
    assert plan is not None
    found = Diagnostics()
    structure.run(plan, Reporter(document, found), limits)
    return plan, shaped, found.sorted()


def found(text: str, **kw) -> list[tuple[str, str]]:
    _, shaped, diagnostics = check(text, **kw)
    assert shaped == [], [(d.code, d.location.pointer) for d in shaped]
    return [(d.code, d.location.pointer) for d in diagnostics]


def task(body: str) -> str:
    """A plan whose root has the one task `body` (YAML lines at the task's indentation)."""
    return "version: 1\nroot:\n  tasks:\n    - " + textwrap.indent(textwrap.dedent(body), "      ").lstrip() + "\n"


def test_a_sound_plan_has_nothing_to_report():
    assert found(
        task(
            """\
            id: each
            kind: foreach
            objective: Each item.
            items: {kind: array, items: [{kind: number, number: 1}]}
            maxItems: 10000
            maxConcurrency: 100
            body:
              outputs: [{name: x, value: {kind: predicate, predicate: not, items: [{kind: boolean, boolean: true}]}}]
            """
        )
    ) == []


# -------------------------------------------------------------------- objectives


def test_objective_missing_is_at_the_task_blank_at_the_objective():
    _, _, diagnostics = check(
        """\
        version: 1
        root:
          tasks:
            - {id: a, kind: value}
            - {id: b, kind: value, objective: "   "}
        groups:
          - {id: g, body: {}}
        """
    )
    assert [(d.code, d.location.pointer, d.location.line, d.location.column) for d in diagnostics] == [
        ("TASK_OBJECTIVE_REQUIRED", "/root/tasks/0", 4, 7),
        ("TASK_OBJECTIVE_REQUIRED", "/root/tasks/1/objective", 5, 39),
        ("TASK_OBJECTIVE_REQUIRED", "/groups/0", 7, 5),
    ]
    assert dict(diagnostics[0].subject) == {"task": "a"}
    assert dict(diagnostics[2].subject) == {"group": "g"}


def test_a_misspelt_objective_is_not_reported_twice():
    _, shaped, diagnostics = check(task("{id: a, kind: value, objectiv: A.}"))
    assert [d.code for d in shaped] == ["PLAN_FIELD_UNKNOWN"]
    assert diagnostics == []


# ---------------------------------------------------------------- parallel, bounds


def test_parallel_needs_two_branches():
    assert found(task("{id: p, kind: parallel, objective: P., branches: [{}]}")) == [
        ("TASK_PARALLEL_INVALID", "/root/tasks/0/branches")
    ]
    assert found(task("{id: p, kind: parallel, objective: P.}")) == [("TASK_PARALLEL_INVALID", "/root/tasks/0")]
    assert found(task("{id: p, kind: parallel, objective: P., branches: [{}, {}]}")) == []


def test_a_parallel_whose_branches_were_mistyped_is_not_reported_again():
    _, shaped, diagnostics = check(task("{id: p, kind: parallel, objective: P., branches: {a: 1}}"))
    assert [d.code for d in shaped] == ["PLAN_FIELD_TYPE"]
    assert diagnostics == []


@pytest.mark.parametrize(
    ("field", "value", "ok"),
    [
        ("maxItems", 0, False),
        ("maxItems", 1, True),
        ("maxItems", 10000, True),
        ("maxItems", 10001, False),
        ("maxConcurrency", 0, False),
        ("maxConcurrency", 100, True),
        ("maxConcurrency", 101, False),
        ("maxConcurrency", -5, False),
    ],
)
def test_iteration_bounds(field, value, ok):
    text = task(f"{{id: f, kind: foreach, objective: F., items: {{kind: array}}, body: {{}}, {field}: {value}}}")
    assert found(text) == ([] if ok else [("TASK_ITERATION_BOUND", f"/root/tasks/0/{field}")])
    if field == "maxConcurrency":
        text = task(f"{{id: p, kind: parallel, objective: P., branches: [{{}}, {{}}], {field}: {value}}}")
        assert found(text) == ([] if ok else [("TASK_ITERATION_BOUND", f"/root/tasks/0/{field}")])


# ---------------------------------------------------------------- branch outputs

COND = """\
version: 1
root:
  tasks:
    - id: c
      kind: conditional
      objective: C.
      condition: {kind: boolean, boolean: true}
      body:
        outputs:
          - {name: a, value: {kind: string, text: x}}
          - {name: b, value: {kind: string, text: x}}
"""


def test_conditional_outputs_by_name():
    plan, _, diagnostics = check(
        COND + "      otherwise:\n        outputs:\n          - {name: b, value: {kind: number, number: 1}}\n"
        "          - {name: z, value: {kind: null}}\n",
        dedent=False,
    )
    assert [(d.code, d.location.pointer) for d in diagnostics] == [
        ("TASK_BRANCH_OUTPUTS", "/root/tasks/0/body/outputs/0/name"),
        ("TASK_BRANCH_OUTPUTS", "/root/tasks/0/otherwise/outputs/1/name"),
    ]
    assert dict(diagnostics[0].subject) == {"task": "c", "port": "a"}
    assert is_broken(plan.root.tasks[0]), "its ports are unknown: no cascade in later passes"


def test_an_absent_otherwise_declares_nothing():
    plan, _, diagnostics = check(COND, dedent=False)
    assert [(d.code, d.location.pointer) for d in diagnostics] == [
        ("TASK_BRANCH_OUTPUTS", "/root/tasks/0/body/outputs/0/name"),
        ("TASK_BRANCH_OUTPUTS", "/root/tasks/0/body/outputs/1/name"),
    ]
    assert "absent `otherwise`" in diagnostics[0].message


def test_matching_conditional_outputs_and_a_shape_broken_side_are_silent():
    same = COND + "      otherwise:\n        outputs:\n          - {name: b, value: {kind: null}}\n          - {name: a, value: {kind: null}}\n"
    plan, _, diagnostics = check(same, dedent=False)
    assert diagnostics == [] and not is_broken(plan.root.tasks[0])
    broken = COND + "      otherwise:\n        outputs: {a: 1}\n"
    _, shaped, diagnostics = check(broken, dedent=False)
    assert [d.code for d in shaped] == ["PLAN_FIELD_TYPE"] and diagnostics == []


def test_parallel_outputs_declared_twice_at_the_second():
    plan, _, diagnostics = check(
        task(
            """\
            id: p
            kind: parallel
            objective: P.
            branches:
              - outputs: [{name: a, value: {kind: null}}, {name: b, value: {kind: null}}]
              - outputs: [{name: c, value: {kind: null}}]
              - outputs: [{name: b, value: {kind: null}}, {name: a, value: {kind: null}}]
            """
        )
    )
    assert [(d.code, d.location.pointer) for d in diagnostics] == [
        ("TASK_BRANCH_OUTPUTS", "/root/tasks/0/branches/2/outputs/0/name"),
        ("TASK_BRANCH_OUTPUTS", "/root/tasks/0/branches/2/outputs/1/name"),
    ]
    assert diagnostics[0].related[0].location.pointer == "/root/tasks/0/branches/0/outputs/1/name"
    assert is_broken(plan.root.tasks[0])


# --------------------------------------------------------------------------- values


def test_field_and_json_take_exactly_one_item():
    assert found(
        """\
        version: 1
        root:
          outputs:
            - {name: a, value: {kind: field, port: x, items: []}}
            - {name: b, value: {kind: json, items: [{kind: null}, {kind: null}]}}
            - {name: c, value: {kind: json, items: [{kind: null}]}}
        """
    ) == [
        ("TASK_VALUE_INVALID", "/root/outputs/0/value/items"),
        ("TASK_VALUE_INVALID", "/root/outputs/1/value/items"),
    ]


@pytest.mark.parametrize(
    ("number", "ok"),
    [("9007199254740991", True), ("-9007199254740991", True), ("9007199254740992", False), ("-1e300", False), ("1.5", True)],
)
def test_numbers_within_the_safe_range(number, ok):
    text = f"version: 1\nroot:\n  outputs:\n    - {{name: n, value: {{kind: number, number: {number}}}}}\n"
    assert found(text, dedent=False) == ([] if ok else [("TASK_VALUE_INVALID", "/root/outputs/0/value/number")])


def test_value_nesting_depth_is_reported_once_at_the_first_value_too_deep():
    value: dict = {"kind": "null"}
    for _ in range(6):
        value = {"kind": "array", "items": [value]}
    text = json.dumps({"version": 1, "root": {"outputs": [{"name": "v", "value": value}]}})
    assert found(text, dedent=False, path="t.taskplan.json") == []
    pointer = "/root/outputs/0/value" + "/items/0" * 4
    assert found(text, dedent=False, path="t.taskplan.json", limits=Limits(max_value_depth=4)) == [
        ("TASK_VALUE_INVALID", pointer)
    ]


def test_predicates():
    assert found(
        """\
        version: 1
        root:
          outputs:
            - {name: a, value: {kind: predicate, predicate: nott, items: [{kind: boolean, boolean: true}]}}
            - {name: b, value: {kind: predicate, predicate: not, items: []}}
            - {name: c, value: {kind: predicate, predicate: less, items: [{kind: index}]}}
            - {name: d, value: {kind: predicate, predicate: greater_equal, items: [{kind: index}, {kind: index}]}}
        """
    ) == [
        ("TASK_PREDICATE_INVALID", "/root/outputs/0/value/predicate"),
        ("TASK_PREDICATE_INVALID", "/root/outputs/1/value/items"),
        ("TASK_PREDICATE_INVALID", "/root/outputs/2/value/items"),
    ]


def test_values_are_checked_everywhere_they_are_written():
    bad = "{kind: json, items: []}"
    text = f"""\
version: 1
inputs:
  - {{name: i, type: {{kind: string}}, required: false, default: {bad}}}
root:
  tasks:
    - {{id: op, operation: x.y, objective: O., inputs: [{{name: a, value: {bad}}}]}}
    - {{id: c, kind: conditional, objective: C., condition: {bad}, body: {{}}}}
    - {{id: f, kind: foreach, objective: F., items: {bad}, body: {{}}}}
    - {{id: t, kind: transform, objective: T., inputs: [{{name: a, value: {bad}}}], resultType: {{kind: object, fields: [{{name: x, type: {{kind: string}}}}]}}}}
  outputs: [{{name: o, value: {{kind: object, members: [{{name: m, value: {{kind: array, items: [{bad}]}}}}]}}}}]
  always:
    - {{id: v, kind: value, objective: V., outputs: [{{name: a, value: {bad}}}]}}
choices:
  - id: ch
    question: Which?
    type: {{kind: string}}
    alternatives:
      - {{id: a, value: {{kind: array, items: [{bad}]}}}}
      - {{id: b, value: {{kind: string, text: b}}}}
"""
    assert found(text, dedent=False) == [
        ("TASK_VALUE_INVALID", "/inputs/0/default/items"),
        ("TASK_VALUE_INVALID", "/root/tasks/0/inputs/0/value/items"),
        ("TASK_VALUE_INVALID", "/root/tasks/1/condition/items"),
        ("TASK_VALUE_INVALID", "/root/tasks/2/items/items"),
        ("TASK_VALUE_INVALID", "/root/tasks/3/inputs/0/value/items"),
        ("TASK_VALUE_INVALID", "/root/outputs/0/value/members/0/value/items/0/items"),
        ("TASK_VALUE_INVALID", "/root/always/0/outputs/0/value/items"),
        ("TASK_VALUE_INVALID", "/choices/0/alternatives/0/value/items/0/items"),
    ]


# ---------------------------------------------------------------------------- types


def test_types():
    plan, _, diagnostics = check(
        """\
        version: 1
        inputs:
          - {name: a, type: {kind: strin}}
          - {name: b, type: {kind: integer, enum: [x]}}
          - {name: c, type: {kind: string, enum: [x, y, x]}}
          - {name: d, type: {kind: array}}
          - {name: e, type: {kind: string, items: {kind: string}}}
          - {name: f, type: {kind: array, items: {kind: object, fields: [{name: g, type: {kind: nope}}]}}}
          - {name: h, type: {kind: boolean, fields: [{name: g, type: {kind: string}}]}}
          - {name: ok, type: {kind: object, fields: [{name: g, type: {kind: string, enum: [p, q]}, required: false}]}}
        """
    )
    assert [(d.code, d.location.pointer) for d in diagnostics] == [
        ("TASK_TYPE_INVALID", "/inputs/0/type/kind"),
        ("TASK_TYPE_INVALID", "/inputs/1/type/enum"),
        ("TASK_TYPE_INVALID", "/inputs/2/type/enum/2"),
        ("TASK_TYPE_INVALID", "/inputs/3/type"),
        ("TASK_TYPE_INVALID", "/inputs/4/type/items"),
        ("TASK_TYPE_INVALID", "/inputs/5/type/items/fields/0/type/kind"),
        ("TASK_TYPE_INVALID", "/inputs/6/type/fields"),
    ]
    assert diagnostics[0].hint.startswith("did you mean `string`?")
    assert [is_broken(i.type) for i in plan.inputs] == [True, True, True, True, True, False, True, False]
    assert is_broken(plan.inputs[5].type.items.fields[0].type)


def test_enum_size():
    many = ", ".join(f"v{i}" for i in range(257))
    text = f"version: 1\ninputs:\n  - {{name: a, type: {{kind: string, enum: [{many}]}}}}\nroot: {{}}\n"
    assert found(text, dedent=False) == [("TASK_TYPE_INVALID", "/inputs/0/type/enum/256")]


def test_an_empty_enum_is_the_wire_forms_no_enum():
    assert found("version: 1\ninputs:\n  - {name: a, type: {kind: number, enum: []}}\nroot: {}\n", dedent=False) == []


# ------------------------------------------------------------------------ transform

TRANSFORM = """\
version: 1
root:
  tasks:
    - id: t
      kind: transform
      objective: T.
      resultType: RESULT
"""


@pytest.mark.parametrize(
    ("result", "expected"),
    [
        ("{kind: object, fields: [{name: a, type: {kind: string}}]}", []),
        ("{kind: object, fields: [{name: a, type: {kind: string, nullable: true}, required: false}]}", []),
        ("{kind: string}", ["/root/tasks/0/resultType/kind"]),
        ("{kind: object}", ["/root/tasks/0/resultType"]),
        ("{kind: object, fields: [{name: a, type: {kind: any}}]}", ["/root/tasks/0/resultType/fields/0/type/kind"]),
        ("{kind: object, fields: [{name: a, type: {kind: string}, required: false}]}", ["/root/tasks/0/resultType/fields/0"]),
        (
            "{kind: object, fields: [{name: a, type: {kind: string}, default: {kind: string, text: x}}]}",
            ["/root/tasks/0/resultType/fields/0/default"],
        ),
        (
            "{kind: object, fields: [{name: a, type: {kind: array, items: {kind: object, fields: [{name: b, type: {kind: any}}]}}}]}",
            ["/root/tasks/0/resultType/fields/0/type/items/fields/0/type/kind"],
        ),
        # never null: a model's null answer would pass the schema while the ports read as never null
        ("{kind: object, nullable: true, fields: [{name: a, type: {kind: string}}]}", ["/root/tasks/0/resultType/nullable"]),
        ("{kind: object, nullable: true}", ["/root/tasks/0/resultType", "/root/tasks/0/resultType/nullable"]),
        # nested objects declare their fields (a nullable one is fine)
        ("{kind: object, fields: [{name: a, type: {kind: object}}]}", ["/root/tasks/0/resultType/fields/0/type"]),
        (
            "{kind: object, fields: [{name: a, type: {kind: array, items: {kind: object, nullable: true}}}]}",
            ["/root/tasks/0/resultType/fields/0/type/items"],
        ),
        (
            "{kind: object, fields: [{name: a, type: {kind: object, nullable: true, fields: [{name: b, type: {kind: string}}]}}]}",
            [],
        ),
    ],
)
def test_transform_result_types(result, expected):
    plan, _, diagnostics = check(TRANSFORM.replace("RESULT", result), dedent=False)
    assert [(d.code, d.location.pointer) for d in diagnostics] == [("TASK_TRANSFORM_TYPE", p) for p in expected]
    assert is_broken(plan.root.tasks[0]) == bool(expected)


def test_an_invalid_result_type_is_reported_once():
    _, _, diagnostics = check(TRANSFORM.replace("RESULT", "{kind: objet, fields: [{name: a, type: {kind: any}}]}"), dedent=False)
    assert [(d.code, d.location.pointer) for d in diagnostics] == [("TASK_TYPE_INVALID", "/root/tasks/0/resultType/kind")]


# -------------------------------------------------------------------------- defaults


def test_optional_inputs_need_a_default_object_fields_do_not():
    assert found(
        """\
        version: 1
        inputs:
          - {name: a, type: {kind: string}, required: false}
          - {name: b, type: {kind: string}, required: false, default: {kind: string, text: x}}
          - {name: c, type: {kind: object, fields: [{name: d, type: {kind: string}, required: false}]}}
        root: {}
        groups:
          - {id: g, objective: G., inputs: [{name: e, type: {kind: string}, required: false}], body: {}}
        """
    ) == [("TASK_DEFAULT_REQUIRED", "/inputs/0"), ("TASK_DEFAULT_REQUIRED", "/groups/0/inputs/0")]


def test_a_mistyped_default_is_not_reported_as_missing():
    _, shaped, diagnostics = check(
        "version: 1\ninputs:\n  - {name: a, type: {kind: string}, required: false, default: x}\nroot: {}\n", dedent=False
    )
    assert [d.code for d in shaped] == ["PLAN_FIELD_TYPE"] and diagnostics == []


# --------------------------------------------------------------------------- choices

CHOICE = """\
version: 1
root: {}
choices:
  - id: tone
    question: Which tone?
    type: {kind: string}
    alternatives:
      - {id: formal, value: {kind: string, text: formal}}
      - {id: friendly, value: {kind: object, members: [{name: x, value: {kind: array, items: [{kind: null}, {kind: number, number: 1}]}}]}}
    recommended: formal
    selected: friendly
"""


def test_a_sound_choice():
    assert found(CHOICE, dedent=False) == []


@pytest.mark.parametrize(
    ("old", "new", "pointer"),
    [
        ("question: Which tone?", 'question: " "', "/choices/0/question"),
        ("    question: Which tone?\n", "", "/choices/0"),
        ("recommended: formal", "recommended: formel", "/choices/0/recommended"),
        ("selected: friendly", "selected: nope", "/choices/0/selected"),
        ("id: friendly", "id: formal", "/choices/0/alternatives/1/id"),
        ("{kind: number, number: 1}", "{kind: output, source: x}", "/choices/0/alternatives/1/value/members/0/value/items/1"),
        ("{kind: string, text: formal}}", "{kind: item}}", "/choices/0/alternatives/0/value"),
    ],
)
def test_choice_rules(old, new, pointer):
    text = CHOICE.replace(old, new, 1)
    if old.startswith("id: friendly"):
        text = text.replace("selected: friendly", "selected: formal")
    plan, _, diagnostics = check(text, dedent=False)
    assert [(d.code, d.location.pointer) for d in diagnostics] == [("CHOICE_INVALID", pointer)]
    assert is_broken(plan.choices[0])


def test_a_choice_needs_two_alternatives():
    text = CHOICE.replace(
        "      - {id: friendly, value: {kind: object, members: [{name: x, value: {kind: array, items: [{kind: null}, {kind: number, number: 1}]}}]}}\n",
        "",
    ).replace("    selected: friendly\n", "")
    assert found(text, dedent=False) == [("CHOICE_INVALID", "/choices/0/alternatives")]


# ----------------------------------------------------------------------- placeholders


def test_nothing_is_reported_inside_placeholders():
    _, shaped, diagnostics = check(
        """\
        version: 1
        inputs:
          - {name: a, type: {kind: array, enum: [x, x], fields: 3}}
        root:
          tasks:
            - id: t
              kind: mystery
              branches: []
              maxItems: 0
            - id: v
              kind: value
              objective: V.
              outputs:
                - {name: a, value: {kind: json, items: [], bogus: 1}}
        """
    )
    assert [d.code for d in shaped] == ["PLAN_FIELD_TYPE", "TASK_KIND_INVALID", "PLAN_FIELD_UNKNOWN"]
    assert diagnostics == []


def test_structure_is_linear_on_a_wide_plan():
    """Not a timing test: a plan with many tasks and values is checked in one walk."""
    tasks = [
        {"id": f"t{i}", "kind": "value", "objective": "V.", "outputs": [{"name": "a", "value": {"kind": "json", "items": []}}]}
        for i in range(2000)
    ]
    text = json.dumps({"version": 1, "root": {"tasks": tasks}})
    result = found(text, dedent=False, path="wide.taskplan.json")
    assert len(result) == 2000 and result[1999] == ("TASK_VALUE_INVALID", "/root/tasks/1999/outputs/0/value/items")
