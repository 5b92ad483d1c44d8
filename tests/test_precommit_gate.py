"""`taskplan gate`: the stale-workflow gate behind the `taskplan-compile` pre-commit hook."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from taskplan.cli import main
from taskplan.cli.gate import plan_for_workflow, plans_to_gate, workflow_path
from sample_plans import WEEKLY

ROOT = Path(__file__).resolve().parents[1]
PR_REVIEW = (ROOT / "examples" / "pr-review.taskplan.yaml").read_text(encoding="utf-8")


def run(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture
def repo(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text('[tool.taskplan]\ncatalogs = ["catalog.yaml"]\n', encoding="utf-8")
    shutil.copy2(ROOT / "examples" / "catalog.yaml", tmp_path / "catalog.yaml")
    (tmp_path / "plans").mkdir()
    (tmp_path / "plans" / "weekly.taskplan.yaml").write_text(WEEKLY, encoding="utf-8")
    (tmp_path / "plans" / "pr-review.taskplan.yaml").write_text(PR_REVIEW, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _compile(plan: str, *flags: str) -> None:
    result = run("compile", plan, *flags, "-o", workflow_path(plan))
    assert result.exit_code == 0, result.output


# ------------------------------------------------------------------ the naming rule


@pytest.mark.parametrize(
    "plan, workflow",
    [
        ("plans/a.taskplan.yaml", "plans/a.workflow.yaml"),
        ("plans/a.taskplan.yml", "plans/a.workflow.yaml"),
        ("plans/a.taskplan.json", "plans/a.workflow.yaml"),
        ("a.taskplan.yaml", "a.workflow.yaml"),
        ("plans/a.yaml", "plans/a.workflow.yaml"),
        ("plans/.taskplan.yaml", "plans/.taskplan.workflow.yaml"),
    ],
)
def test_the_naming_rule(plan, workflow):
    assert workflow_path(plan) == workflow.replace("/", os.sep)


def test_a_workflow_stands_for_the_plan_beside_it(tmp_path):
    (tmp_path / "a.taskplan.json").write_text("{}", encoding="utf-8")
    (tmp_path / "b.taskplan.yaml").write_text("", encoding="utf-8")
    a, b = str(tmp_path / "a.workflow.yaml"), str(tmp_path / "b.workflow.yml")
    assert plan_for_workflow(a) == str(tmp_path / "a.taskplan.json")
    assert plan_for_workflow(b) == str(tmp_path / "b.taskplan.yaml")
    assert plan_for_workflow(str(tmp_path / "hand-written.workflow.yaml")) is None
    plan_a = str(tmp_path / "a.taskplan.json")
    assert plans_to_gate([a, plan_a, b, str(tmp_path / "x.workflow.yaml")]) == [plan_a, str(tmp_path / "b.taskplan.yaml")]


# ------------------------------------------------------------------ the command


def test_up_to_date_workflows_pass(repo):
    _compile("plans/weekly.taskplan.yaml")
    _compile("plans/pr-review.taskplan.yaml", "--auto")
    result = run("gate", "plans/weekly.taskplan.yaml", "plans/pr-review.taskplan.yaml", "plans/weekly.workflow.yaml")
    assert result.exit_code == 0, result.output
    assert result.stdout == "ok: 2 workflows up to date\n"


def test_a_missing_workflow_fails_with_the_command_that_compiles_it(repo):
    result = run("gate", "plans/weekly.taskplan.yaml")
    assert result.exit_code == 1
    assert (
        "error: plans/weekly.workflow.yaml does not exist: compile it with "
        "`taskplan compile plans/weekly.taskplan.yaml -o plans/weekly.workflow.yaml`"
    ) in result.stderr
    assert not (repo / "plans" / "weekly.workflow.yaml").exists()
    result = run("gate", "--write", "plans/weekly.taskplan.yaml")
    assert result.exit_code == 1  # written, still to be reviewed and staged
    assert "fixed: recompiled plans/weekly.workflow.yaml from plans/weekly.taskplan.yaml" in result.stderr
    assert run("gate", "plans/weekly.taskplan.yaml").exit_code == 0


def test_a_hand_edit_makes_the_workflow_stale(repo):
    _compile("plans/weekly.taskplan.yaml")
    workflow = repo / "plans" / "weekly.workflow.yaml"
    workflow.write_text(workflow.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    result = run("gate", "plans/weekly.workflow.yaml")
    assert result.exit_code == 1
    assert "+# edited" not in result.stderr and "-# edited" in result.stderr  # the diff: committed -> compiled
    assert "error: plans/weekly.workflow.yaml is stale:" in result.stderr
    assert "error: stale or missing: 1 of 1 workflow\n" in result.stderr


def test_recorded_choices_are_replayed(repo):
    plan = "plans/pr-review.taskplan.yaml"
    _compile(plan, "--choose", "tone=formal")
    result = run("gate", plan)
    assert result.exit_code == 0, result.output  # --choose tone=formal replayed
    _compile(plan, "--auto")
    assert run("gate", plan).exit_code == 0  # --auto replayed

    # With --auto, a new recommendation makes the workflow stale ...
    (repo / plan).write_text(PR_REVIEW.replace("recommended: friendly", "recommended: formal"), encoding="utf-8")
    result = run("gate", plan)
    assert result.exit_code == 1
    assert f"recompile it with `taskplan compile {plan} --auto -o plans/pr-review.workflow.yaml`" in result.stderr
    assert "+    selected: formal" in result.stderr


def test_a_plan_that_selects_a_choice_itself_wins_over_the_recorded_selection(repo):
    plan = "plans/pr-review.taskplan.yaml"
    _compile(plan, "--choose", "tone=formal")
    (repo / plan).write_text(
        PR_REVIEW.replace("    recommended: friendly\n", "    recommended: friendly\n    selected: friendly\n"),
        encoding="utf-8",
    )
    result = run("gate", plan)
    assert result.exit_code == 1, result.output  # not masked by replaying --choose tone=formal
    assert "-    selected: formal" in result.stderr and "+    selected: friendly" in result.stderr
    assert f"recompile it with `taskplan compile {plan} -o plans/pr-review.workflow.yaml`" in result.stderr


def test_a_plan_with_errors_reports_its_diagnostics(repo):
    (repo / "plans" / "weekly.taskplan.yaml").write_text(WEEKLY.replace("source: title,", "source: titel,"))
    result = run("gate", "plans/weekly.taskplan.yaml", "--format", "json")
    assert result.exit_code == 1
    data = json.loads(result.stdout)  # stdout is the JSON document only
    assert [d["code"] for d in data["diagnostics"]] == ["TASK_REFERENCE_UNKNOWN"]
    assert "stale" not in result.stderr


def test_unreadable_inputs_are_usage_errors(repo):
    result = run("gate", "plans/missing.taskplan.yaml")
    assert result.exit_code == 2
    assert "error: cannot read plans/missing.taskplan.yaml: no such file" in result.stderr
    (repo / "plans" / "weekly.workflow.yaml").mkdir()
    result = run("gate", "plans/weekly.taskplan.yaml")
    assert result.exit_code == 2
    assert "error: cannot read plans/weekly.workflow.yaml: is a directory, not a file" in result.stderr


def test_hand_written_workflows_alone_pass(repo):
    (repo / "plans" / "hand.workflow.yaml").write_text("version: 1\n", encoding="utf-8")
    result = run("gate", "plans/hand.workflow.yaml")
    assert result.exit_code == 0
    assert result.stdout == "ok: 0 workflows up to date\n"


def test_sarif_output_of_the_gate_is_a_document(repo):
    _compile("plans/weekly.taskplan.yaml")
    result = run("gate", "plans/weekly.taskplan.yaml", "--format", "sarif")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["runs"][0]["results"] == []
    assert result.stderr == "ok: 1 workflow up to date\n"
