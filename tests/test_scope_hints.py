"""Hints of the scope pass that a repair loop applies literally: the export chain uses
the exports that already exist (under their own names), and an ID in error is never
offered as a "did you mean" (a reference naming its suggested new ID is not a second
mistake)."""

from __future__ import annotations

from test_scope_support import check, out, plan, val


# ============================================================ the export chain


def _nested(body_outputs: str, reader: str) -> str:
    return plan(
        f"""
        version: 1
        root:
          tasks:
            - id: review
              kind: sequence
              objective: O
              body:
                tasks: [{val("summary", name="text")}]
                outputs: {body_outputs}
          outputs:
            - {{name: note, value: {reader}}}
        """
    )


def test_an_existing_export_is_read_not_added_again():
    """Following the old hint (export `text` again) made NAME_DUPLICATE."""
    r = check(_nested(f"[{{name: text, value: {out('summary', 'text')}}}]", out("summary", "text")))
    d = r.only("TASK_REFERENCE_SCOPE")
    assert d.hint == "the body of `review` already exports it as `text`, so read port `text` of `review`"


def test_an_existing_export_under_another_name_is_read_by_that_name():
    r = check(_nested(f"[{{name: n2, value: {out('summary', 'text')}}}]", out("summary", "text")))
    d = r.only("TASK_REFERENCE_SCOPE")
    assert d.hint == "the body of `review` already exports it as `n2`, so read port `n2` of `review`"


def test_an_export_of_another_port_does_not_count():
    r = check(
        _nested(
            f"[{{name: text, value: {{kind: string, text: y}}}}]",
            out("summary", "text"),
        )
    )
    assert r.only("TASK_REFERENCE_SCOPE").hint == (
        "export `text` from the body of `review` (its `outputs`), then read port `text` of `review`"
    )


def test_a_chain_exported_part_way_proposes_only_the_missing_exports():
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
                        body:
                          tasks: [{val("deep")}]
                          outputs: [{{name: d2, value: {out("deep")}}}]
                - {val("reader", out("deep"))}
            """
        )
    )
    assert r.only("TASK_REFERENCE_SCOPE").hint == (
        "the body of `inner` already exports it as `d2`; export `d2` from the body of `outer` (its `outputs`), "
        "then read port `d2` of `outer`"
    )


def _sibling(branch_outputs: str) -> str:
    return plan(
        f"""
        version: 1
        root:
          tasks:
            - id: par
              kind: parallel
              objective: O
              branches:
                - tasks: [{val("b1", name="x")}]
                  outputs: {branch_outputs}
                - tasks: [{val("b2", out("b1", "x"))}]
                  outputs: [{{name: y, value: {out("b2")}}}]
          outputs:
            - {{name: r, value: {out("par", "y")}}}
        """
    )


def test_a_sibling_branch_read_uses_the_branch_export():
    r = check(_sibling(f"[{{name: x_out, value: {out('b1', 'x')}}}]"))
    assert r.only("TASK_REFERENCE_SIBLING").hint == (
        "branch 0 of `par` already exports it as `x_out`, so read port `x_out` of `par` from a later task, "
        "once `par` completes"
    )


def test_a_sibling_branch_read_without_an_export_proposes_one():
    r = check(_sibling("[]"))
    assert r.only("TASK_REFERENCE_SIBLING").hint == (
        "export `x` from branch 0 of `par` (its `outputs`), then read port `x` of `par` from a later task, "
        "once `par` completes"
    )


# ============================================================ IDs in error


def test_a_reserved_id_is_never_suggested():
    r = check(
        plan(
            f"""
            version: 1
            root:
              tasks:
                - {val("__draft")}
              outputs:
                - {{name: note, value: {out("drafts")}}}
            """
        )
    )
    assert r.found == [
        ("TASK_ID_RESERVED", "/root/tasks/0/id"),
        ("TASK_REFERENCE_UNKNOWN", "/root/outputs/0/value/source"),
    ]
    assert r.diagnostics[0].hint == "rename it, for example to `draft`"
    assert "__draft" not in (r.diagnostics[1].hint or "")


def test_a_reference_to_the_suggested_new_id_is_not_a_second_mistake():
    """`__draft` (hint: rename it to `draft`) and a reader of `draft`: one mistake. Before,
    the reader got "did you mean `__draft`?", and the two hints applied undid each other."""
    r = check(
        plan(
            f"""
            version: 1
            root:
              tasks:
                - {val("__draft")}
                - {{id: after, kind: value, objective: O, dependsOn: [draft], outputs: [{{name: out, value: {out("draft")}}}]}}
                - {{id: pick, kind: value, objective: O, outputs: [{{name: out, value: {{kind: choice, source: tone}}}}]}}
                - {{id: run, kind: call, objective: O, group: cleanup}}
                - {val("late")}
              outputs:
                - {{name: note, value: {out("draft")}}}
                - {{name: a, value: {out("after")}}}
                - {{name: p, value: {out("pick")}}}
                - {{name: l, value: {out("late")}}}
                - {{name: w, value: {out("scratch_space")}}}
            groups:
              - id: __cleanup
                objective: O
                body: {{tasks: [{val("inside")}], outputs: [{{name: out, value: {out("inside")}}}]}}
            choices:
              - id: __tone
                question: Q?
                type: {{kind: string}}
                alternatives: [{{id: a, description: D, value: {{kind: string, text: a}}}}]
                recommended: a
            """
        )
    )
    assert r.found == [
        ("TASK_ID_RESERVED", "/root/tasks/0/id"),
        ("TASK_REFERENCE_UNKNOWN", "/root/outputs/4/value/source"),
        ("TASK_ID_RESERVED", "/groups/0/id"),
        ("TASK_ID_RESERVED", "/choices/0/id"),
    ]


def test_a_reference_to_the_suggested_new_id_of_another_kind_is_still_reported():
    """`draft` is the new ID of a group, not of a task: reading it as a task is wrong anyway."""
    r = check(
        plan(
            f"""
            version: 1
            root:
              tasks: [{val("t")}]
              outputs:
                - {{name: note, value: {out("t")}}}
                - {{name: bad, value: {out("draft")}}}
            groups:
              - id: __draft
                objective: O
                body: {{tasks: [{val("inside")}], outputs: [{{name: out, value: {out("inside")}}}]}}
            """
        )
    )
    assert r.found == [
        ("TASK_REFERENCE_UNKNOWN", "/root/outputs/1/value/source"),
        ("TASK_ID_RESERVED", "/groups/0/id"),
    ]


def test_a_reference_to_the_suggested_new_id_of_an_invalid_id_is_not_a_second_mistake():
    r = check(
        plan(
            f"""
            version: 1
            root:
              tasks:
                - {val('"scratch space"')}
              outputs:
                - {{name: w, value: {out("scratch_space")}}}
                - {{name: v, value: {out("scratch_spac")}}}
            """
        )
    )
    assert r.found == [
        ("TASK_ID_INVALID", "/root/tasks/0/id"),
        ("TASK_REFERENCE_UNKNOWN", "/root/outputs/1/value/source"),
    ]
    assert r.diagnostics[0].hint == "rename it, for example to `scratch_space`"
    assert "scratch space" not in (r.diagnostics[1].hint or "")
