"""The scope pass: visibility, captures, exports, dependencies, order, cycles, groups,
choices, cascades; and the CheckedPlan it builds."""

from __future__ import annotations

from taskplan.ir.checked import InputDecl, ScopeRole, TaskNode
from taskplan.model.plan import InvalidTask, InvalidValue
from test_scope_support import check, check_plan, load, out, plan, val


# ============================================================ visibility: same scope


def test_same_scope_read_makes_a_dependency_and_orders_the_scope():
    r = check(
        plan(
            f"""
            version: 1
            root:
              tasks:
                - {val("c", out("b"))}
                - {val("a")}
                - {val("b", out("a"))}
              outputs: [{{name: r, value: {out("c")}}}]
            """
        )
    )
    assert r.found == []
    root = r.checked.root
    assert [t.id for t in root.tasks] == ["c", "a", "b"]
    assert [t.id for t in root.order] == ["a", "b", "c"]
    c = r.checked.task("c")
    dep = c.deps[r.checked.task("b")]
    assert dep.pointers == ["/root/tasks/0/outputs/0/value"] and dep.reads and not dep.explicit
    res = r.checked.resolution("/root/tasks/0/outputs/0/value")
    assert res.target is r.checked.task("b") and res.port == "out" and res.ok and res.reader is c


def test_ties_keep_list_order_and_dependsOn_orders():
    r = check(
        plan(
            f"""
            version: 1
            root:
              tasks:
                - {val("d", extra=", dependsOn: [b]")}
                - {val("a")}
                - {val("b")}
                - {val("c")}
            """
        )
    )
    assert r.found == []
    # `d` (list index 0) becomes ready once `b` ran and, among the ready tasks, comes
    # first by list order
    assert [t.id for t in r.checked.root.order] == ["a", "b", "d", "c"]
    d = r.checked.task("d")
    assert d.deps[r.checked.task("b")].explicit
    assert r.checked.resolution("/root/tasks/0/dependsOn/0").target is r.checked.task("b")


def test_workflow_inputs_are_visible_everywhere_outside_groups():
    r = check(
        plan(
            f"""
            version: 1
            inputs: [{{name: topic, type: {{kind: string}}}}]
            root:
              tasks:
                - id: s
                  kind: sequence
                  objective: O
                  body:
                    tasks:
                      - id: inner
                        kind: sequence
                        objective: O
                        body:
                          tasks: [{val("deep", "{kind: input, source: topic}")}]
            """
        )
    )
    assert r.found == []
    res = r.checked.resolution("/root/tasks/0/body/tasks/0/body/tasks/0/outputs/0/value")
    assert isinstance(res.target, InputDecl) and res.target.name == "topic"
    s_body = r.checked.task("s").children[0]
    inner_body = r.checked.task("inner").children[0]
    assert list(s_body.captures) == [("input", "topic", None)]
    assert list(inner_body.captures) == [("input", "topic", None)]
    assert r.checked.root.captures == {}


# ================================================================ captures & exports


CAPTURE = plan(
    f"""
    version: 1
    root:
      tasks:
        - {val("src")}
        - id: outer
          kind: sequence
          objective: O
          body:
            tasks:
              - id: inner
                kind: sequence
                objective: O
                body:
                  tasks: [{val("leaf", out("src"))}]
                  outputs: [{{name: leafy, value: {out("leaf")}}}]
            outputs: [{{name: result, value: {out("inner", "leafy")}}}]
      outputs: [{{name: final, value: {out("outer", "result")}}}]
    """
)


def test_capture_is_recorded_on_each_boundary_and_the_compound_depends_on_the_producer():
    r = check(CAPTURE)
    assert r.found == []
    cp = r.checked
    outer, inner, src = cp.task("outer"), cp.task("inner"), cp.task("src")
    ptr = "/root/tasks/1/body/tasks/0/body/tasks/0/outputs/0/value"
    for scope in (outer.children[0], inner.children[0]):
        cap = scope.captures[("output", "src", "out")]
        assert cap.target is src and cap.pointers == [ptr]
    assert outer.deps[src].pointers == [ptr]
    assert inner.deps == {}  # src is not in inner's scope: the dependency is outer's
    assert [t.id for t in cp.root.order] == ["src", "outer"]
    # exports: scope outputs become ports of the compound task
    assert outer.ports == {"result": "/root/tasks/1/body/outputs/0"}
    assert inner.ports == {"leafy": "/root/tasks/1/body/tasks/0/body/outputs/0"}


def test_read_of_a_nested_task_names_the_export_chain():
    r = check(
        plan(
            f"""
            version: 1
            root:
              tasks:
                - id: review_each
                  kind: foreach
                  objective: O
                  items: {{kind: array, items: []}}
                  body:
                    tasks: [{val("summary")}]
                - {val("report", out("summary"))}
            """
        )
    )
    d = r.only("TASK_REFERENCE_SCOPE")
    assert d.location.pointer == "/root/tasks/1/outputs/0/value/source"
    assert "the body of `review_each`" in d.message
    assert d.hint.startswith("export `out` from the body of `review_each` (its `outputs`)")
    assert "then read port `out` of `review_each`" in d.hint
    assert "as an array" in d.hint
    assert r.checked.task("report").deps == {}


def test_export_chain_through_two_levels():
    r = check(
        plan(
            f"""
            version: 1
            root:
              tasks:
                - id: outer
                  kind: sequence
                  objective: O
                  body:
                    tasks:
                      - id: inner
                        kind: sequence
                        objective: O
                        body: {{tasks: [{val("deep")}]}}
                - {val("reader", "{kind: present, source: deep}")}
            """
        )
    )
    d = r.only("TASK_REFERENCE_SCOPE")
    assert d.hint == (
        "export `deep` from the body of `inner` (its `outputs`), then from the body of `outer`, "
        "then read port `deep` of `outer`"
    )


def test_a_task_cannot_read_inside_its_own_body_and_no_chain_is_offered():
    r = check(
        plan(
            f"""
            version: 1
            root:
              tasks:
                - id: loop
                  kind: foreach
                  objective: O
                  items: {out("x")}
                  body: {{tasks: [{val("x")}]}}
            """
        )
    )
    d = r.only("TASK_REFERENCE_SCOPE")
    assert d.location.pointer == "/root/tasks/0/items/source"
    assert d.hint is None


def test_conditional_sides_cannot_read_each_other():
    r = check(
        plan(
            f"""
            version: 1
            root:
              tasks:
                - id: cond
                  kind: conditional
                  objective: O
                  condition: {{kind: boolean, boolean: true}}
                  body: {{tasks: [{val("yes")}]}}
                  otherwise: {{tasks: [{val("no", out("yes"))}]}}
            """
        )
    )
    d = r.only("TASK_REFERENCE_SCOPE")
    assert d.location.pointer == "/root/tasks/0/otherwise/tasks/0/outputs/0/value/source"
    assert "the body of `cond`" in d.message
    assert d.hint is None


def test_parallel_branches_cannot_read_each_other():
    r = check(
        plan(
            f"""
            version: 1
            root:
              tasks:
                - id: par
                  kind: parallel
                  objective: O
                  branches:
                    - tasks: [{val("left")}]
                    - tasks:
                        - id: nest
                          kind: sequence
                          objective: O
                          body: {{tasks: [{val("right", out("left"))}]}}
            """
        )
    )
    d = r.only("TASK_REFERENCE_SIBLING")
    assert d.location.pointer == "/root/tasks/0/branches/1/tasks/0/body/tasks/0/outputs/0/value/source"
    assert "branch 0 of parallel `par`" in d.message
    assert "export `out` from branch 0" in d.hint


def test_a_branch_reads_the_enclosing_scope():
    r = check(
        plan(
            f"""
            version: 1
            root:
              tasks:
                - {val("before")}
                - id: par
                  kind: parallel
                  objective: O
                  branches:
                    - tasks: [{val("l", out("before"))}]
                      outputs: [{{name: a, value: {out("l")}}}]
                    - tasks: [{val("r", out("before"))}]
                      outputs: [{{name: b, value: {out("r")}}}]
                - {val("after", out("par", "a"))}
            """
        )
    )
    assert r.found == []
    par = r.checked.task("par")
    assert list(par.deps) == [r.checked.task("before")]
    assert par.ports == {"a": "/root/tasks/1/branches/0/outputs/0", "b": "/root/tasks/1/branches/1/outputs/0"}
    assert [s.role for s in par.children] == [ScopeRole.BRANCH, ScopeRole.BRANCH]
    assert [s.branch for s in par.children] == [0, 1]


# ========================================================================= unknowns


def test_unknown_task_reference_with_suggestion():
    r = check(
        plan(
            f"""
            version: 1
            root:
              tasks:
                - {val("fetch_issues")}
                - {val("reader", out("fetch_isues"))}
            """
        )
    )
    d = r.only("TASK_REFERENCE_UNKNOWN")
    assert d.location.pointer == "/root/tasks/1/outputs/0/value/source"
    assert d.hint == "did you mean `fetch_issues`?"
    res = r.checked.resolution("/root/tasks/1/outputs/0/value")
    assert res.target is None and not res.ok


def test_reading_a_group_or_choice_as_a_task_is_unknown_with_a_hint():
    r = check(
        plan(
            f"""
            version: 1
            root:
              tasks:
                - {val("a", out("tone"))}
            choices:
              - id: tone
                question: Q?
                type: {{kind: string}}
                alternatives: [{{id: x, value: {{kind: string, text: x}}}}, {{id: y, value: {{kind: string, text: y}}}}]
            """
        )
    )
    d = r.only("TASK_REFERENCE_UNKNOWN")
    assert "choice" in d.message and "{kind: choice, source: tone}" in d.hint


def test_unknown_workflow_input():
    r = check(
        plan(
            f"""
            version: 1
            inputs: [{{name: topic, type: {{kind: string}}}}]
            root:
              tasks: [{val("a", "{kind: input, source: topc}")}]
            """
        )
    )
    d = r.only("TASK_REFERENCE_UNKNOWN")
    assert d.location.pointer == "/root/tasks/0/outputs/0/value/source"
    assert d.message == "the workflow has no input `topc`"
    assert d.hint == "did you mean `topic`?"


def test_item_and_index_outside_a_foreach_body():
    r = check(
        plan(
            f"""
            version: 1
            root:
              tasks:
                - {val("a", "{kind: item}")}
                - id: loop
                  kind: foreach
                  objective: O
                  items: {{kind: array, items: [{{kind: index}}]}}
                  body: {{tasks: [{val("b", "{kind: item}")}]}}
            """
        )
    )
    assert r.found == [
        ("TASK_ITEM_SCOPE", "/root/tasks/0/outputs/0/value"),
        ("TASK_ITEM_SCOPE", "/root/tasks/1/items/items/0"),
    ]
    assert "evaluated before its body" in r.diagnostics[1].message


def test_item_in_a_nested_scope_resolves_to_the_nearest_foreach_and_is_captured():
    r = check(
        plan(
            f"""
            version: 1
            root:
              tasks:
                - id: outer
                  kind: foreach
                  objective: O
                  items: {{kind: array, items: []}}
                  body:
                    tasks:
                      - id: inner
                        kind: foreach
                        objective: O
                        items: {{kind: item}}
                        body:
                          tasks:
                            - id: s
                              kind: sequence
                              objective: O
                              body: {{tasks: [{val("leaf", "{kind: index}")}]}}
            """
        )
    )
    assert r.found == []
    cp = r.checked
    assert cp.resolution("/root/tasks/0/body/tasks/0/items").target is cp.task("outer")
    leaf_ptr = "/root/tasks/0/body/tasks/0/body/tasks/0/body/tasks/0/outputs/0/value"
    assert cp.resolution(leaf_ptr).target is cp.task("inner")
    s_body = cp.task("s").children[0]
    assert list(s_body.captures) == [("index", None, None)]
    assert cp.task("inner").children[0].captures == {}


# ===================================================================== always tasks


ALWAYS = plan(
    f"""
    version: 1
    root:
      tasks:
        - {val("open")}
        - {val("work", out("cleanup"), ", dependsOn: [cleanup]")}
      outputs: [{{name: r, value: {out("cleanup")}}}]
      always:
        - {val("cleanup", out("open"))}
        - {val("more", out("cleanup"), ", dependsOn: [cleanup, open]")}
    """
)


def test_always_tasks_read_the_scope_and_nothing_reads_them():
    r = check(ALWAYS)
    assert r.found == [
        ("TASK_REFERENCE_SCOPE", "/root/tasks/1/outputs/0/value/source"),
        ("TASK_REFERENCE_SCOPE", "/root/tasks/1/dependsOn/0"),
        ("TASK_REFERENCE_SCOPE", "/root/outputs/0/value/source"),
        ("TASK_REFERENCE_SCOPE", "/root/always/1/outputs/0/value/source"),
    ]
    cp = r.checked
    cleanup, more, open_ = cp.task("cleanup"), cp.task("more"), cp.task("open")
    assert cleanup.in_always and cleanup.deps[open_].reads  # a guarded read
    assert list(more.deps) == [cleanup, open_]  # dependsOn orders cleanup tasks among themselves
    assert [t.id for t in cp.root.always_order] == ["cleanup", "more"]
    assert [t.id for t in cp.root.order] == ["open", "work"]


# ======================================================================== dependsOn


def test_dependsOn_rules():
    r = check(
        plan(
            f"""
            version: 1
            root:
              tasks:
                - {val("a")}
                - id: s
                  kind: sequence
                  objective: O
                  body:
                    tasks:
                      - {val("inner", extra=", dependsOn: [a, nowhere, g, s]")}
                - {val("b", extra=", dependsOn: [inner]")}
            groups:
              - {{id: g, objective: O, body: {{tasks: []}}}}
            """
        )
    )
    assert r.found == [
        ("TASK_REFERENCE_SCOPE", "/root/tasks/1/body/tasks/0/dependsOn/0"),
        ("TASK_DEPENDENCY_UNKNOWN", "/root/tasks/1/body/tasks/0/dependsOn/1"),
        ("TASK_DEPENDENCY_UNKNOWN", "/root/tasks/1/body/tasks/0/dependsOn/2"),
        ("TASK_REFERENCE_SCOPE", "/root/tasks/1/body/tasks/0/dependsOn/3"),
        ("TASK_REFERENCE_SCOPE", "/root/tasks/2/dependsOn/0"),
    ]
    d = r.diagnostics
    assert d[0].hint == "`inner` runs inside `s`: add `a` to the `dependsOn` of `s` instead"
    assert "is a group, not a task" in d[2].message
    assert d[4].hint == "`inner` runs inside `s`: depend on `s` instead"


def test_unknown_dependency_suggests_a_close_id():
    r = check(
        plan(
            f"""
            version: 1
            root:
              tasks:
                - {val("Build")}
                - {val("test", extra=", dependsOn: [build]")}
            """
        )
    )
    d = r.only("TASK_DEPENDENCY_UNKNOWN")
    assert d.hint == "did you mean `Build`?"


# =========================================================================== cycles


def test_cycle_reported_once_naming_every_task_at_the_first_tasks_entry():
    r = check(
        plan(
            f"""
            version: 1
            root:
              tasks:
                - {val("x")}
                - {val("b", out("c"))}
                - {val("a", extra=", dependsOn: [b]")}
                - {val("c", out("a"))}
            """
        )
    )
    d = r.only("TASK_DEPENDENCY_CYCLE")
    # b is the first-written task on the cycle; it depends on c through its output value
    assert d.location.pointer == "/root/tasks/1/outputs/0/value"
    assert d.message == "tasks `b`, `a`, `c` depend on each other in a cycle: `b` -> `c` -> `a` -> `b`"
    assert [x.location.pointer for x in d.related] == ["/root/tasks/3/outputs/0/value", "/root/tasks/2/dependsOn/0"]
    cp = r.checked
    assert cp.root.has_cycle
    assert [t.id for t in cp.root.order] == ["x", "b", "a", "c"]
    assert [t.cyclic for t in cp.root.tasks] == [False, True, True, True]
    assert not cp.resolution("/root/tasks/2/dependsOn/0").ok


def test_two_cycles_in_one_component_are_one_report_and_separate_cycles_two():
    r = check(
        plan(
            f"""
            version: 1
            root:
              tasks:
                - {val("a", extra=", dependsOn: [b, c]")}
                - {val("b", extra=", dependsOn: [a]")}
                - {val("c", extra=", dependsOn: [a]")}
                - {val("d", extra=", dependsOn: [e]")}
                - {val("e", extra=", dependsOn: [d]")}
                - {val("f", extra=", dependsOn: [f]")}
            """
        )
    )
    assert r.found == [
        ("TASK_DEPENDENCY_CYCLE", "/root/tasks/0/dependsOn/0"),
        ("TASK_DEPENDENCY_CYCLE", "/root/tasks/3/dependsOn/0"),
        ("TASK_DEPENDENCY_CYCLE", "/root/tasks/5/dependsOn/0"),
    ]
    assert r.diagnostics[0].message.startswith("tasks `a`, `b`, `c` depend on each other")
    assert r.diagnostics[2].message == "task `f` depends on itself: its `dependsOn` names itself"


def test_reading_itself_and_reading_its_own_ports_from_inside_are_self_cycles():
    r = check(
        plan(
            f"""
            version: 1
            root:
              tasks:
                - {val("me", out("me"))}
                - id: s
                  kind: sequence
                  objective: O
                  body:
                    tasks: [{val("inner", out("s", "r"))}]
                    outputs: [{{name: r, value: {out("inner")}}}]
            """
        )
    )
    assert r.found == [
        ("TASK_DEPENDENCY_CYCLE", "/root/tasks/0/outputs/0/value"),
        ("TASK_DEPENDENCY_CYCLE", "/root/tasks/1/body/tasks/0/outputs/0/value"),
    ]
    assert "it reads its own ports" in r.diagnostics[0].message
    assert "task `s` depends on itself: a value inside its own body" in r.diagnostics[1].message


def test_cycle_through_a_capture():
    r = check(
        plan(
            f"""
            version: 1
            root:
              tasks:
                - id: s
                  kind: sequence
                  objective: O
                  body:
                    tasks: [{val("inner", out("after"))}]
                    outputs: [{{name: r, value: {out("inner")}}}]
                - {val("after", out("s", "r"))}
            """
        )
    )
    d = r.only("TASK_DEPENDENCY_CYCLE")
    assert d.location.pointer == "/root/tasks/0/body/tasks/0/outputs/0/value"
    assert "`s` -> `after` -> `s`" in d.message


def test_a_long_chain_and_a_large_cycle_do_not_recurse():
    n = 3000
    lines = [val(f"t{i}", out(f"t{i + 1}") if i + 1 < n else out("t0")) for i in range(n)]
    text = "version: 1\nroot:\n  tasks:\n" + "".join(f"    - {line}\n" for line in lines)
    r = check(text)
    d = r.only("TASK_DEPENDENCY_CYCLE")
    assert d.location.pointer == "/root/tasks/0/outputs/0/value"
    assert len(d.related) == n - 1


# =========================================================================== groups


GROUPS = plan(
    f"""
    version: 1
    inputs: [{{name: topic, type: {{kind: string}}}}]
    root:
      tasks:
        - {val("outside")}
        - id: c1
          kind: call
          objective: O
          group: audit
          inputs:
            - {{name: ref, value: {{kind: input, source: topic}}}}
            - {{name: extra, value: {{kind: string, text: x}}}}
        - {{id: c2, kind: call, objective: O, group: audti}}
        - {{id: c3, kind: call, objective: O, group: audit, inputs: []}}
    groups:
      - id: audit
        objective: O
        inputs:
          - {{name: ref, type: {{kind: string}}}}
          - {{name: note, type: {{kind: string}}, required: false, default: {{kind: string, text: n}}}}
        body:
          tasks:
            - {val("w1", "{kind: input, source: ref}")}
            - {val("w2", "{kind: input, source: topic}")}
            - {val("w3", out("outside"))}
            - {val("w4", "{kind: input, source: nope}")}
          outputs: [{{name: entry, value: {out("w1")}}}]
    """
)


def test_groups_names_and_bindings():
    r = check(GROUPS)
    assert r.found == [
        ("TASK_GROUP_INPUTS", "/root/tasks/1/inputs/1/name"),
        ("TASK_GROUP_UNKNOWN", "/root/tasks/2/group"),
        ("TASK_GROUP_INPUTS", "/root/tasks/3/inputs"),
        ("TASK_REFERENCE_SCOPE", "/groups/0/body/tasks/1/outputs/0/value/source"),
        ("TASK_REFERENCE_SCOPE", "/groups/0/body/tasks/2/outputs/0/value/source"),
        ("TASK_REFERENCE_UNKNOWN", "/groups/0/body/tasks/3/outputs/0/value/source"),
    ]
    d = r.diagnostics
    assert d[0].message == "group `audit` has no input `extra`"
    assert d[1].hint == "did you mean `audit`?"
    assert d[2].message == "call `c3` leaves the required input `ref` of group `audit` unbound"
    assert dict(d[2].subject) == {"task": "c3", "input": "ref"}
    assert "workflow input" in d[3].message and "declare `topic` in the `inputs` of group `audit`" in d[3].hint
    assert "outside group `audit`" in d[4].message
    assert d[5].message == "group `audit` has no input `nope`"
    cp = r.checked
    audit = cp.group("audit")
    assert [c.id for c in audit.calls] == ["c1", "c3"]
    assert cp.task("c1").ports == {"entry": "/groups/0/body/outputs/0"}
    assert cp.task("c2").broken and cp.task("c2").ports is None
    assert audit.body.role is ScopeRole.GROUP_BODY and audit.body.owner is audit and audit.body.parent is None


def test_missing_required_input_when_the_call_has_no_inputs_points_at_the_task():
    r = check(GROUPS)
    d = [x for x in r.diagnostics if x.location.pointer == "/root/tasks/3/inputs"][0]
    assert d.code == "TASK_GROUP_INPUTS"
    r2 = check(GROUPS.replace("{id: c3, kind: call, objective: O, group: audit, inputs: []}", "{id: c3, kind: call, objective: O, group: audit}"))
    d2 = [x for x in r2.diagnostics if x.code == "TASK_GROUP_INPUTS" and "c3" in x.message][0]
    assert d2.location.pointer == "/root/tasks/3"


def test_group_inputs_are_captured_by_nested_scopes():
    r = check(
        plan(
            f"""
            version: 1
            root:
              tasks:
                - {{id: c, kind: call, objective: O, group: g, inputs: [{{name: x, value: {{kind: string, text: v}}}}]}}
            groups:
              - id: g
                objective: O
                inputs: [{{name: x, type: {{kind: string}}}}]
                body:
                  tasks:
                    - id: s
                      kind: sequence
                      objective: O
                      body: {{tasks: [{val("leaf", "{kind: input, source: x}")}]}}
            """
        )
    )
    assert r.found == []
    cp = r.checked
    res = cp.resolution("/groups/0/body/tasks/0/body/tasks/0/outputs/0/value")
    assert res.target is cp.group("g").inputs[0]
    assert list(cp.task("s").children[0].captures) == [("input", "x", None)]


def test_group_input_read_outside_its_group_and_item_in_a_group_body():
    r = check(
        plan(
            f"""
            version: 1
            root:
              tasks:
                - {val("a", "{kind: input, source: x}")}
                - id: loop
                  kind: foreach
                  objective: O
                  items: {{kind: array, items: []}}
                  body:
                    tasks: [{{id: c, kind: call, objective: O, group: g, inputs: [{{name: x, value: {{kind: item}}}}]}}]
            groups:
              - id: g
                objective: O
                inputs: [{{name: x, type: {{kind: string}}}}]
                body:
                  tasks: [{val("leaf", "{kind: item}")}]
            """
        )
    )
    assert r.found == [
        ("TASK_REFERENCE_SCOPE", "/root/tasks/0/outputs/0/value/source"),
        ("TASK_ITEM_SCOPE", "/groups/0/body/tasks/0/outputs/0/value"),
    ]
    assert "input of group `g`" in r.diagnostics[0].message
    assert "does not see the caller's foreach" in r.diagnostics[1].message


def test_reading_into_a_group_body_from_outside():
    r = check(
        plan(
            f"""
            version: 1
            root:
              tasks: [{val("a", out("w"))}]
            groups:
              - id: g
                objective: O
                body:
                  tasks: [{val("w")}]
            """
        )
    )
    d = r.only("TASK_REFERENCE_SCOPE")
    assert d.hint == "export `out` from the body of group `g` (its `outputs`), then read port `out` of a `call` task of `g`"


def test_group_cycles_are_reported_once_per_loop():
    r = check(
        plan(
            """
            version: 1
            root:
              tasks:
                - {id: start, kind: call, objective: O, group: a}
            groups:
              - id: a
                objective: O
                body: {tasks: [{id: a_calls_b, kind: call, objective: O, group: b}]}
              - id: b
                objective: O
                body:
                  tasks:
                    - id: s
                      kind: sequence
                      objective: O
                      body: {tasks: [{id: b_calls_c, kind: call, objective: O, group: c}]}
                    - {id: b_calls_a, kind: call, objective: O, group: a}
              - id: c
                objective: O
                body: {tasks: [{id: c_calls_c, kind: call, objective: O, group: c}]}
            """
        )
    )
    assert r.found == [
        ("TASK_GROUP_CYCLE", "/groups/0/body/tasks/0/group"),
        ("TASK_GROUP_CYCLE", "/groups/2/body/tasks/0/group"),
    ]
    d = r.diagnostics
    assert d[0].message == "groups `a`, `b` call each other in a loop: `a` -> `b` -> `a`"
    assert d[0].related[0].location.pointer == "/groups/1/body/tasks/1/group"
    assert "group `c` calls itself" in d[1].message
    assert [g.cyclic for g in r.checked.groups] == [True, True, True]


# ========================================================================== choices


def test_choices_resolve_anywhere_and_unknown_ones_are_reported():
    r = check(
        plan(
            f"""
            version: 1
            root:
              tasks:
                - {val("a", "{kind: choice, source: tone}")}
                - {val("b", "{kind: choice, source: tnoe}")}
                - {{id: c, kind: call, objective: O, group: g}}
            groups:
              - id: g
                objective: O
                body: {{tasks: [{val("inside", "{kind: choice, source: tone}")}]}}
            choices:
              - id: tone
                question: Q?
                type: {{kind: string}}
                alternatives: [{{id: x, value: {{kind: string, text: x}}}}, {{id: y, value: {{kind: string, text: y}}}}]
            """
        )
    )
    d = r.only("CHOICE_UNKNOWN")
    assert d.location.pointer == "/root/tasks/1/outputs/0/value/source"
    assert d.hint == "did you mean `tone`?"
    assert r.checked.choice("tone").reads == ["/root/tasks/0/outputs/0/value", "/groups/0/body/tasks/0/outputs/0/value"]


# ========================================================================= cascades


def test_reads_of_placeholders_and_values_inside_them_report_nothing():
    doc, model = load(
        plan(
            f"""
            version: 1
            root:
              tasks:
                - {val("broken")}
                - {val("reader", out("broken", "whatever"))}
                - {val("other", "{kind: string, text: x}")}
            """
        )
    )
    model.root.tasks[0] = InvalidTask(id="broken", kind="bogus", raw={"dependsOn": ["nowhere"]})
    model.root.tasks[2].outputs[0].value = InvalidValue(kind="bogus", raw={"kind": "output", "source": "nope"})
    r = check_plan(model, doc)
    assert r.found == []
    cp = r.checked
    broken = cp.task("broken")
    assert broken.broken and broken.is_placeholder and broken.ports is None
    res = cp.resolution("/root/tasks/1/outputs/0/value")
    assert res.target is broken and res.ok
    assert cp.task("reader").deps[broken].reads
    assert "/root/tasks/2/outputs/0/value" not in cp.resolutions


def test_placeholder_dependsOn_still_orders_and_is_checked():
    doc, model = load(
        plan(
            f"""
            version: 1
            root:
              tasks:
                - {val("p")}
                - {val("q")}
            """
        )
    )
    model.root.tasks[0] = InvalidTask(id="p", kind="bogus", dependsOn=["q", "zzz"])
    r = check_plan(model, doc)
    assert r.found == [("TASK_DEPENDENCY_UNKNOWN", "/root/tasks/0")]  # the entry is not in the source map
    assert [t.id for t in r.checked.root.order] == ["q", "p"]


def test_reads_of_duplicated_ids_that_only_a_later_copy_explains_are_silent():
    r = check(
        plan(
            f"""
            version: 1
            root:
              tasks:
                - {val("dup")}
                - id: s
                  kind: sequence
                  objective: O
                  body:
                    tasks:
                      - id: inner
                        kind: sequence
                        objective: O
                        body:
                          tasks:
                            - {val("dup")}
                            - {val("reader", out("dup"), ", dependsOn: [dup]")}
                - {val("top", out("dup"))}
            """
        )
    )
    assert r.found == [("TASK_ID_DUPLICATE", "/root/tasks/1/body/tasks/0/body/tasks/0/id")]
    cp = r.checked
    # references resolve to the first declaration
    assert cp.resolution("/root/tasks/2/outputs/0/value").target is cp.root.tasks[0]
    reader = cp.task("reader")
    # the read from inside `s` is visible (captured), the dependsOn is silent
    assert cp.resolution("/root/tasks/1/body/tasks/0/body/tasks/1/outputs/0/value").ok
    assert not cp.resolution("/root/tasks/1/body/tasks/0/body/tasks/1/dependsOn/0").ok
    assert reader.deps == {}
    assert cp.task("s").deps[cp.root.tasks[0]].reads


def test_an_unknown_reference_is_reported_once_and_makes_no_dependency_error():
    r = check(
        plan(
            f"""
            version: 1
            root:
              tasks:
                - {val("a", out("ghost"), ", dependsOn: [ghost]")}
                - id: s
                  kind: sequence
                  objective: O
                  body: {{tasks: [{val("b", out("ghost"))}]}}
            """
        )
    )
    assert r.found == [
        ("TASK_REFERENCE_UNKNOWN", "/root/tasks/0/outputs/0/value/source"),
        ("TASK_DEPENDENCY_UNKNOWN", "/root/tasks/0/dependsOn/0"),
        ("TASK_REFERENCE_UNKNOWN", "/root/tasks/1/body/tasks/0/outputs/0/value/source"),
    ]
    assert r.checked.task("s").children[0].captures == {}
    assert not r.checked.root.has_cycle


def test_unknown_group_makes_no_binding_errors_but_binding_values_are_checked():
    r = check(
        plan(
            """
            version: 1
            root:
              tasks:
                - id: c
                  kind: call
                  objective: O
                  group: missing
                  inputs: [{name: anything, value: {kind: output, source: ghost, port: p}}]
            """
        )
    )
    assert r.found == [
        ("TASK_GROUP_UNKNOWN", "/root/tasks/0/group"),
        ("TASK_REFERENCE_UNKNOWN", "/root/tasks/0/inputs/0/value/source"),
    ]


def test_mismatched_conditional_outputs_leave_ports_unknown():
    r = check(
        plan(
            f"""
            version: 1
            root:
              tasks:
                - id: cond
                  kind: conditional
                  objective: O
                  condition: {{kind: boolean, boolean: true}}
                  body: {{tasks: [], outputs: [{{name: a, value: {{kind: string, text: x}}}}]}}
                - id: both
                  kind: conditional
                  objective: O
                  condition: {{kind: boolean, boolean: true}}
                  body: {{outputs: [{{name: a, value: {{kind: string, text: x}}}}]}}
                  otherwise: {{outputs: [{{name: a, value: {{kind: string, text: y}}}}]}}
            """
        )
    )
    assert r.found == []  # TASK_BRANCH_OUTPUTS belongs to the structure pass
    assert r.checked.task("cond").broken and r.checked.task("cond").ports is None
    assert r.checked.task("both").ports == {"a": "/root/tasks/1/body/outputs/0"}


SEVERAL = plan(
    f"""
    version: 1
    inputs: [{{name: topic, type: {{kind: string}}}}]
    root:
      tasks:
        - {val("a", "{kind: input, source: topik}")}
        - {val("a", out("a"))}
        - id: loop
          kind: foreach
          objective: O
          items: {out("a")}
          body:
            tasks: [{val("per", "{kind: item}", ", dependsOn: [a]")}]
        - {val("b", out("per"), ", dependsOn: [c]")}
        - {val("c", out("b"))}
        - {val("d", "{kind: index}")}
        - {{id: e, kind: call, objective: O, group: nope}}
        - {val("f", "{kind: choice, source: nope}")}
      outputs: [{{name: r, value: {out("d")}}}]
    """
)


def test_several_independent_errors_each_once_without_cascades():
    r = check(SEVERAL)
    assert r.found == [
        ("TASK_REFERENCE_UNKNOWN", "/root/tasks/0/outputs/0/value/source"),
        ("TASK_ID_DUPLICATE", "/root/tasks/1/id"),
        ("TASK_REFERENCE_SCOPE", "/root/tasks/2/body/tasks/0/dependsOn/0"),
        ("TASK_REFERENCE_SCOPE", "/root/tasks/3/outputs/0/value/source"),
        ("TASK_DEPENDENCY_CYCLE", "/root/tasks/3/dependsOn/0"),
        ("TASK_ITEM_SCOPE", "/root/tasks/5/outputs/0/value"),
        ("TASK_GROUP_UNKNOWN", "/root/tasks/6/group"),
        ("CHOICE_UNKNOWN", "/root/tasks/7/outputs/0/value/source"),
    ]
    # the second `a` reads the first (a visible, earlier task): no self-cycle, no further error
    cp = r.checked
    assert cp.root.tasks[1].deps[cp.root.tasks[0]].reads


def test_diagnostics_and_dump_are_deterministic():
    first = check(SEVERAL)
    again = check(SEVERAL)
    assert [d.to_json() for d in first.diagnostics] == [d.to_json() for d in again.diagnostics]
    assert first.checked.dump() == again.checked.dump()


# ============================================================================ the IR


def test_checked_plan_shape_and_dump():
    r = check(CAPTURE)
    cp = r.checked
    assert [s.pointer for s in cp.scopes] == ["/root", "/root/tasks/1/body", "/root/tasks/1/body/tasks/0/body"]
    assert [t.id for t in cp.tasks] == ["src", "outer", "inner", "leaf"]
    leaf = cp.task("leaf")
    assert isinstance(leaf, TaskNode) and leaf.scope.owner is cp.task("inner") and not leaf.in_always
    assert leaf.scope.parent.owner is cp.task("outer") and leaf.scope.depth == 2
    assert cp.by_pointer["/root/tasks/1/body/tasks/0"] is cp.task("inner")
    text = cp.dump()
    assert "scope body /root/tasks/1/body/tasks/0/body" in text
    assert "captures: output src.out" in text
    assert "task outer (sequence) /root/tasks/1" in text


def test_value_walker_yields_every_value_in_document_order():
    r = check(
        plan(
            f"""
            version: 1
            inputs:
              - {{name: i, type: {{kind: string}}, required: false, default: {{kind: string, text: d}}}}
            root:
              tasks:
                - id: t
                  kind: conditional
                  objective: O
                  condition: {{kind: predicate, predicate: not, items: [{{kind: boolean, boolean: true}}]}}
                  body:
                    tasks: [{val("in_body", "{kind: array, items: [{kind: index}, {kind: boolean, boolean: false}]}")}]
                    outputs: [{{name: o, value: {{kind: string, text: s}}}}]
                  otherwise: {{outputs: [{{name: o, value: {{kind: string, text: s}}}}]}}
              always: [{val("last")}]
            choices:
              - id: ch
                question: Q?
                type: {{kind: string}}
                alternatives: [{{id: x, value: {{kind: string, text: x}}}}, {{id: y, value: {{kind: string, text: y}}}}]
            """
        )
    )
    sites = list(r.checked.values())
    assert [(s.pointer, s.slot, s.task.id if s.task else None, s.depth) for s in sites] == [
        ("/inputs/0/default", "default", None, 0),
        ("/root/tasks/0/condition", "condition", "t", 0),
        ("/root/tasks/0/condition/items/0", "condition", "t", 1),
        ("/root/tasks/0/body/tasks/0/outputs/0/value", "outputs", "in_body", 0),
        ("/root/tasks/0/body/tasks/0/outputs/0/value/items/0", "outputs", "in_body", 1),
        ("/root/tasks/0/body/tasks/0/outputs/0/value/items/1", "outputs", "in_body", 1),
        ("/root/tasks/0/body/outputs/0/value", "scope outputs", None, 0),
        ("/root/tasks/0/otherwise/outputs/0/value", "scope outputs", None, 0),
        ("/root/always/0/outputs/0/value", "outputs", "last", 0),
        ("/choices/0/alternatives/0/value", "alternative", None, 0),
        ("/choices/0/alternatives/1/value", "alternative", None, 0),
    ]
    assert sites[6].scope.pointer == "/root/tasks/0/body"
    # the item read (TASK_ITEM_SCOPE here) is in the resolution table
    assert r.found == [("TASK_ITEM_SCOPE", "/root/tasks/0/body/tasks/0/outputs/0/value/items/0")]


def test_a_misspelt_binding_is_one_diagnostic_not_two():
    r = check(
        plan(
            """
            version: 1
            root:
              tasks:
                - id: c
                  kind: call
                  objective: O
                  group: g
                  inputs: [{name: mesage, value: {kind: string, text: x}}, {name: zzz, value: {kind: string, text: y}}]
            groups:
              - id: g
                objective: O
                inputs: [{name: message, type: {kind: string}}, {name: other, type: {kind: string}}]
                body: {tasks: []}
            """
        )
    )
    # `mesage` is a misspelling of the unbound `message`: reported at the binding only;
    # `other` is unbound and nothing explains it
    assert r.found == [
        ("TASK_GROUP_INPUTS", "/root/tasks/0/inputs"),
        ("TASK_GROUP_INPUTS", "/root/tasks/0/inputs/0/name"),
        ("TASK_GROUP_INPUTS", "/root/tasks/0/inputs/1/name"),
    ]
    assert "`other`" in r.diagnostics[0].message
    assert r.diagnostics[1].hint == "did you mean `message`?"
