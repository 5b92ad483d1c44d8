"""The Python API's entry points return typed results (the CLI only renders them)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from taskplan import api
from taskplan.cli import main

ROOT = Path(__file__).resolve().parents[1]


def test_validate_workflow_accepts_a_valid_file_and_locates_errors(tmp_path):
    ok = api.validate_workflow(ROOT / "fixtures/workflows/valid/pr-review.workflow.yaml")
    assert ok.ok and ok.diagnostics == []
    broken = tmp_path / "broken.workflow.yaml"
    broken.write_text("version: 1\nname: x\nentrypoint: main\nworkflows:\n  main:\n    steps:\n      - {id: a, type: set}\n")
    result = api.validate_workflow(broken)
    assert not result.ok
    assert [(d.code, d.location.line) for d in result.diagnostics] == [("WORKFLOW_SCHEMA", 7)]


def test_validate_workflow_raises_unreadable_input_for_a_missing_file(tmp_path):
    with pytest.raises(api.UnreadableInput):
        api.validate_workflow(tmp_path / "missing.yaml")


def test_compile_result_carries_the_graph_and_the_yaml():
    result = api.compile_plan(ROOT / "examples/pr-review.taskplan.yaml", catalogs=[ROOT / "examples/catalog.yaml"], auto=True)
    assert result.ok and result.graph is not None and result.yaml is not None
    assert result.graph.entrypoint == "main" and "main" in result.graph.workflows
    assert result.graph.check() == []
    assert result.typed is not None and result.plan is not None



def test_compile_without_a_catalog_reports_the_operation_calls_once():
    # check accepts a plan without a catalog (its operations' contracts are unknown);
    # compile cannot lower an operation call without its contract: one diagnostic at
    # the first call, the other calls related, nothing written (was COMPILER_INTERNAL)
    plan = ROOT / "examples/pr-review.taskplan.yaml"
    assert api.check_plan(plan).ok
    result = api.compile_plan(plan, auto=True)
    assert result.yaml is None and result.exit_code == 1
    [d] = result.diagnostics
    assert (d.code, d.location.pointer, d.location.line, d.location.column) == (
        "TASK_OPERATION_UNKNOWN", "/root/tasks/0/operation", 13, 18)
    assert dict(d.subject) == {"task": "scratch"}
    assert "no catalog was given" in d.message and "--catalog" in d.hint
    assert [r.location.pointer for r in d.related] == [
        "/root/tasks/1/operation", "/root/tasks/4/body/tasks/0/operation", "/root/always/0/operation"]


def test_compile_without_a_catalog_compiles_a_plan_without_operations(tmp_path):
    plan = tmp_path / "plan.yaml"
    plan.write_text(
        "version: 1\n"
        "inputs: [{name: topic, type: {kind: string}}]\n"
        "root:\n"
        "  tasks:\n"
        "    - {id: echo, kind: value, objective: Echo the topic, outputs: [{name: text, value: {kind: input, source: topic}}]}\n"
        "  outputs: [{name: text, value: {kind: output, source: echo, port: text}}]\n"
    )
    result = api.compile_plan(plan)
    assert result.diagnostics == [] and result.yaml is not None

@pytest.mark.parametrize("name", ["taskplan", "catalog", "workflow"])
def test_schema_command_prints_each_published_schema(name):
    out = CliRunner().invoke(main, ["schema", name])
    assert out.exit_code == 0
    published = (ROOT / "schemas" / f"{name}.schema.json").read_text(encoding="utf-8")
    assert json.loads(out.stdout) == json.loads(published)
