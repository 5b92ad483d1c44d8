"""`taskplan compile` and `api.compile_plan`: output properties and the CI gate."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from ruamel.yaml import YAML

from taskplan import api
from taskplan.cli import main

ROOT = Path(__file__).resolve().parents[1]
PLAN = "examples/pr-review.taskplan.yaml"
CATALOG = "examples/catalog.yaml"
EXTRA = "fixtures/catalogs/mcp/memory.catalog.yaml"


@pytest.fixture(autouse=True)
def _in_root(monkeypatch):
    monkeypatch.chdir(ROOT)


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def _compile_subprocess(seed: str, catalogs: list[str]) -> bytes:
    env = dict(os.environ, PYTHONHASHSEED=seed)
    args = [sys.executable, "-m", "taskplan", "compile", PLAN, "--auto"]
    for c in catalogs:
        args += ["--catalog", c]
    done = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, check=False)
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout


def test_same_bytes_across_hash_seeds_and_catalog_order():
    outputs = {
        _compile_subprocess("0", [CATALOG, EXTRA]),
        _compile_subprocess("1", [EXTRA, CATALOG]),
        _compile_subprocess("12345", [CATALOG, EXTRA]),
    }
    assert len(outputs) == 1


def test_stdout_gets_only_the_yaml():
    code, out, err = _run("compile", PLAN, "--catalog", CATALOG, "--auto")
    assert code == 0, err
    assert out.startswith("version: 1\n")
    assert err == ""
    assert YAML(typ="safe").load(out)["entrypoint"] == "main"


def test_write_then_check_gate(tmp_path):
    out = tmp_path / "pr-review.workflow.yaml"
    code, stdout, _ = _run("compile", PLAN, "--catalog", CATALOG, "--auto", "-o", str(out))
    assert code == 0 and "compiled to" in stdout
    written = out.read_bytes()
    assert _run("compile", PLAN, "--catalog", CATALOG, "--auto", "-o", str(out), "--check")[0] == 0
    # another selection changes the output: the gate fails and writes nothing
    code, _, err = _run("compile", PLAN, "--catalog", CATALOG, "--choose", "tone=formal", "-o", str(out), "--check")
    assert code == 1
    assert "is stale" in err and "-    selected: friendly" in err
    assert out.read_bytes() == written


def test_check_gate_fails_when_the_output_is_missing(tmp_path):
    code, _, err = _run("compile", PLAN, "--catalog", CATALOG, "--auto", "-o", str(tmp_path / "none.yaml"), "--check")
    assert code == 1 and "does not exist" in err
    assert not (tmp_path / "none.yaml").exists()


def test_check_needs_an_output_file():
    assert _run("compile", PLAN, "--catalog", CATALOG, "--check")[0] == 2


def test_a_failed_compile_leaves_the_previous_output_intact(tmp_path):
    out = tmp_path / "out.yaml"
    out.write_text("previous\n")
    broken = tmp_path / "broken.taskplan.yaml"
    broken.write_text((ROOT / PLAN).read_text().replace("port: files}", "port: filez}"))
    code, stdout, _ = _run("compile", str(broken), "--catalog", CATALOG, "--auto", "-o", str(out))
    assert code == 1
    assert "TASK_OUTPUT_UNKNOWN" in stdout
    assert out.read_text() == "previous\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["broken.taskplan.yaml", "out.yaml"]  # no temp file left


def test_an_unwritable_output_is_a_usage_error(tmp_path):
    code, _, err = _run("compile", PLAN, "--catalog", CATALOG, "--auto", "-o", str(tmp_path / "no" / "such" / "dir.yaml"))
    assert code == 2 and "cannot write" in err
    assert _run("compile", PLAN, "--catalog", CATALOG, "--auto", "-o", str(tmp_path))[0] == 2


def test_a_choice_without_selection_needs_auto_or_choose():
    result = api.compile_plan(PLAN, catalogs=[CATALOG])
    assert [(d.code, d.location.pointer) for d in result.diagnostics] == [("CHOICE_REQUIRED", "/choices/0")]
    assert result.yaml is None and result.exit_code == 1
    chosen = api.compile_plan(PLAN, catalogs=[CATALOG], choose={"tone": "formal"})
    assert chosen.exit_code == 0
    data = YAML(typ="safe").load(chosen.yaml)
    assert data["choices"] == {"tone": {"selected": "formal", "auto": False}}
    auto = YAML(typ="safe").load(api.compile_plan(PLAN, catalogs=[CATALOG], auto=True).yaml)
    assert auto["choices"] == {"tone": {"selected": "friendly", "auto": True}}


@pytest.mark.parametrize("value", ["tone=loud", "mood=formal"])
def test_an_unknown_selection_is_a_usage_error(value):
    code, _, err = _run("compile", PLAN, "--catalog", CATALOG, "--choose", value)
    assert code == 2 and "--choose" in err


def _steps(yaml_text: str) -> dict[str, dict]:
    data = YAML(typ="safe").load(yaml_text)
    return {s["id"]: s for wf in data["workflows"].values() for s in wf["steps"] + wf.get("finally", [])}


def test_request_envelopes_inject_the_catalogs_fixed_inputs_and_executor_config():
    steps = _steps(api.compile_plan(PLAN, catalogs=[CATALOG], auto=True).yaml)
    fetch = steps["fetch_pr"]
    assert fetch["type"] == "mcp.call"
    assert fetch["input"]["server"] == "github" and fetch["input"]["tool"] == "pull_request_read"
    assert fetch["input"]["request"]["api_version"] == "2022-11-28"  # fixed: injected, never bound by the plan
    assert steps["scratch"]["input"]["operation"] == "workspace.create"


def test_cleanup_is_guarded_by_the_presence_of_what_it_reads():
    data = YAML(typ="safe").load(api.compile_plan(PLAN, catalogs=[CATALOG], auto=True).yaml)
    cleanup = data["workflows"]["main"]["finally"]
    assert [s["id"] for s in cleanup] == ["drop_scratch"]
    assert cleanup[0]["when"] == "${present(data.steps.scratch)}"  # its record: a null result is a result


GUARD_PLAN = """
version: 1
name: guards
inputs:
  - {name: flag, type: {kind: boolean}}
root:
  tasks:
    - id: pick
      kind: conditional
      objective: Pick a label, or none
      condition: {kind: input, source: flag}
      body:
        outputs: [{name: label, value: {kind: string, text: scratch}}]
      otherwise:
        outputs: [{name: label, value: {kind: null}}]
    - id: each
      kind: foreach
      objective: Loop
      items: {kind: array, items: [{kind: string, text: a}]}
      body:
        outputs: [{name: x, value: {kind: item}}]
  always:
    - id: report
      kind: value
      objective: Report the label, even a null one
      outputs:
        - {name: l, value: {kind: output, source: pick, port: label}}
        - {name: x, value: {kind: output, source: each, port: x}}
"""


def test_a_cleanup_guard_tests_merge_and_collect_steps_by_their_record(tmp_path):
    """The guard waits for the conditional's merge step to have run, not for a non-null
    merged value: the `otherwise` side's null label is a result, and cleanup must run."""
    path = tmp_path / "p.taskplan.yaml"
    path.write_text(GUARD_PLAN)
    result = api.compile_plan(str(path), catalogs=[CATALOG], auto=True)
    assert result.exit_code == 0, [d.message for d in result.diagnostics]
    cleanup = YAML(typ="safe").load(result.yaml)["workflows"]["main"]["finally"]
    assert cleanup[0]["when"] == (
        '${present(data.steps.pick) and present(data.steps["__pick.merge.label"])'
        ' and present(data.steps.each) and present(data.steps["__each.collect.x"])}'
    )


NULL_RESULT_PLAN = """
version: 1
name: null-result
root:
  tasks:
    - id: note
      kind: value
      objective: A value that may well be null
      outputs: [{name: text, value: {kind: null}}]
    - id: inner
      kind: sequence
      objective: A child scope whose cleanup reads the enclosing scope's value
      body:
        tasks:
          - {id: step, kind: value, objective: Work, outputs: [{name: v, value: {kind: string, text: w}}]}
        always:
          - id: inner_report
            kind: value
            objective: Report the note from inside
            outputs: [{name: n, value: {kind: output, source: note, port: text}}]
  always:
    - id: report
      kind: value
      objective: Report the note, null or not
      outputs: [{name: n, value: {kind: output, source: note, port: text}}]
"""


def test_a_cleanup_runs_after_a_producer_whose_result_is_null(tmp_path):
    """taskplan.md: cleanup runs once every producer it reads "has produced a result"; a
    null result is one (unlike the `present` value, "a non-null result"). So the guard
    tests the producer's step record, not `present(...value)`, which a null makes false.
    In the child scope the note arrives as a workflow input, bound whenever the child
    runs: no guard at all (a `present(data.inputs...)` would skip on a null note)."""
    path = tmp_path / "p.taskplan.yaml"
    path.write_text(NULL_RESULT_PLAN)
    result = api.compile_plan(str(path), catalogs=[CATALOG], auto=True)
    assert result.exit_code == 0, [d.message for d in result.diagnostics]
    workflows = YAML(typ="safe").load(result.yaml)["workflows"]
    assert workflows["main"]["finally"][0]["when"] == "${present(data.steps.note)}"
    (child,) = [wf for name, wf in workflows.items() if name != "main"]
    assert [s["id"] for s in child["finally"]] == ["inner_report"]
    assert "when" not in child["finally"][0]


ADVERSARIAL = [
    "${data.inputs.token}",
    "$${data.inputs.token}",
    "prefix ${data.steps.x.result} suffix",
    "yes",
    "on",
    "1e-07",
    "null",
    "~",
    "*alias",
    "&anchor",
    "!tag",
    "# comment",
    "a: b",
    "line one\nline two\n",
    "}",
    "{{ objective }}",
    "",
]


@pytest.mark.parametrize("text", ADVERSARIAL)
def test_literal_strings_are_never_evaluated(text, tmp_path):
    """A literal string reaches the workflow as data: after reading the YAML back, the
    request holds exactly the text, either plain or wrapped in {$literal: ...}."""
    import json

    plan = (ROOT / PLAN).read_text().replace(
        '{name: label, value: {kind: string, text: "pr-review"}}',
        "{name: label, value: {kind: string, text: " + json.dumps(text) + "}}",
    )
    path = tmp_path / "p.taskplan.yaml"
    path.write_text(plan)
    result = api.compile_plan(str(path), catalogs=[CATALOG], auto=True)
    assert result.exit_code == 0, [d.message for d in result.diagnostics]
    label = _steps(result.yaml)["scratch"]["input"]["request"]["label"]
    if "${" in text:
        assert label == {"$literal": text}
    else:
        assert label == text


@pytest.mark.parametrize("text", ADVERSARIAL)
def test_input_defaults_are_literal_by_position(text, tmp_path):
    """A workflow input's `default` is never evaluated (docs/workflow-dialect.md), so it is
    emitted as written: a default holding `${` once came out wrapped in {$literal: ...},
    which no longer fits the input's type, and compile failed with COMPILER_INTERNAL."""
    import json

    plan = (
        "version: 1\nname: defaults\n"
        "inputs:\n  - {name: greeting, type: {kind: string}, required: false, default: {kind: string, text: "
        + json.dumps(text) + "}}\n"
        "root:\n  outputs:\n    - {name: g, value: {kind: input, source: greeting}}\n"
    )
    path = tmp_path / "p.taskplan.yaml"
    path.write_text(plan)
    result = api.compile_plan(str(path), catalogs=[CATALOG], auto=True)
    assert result.exit_code == 0, [d.message for d in result.diagnostics]
    data = YAML(typ="safe").load(result.yaml)
    assert data["workflows"]["main"]["inputs"]["greeting"]["default"] == text


def test_a_bug_in_generated_plumbing_is_compiler_internal(monkeypatch):
    """When the emitted workflow does not validate although the plan did, the finding is
    COMPILER_INTERNAL at the plan slot its step came from, never blamed on the plan."""
    from taskplan.ir import graph as graph_ir

    original = graph_ir.PlanningGraph.to_data

    def corrupt(self):
        data = original(self)
        step = data["workflows"]["main"]["steps"][1]
        step["input"]["request"]["owner"] = "${data.steps.nowhere.result}"
        return data

    monkeypatch.setattr(graph_ir.PlanningGraph, "to_data", corrupt)
    result = api.compile_plan(PLAN, catalogs=[CATALOG], auto=True)
    assert result.exit_code == 3
    assert [d.code for d in result.diagnostics] == ["COMPILER_INTERNAL"]
    d = result.diagnostics[0]
    assert d.location.file == PLAN and d.location.pointer == "/root/tasks/1"
    assert "WORKFLOW_REFERENCE" in d.message
    assert result.yaml is None


@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_machine_formats_keep_stdout_for_their_document(fmt, tmp_path):
    import json

    code, out, err = _run("compile", PLAN, "--catalog", CATALOG, "--auto", "-o", str(tmp_path / "o.yaml"), "--format", fmt)
    assert code == 0
    assert "compiled to" in err
    json.loads(out)  # nothing but the (empty) report


def test_an_empty_array_literal_fits_a_typed_array_port(tmp_path):
    catalog = tmp_path / "c.yaml"
    catalog.write_text(
        "version: 1\nsources:\n  - id: s\n    operations:\n      - id: s.tag\n        input:\n"
        "          type: object\n          properties: {labels: {type: array, items: {type: string}}}\n"
        "          required: [labels]\n"
    )
    plan = tmp_path / "p.taskplan.yaml"
    plan.write_text(
        "version: 1\nroot:\n  tasks:\n    - id: tag\n      objective: Tag nothing\n      operation: s.tag\n"
        "      inputs: [{name: labels, value: {kind: array, items: []}}]\n"
    )
    result = api.compile_plan(str(plan), catalogs=[str(catalog)])
    assert result.exit_code == 0, [d.message for d in result.diagnostics]
    assert _steps(result.yaml)["tag"]["input"]["request"]["labels"] == []


NULLABLE_RESULT_PLAN = """
version: 1
name: nullable-result
root:
  tasks:
    - id: find
      objective: Find the person
      operation: directory.find_person
      inputs: [{name: email, value: {kind: string, text: a@example.com}}]
    - id: keep
      kind: value
      objective: Keep the team, or null
      outputs: [{name: team, value: {kind: output, source: find, port: team}}]
  outputs:
    - {name: team, value: {kind: output, source: keep, port: team}}
"""


def test_a_port_of_a_nullable_result_is_read_by_a_checked_projection(tmp_path):
    """`team` is required in the result's schema, but the result itself may be null: the
    port is read like an optional one (value.project of the result), not as a plain
    `result.team` path through a possibly null result."""
    path = tmp_path / "p.taskplan.yaml"
    path.write_text(NULLABLE_RESULT_PLAN)
    result = api.compile_plan(str(path), catalogs=["fixtures/catalogs/ops.catalog.yaml"], auto=True)
    assert result.exit_code == 0, [d.message for d in result.diagnostics]
    steps = _steps(result.yaml)
    project = steps["__keep.out.team.project"]
    assert (project["type"], project["from"], project["path"]) == ("value.project", "${data.steps.find.result}", ["team"])
    assert project["schema"] == {"type": ["string", "null"]}
    assert steps["keep"]["value"] == {"team": '${data.steps["__keep.out.team.project"].value}'}


PRESENT_PLAN = """
version: 1
name: presence
root:
  tasks:
    - id: fetch
      objective: Fetch the pull request
      operation: github.get_pull_request
      inputs:
        - {name: owner, value: {kind: string, text: o}}
        - {name: repo, value: {kind: string, text: r}}
        - {name: pull_number, value: {kind: number, number: 1}}
    - id: later
      kind: sequence
      objective: Record in a child scope whether fetch produced
      body:
        tasks:
          - {id: rec, kind: value, objective: Record, outputs: [{name: ran, value: {kind: present, source: fetch}}]}
        outputs: [{name: ran, value: {kind: output, source: rec, port: ran}}]
  always:
    - id: report
      kind: conditional
      objective: Report success, or the failure when fetch produced nothing
      condition: {kind: present, source: fetch}
      body:
        outputs: [{name: s, value: {kind: string, text: ok}}]
      otherwise:
        outputs: [{name: s, value: {kind: string, text: failed}}]
    - id: nested
      kind: sequence
      objective: A nested cleanup that only tests fetch
      body:
        tasks:
          - {id: inner, kind: value, objective: Inner, outputs: [{name: ran, value: {kind: present, source: fetch}}]}
  outputs:
    - {name: ran, value: {kind: output, source: later, port: ran}}
"""


def test_present_is_never_guarded_by_itself_and_crosses_scopes_as_a_boolean(tmp_path):
    """`present(fetch)` in cleanup tests whether fetch produced: guarding the cleanup by
    fetch's presence made the test always true (the failure branch dead). A child scope
    that only tests fetch gets the boolean from its caller, not fetch's result (which a
    cleanup could not read unguarded, and which may be null)."""
    path = tmp_path / "p.taskplan.yaml"
    path.write_text(PRESENT_PLAN)
    result = api.compile_plan(str(path), catalogs=[CATALOG], auto=True)
    assert result.exit_code == 0, [d.message for d in result.diagnostics]
    workflows = YAML(typ="safe").load(result.yaml)["workflows"]
    main = workflows["main"]
    cleanup = {s["id"]: s for s in main["finally"]}
    report, nested = cleanup["report"], cleanup["nested"]
    assert not any("when" in s for s in main["finally"])
    assert report["cases"][0]["when"] == "${present(data.steps.fetch.result)}"
    later = {s["id"]: s for s in main["steps"]}["later"]
    assert later["input"] == {"fetch": "${present(data.steps.fetch.result)}"}
    assert nested["input"] == {"fetch": "${present(data.steps.fetch.result)}"}
    for child in ("later.body", "nested.body"):
        assert workflows[child]["inputs"] == {"fetch": {"type": {"type": "boolean"}}}
        assert workflows[child]["steps"][0]["value"] == {"ran": "${data.inputs.fetch}"}


def test_literal_text_inside_expressions_never_opens_one(tmp_path):
    """A literal compared in a predicate or given as a scope output is written inside an
    expression: its `${` comes out as `$\\u007b`, so the only `${` in the fields a runtime
    evaluates open expressions (docs/decisions.md, Literal escaping); it still means the
    text. (Schemas, like the output's `const`, are literal by position.)"""
    plan = """
version: 1
name: inner-literals
inputs:
  - {name: token, type: {kind: string}}
root:
  tasks:
    - id: v
      kind: value
      objective: Compare with a literal that looks like an expression
      outputs:
        - name: same
          value: {kind: predicate, predicate: equal, items: [{kind: input, source: token}, {kind: string, text: "${data.inputs.token}"}]}
  outputs:
    - {name: same, value: {kind: output, source: v, port: same}}
    - {name: lit, value: {kind: string, text: "a ${b} c"}}
"""
    path = tmp_path / "p.taskplan.yaml"
    path.write_text(plan)
    result = api.compile_plan(str(path), catalogs=[CATALOG], auto=True)
    assert result.exit_code == 0, [d.message for d in result.diagnostics]
    main = YAML(typ="safe").load(result.yaml)["workflows"]["main"]
    assert main["steps"][0]["value"]["same"] == '${data.inputs.token == "$\\u007bdata.inputs.token}"}'
    assert main["outputs"]["lit"]["expr"] == '${"a $\\u007bb} c"}'
    expressions = [line.split(": ", 1)[-1] for line in result.yaml.splitlines() if ": ${" in line]
    assert len(expressions) == 3 and not [e for e in expressions if "${" in e[2:]]


def test_an_integral_number_literal_is_written_as_an_integer(tmp_path):
    """`1e2` and `100.0` are typed integer (taskplan.md: "integer when integral") and so
    fit an integer port; they are written `100`, not `100.0`, which a draft-04 `integer`
    and strict integer parsers refuse. A fraction stays a fraction."""
    plan = """
version: 1
name: numbers
root:
  tasks:
    - id: v
      kind: value
      objective: Numbers
      outputs:
        - {name: e, value: {kind: number, number: 1e2}}
        - {name: f, value: {kind: number, number: 100.0}}
        - {name: h, value: {kind: number, number: 2.5}}
        - {name: n, value: {kind: number, number: -0.0}}
  outputs:
    - {name: e, value: {kind: output, source: v, port: e}}
"""
    path = tmp_path / "p.taskplan.yaml"
    path.write_text(plan)
    result = api.compile_plan(str(path), catalogs=[CATALOG], auto=True)
    assert result.exit_code == 0, [d.message for d in result.diagnostics]
    value = _steps(result.yaml)["v"]["value"]
    assert value == {"e": 100, "f": 100, "h": 2.5, "n": 0}
    assert [type(value[k]) for k in "efhn"] == [int, int, float, int]
