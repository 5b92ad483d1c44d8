"""The usage pass: TASK_OUTPUT_UNUSED, a warning for an export nothing reads
(taskplan.passes.usage; docs/decisions.md, "What counts as an unused output").

What counts as unused and what counts as a read, no cascades (nothing judged about a
task in error or where an error may hide a reader), warnings in every rendering with
exit code 0, and silencing through `ignore` and `--ignore`."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from taskplan.api import EXIT_OK, check_plan, compile_plan
from taskplan.cli import main
from taskplan.diagnostics import Severity
from taskplan.diagnostics.registry import REGISTRY

CODE = "TASK_OUTPUT_UNUSED"


def check(text: str):
    return check_plan("plan.taskplan.yaml", text=text.encode("utf-8"))


def unused(text: str) -> list[str]:
    """The pointers of the TASK_OUTPUT_UNUSED warnings of the plan `text`."""
    return [d.location.pointer for d in check(text).diagnostics if d.code == CODE]


def codes(text: str) -> list[tuple[str, str]]:
    return [(d.code, d.location.pointer) for d in check(text).diagnostics]


SEQUENCE = """\
version: 1
root:
  tasks:
    - id: review
      kind: sequence
      objective: Review
      body:
        tasks:
          - {id: summary, kind: value, objective: Sum up, outputs: [{name: text, value: {kind: string, text: ok}}]}
        outputs:
          - {name: text, value: {kind: output, source: summary, port: text}}
%s"""


# ------------------------------------------------------------------ the code


def test_the_code_is_a_registered_warning_with_examples():
    info = REGISTRY[CODE]
    assert info.severity is Severity.WARNING
    assert info.owner == "usage" and info.family == "scope"
    wrong = check_plan("wrong.taskplan.yaml", text=info.wrong.encode())
    assert [(d.code, d.severity) for d in wrong.diagnostics] == [(CODE, Severity.WARNING)]
    assert wrong.exit_code == EXIT_OK
    right = compile_plan("right.taskplan.yaml", text=info.right.encode())
    assert right.diagnostics == [] and right.yaml is not None


def test_the_diagnostic_names_the_export_its_owner_and_the_repair():
    (d,) = check(SEQUENCE % "").diagnostics
    assert d.code == CODE and d.severity is Severity.WARNING
    assert d.location.pointer == "/root/tasks/0/body/outputs/0/name"
    assert (d.location.line, d.location.column, d.location.end_column) == (11, 20, 24)
    assert d.message == "output `text` of `review` is never read"
    assert dict(d.subject) == {"task": "review", "port": "text"}
    assert d.hint == "read it (e.g. `{kind: output, source: review, port: text}`) or remove it from `outputs`"
    assert [(r.message, r.location.pointer) for r in d.related] == [("`review` is declared here", "/root/tasks/0")]


# ------------------------------------------------------------- what counts


@pytest.mark.parametrize(
    ("reader", "expected"),
    [
        ("", ["/root/tasks/0/body/outputs/0/name"]),
        ("  outputs: [{name: t, value: {kind: output, source: review, port: text}}]\n", []),
        ("  outputs: [{name: t, value: {kind: output, source: review, port: null}}]\n", []),  # a whole read
        (  # a value task reading it, read in turn
            "    - {id: use, kind: value, objective: Use, outputs: [{name: t, value: {kind: output, source: review, port: text}}]}\n"
            "  outputs: [{name: t, value: {kind: output, source: use, port: t}}]\n",
            [],
        ),
        (  # a value task reading it, itself unread: the reader is reported, not the export
            "    - {id: use, kind: value, objective: Use, outputs: [{name: t, value: {kind: output, source: review, port: text}}]}\n",
            ["/root/tasks/1/outputs/0/name"],
        ),
        (  # `present` reads whether it ran, not its ports
            "    - {id: use, kind: value, objective: Use, outputs: [{name: t, value: {kind: present, source: review}}]}\n"
            "  outputs: [{name: t, value: {kind: output, source: use, port: t}}]\n",
            ["/root/tasks/0/body/outputs/0/name"],
        ),
    ],
    ids=["unread", "read", "read-whole", "read-by-a-task", "reader-unread", "present-only"],
)
def test_what_counts_as_a_read(reader, expected):
    assert unused(SEQUENCE % reader) == expected


def test_a_re_export_is_a_read_and_the_outer_export_is_judged_itself():
    plan = """\
version: 1
root:
  tasks:
    - id: outer
      kind: sequence
      objective: Outer
      body:
        tasks:
          - id: inner
            kind: sequence
            objective: Inner
            body:
              tasks:
                - {id: leaf, kind: value, objective: Leaf, outputs: [{name: v, value: {kind: string, text: x}}]}
              outputs: [{name: v, value: {kind: output, source: leaf, port: v}}]
        outputs: [{name: v, value: {kind: output, source: inner, port: v}}]
%s"""
    assert unused(plan % "") == ["/root/tasks/0/body/outputs/0/name"]
    assert unused(plan % "  outputs: [{name: v, value: {kind: output, source: outer, port: v}}]\n") == []


def test_the_root_outputs_are_never_unused_and_operation_ports_are_not_judged():
    plan = """\
version: 1
root:
  tasks:
    - {id: t, kind: value, objective: T, outputs: [{name: v, value: {kind: string, text: x}}]}
    - {id: op, objective: Call, operation: anything.at_all}
  outputs:
    - {name: v, value: {kind: output, source: t, port: v}}
    - {name: unread_result, value: {kind: string, text: y}}
"""
    assert codes(plan) == []


def test_every_compound_kind_and_a_value_task():
    plan = """\
version: 1
root:
  tasks:
    - id: cond
      kind: conditional
      objective: Pick
      condition: {kind: boolean, boolean: true}
      body: {outputs: [{name: a, value: {kind: string, text: x}}, {name: b, value: {kind: string, text: x}}]}
      otherwise: {outputs: [{name: a, value: {kind: string, text: y}}, {name: b, value: {kind: string, text: y}}]}
    - id: par
      kind: parallel
      objective: Both
      branches:
        - {outputs: [{name: l, value: {kind: string, text: l}}]}
        - {outputs: [{name: r, value: {kind: string, text: r}}]}
    - id: each
      kind: foreach
      objective: Each
      items: {kind: array, items: [{kind: number, number: 1}]}
      body: {outputs: [{name: i, value: {kind: item}}, {name: n, value: {kind: index}}]}
    - id: val
      kind: value
      objective: Values
      outputs: [{name: p, value: {kind: string, text: p}}, {name: q, value: {kind: string, text: q}}]
  outputs:
    - {name: a, value: {kind: output, source: cond, port: a}}
    - {name: l, value: {kind: output, source: par, port: l}}
    - {name: i, value: {kind: output, source: each, port: i}}
    - {name: p, value: {kind: output, source: val, port: p}}
"""
    result = check(plan)
    assert [d.location.pointer for d in result.diagnostics] == [
        "/root/tasks/0/body/outputs/1/name",  # once, at `body`, not also at `otherwise`
        "/root/tasks/1/branches/1/outputs/0/name",
        "/root/tasks/2/body/outputs/1/name",
        "/root/tasks/3/outputs/1/name",
    ]
    cond = result.diagnostics[0]
    assert [r.location.pointer for r in cond.related] == ["/root/tasks/0", "/root/tasks/0/otherwise/outputs/1/name"]
    assert "both `body` and `otherwise`" in cond.hint
    assert result.diagnostics[3].message == "output `q` of value task `val` is never read"
    assert result.exit_code == EXIT_OK


GROUP = """\
version: 1
root:
  tasks:
%s
groups:
  - id: note
    objective: Write a note
    body:
      tasks:
        - {id: write, kind: value, objective: Write, outputs: [{name: a, value: {kind: string, text: a}}, {name: b, value: {kind: string, text: b}}]}
      outputs:
        - {name: a, value: {kind: output, source: write, port: a}}
        - {name: b, value: {kind: output, source: write, port: b}}
"""

CALL = "    - {id: %s, kind: call, group: note, objective: Call}\n"


def test_a_group_export_is_unused_when_no_call_reads_it():
    two_calls = CALL % "c1" + CALL % "c2"
    reads = "  outputs:\n    - {name: a, value: {kind: output, source: c2, port: a}}\n"
    result = check(GROUP % (two_calls + reads))
    (d,) = result.diagnostics
    assert d.location.pointer == "/groups/0/body/outputs/1/name"
    assert d.message == "output `b` of group `note` is never read: no call of it reads it"
    assert dict(d.subject) == {"group": "note", "port": "b"}
    assert [r.location.pointer for r in d.related] == ["/groups/0"]
    both = reads + "    - {name: b, value: {kind: output, source: c1, port: b}}\n"
    assert codes(GROUP % (two_calls + both)) == []


def test_a_group_nothing_calls_is_not_judged():
    plan = GROUP % "    - {id: t, kind: value, objective: T, outputs: [{name: v, value: {kind: string, text: x}}]}\n  outputs: [{name: v, value: {kind: output, source: t, port: v}}]"
    assert codes(plan) == []


# -------------------------------------------------------------- no cascades


def test_an_unresolved_reference_may_be_the_reader():
    plan = SEQUENCE % "  outputs: [{name: t, value: {kind: output, source: reveiw, port: text}}]\n"
    assert codes(plan) == [("TASK_REFERENCE_UNKNOWN", "/root/outputs/0/value/source")]
    nested = SEQUENCE % (
        "    - id: later\n      kind: sequence\n      objective: Later\n      body:\n"
        "        outputs: [{name: t, value: {kind: output, source: reveiw, port: text}}]\n"
        "  outputs: [{name: t, value: {kind: output, source: later, port: t}}]\n"
    )
    assert codes(nested) == [("TASK_REFERENCE_UNKNOWN", "/root/tasks/1/body/outputs/0/value/source")]


def test_a_read_in_error_counts_as_reading_every_port():
    undeclared = SEQUENCE % "  outputs: [{name: t, value: {kind: output, source: review, port: txet}}]\n"
    assert codes(undeclared) == [("TASK_OUTPUT_UNKNOWN", "/root/outputs/0/value/port")]
    sibling = """\
version: 1
root:
  tasks:
    - id: par
      kind: parallel
      objective: Both
      branches:
        - tasks: [{id: left, kind: value, objective: L, outputs: [{name: v, value: {kind: string, text: l}}]}]
        - tasks: [{id: right, kind: value, objective: R, outputs: [{name: v, value: {kind: present, source: left}}]}]
"""
    assert codes(sibling) == [("TASK_REFERENCE_SIBLING", "/root/tasks/0/branches/1/tasks/0/outputs/0/value/source")]


@pytest.mark.parametrize(
    ("task", "error"),
    [
        (  # an error in the task's own fields: nothing in it is judged
            "    - id: cond\n      kind: conditional\n      objective: Pick\n      condition: {kind: number, number: 1}\n"
            "      body:\n        tasks: [{id: inside, kind: value, objective: In, outputs: [{name: v, value: {kind: string, text: x}}]}]\n"
            "        outputs: [{name: v, value: {kind: string, text: x}}]\n"
            "      otherwise: {outputs: [{name: v, value: {kind: string, text: y}}]}\n",
            ("TASK_CONDITION_TYPE", "/root/tasks/0/condition"),
        ),
        (  # mismatched branch outputs: unknown ports
            "    - id: cond\n      kind: conditional\n      objective: Pick\n      condition: {kind: boolean, boolean: true}\n"
            "      body: {outputs: [{name: v, value: {kind: string, text: x}}]}\n",
            ("TASK_BRANCH_OUTPUTS", "/root/tasks/0/body/outputs/0/name"),
        ),
        (  # a shape error in the task
            "    - {id: val, kind: value, objective: V, timeout: 3, outputs: [{name: v, value: {kind: string, text: x}}]}\n",
            ("PLAN_FIELD_UNKNOWN", "/root/tasks/0/timeout"),
        ),
        (  # a value task whose value is in error
            "    - {id: val, kind: value, objective: V, outputs: [{name: v, value: {kind: item}}]}\n",
            ("TASK_ITEM_SCOPE", "/root/tasks/0/outputs/0/value"),
        ),
        (  # a second declaration of an ID
            "    - {id: val, kind: value, objective: V, outputs: [{name: v, value: {kind: string, text: x}}]}\n"
            "    - {id: val, kind: value, objective: V, outputs: [{name: w, value: {kind: string, text: x}}]}\n"
            "  outputs: [{name: v, value: {kind: output, source: val, port: v}}]\n",
            ("TASK_ID_DUPLICATE", "/root/tasks/1/id"),
        ),
    ],
    ids=["own-field", "branch-outputs", "shape", "value", "duplicate"],
)
def test_nothing_is_judged_about_a_task_in_error(task, error):
    assert codes("version: 1\nroot:\n  tasks:\n" + task) == [error]


def test_an_error_hides_readers_only_where_they_can_be():
    plan = """\
version: 1
root:
  tasks:
    - id: one
      kind: sequence
      objective: One
      body:
        tasks: [{id: a, kind: value, objective: A, outputs: [{name: v, value: {kind: string, text: x}}, {name: w, value: {kind: string, text: y}}]}]
        outputs: [{name: v, value: {kind: output, source: a, port: v}}]
    - id: two
      kind: sequence
      objective: Two
      body:
        tasks: [{id: b, kind: value, objective: B, outputs: [{name: v, value: {kind: output, source: nobody, port: v}}]}]
"""
    # The unknown reference in `two`'s body could be a reader of anything visible
    # there: the tasks of that body and of the root (`one`'s unread `v` is not
    # reported). It cannot read `a` inside `one`'s body: `a`'s unread `w` is.
    assert codes(plan) == [
        ("TASK_OUTPUT_UNUSED", "/root/tasks/0/body/tasks/0/outputs/1/name"),
        ("TASK_REFERENCE_UNKNOWN", "/root/tasks/1/body/tasks/0/outputs/0/value/source"),
    ]
    repaired = plan.replace("source: nobody", "source: one")
    assert unused(repaired) == ["/root/tasks/0/body/tasks/0/outputs/1/name", "/root/tasks/1/body/tasks/0/outputs/0/name"]


def test_same_input_same_warnings_in_document_order():
    plan = GROUP % (CALL % "c1") + ""
    first = [d.to_json() for d in check(plan).diagnostics]
    assert first == [d.to_json() for d in check(plan).diagnostics]
    assert [d["location"]["pointer"] for d in first] == ["/groups/0/body/outputs/0/name", "/groups/0/body/outputs/1/name"]


def test_linear_in_a_deep_chain_of_re_exports():
    depth = 50  # 4 document levels each: within the reader's 256
    inner = "{id: leaf, kind: value, objective: Leaf, outputs: [{name: v, value: {kind: string, text: x}}]}"
    for i in range(depth):
        source = "leaf" if i == 0 else f"s{i - 1}"
        inner = (
            f"{{id: s{i}, kind: sequence, objective: S, body: {{tasks: [{inner}], "
            f"outputs: [{{name: v, value: {{kind: output, source: {source}, port: v}}}}]}}}}"
        )
    plan = f"version: 1\nroot:\n  tasks: [{inner}]\n"
    started = time.process_time()
    assert unused(plan) == ["/root/tasks/0/body/outputs/0/name"]
    assert time.process_time() - started < 20


# ---------------------------------------------------- renderings, exit codes


WARNED = SEQUENCE % ""


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / "plans").mkdir()
    (tmp_path / "plans" / "review.taskplan.yaml").write_text(WARNED, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text("[tool.taskplan]\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_the_warning_in_every_format_with_exit_code_0(project):
    plan = "plans/review.taskplan.yaml"
    text = run("check", plan)
    assert text.exit_code == 0
    assert text.stdout.startswith("warning[TASK_OUTPUT_UNUSED]: output `text` of `review` is never read\n")
    assert text.stdout.rstrip().endswith("ok: 1 plan checked, 1 warning")
    data = json.loads(run("check", plan, "--format", "json").stdout)
    assert [(d["code"], d["severity"]) for d in data["diagnostics"]] == [(CODE, "warning")]
    assert data["summary"] == {"errors": 0, "warnings": 1, "files": 1}
    sarif = json.loads(run("check", plan, "--format", "sarif").stdout)
    (result,) = sarif["runs"][0]["results"]
    assert result["ruleId"] == CODE and result["level"] == "warning"
    rule = sarif["runs"][0]["tool"]["driver"]["rules"][result["ruleIndex"]]
    assert rule["defaultConfiguration"]["level"] == "warning"
    github = run("check", plan, "--format", "github")
    assert github.exit_code == 0
    assert github.stdout.startswith("::warning file=plans/review.taskplan.yaml,line=11,col=20,")
    assert "title=TASK_OUTPUT_UNUSED::" in github.stdout
    compiled = run("compile", plan, "-o", "plans/review.workflow.yaml")
    assert compiled.exit_code == 0, compiled.output
    assert (project / "plans" / "review.workflow.yaml").is_file(), "a warning does not stop a compile"
    assert "warning[TASK_OUTPUT_UNUSED]" in compiled.output


def test_ignore_in_the_configuration_and_the_flag_silence_it(project):
    plan = "plans/review.taskplan.yaml"
    assert [d["code"] for d in json.loads(run("check", plan, "--format", "json").stdout)["diagnostics"]] == [CODE]
    flag = run("check", plan, "--ignore", CODE)
    assert flag.exit_code == 0 and flag.stdout == "ok: 1 plan checked\n"
    (project / "pyproject.toml").write_text('[tool.taskplan]\nignore = ["TASK_OUTPUT_UNUSED"]\n', encoding="utf-8")
    configured = run("check", plan)
    assert configured.exit_code == 0 and configured.stdout == "ok: 1 plan checked\n"
    data = json.loads(run("check", plan, "--format", "json").stdout)
    assert data == {"diagnostics": [], "summary": {"errors": 0, "warnings": 0, "files": 1}}
    for fmt in ("sarif", "github"):
        assert CODE not in run("check", plan, "--format", fmt).stdout
    compiled = run("compile", plan, "-o", "plans/review.workflow.yaml", "--format", "json")
    assert compiled.exit_code == 0 and json.loads(compiled.stdout)["diagnostics"] == []


def test_ignoring_it_never_hides_an_error(project):
    (project / "pyproject.toml").write_text('[tool.taskplan]\nignore = ["TASK_OUTPUT_UNUSED"]\n', encoding="utf-8")
    broken = WARNED.replace("source: summary", "source: sumary")
    (project / "plans" / "review.taskplan.yaml").write_text(broken, encoding="utf-8")
    result = run("check", "plans/review.taskplan.yaml", "--format", "json")
    assert result.exit_code == 1
    assert [d["code"] for d in json.loads(result.stdout)["diagnostics"]] == ["TASK_REFERENCE_UNKNOWN"]


def test_explain_says_it_is_a_warning():
    result = run("explain", CODE)
    assert result.exit_code == 0
    assert "severity: warning" in result.stdout and "reported by the usage pass" in result.stdout


def test_the_valid_fixtures_export_nothing_unread():
    root = Path(__file__).resolve().parents[1]
    from ruamel.yaml import YAML

    manifest = YAML(typ="safe").load((root / "fixtures" / "valid" / "manifest.yaml").read_text(encoding="utf-8"))
    for case in manifest["cases"]:
        catalogs = [root / "fixtures" / "catalogs" / c for c in case.get("catalogs") or []]
        result = check_plan(root / "fixtures" / "valid" / case["plan"], catalogs=catalogs)
        assert [d for d in result.diagnostics if d.code == CODE] == [], case["plan"]
