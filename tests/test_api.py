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


@pytest.mark.parametrize("name", ["taskplan", "catalog", "workflow"])
def test_schema_command_prints_each_published_schema(name):
    out = CliRunner().invoke(main, ["schema", name])
    assert out.exit_code == 0
    published = (ROOT / "schemas" / f"{name}.schema.json").read_text(encoding="utf-8")
    assert json.loads(out.stdout) == json.loads(published)
