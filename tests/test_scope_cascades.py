"""The scope pass after real shape errors: placeholders, shape-error marks and dropped
lists make nothing more reported; and deep plans need no recursion."""

from __future__ import annotations

from textwrap import dedent

from taskplan.model.plan import InvalidTask, has_shape_error
from test_scope_support import check_plan, load


def run(text: str):
    doc, plan = load(dedent(text).lstrip(), shape_errors=True)
    return plan, check_plan(plan, doc)


def test_reads_of_a_task_of_unknown_kind_report_nothing():
    plan, r = run(
        """
        version: 1
        root:
          tasks:
            - {id: a, kind: bogus, objective: O}
            - {id: b, kind: value, objective: O, dependsOn: [a], outputs: [{name: x, value: {kind: output, source: a, port: whatever}}]}
        """
    )
    assert isinstance(plan.root.tasks[0], InvalidTask)
    assert r.found == []
    a = r.checked.task("a")
    assert a.broken and a.ports is None
    assert r.checked.task("b").deps[a].explicit
    assert r.checked.resolution("/root/tasks/1/outputs/0/value").target is a


def test_values_inside_a_placeholder_are_not_checked():
    plan, r = run(
        """
        version: 1
        root:
          tasks:
            - {id: c, kind: call, objective: O, inputs: [{name: x, value: {kind: output, source: ghost, port: p}}]}
        """
    )
    assert isinstance(plan.root.tasks[0], InvalidTask)
    assert r.found == []
    assert r.checked.resolutions == {}


def test_a_task_with_a_shape_error_keeps_its_body_checked_and_has_unknown_ports():
    plan, r = run(
        """
        version: 1
        root:
          tasks:
            - id: loop
              kind: foreach
              objective: O
              items: {kind: array, items: []}
              maxItems: ten
              body:
                tasks:
                  - {id: inner, kind: value, objective: O, outputs: [{name: x, value: {kind: item}}, {name: y, value: {kind: output, source: nope, port: p}}]}
                outputs: [{name: x, value: {kind: output, source: inner, port: x}}]
            - {id: b, kind: value, objective: O, outputs: [{name: x, value: {kind: output, source: loop, port: x}}]}
        """
    )
    assert has_shape_error(plan.root.tasks[0])
    assert r.found == [("TASK_REFERENCE_UNKNOWN", "/root/tasks/0/body/tasks/0/outputs/1/value/source")]
    loop = r.checked.task("loop")
    assert loop.broken and loop.ports is None
    assert r.checked.resolution("/root/tasks/0/body/tasks/0/outputs/0/value").target is loop


def test_placeholders_keep_their_child_scopes():
    doc, plan = load(
        dedent(
            """
            version: 1
            root:
              tasks:
                - id: loop
                  kind: foreach
                  objective: O
                  items: {kind: array, items: []}
                  body:
                    tasks:
                      - {id: inner, kind: value, objective: O, outputs: [{name: x, value: {kind: item}}]}
                      - {id: inner, kind: value, objective: O, outputs: [{name: y, value: {kind: index}}]}
            """
        ).lstrip()
    )
    body = plan.root.tasks[0].body
    plan.root.tasks[0] = InvalidTask(id="loop", kind="foreach", scopes=[("/body", body)])
    r = check_plan(plan, doc)
    # the nested tasks are still declared and checked; item/index resolve to the placeholder
    assert r.found == [("TASK_ID_DUPLICATE", "/root/tasks/0/body/tasks/1/id")]
    loop = r.checked.task("loop")
    assert loop.broken and [c.pointer for c in loop.children] == ["/root/tasks/0/body"]
    assert r.checked.resolution("/root/tasks/0/body/tasks/0/outputs/0/value").target is loop


def test_names_in_dropped_lists_may_have_been_declared_there():
    plan, r = run(
        """
        version: 1
        inputs: [{type: {kind: string}}]
        root:
          tasks:
            - id: use
              kind: value
              objective: O
              outputs:
                - {name: x, value: {kind: choice, source: tone}}
                - {name: y, value: {kind: input, source: topic}}
            - {id: c, kind: call, objective: O, group: g, inputs: [{name: anything, value: {kind: string, text: v}}]}
            - {id: d, kind: call, objective: O, group: h}
        groups:
          - id: g
            objective: O
            inputs: [{type: {kind: string}}]
            body:
              tasks: [{id: in, kind: value, objective: O, outputs: [{name: x, value: {kind: input, source: whatever}}]}]
          - {objective: O, body: {tasks: []}}
        choices:
          - {question: "Q", type: {kind: string}, alternatives: []}
        """
    )
    # the plan's inputs, groups and choices lists and g's inputs were dropped by the shape
    # pass (reported there): nothing here can say a name is unknown or a binding wrong
    assert r.found == []
    assert r.checked.task("d").broken


def test_deep_nesting_records_captures_on_every_boundary_without_recursion():
    depth = 60
    lines = ["version: 1", "root:", "  tasks:", "    - {id: top, kind: value, objective: O, outputs: [{name: x, value: {kind: string, text: v}}]}"]
    indent = "    "
    for i in range(depth):
        lines.append(f"{indent}- id: s{i}")
        lines.append(f"{indent}  kind: sequence")
        lines.append(f"{indent}  objective: O")
        lines.append(f"{indent}  body:")
        lines.append(f"{indent}    tasks:")
        indent += "      "
    lines.append(f"{indent}- {{id: leaf, kind: value, objective: O, outputs: [{{name: x, value: {{kind: output, source: top, port: x}}}}]}}")
    doc, plan = load("\n".join(lines) + "\n")
    r = check_plan(plan, doc)
    assert r.found == []
    cp = r.checked
    bodies = [s for s in cp.scopes if s.role.value == "body"]
    assert len(bodies) == depth
    assert all(list(s.captures) == [("output", "top", "x")] for s in bodies)
    assert cp.task("s0").deps[cp.task("top")].reads
    assert cp.task("leaf").scope.depth == depth
