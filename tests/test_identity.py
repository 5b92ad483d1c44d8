"""The identity pass: the one ID namespace, the lexical rule, duplicates, names per list."""

from __future__ import annotations

from textwrap import dedent

import pytest

from taskplan.diagnostics import Diagnostics, Reporter
from taskplan.model.plan import InvalidTask
from taskplan.passes import identity as identity_pass
from taskplan.passes.identity import is_valid_id, lexical_problem, suggest_id
from test_scope_support import check, check_plan, load


def plan(body: str) -> str:
    return dedent(body).lstrip()


def value_task(task_id: str, indent: str = "    ") -> str:
    return (
        f"{indent}- id: {task_id}\n"
        f"{indent}  kind: value\n"
        f"{indent}  objective: Make a value\n"
        f"{indent}  outputs: [{{name: out, value: {{kind: string, text: x}}}}]\n"
    )


# --------------------------------------------------------------------- lexical rule


@pytest.mark.parametrize(
    "text",
    ["a", "A", "0", "_", "-", "fetch_pr", "Fetch-PR-2", "_x", "a__b", "x" * 64],
)
def test_valid_ids(text):
    assert lexical_problem(text) is None
    assert is_valid_id(text)


@pytest.mark.parametrize(
    "text, reason",
    [
        ("", "empty"),
        ("x" * 65, "65 characters"),
        ("a b", "a space at position 2"),
        ("a.b", "`.` at position 2"),
        ("a\n", "a line break at position 2"),  # no `$`-before-newline pitfall
        ("caf\u00e9", "`\u00e9` at position 4"),
        ("\u0430bc", "position 1"),  # a Cyrillic a
        ("a/b", "`/`"),
        ("tab\there", "a tab"),
        ("x\u200b", "U+200B"),
    ],
)
def test_invalid_ids(text, reason):
    problem = lexical_problem(text)
    assert problem is not None and reason in problem
    assert not is_valid_id(text)


def test_reserved_prefix_is_not_a_lexical_problem_but_not_a_valid_id():
    assert lexical_problem("__x") is None
    assert not is_valid_id("__x")
    assert is_valid_id("_x")


def test_suggestions_are_well_formed():
    for text in ["a b", "fetch pr!", "__gen", "é"]:
        s = suggest_id(text)
        assert s is None or is_valid_id(s), s
    assert suggest_id("fetch pr") == "fetch_pr"
    assert suggest_id("__gen") == "gen"


# ----------------------------------------------------------------------------- IDs


def test_invalid_task_id_at_the_id_value():
    r = check(
        plan(
            """
            version: 1
            root:
              tasks:
                - id: "fetch pr"
                  kind: value
                  objective: Make a value
                  outputs: [{name: out, value: {kind: string, text: x}}]
            """
        )
    )
    d = r.only("TASK_ID_INVALID")
    assert d.location.pointer == "/root/tasks/0/id"
    assert (d.location.line, d.location.column) == (4, 11)
    assert "a space at position 6" in d.message
    assert d.hint and "`fetch_pr`" in d.hint
    assert dict(d.subject) == {"task": "fetch pr"}
    assert r.found == [("TASK_ID_INVALID", "/root/tasks/0/id")]


def test_id_with_trailing_newline_is_invalid():
    r = check('version: 1\nroot:\n  tasks:\n    - {id: "abc\\n", kind: value, objective: O, outputs: []}\n')
    assert r.found == [("TASK_ID_INVALID", "/root/tasks/0/id")]


def test_too_long_and_empty_ids():
    long_id = "a" * 65
    r = check(
        plan(
            f"""
            version: 1
            root:
              tasks:
                - {{id: {long_id}, kind: value, objective: O, outputs: []}}
                - {{id: "", kind: value, objective: O, outputs: []}}
                - {{id: {"b" * 64}, kind: value, objective: O, outputs: []}}
            """
        )
    )
    assert r.found == [("TASK_ID_INVALID", "/root/tasks/0/id"), ("TASK_ID_INVALID", "/root/tasks/1/id")]


def test_reserved_ids_for_tasks_groups_and_choices():
    r = check(
        plan(
            """
            version: 1
            root:
              tasks:
                - {id: __gen, kind: value, objective: O, outputs: []}
            groups:
              - id: __grp
                objective: O
                body: {tasks: [{id: inner, kind: value, objective: O, outputs: []}]}
            choices:
              - id: __pick
                question: Q?
                type: {kind: string}
                alternatives:
                  - {id: a, value: {kind: string, text: a}}
                  - {id: b, value: {kind: string, text: b}}
            """
        )
    )
    assert r.found == [
        ("TASK_ID_RESERVED", "/root/tasks/0/id"),
        ("TASK_ID_RESERVED", "/groups/0/id"),
        ("TASK_ID_RESERVED", "/choices/0/id"),
    ]
    assert dict(r.diagnostics[1].subject) == {"group": "__grp"}
    assert dict(r.diagnostics[2].subject) == {"choice": "__pick"}


DUPLICATES = plan(
    """
    version: 1
    root:
      tasks:
        - id: shared
          kind: sequence
          objective: O
          body:
            tasks:
              - {id: inner, kind: value, objective: O, outputs: []}
              - {id: shared, kind: value, objective: O, outputs: []}
      always:
        - {id: inner, kind: value, objective: O, outputs: []}
    groups:
      - id: shared
        objective: O
        body:
          tasks:
            - {id: inner, kind: value, objective: O, outputs: []}
    choices:
      - id: inner
        question: Q?
        type: {kind: string}
        alternatives:
          - {id: a, value: {kind: string, text: a}}
          - {id: b, value: {kind: string, text: b}}
    """
)


def test_duplicates_at_every_depth_share_one_namespace():
    r = check(DUPLICATES)
    assert r.found == [
        ("TASK_ID_DUPLICATE", "/root/tasks/0/body/tasks/1/id"),
        ("TASK_ID_DUPLICATE", "/root/always/0/id"),
        ("TASK_ID_DUPLICATE", "/groups/0/id"),
        ("TASK_ID_DUPLICATE", "/groups/0/body/tasks/0/id"),
        ("TASK_ID_DUPLICATE", "/choices/0/id"),
    ]
    firsts = [d.related[0].location.pointer for d in r.diagnostics]
    assert firsts == [
        "/root/tasks/0/id",
        "/root/tasks/0/body/tasks/0/id",
        "/root/tasks/0/id",
        "/root/tasks/0/body/tasks/0/id",
        "/root/tasks/0/body/tasks/0/id",
    ]
    table = r.identity
    assert table.declarations["shared"].pointer == "/root/tasks/0"
    assert table.declarations["shared"].copies == ["/root/tasks/0/body/tasks/1", "/groups/0"]
    assert table.declarations["inner"].kind == "task"
    # the checked plan resolves the ID to the first declaration; copies are flagged
    checked = r.checked
    assert checked.task("shared").pointer == "/root/tasks/0"
    assert checked.group("shared") is None
    assert [t.pointer for t in checked.tasks if t.duplicate] == [
        "/root/tasks/0/body/tasks/1",
        "/root/always/0",
        "/groups/0/body/tasks/0",
    ]
    assert [g.duplicate for g in checked.groups] == [True]


def test_ids_are_case_sensitive():
    r = check(
        plan(
            """
            version: 1
            root:
              tasks:
                - {id: fetch, kind: value, objective: O, outputs: []}
                - {id: Fetch, kind: value, objective: O, outputs: []}
            """
        )
    )
    assert r.found == []


def test_invalid_ids_are_not_also_reported_as_duplicates():
    r = check(
        plan(
            """
            version: 1
            root:
              tasks:
                - {id: "a b", kind: value, objective: O, outputs: []}
                - {id: "a b", kind: value, objective: O, outputs: []}
            """
        )
    )
    assert r.found == [("TASK_ID_INVALID", "/root/tasks/0/id"), ("TASK_ID_INVALID", "/root/tasks/1/id")]


def test_document_order_is_field_order_inputs_root_groups_choices():
    # the group is written before root in the text, but root comes first in document order
    r = check(
        plan(
            """
            version: 1
            groups:
              - id: x
                objective: O
                body: {tasks: []}
            root:
              tasks:
                - {id: x, kind: value, objective: O, outputs: []}
            """
        )
    )
    assert r.found == [("TASK_ID_DUPLICATE", "/groups/0/id")]
    assert r.diagnostics[0].related[0].location.pointer == "/root/tasks/0/id"


def test_scope_outputs_come_between_tasks_and_always():
    r = check(
        plan(
            """
            version: 1
            root:
              always:
                - {id: a, kind: value, objective: O, outputs: []}
              tasks:
                - id: s
                  kind: sequence
                  objective: O
                  body:
                    always: [{id: a, kind: value, objective: O, outputs: []}]
                    tasks: [{id: b, kind: value, objective: O, outputs: []}]
                - {id: b, kind: value, objective: O, outputs: []}
            """
        )
    )
    # diagnostics are sorted by position: the root `always` is written first in the text,
    # yet it is the later declaration in document order (tasks, outputs, always)
    assert r.found == [("TASK_ID_DUPLICATE", "/root/always/0/id"), ("TASK_ID_DUPLICATE", "/root/tasks/1/id")]
    assert [d.related[0].location.pointer for d in r.diagnostics] == [
        "/root/tasks/0/body/always/0/id",
        "/root/tasks/0/body/tasks/0/id",
    ]


# ----------------------------------------------------------------------- placeholders


def test_placeholders_declare_their_id_when_they_have_one():
    doc, model = load(
        plan(
            """
            version: 1
            root:
              tasks:
                - {id: a, kind: value, objective: O, outputs: []}
                - {id: b, kind: value, objective: O, outputs: []}
                - {id: c, kind: value, objective: O, outputs: []}
            """
        )
    )
    model.root.tasks[0] = InvalidTask(id=None, kind="bogus")
    model.root.tasks[1] = InvalidTask(id="c", kind="bogus")
    r = check_plan(model, doc)
    assert r.found == [("TASK_ID_DUPLICATE", "/root/tasks/2/id")]
    assert r.identity.declarations["c"].pointer == "/root/tasks/1"
    assert "a" not in r.identity.declarations


def test_identity_pass_alone_returns_a_table():
    doc, model = load(DUPLICATES)
    sink = Diagnostics()
    table = identity_pass.run(model, Reporter(doc, sink))
    assert list(table.declarations) == ["shared", "inner"]
    assert len(sink) == 5


# --------------------------------------------------------------------------- names


def test_name_duplicates_in_every_kind_of_list():
    r = check(
        plan(
            """
            version: 1
            inputs:
              - {name: topic, type: {kind: string}}
              - {name: topic, type: {kind: string}}
            root:
              tasks:
                - id: v
                  kind: value
                  objective: O
                  outputs:
                    - {name: o, value: {kind: object, members: [{name: m, value: {kind: "null"}}, {name: m, value: {kind: "null"}}]}}
                    - {name: o, value: {kind: "null"}}
                - id: op
                  objective: O
                  operation: svc.op
                  inputs:
                    - {name: "any port name", value: {kind: "null"}}
                    - {name: "any port name", value: {kind: "null"}}
                - id: t
                  kind: transform
                  objective: O
                  inputs:
                    - {name: x, value: {kind: "null"}}
                    - {name: x, value: {kind: "null"}}
                  resultType:
                    kind: object
                    fields:
                      - {name: f, type: {kind: string}}
                      - {name: f, type: {kind: object, fields: [{name: g, type: {kind: string}}, {name: g, type: {kind: string}}]}}
              outputs:
                - {name: r, value: {kind: "null"}}
                - {name: r, value: {kind: "null"}}
            groups:
              - id: grp
                objective: O
                inputs:
                  - {name: i, type: {kind: string}}
                  - {name: i, type: {kind: string}}
                body: {tasks: []}
            choices:
              - id: pick
                question: Q?
                type: {kind: string}
                alternatives:
                  - {id: a, value: {kind: string, text: a}}
                  - {id: a, value: {kind: string, text: b}}
                  - {id: "a b", value: {kind: string, text: c}}
            """
        )
    )
    assert r.found == [
        ("NAME_DUPLICATE", "/inputs/1/name"),
        ("NAME_DUPLICATE", "/root/tasks/0/outputs/0/value/members/1/name"),
        ("NAME_DUPLICATE", "/root/tasks/0/outputs/1/name"),
        ("NAME_DUPLICATE", "/root/tasks/1/inputs/1/name"),
        ("NAME_DUPLICATE", "/root/tasks/2/inputs/1/name"),
        ("NAME_DUPLICATE", "/root/tasks/2/resultType/fields/1/name"),
        ("NAME_DUPLICATE", "/root/tasks/2/resultType/fields/1/type/fields/1/name"),
        ("NAME_DUPLICATE", "/root/outputs/1/name"),
        ("NAME_DUPLICATE", "/groups/0/inputs/1/name"),
        # two alternatives with one ID are CHOICE_INVALID (the structure pass); the
        # lexical rule still applies to alternative IDs
        ("TASK_ID_INVALID", "/choices/0/alternatives/2/id"),
    ]
    d = r.diagnostics[0]
    assert d.related[0].location.pointer == "/inputs/0/name"
    assert "appears twice" in d.message
    assert "alternative ID `a b` is not valid" in r.diagnostics[-1].message
    assert r.identity.bad_names >= {"/inputs/1/name", "/choices/0/alternatives/2/id"}


def test_same_name_in_different_lists_is_fine():
    r = check(
        plan(
            """
            version: 1
            inputs: [{name: x, type: {kind: string}}]
            root:
              tasks:
                - {id: x, kind: value, objective: O, outputs: [{name: x, value: {kind: input, source: x}}]}
                - {id: y, kind: value, objective: O, outputs: [{name: x, value: {kind: output, source: x, port: x}}]}
              outputs: [{name: x, value: {kind: output, source: y, port: x}}]
            """
        )
    )
    assert r.found == []


def test_names_follow_the_lexical_rule_except_operation_bindings():
    r = check(
        plan(
            """
            version: 1
            inputs: [{name: "my input", type: {kind: string}}]
            root:
              tasks:
                - id: v
                  kind: value
                  objective: O
                  outputs:
                    - {name: "out.put", value: {kind: object, members: [{name: "", value: {kind: "null"}}]}}
                - id: op
                  objective: O
                  operation: svc.op
                  inputs: [{name: "X-Header Value.1", value: {kind: "null"}}]
                - id: c
                  kind: call
                  objective: O
                  group: g
                  inputs: [{name: "bad name", value: {kind: "null"}}]
              outputs: [{name: "__ok", value: {kind: "null"}}]
            groups:
              - id: g
                objective: O
                inputs: [{name: "bad name", type: {kind: string}, required: false}]
                body: {tasks: []}
            """
        )
    )
    assert r.found == [
        ("TASK_ID_INVALID", "/inputs/0/name"),
        ("TASK_ID_INVALID", "/root/tasks/0/outputs/0/name"),
        ("TASK_ID_INVALID", "/root/tasks/0/outputs/0/value/members/0/name"),
        ("TASK_ID_INVALID", "/root/tasks/2/inputs/0/name"),
        ("TASK_ID_INVALID", "/groups/0/inputs/0/name"),
    ]
    assert "output name `out.put` is not valid" in r.diagnostics[1].message


def test_an_invalid_name_twice_is_reported_as_invalid_only():
    r = check(
        plan(
            """
            version: 1
            root:
              tasks:
                - id: v
                  kind: value
                  objective: O
                  outputs: [{name: "a b", value: {kind: "null"}}, {name: "a b", value: {kind: "null"}}]
            """
        )
    )
    assert r.found == [
        ("TASK_ID_INVALID", "/root/tasks/0/outputs/0/name"),
        ("TASK_ID_INVALID", "/root/tasks/0/outputs/1/name"),
    ]


def test_names_in_defaults_and_alternatives_are_checked():
    r = check(
        plan(
            """
            version: 1
            inputs:
              - name: cfg
                type: {kind: object, fields: [{name: k, type: {kind: string}}]}
                required: false
                default: {kind: object, members: [{name: k, value: {kind: string, text: a}}, {name: k, value: {kind: string, text: b}}]}
            root: {tasks: []}
            choices:
              - id: pick
                question: Q?
                type: {kind: object, fields: [{name: k, type: {kind: string}}]}
                alternatives:
                  - {id: a, value: {kind: object, members: [{name: k, value: {kind: string, text: a}}]}}
                  - {id: b, value: {kind: object, members: [{name: k, value: {kind: string, text: a}}, {name: k, value: {kind: string, text: a}}]}}
            """
        )
    )
    assert r.found == [
        ("NAME_DUPLICATE", "/inputs/0/default/members/1/name"),
        ("NAME_DUPLICATE", "/choices/0/alternatives/1/value/members/1/name"),
    ]


def test_identity_is_deterministic():
    first = [d.to_json() for d in check(DUPLICATES).diagnostics]
    for _ in range(3):
        assert [d.to_json() for d in check(DUPLICATES).diagnostics] == first
