"""The types pass, rule by rule (taskplan.md: Operations, Values, Types, Groups,
Choices; catalog.md): what it accepts, what it reports, where, with which related
locations, and the typed plan it hands to lowering. The fixture corpus
(fixtures/errors/types, fixtures/errors/artifacts) covers every code; these tests pin
the details a manifest cannot express."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from taskplan.api import check_plan, load_catalog_set

ROOT = Path(__file__).resolve().parents[1]
CATALOGS = ROOT / "fixtures" / "catalogs"
VALID = ROOT / "fixtures" / "valid"


@pytest.fixture(scope="module")
def review():
    loaded = load_catalog_set([CATALOGS / "review.catalog.yaml"])
    assert not loaded.diagnostics
    return loaded


def check(text: str, catalogs=(), name: str = "plan.taskplan.yaml"):
    return check_plan(name, text=text.encode("utf-8"), catalogs=catalogs)


def codes(result) -> list[tuple[str, str]]:
    return [(d.code, d.location.pointer) for d in result.diagnostics]


def plan_with(tasks: str, inputs: str = "") -> str:
    head = "version: 1\ninputs:\n  - {name: owner, type: {kind: string}}\n  - {name: repo, type: {kind: string}}\n"
    head += "  - {name: number, type: {kind: integer}}\n" + inputs
    return head + "root:\n  tasks:\n" + tasks


FETCH = """\
    - id: fetch_pr
      objective: "Fetch the pull request"
      operation: github.get_pull_request
      inputs:
        - {name: owner, value: {kind: input, source: owner}}
        - {name: repo, value: {kind: input, source: repo}}
        - {name: number, value: {kind: input, source: number}}
"""


def post(severity: str, text: str = "{kind: string, text: hello}", tid: str = "post") -> str:
    return f"""\
    - id: {tid}
      objective: "Post a message"
      operation: chat.post_message
      inputs:
        - {{name: channel, value: {{kind: string, text: "#general"}}}}
        - {{name: text, value: {text}}}
        - {{name: severity, value: {severity}}}
"""


# ------------------------------------------------------------------ operations


def test_a_misspelt_required_port_is_one_diagnostic_with_the_port_suggested(review):
    plan = plan_with(FETCH.replace("{name: number,", "{name: numbr,"))
    result = check(plan, review)
    assert codes(result) == [("TASK_INPUT_UNKNOWN", "/root/tasks/0/inputs/2/name")]
    assert result.diagnostics[0].hint == "did you mean `number`?"


def test_an_unknown_port_unlike_any_other_leaves_the_required_one_unbound(review):
    plan = plan_with(FETCH.replace("{name: number,", "{name: pr_id,"))
    assert codes(check(plan, review)) == [
        ("TASK_INPUT_REQUIRED", "/root/tasks/0/inputs"),
        ("TASK_INPUT_UNKNOWN", "/root/tasks/0/inputs/2/name"),
    ]


def test_a_misspelt_artifact_port_is_one_diagnostic_too(review):
    tasks = """\
    - id: diff
      objective: "Diff"
      operation: github.get_diff
      inputs:
        - {name: owner, value: {kind: input, source: owner}}
        - {name: repo, value: {kind: input, source: repo}}
        - {name: number, value: {kind: input, source: number}}
    - id: push
      objective: "Push"
      operation: github.push_patch
      inputs:
        - {name: owner, value: {kind: input, source: owner}}
        - {name: repo, value: {kind: input, source: repo}}
        - {name: branch, value: {kind: string, text: b}}
        - {name: message, value: {kind: string, text: m}}
        - {name: pach, value: {kind: output, source: diff, port: patch}}
"""
    assert codes(check(plan_with(tasks), review)) == [("TASK_INPUT_UNKNOWN", "/root/tasks/1/inputs/4/name")]


def test_a_version_pin_selects_that_versions_contract(review):
    review_task = """\
    - id: submit
      objective: "Submit a review"
      operation: github.create_review@{version}
      inputs:
        - {{name: owner, value: {{kind: input, source: owner}}}}
        - {{name: repo, value: {{kind: input, source: repo}}}}
        - {{name: number, value: {{kind: input, source: number}}}}
        - {{name: event, value: {{kind: string, text: COMMENT}}}}
        - {{name: body, value: {{kind: string, text: Thanks}}}}
        - {{name: commit_id, value: {{kind: string, text: abc1234}}}}
"""
    assert codes(check(plan_with(review_task.format(version=2)), review)) == []
    # version 1 has no commit_id port
    assert codes(check(plan_with(review_task.format(version=1)), review)) == [
        ("TASK_INPUT_UNKNOWN", "/root/tasks/0/inputs/5/name")
    ]
    # reading a port only version 2 declares
    reader = """\
    - id: read
      kind: value
      objective: "Read the review state"
      outputs: [{name: state, value: {kind: output, source: submit, port: state}}]
  outputs: [{name: state, value: {kind: output, source: read, port: state}}]
"""
    v1 = review_task.format(version=1).replace("        - {name: commit_id, value: {kind: string, text: abc1234}}\n", "")
    assert codes(check(plan_with(v1 + reader), review)) == [("TASK_OUTPUT_UNKNOWN", "/root/tasks/1/outputs/0/value/port")]
    assert codes(check(plan_with(review_task.format(version=2) + reader), review)) == []


def test_the_version_messages_name_the_versions(review):
    def message(ref: str):
        plan = plan_with(f"    - id: t\n      objective: \"x\"\n      operation: {ref}\n")
        (d,) = check(plan, review).diagnostics
        assert d.code == "TASK_OPERATION_UNKNOWN" and d.location.pointer == "/root/tasks/0/operation"
        return d.message, d.hint

    assert message("github.create_review@7") == (
        "task `t`: operation `github.create_review` has no version `7`",
        "available versions: 1, 2; pin one, e.g. `github.create_review@2`",
    )
    text, hint = message("github.create_review")
    assert "ambiguous" in text and "`github.create_review@1` or `github.create_review@2`" in hint
    text, hint = message("github.get_diff@2")
    assert "declares no version" in text and hint == "write `github.get_diff` without a version"


def test_optional_ports_may_be_left_out_but_null_is_a_value(review):
    base = """\
    - id: issues
      objective: "List issues"
      operation: github.list_issues
      inputs:
        - {name: owner, value: {kind: input, source: owner}}
        - {name: repo, value: {kind: input, source: repo}}
"""
    assert codes(check(plan_with(base), review)) == []
    nullable = base + "        - {name: since, value: {kind: \"null\"}}\n"
    assert codes(check(plan_with(nullable), review)) == []
    not_nullable = base + "        - {name: per_page, value: {kind: \"null\"}}\n"
    result = check(plan_with(not_nullable), review)
    assert codes(result) == [("TASK_INPUT_TYPE", "/root/tasks/0/inputs/2/value")]
    assert result.diagnostics[0].message == "input `per_page` of task `issues` expects integer, got null"


def test_a_catalog_fixed_port_cannot_be_bound_even_to_its_own_value(review):
    plan = plan_with(FETCH + "        - {name: api_version, value: {kind: string, text: \"2022-11-28\"}}\n")
    result = check(plan, review)
    assert codes(result) == [("TASK_INPUT_CATALOG_OWNED", "/root/tasks/0/inputs/3/name")]
    (related,) = result.diagnostics[0].related
    assert related.location.pointer == "/sources/0/operations/0/fixed/api_version"
    assert related.location.file.endswith("review.catalog.yaml") and related.location.line == 17


# ------------------------------------------------------------------- fitting


def test_integer_fits_number_and_a_number_does_not_fit_integer(review, tmp_path):
    catalog = tmp_path / "n.catalog.yaml"
    catalog.write_text(
        "version: 1\nsources:\n  - id: m\n    operations:\n      - id: m.scale\n        input:\n"
        "          type: object\n          properties: {factor: {type: number}, count: {type: integer}}\n"
        "          required: [factor, count]\n",
        encoding="utf-8",
    )
    task = (
        "    - id: s\n      objective: \"Scale\"\n      operation: m.scale\n      inputs:\n"
        "        - {{name: factor, value: {{kind: number, number: {factor}}}}}\n"
        "        - {{name: count, value: {{kind: number, number: {count}}}}}\n"
    )
    assert codes(check(plan_with(task.format(factor=2, count=3)), [catalog])) == []
    assert codes(check(plan_with(task.format(factor=2.5, count=3.0)), [catalog])) == []  # 3.0 is integral
    assert codes(check(plan_with(task.format(factor=2, count=3.5)), [catalog])) == [
        ("TASK_INPUT_TYPE", "/root/tasks/0/inputs/1/value")
    ]


def test_an_enum_mismatch_relates_the_port_and_the_producers_enum(review):
    plan = plan_with(FETCH + post("{kind: output, source: fetch_pr, port: state}"))
    result = check(plan, review)
    assert codes(result) == [("TASK_INPUT_TYPE", "/root/tasks/1/inputs/2/value")]
    d = result.diagnostics[0]
    assert d.message == (
        "input `severity` of task `post` expects string enum [info, warning, critical], "
        "got string enum [open, closed, merged]: `open`, `closed`, `merged` not allowed"
    )
    assert [(r.message, r.location.pointer) for r in d.related] == [
        ("the port is declared here", "/sources/2/operations/0/input/properties/severity"),
        ("the produced values are declared here", "/sources/0/operations/0/output/properties/state/enum"),
    ]
    assert all(r.location.line > 0 for r in d.related)


def test_a_literal_const_travels_through_value_tasks_exports_and_captures(review):
    tasks = """\
    - id: wording
      kind: value
      objective: "Fix the severity"
      outputs: [{name: level, value: {kind: string, text: loud}}]
    - id: inner
      kind: sequence
      objective: "Pass it through a child scope"
      body:
        tasks:
          - id: copy
            kind: value
            objective: "Copy it"
            outputs: [{name: level, value: {kind: output, source: wording, port: level}}]
        outputs: [{name: level, value: {kind: output, source: copy, port: level}}]
""" + post("{kind: output, source: inner, port: level}")
    result = check(plan_with(tasks), review)
    assert codes(result) == [("TASK_INPUT_TYPE", "/root/tasks/2/inputs/2/value")]
    d = result.diagnostics[0]
    assert 'got string "loud": `loud` not allowed' in d.message
    # the related producer slot is the literal where the value was written
    assert ("the produced values are declared here", "/root/tasks/0/outputs/0/value") in [
        (r.message, r.location.pointer) for r in d.related
    ]
    fixed = tasks.replace("text: loud", "text: critical")
    assert codes(check(plan_with(fixed), review)) == []


def test_a_nullable_value_relates_the_slot_that_makes_it_nullable(review):
    plan = plan_with(FETCH + post("{kind: string, text: info}", text="{kind: output, source: fetch_pr, port: body}"))
    result = check(plan, review)
    assert codes(result) == [("TASK_INPUT_TYPE", "/root/tasks/1/inputs/1/value")]
    d = result.diagnostics[0]
    assert d.message == "input `text` of task `post` expects string, got nullable string, which may be null"
    assert ("this makes the value nullable", "/sources/0/operations/0/output/properties/body/type/1") in [
        (r.message, r.location.pointer) for r in d.related
    ]


def test_a_nullable_object_makes_its_fields_nullable(review, tmp_path):
    catalog = tmp_path / "o.catalog.yaml"
    catalog.write_text(
        "version: 1\nsources:\n  - id: u\n    operations:\n      - id: u.owner\n"
        "        input: {type: object, properties: {}}\n"
        "        output:\n          type: object\n          properties:\n"
        "            user: {type: [object, 'null'], properties: {login: {type: string}}, required: [login]}\n"
        "          required: [user]\n",
        encoding="utf-8",
    )
    tasks = """\
    - id: who
      objective: "Find the owner"
      operation: u.owner
""" + post("{kind: string, text: info}", text="{kind: field, items: [{kind: output, source: who, port: user}], port: login}")
    result = check(plan_with(tasks), [CATALOGS / "review.catalog.yaml", catalog])
    assert codes(result) == [("TASK_INPUT_TYPE", "/root/tasks/1/inputs/1/value")]
    assert "may be null" in result.diagnostics[0].message


NULLABLE_RESULTS = """\
version: 1
sources:
  - id: u
    operations:
      - id: u.maybe
        input: {type: object, properties: {}}
        output: {type: [object, "null"], properties: {title: {type: string}}, required: [title]}
      - id: u.maybe2
        input: {type: object, properties: {}}
        output:
          anyOf:
            - {type: object, properties: {title: {type: string}}, required: [title]}
            - {type: "null"}
      - id: u.use
        input: {type: object, properties: {s: {type: string}, n: {type: [string, "null"]}}}
"""


@pytest.mark.parametrize(
    ("operation", "null_slot"),
    [("u.maybe", "/sources/0/operations/0/output/type/1"), ("u.maybe2", "/sources/0/operations/1/output/anyOf/1")],
)
@pytest.mark.parametrize("general", [False, True], ids=["fast", "general"])
def test_a_port_of_a_nullable_result_is_nullable(tmp_path, monkeypatch, operation, null_slot, general):
    # taskplan.md: a port reads the result's field, and a field of a nullable object is
    # nullable; the port's own type does not say so, the result's does.
    from taskplan.passes import types as types_pass

    if general:  # the path that does not use `_clean_call`'s finding
        monkeypatch.setattr(types_pass._Typer, "_clean_call", lambda self, ref, names: False)
    catalog = tmp_path / "u.catalog.yaml"
    catalog.write_text(NULLABLE_RESULTS, encoding="utf-8")
    tasks = f"""\
    - {{id: m, objective: "Fetch what may be null", operation: {operation}}}
    - id: use
      objective: "Use its title"
      operation: u.use
      inputs:
        - {{name: s, value: {{kind: output, source: m, port: title}}}}
        - {{name: n, value: {{kind: output, source: m, port: title}}}}
"""
    result = check(plan_with(tasks), [catalog])
    assert codes(result) == [("TASK_INPUT_TYPE", "/root/tasks/1/inputs/0/value")]
    d = result.diagnostics[0]
    assert "got nullable string, which may be null" in d.message
    assert ("this makes the value nullable", null_slot) in [(r.message, r.location.pointer) for r in d.related]
    assert result.typed.values["/root/tasks/1/inputs/1/value"].nullable


ARRAY_DEFAULTS = """\
version: 1
inputs:
  - name: levels
    type: {kind: array, items: {kind: string, enum: [low, high]}}
    required: false
    default: {kind: array, items: [{kind: string, text: low}, {kind: string, text: hihg}]}
  - name: grid
    type: {kind: array, items: {kind: array, items: {kind: string}}}
    required: false
    default:
      kind: array
      items:
        - {kind: array, items: [{kind: string, text: a}]}
        - {kind: array, items: [{kind: string, text: b}, {kind: number, number: 1}]}
  - name: rows
    type: {kind: array, items: {kind: object, fields: [{name: n, type: {kind: integer}}]}}
    required: false
    default:
      kind: array
      items:
        - {kind: object, members: [{name: n, value: {kind: number, number: 1}}]}
        - {kind: object, members: [{name: n, value: {kind: string, text: two}}]}
root:
  tasks:
    - id: keep
      kind: value
      objective: "Keep them"
      outputs:
        - {name: levels, value: {kind: input, source: levels}}
        - {name: grid, value: {kind: input, source: grid}}
        - {name: rows, value: {kind: input, source: rows}}
  outputs:
    - {name: levels, value: {kind: output, source: keep, port: levels}}
    - {name: grid, value: {kind: output, source: keep, port: grid}}
    - {name: rows, value: {kind: output, source: keep, port: rows}}
"""


def test_a_bad_item_of_an_array_literal_is_located_at_that_item():
    # decisions.md, Types/Precision: the literal's items type is the join of its items',
    # so the mismatch is re-found at the first item that does not fit by itself (nested
    # arrays, objects inside arrays), with that item's types in the message.
    result = check(ARRAY_DEFAULTS)
    assert [(d.code, d.location.pointer, d.message.split(": ", 1)[1]) for d in result.diagnostics] == [
        (
            "TASK_DEFAULT_INVALID",
            "/inputs/0/default/items/1",
            'at `[]`: expected string enum [low, high], got string "hihg": "hihg" not in the enum',
        ),
        ("TASK_DEFAULT_INVALID", "/inputs/1/default/items/1/items/1", "at `[][]`: expected string, got integer"),
        ("TASK_DEFAULT_INVALID", "/inputs/2/default/items/1/members/0/value", 'at `[].n`: expected integer, got string "two"'),
    ]


def test_a_choice_reads_as_the_join_of_its_alternatives(review):
    choice = """\
choices:
  - id: level
    question: "How loud?"
    type: {kind: string}
    alternatives:
      - {id: a, description: "x", value: {kind: string, text: info}}
      - {id: b, description: "y", value: {kind: string, text: %s}}
    recommended: a
"""
    plan = plan_with(post("{kind: choice, source: level}"))
    assert codes(check(plan + choice % "warning", review)) == []
    result = check(plan + choice % "shout", review)
    assert codes(result) == [("TASK_INPUT_TYPE", "/root/tasks/0/inputs/2/value")]
    assert "`shout` not allowed" in result.diagnostics[0].message


def test_a_non_literal_alternative_is_reported_once_by_structure(review):
    plan = plan_with(post("{kind: choice, source: level}")) + """\
choices:
  - id: level
    question: "How loud?"
    type: {kind: string, enum: [info, warning]}
    alternatives:
      - {id: a, description: "x", value: {kind: string, text: info}}
      - {id: b, description: "y", value: {kind: array, items: [{kind: index}]}}
    recommended: a
"""
    result = check(plan, review)
    assert codes(result) == [("CHOICE_INVALID", "/choices/0/alternatives/1/value/items/0")]
    assert "not a literal" in result.diagnostics[0].message


def test_objects_need_their_required_fields_and_closed_ones_no_others(review, tmp_path):
    catalog = tmp_path / "c.catalog.yaml"
    catalog.write_text(
        "version: 1\nsources:\n  - id: c\n    operations:\n      - id: c.put\n        input:\n"
        "          type: object\n          properties:\n            item:\n              type: object\n"
        "              properties: {name: {type: string}, size: {type: integer}}\n"
        "              required: [name]\n              additionalProperties: false\n"
        "          required: [item]\n",
        encoding="utf-8",
    )
    task = "    - id: p\n      objective: \"Put\"\n      operation: c.put\n      inputs:\n        - name: item\n          value: {kind: object, members: [%s]}\n"
    ok = "{name: name, value: {kind: string, text: a}}, {name: size, value: {kind: number, number: 2}}"
    assert codes(check(plan_with(task % ok), [catalog])) == []
    missing = "{name: size, value: {kind: number, number: 2}}"
    result = check(plan_with(task % missing), [catalog])
    assert codes(result) == [("TASK_INPUT_TYPE", "/root/tasks/0/inputs/0/value")]
    assert "field `name` is missing" in result.diagnostics[0].message
    extra = "{name: name, value: {kind: string, text: a}}, {name: colour, value: {kind: string, text: red}}"
    result = check(plan_with(task % extra), [catalog])
    assert codes(result) == [("TASK_INPUT_TYPE", "/root/tasks/0/inputs/0/value")]
    assert "field `colour` is not allowed" in result.diagnostics[0].message
    # an open object (here a `get` whose result does not close `item`) may carry more
    # fields: it does not fit the closed port, though it declares none the port lacks
    catalog.write_text(
        catalog.read_text(encoding="utf-8")
        + "      - id: c.get\n        input: {type: object}\n        output:\n          type: object\n          properties:\n"
        "            item: {type: object, properties: {name: {type: string}}, required: [name]}\n"
        "          required: [item]\n",
        encoding="utf-8",
    )
    open_item = (
        "    - {id: g, objective: \"Get\", operation: c.get}\n"
        "    - id: p\n      objective: \"Put\"\n      operation: c.put\n      inputs:\n"
        "        - {name: item, value: {kind: output, source: g, port: item}}\n"
    )
    result = check(plan_with(open_item), [catalog])
    assert codes(result) == [("TASK_INPUT_TYPE", "/root/tasks/1/inputs/0/value")]
    assert "may carry fields not allowed there" in result.diagnostics[0].message
    assert "build it from the fields it takes" in result.diagnostics[0].hint
    wrong_member = "{name: name, value: {kind: string, text: a}}, {name: size, value: {kind: string, text: big}}"
    # the member that does not fit is the location, not the whole object
    assert codes(check(plan_with(task % wrong_member), [catalog])) == [
        ("TASK_INPUT_TYPE", "/root/tasks/0/inputs/0/value/members/1/value")
    ]


def test_an_opaque_result_fits_only_an_any_port(review, tmp_path):
    catalog = tmp_path / "a.catalog.yaml"
    catalog.write_text(
        "version: 1\nsources:\n  - id: x\n    operations:\n"
        "      - id: x.blob\n        input: {type: object, properties: {}}\n"
        "      - id: x.store\n        input:\n          type: object\n"
        "          properties: {data: {}, label: {type: string}}\n          required: [data]\n",
        encoding="utf-8",
    )
    tasks = """\
    - id: blob
      objective: "Get a blob"
      operation: x.blob
    - id: store
      objective: "Store it"
      operation: x.store
      inputs:
        - {name: data, value: {kind: output, source: blob, port: null}}
        - {name: label, value: %s}
"""
    assert codes(check(plan_with(tasks % "{kind: string, text: raw}"), [catalog])) == []
    result = check(plan_with(tasks % "{kind: output, source: blob, port: null}"), [catalog])
    assert codes(result) == [("TASK_INPUT_TYPE", "/root/tasks/1/inputs/1/value")]
    assert result.diagnostics[0].message == "input `label` of task `store` expects string, got an opaque value"


def test_an_empty_array_literal_fits_a_typed_array_port(review):
    """`[]` has no items of the wrong type: it fits every array port."""
    tasks = """\
    - id: labels
      objective: "Add no labels"
      operation: github.add_labels
      inputs:
        - {name: owner, value: {kind: input, source: owner}}
        - {name: repo, value: {kind: input, source: repo}}
        - {name: number, value: {kind: input, source: number}}
        - {name: labels, value: {kind: array, items: []}}
"""
    assert codes(check(plan_with(tasks), review)) == []


# --------------------------------------------------------------- artifacts


def test_the_field_of_a_whole_result_carries_its_ports_artifact(review):
    tasks = """\
    - id: diff
      objective: "Diff"
      operation: github.get_diff
      inputs:
        - {name: owner, value: {kind: input, source: owner}}
        - {name: repo, value: {kind: input, source: repo}}
        - {name: number, value: {kind: input, source: number}}
    - id: push
      objective: "Push"
      operation: github.push_patch
      inputs:
        - {name: owner, value: {kind: input, source: owner}}
        - {name: repo, value: {kind: input, source: repo}}
        - {name: branch, value: {kind: string, text: b}}
        - {name: message, value: {kind: string, text: m}}
        - {name: patch, value: {kind: field, items: [{kind: output, source: diff, port: null}], port: %s}}
"""
    assert codes(check(plan_with(tasks % "patch"), review)) == []
    # the patch turned into new JSON text has no patch origin
    json_text = tasks.replace(
        "{kind: field, items: [{kind: output, source: diff, port: null}], port: %s}",
        "{kind: json, items: [{kind: field, items: [{kind: output, source: diff, port: null}], port: patch}]}",
    )
    assert codes(check(plan_with(json_text), review)) == [("TASK_ARTIFACT_BINDING", "/root/tasks/1/inputs/4/value")]


def test_a_producer_in_error_still_produces(review):
    tasks = """\
    - id: sandbox
      objective: "Sandbox"
      operation: analysis.create_sandbox
      retries: 3
      inputs:
        - {name: repo_url, value: {kind: string, text: "https://example.com/r.git"}}
        - {name: ref, value: {kind: string, text: main}}
    - id: tests
      objective: "Test"
      operation: analysis.run_tests
      inputs:
        - {name: sandbox, value: {kind: output, source: sandbox, port: sandbox}}
        - {name: suite, value: {kind: string, text: unit}}
"""
    assert codes(check(plan_with(tasks), review)) == [("PLAN_FIELD_UNKNOWN", "/root/tasks/0/retries")]
    # without the producer, the prerequisite really is missing
    alone = tasks[tasks.index("    - id: tests") :].replace(
        "{kind: output, source: sandbox, port: sandbox}", "{kind: string, text: sbx-1}"
    )
    assert codes(check(plan_with(alone), review)) == [
        ("TASK_ARTIFACT_PREREQUISITE_MISSING", "/root/tasks/0/inputs/0/value")
    ]


# ------------------------------------------------------------- no catalog


def test_without_a_catalog_operations_are_not_judged_but_values_are():
    plan = plan_with(
        FETCH
        + """\
    - id: facts
      kind: value
      objective: "Facts"
      outputs:
        - {name: a, value: {kind: output, source: fetch_pr, port: anything}}
        - {name: b, value: {kind: predicate, predicate: and, items: [{kind: input, source: owner}, {kind: boolean, boolean: true}]}}
"""
    )
    assert codes(check(plan)) == [("TASK_PREDICATE_TYPE", "/root/tasks/1/outputs/1/value/items/0")]


# ------------------------------------------------------------ typed plan


def test_the_typed_plan_records_ports_and_value_types(review):
    result = check_plan(VALID / "pr-review.taskplan.yaml", catalogs=review)
    assert result.diagnostics == []
    typed = result.typed
    by_id = {node.id: node for node in result.plan.tasks}
    fetch = typed.types_of(by_id["fetch_pr"])
    assert fetch.operation.ref == "github.get_pull_request"
    assert str(fetch.ports["state"]) == "string enum [open, closed, merged]"
    assert str(fetch.ports["mergeable"]) == "nullable boolean"
    review_each = typed.types_of(by_id["review_each"])
    assert str(review_each.ports["verdict"]) == "array of string enum [ok, concern]"
    assert str(review_each.ports["comment"]) == "array of object {path: string, line: integer, body: string}"
    submit = typed.types_of(by_id["submit"])
    assert submit.operation.ref == "github.create_review@2"
    # a choice read has the join of its alternatives
    linters = typed.value_type("/root/tasks/4/branches/0/tasks/0/inputs/1/value")
    assert str(linters) == "array of string enum [ruff, mypy, eslint, shellcheck]"
    assert str(typed.value_type("/root/tasks/5/body/tasks/0/inputs/2/value")) == "integer"  # index


def test_optional_output_ports_are_known_as_optional():
    catalogs = load_catalog_set([CATALOGS / "ops.catalog.yaml"])
    result = check_plan(VALID / "incident-response.taskplan.yaml", catalogs=catalogs)
    assert result.diagnostics == []
    by_id = {node.id: node for node in result.plan.tasks}
    assert "runbook_url" in result.typed.types_of(by_id["incident"]).optional_ports
    assert "anomaly" in result.typed.types_of(by_id["errors"]).optional_ports
    assert "severity" not in result.typed.types_of(by_id["incident"]).optional_ports


# --------------------------------------------------------------- wire form


def _compact(node: Any, key: str | None = None) -> Any:
    """The wire form with its empty and default fields left out."""
    defaults = {"required": True, "nullable": False, "parallel": False, "maxItems": 100, "maxConcurrency": 4}
    if isinstance(node, dict):
        out = {}
        for k, v in node.items():
            if v is None or v == [] or (k in defaults and v == defaults[k]) or (k == "kind" and v == "operation"):
                continue
            out[k] = _compact(v, k)
        return out
    if isinstance(node, list):
        return [_compact(v) for v in node]
    return node


def test_the_wire_form_and_the_compact_form_are_the_same_plan(review):
    path = VALID / "stale-issues.taskplan.json"
    wire = json.loads(path.read_text(encoding="utf-8"))
    compact = _compact(wire)
    assert compact != wire and "dependsOn" not in compact["root"]["tasks"][0]
    a = check_plan("stale-issues.taskplan.json", text=json.dumps(wire).encode(), catalogs=review)
    b = check_plan("stale-issues.taskplan.json", text=json.dumps(compact).encode(), catalogs=review)
    assert a.diagnostics == [] and b.diagnostics == []
    assert a.typed.dump() == b.typed.dump()
    assert {k: str(v) for k, v in a.typed.values.items()} == {k: str(v) for k, v in b.typed.values.items()}


def test_the_wire_form_fixture_writes_every_field():
    """Every object of the wire-form fixture carries every property the wire schema
    declares for it (the strict structured-output form), and validates against it."""
    from jsonschema import Draft202012Validator

    schema = json.loads((ROOT / "schemas" / "taskplan.wire.schema.json").read_text(encoding="utf-8"))
    document = json.loads((VALID / "stale-issues.taskplan.json").read_text(encoding="utf-8"))
    assert [e.message for e in Draft202012Validator(schema).iter_errors(document)] == []
    nulls = json.dumps(document).count("null")
    assert nulls > 30, "the wire form spells out absent fields as null"


def test_defaults_of_fields_in_a_choices_type_are_checked():
    plan = """\
version: 1
root:
  tasks:
    - {id: keep, kind: value, objective: "Keep it", outputs: [{name: v, value: {kind: choice, source: retry}}]}
  outputs: [{name: v, value: {kind: output, source: keep, port: v}}]
choices:
  - id: retry
    question: "How often?"
    type:
      kind: object
      fields:
        - {name: attempts, type: {kind: integer}, required: false, default: %s}
    alternatives:
      - {id: once, description: "Once", value: {kind: object, members: [{name: attempts, value: {kind: number, number: 1}}]}}
      - {id: usual, description: "The default", value: {kind: object, members: []}}
    recommended: once
"""
    assert codes(check(plan % "{kind: number, number: 3}")) == []
    result = check(plan % "{kind: string, text: three}")
    assert codes(result) == [("TASK_DEFAULT_INVALID", "/choices/0/type/fields/0/default")]
    assert result.diagnostics[0].message == 'the default of `attempts` does not fit its type: expected integer, got string "three"'
