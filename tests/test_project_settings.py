"""[tool.taskplan] settings at work in the commands: `output-dir` and `workflow-name`
(compile and the gate), `ignore` (silenced warnings, in every command and format),
`limits` (passed to the passes), and the workflow size limit that makes compile and
validate agree (issue 5). The settings' parsing and locations: test_project_config.py."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from taskplan import api
from taskplan.cli import main
from taskplan.diagnostics import Severity
from taskplan.diagnostics.registry import REGISTRY, CodeInfo
from sample_plans import WEEKLY

ROOT = Path(__file__).resolve().parents[1]


FOUR_TASKS = """\
version: 1
name: four
root:
  tasks:
""" + "".join(
    f"""\
    - id: t{i}
      kind: value
      objective: Task {i}
      outputs:
        - {{name: text, value: {{kind: string, text: T{i}}}}}
"""
    for i in range(4)
)


def run(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A repository with a catalog and two plans; `settings` writes [tool.taskplan]."""
    shutil.copy2(ROOT / "examples" / "catalog.yaml", tmp_path / "catalog.yaml")
    (tmp_path / "plans").mkdir()
    (tmp_path / "plans" / "weekly.taskplan.yaml").write_text(WEEKLY, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def settings(root: Path, extra: str = "", limits: str = "") -> None:
    text = '[tool.taskplan]\ncatalogs = ["catalog.yaml"]\n' + extra
    if limits:
        text += "\n[tool.taskplan.limits]\n" + limits
    (root / "pyproject.toml").write_text(text, encoding="utf-8")


# ------------------------------------------------------------------ output-dir


def test_compile_writes_to_output_dir_and_creates_it(repo):
    settings(repo, 'output-dir = "build/workflows"\n')
    result = run("compile", "plans/weekly.taskplan.yaml")
    target = repo / "build" / "workflows" / "weekly.workflow.yaml"
    assert result.exit_code == 0, result.output
    assert result.stdout == f"ok: compiled to {os.path.join('build', 'workflows', 'weekly.workflow.yaml')}\n"
    assert target.read_text(encoding="utf-8").startswith("version: 1\n")
    assert not (repo / "plans" / "weekly.workflow.yaml").exists()
    # --check compares with the file in output-dir, no -o needed
    assert run("compile", "plans/weekly.taskplan.yaml", "--check").exit_code == 0
    target.write_text(target.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    assert run("compile", "plans/weekly.taskplan.yaml", "--check").exit_code == 1


def test_compile_flags_win_over_output_dir(repo):
    settings(repo, 'output-dir = "build"\n')
    result = run("compile", "plans/weekly.taskplan.yaml", "-o", "mine.yaml")
    assert result.exit_code == 0, result.output
    assert (repo / "mine.yaml").is_file() and not (repo / "build").exists()
    result = run("compile", "plans/weekly.taskplan.yaml", "-o", "-")
    assert result.exit_code == 0 and result.stdout.startswith("version: 1\n")
    assert not (repo / "build").exists()


def test_compile_from_another_directory_uses_the_projects_output_dir(repo, monkeypatch):
    settings(repo, 'output-dir = "build"\n')
    monkeypatch.chdir(repo / "plans")
    result = run("compile", "weekly.taskplan.yaml")
    assert result.exit_code == 0, result.output
    assert (repo / "build" / "weekly.workflow.yaml").is_file()


def test_workflow_name_in_output_dir(repo):
    settings(repo, 'output-dir = "wf"\nworkflow-name = "{stem}.yml"\n')
    assert run("compile", "plans/weekly.taskplan.yaml").exit_code == 0
    assert sorted(os.listdir(repo / "wf")) == ["weekly.yml"]


def test_compile_never_overwrites_the_plan(repo):
    settings(repo)
    (repo / "plans" / "x.yaml").write_text(WEEKLY, encoding="utf-8")
    result = run("compile", "plans/x.yaml", "-o", "plans/x.yaml")
    assert result.exit_code == 2
    assert "would overwrite the plan itself" in result.stderr
    assert (repo / "plans" / "x.yaml").read_text(encoding="utf-8") == WEEKLY


def test_an_invalid_output_dir_writes_nothing(repo):
    settings(repo, 'output-dir = "../outside"\n')
    result = run("compile", "plans/weekly.taskplan.yaml")
    assert result.exit_code == 1
    assert "error[CONFIG_INVALID]: `output-dir` '../outside' leads out of the project" in result.stderr
    assert "version: 1" not in result.stdout  # neither written nor printed
    assert not (repo.parent / "outside").exists()


# ------------------------------------------------------------------ the gate


def test_the_gate_uses_output_dir_and_workflow_name(repo):
    settings(repo, 'output-dir = "compiled"\nworkflow-name = "{stem}.wf.yaml"\n')
    result = run("gate", "plans/weekly.taskplan.yaml")
    target = os.path.join("compiled", "weekly.wf.yaml")
    assert result.exit_code == 1
    # no -o: output-dir places it, and compile creates the directory (`-o` would not)
    assert (
        f"error: {target} does not exist: compile it with `taskplan compile plans/weekly.taskplan.yaml`"
    ) in result.stderr
    result = run("gate", "--write", "plans/weekly.taskplan.yaml")  # creates compiled/
    assert result.exit_code == 1
    assert f"fixed: recompiled {target} from plans/weekly.taskplan.yaml" in result.stderr
    assert run("gate", "plans/weekly.taskplan.yaml").exit_code == 0
    # what the gate wrote is what compile writes
    assert run("compile", "plans/weekly.taskplan.yaml", "--check").exit_code == 0

    # a hand-edited workflow in output-dir stands for the plan it records
    workflow = repo / target
    workflow.write_text(workflow.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    result = run("gate", target)
    assert result.exit_code == 1
    assert f"error: {target} is stale:" in result.stderr
    # a hand-written workflow there has no plan: skipped
    (repo / "compiled" / "hand.wf.yaml").write_text("version: 1\n", encoding="utf-8")
    result = run("gate", "compiled/hand.wf.yaml")
    assert result.exit_code == 0 and result.stdout == "ok: 0 workflows up to date\n"


def test_the_gate_flags_two_plans_with_one_workflow(repo):
    settings(repo, 'output-dir = "compiled"\n')
    (repo / "other").mkdir()
    (repo / "other" / "weekly.taskplan.yaml").write_text(WEEKLY, encoding="utf-8")
    result = run("gate", "--write", "plans/weekly.taskplan.yaml", "other/weekly.taskplan.yaml")
    assert result.exit_code == 1
    target = os.path.join("compiled", "weekly.workflow.yaml")
    assert f"plans/weekly.taskplan.yaml and other/weekly.taskplan.yaml both compile to {target}" in result.stderr


def test_the_gate_writes_nothing_with_an_invalid_configuration(repo):
    settings(repo, 'output-dir = "compiled"\nwat = 1\n')
    result = run("gate", "--write", "plans/weekly.taskplan.yaml")
    assert result.exit_code == 1
    assert "not writing any workflow: the [tool.taskplan] configuration is invalid" in result.stderr
    assert not (repo / "compiled").exists() and not (repo / "plans" / "weekly.workflow.yaml").exists()


# ------------------------------------------------------------------ ignore


@pytest.fixture
def warnings(monkeypatch):
    """DEMO_WARNING, a registered warning (a stand-in: it can be reported anywhere; the real
    TASK_OUTPUT_UNUSED is tested in tests/test_usage.py), reported by
    the structure pass at the first task of every plan and by the validate pass at the
    top of every workflow."""
    info = CodeInfo("DEMO_WARNING", "scope", "scope", "A demo warning", "Only for tests.", severity=Severity.WARNING)
    monkeypatch.setitem(REGISTRY, "DEMO_WARNING", info)
    from taskplan.passes import structure
    from taskplan.passes import validate as validate_pass

    real_structure, real_validate = structure.run, validate_pass.validate_document

    def structure_run(plan, reporter, limits=None):
        real_structure(plan, reporter, limits) if limits is not None else real_structure(plan, reporter)
        reporter.report("DEMO_WARNING", "/root/tasks/0", "a demo warning")

    def validate_document(document, reporter, limits=None):
        result = real_validate(document, reporter, limits) if limits is not None else real_validate(document, reporter)
        reporter.report("DEMO_WARNING", "/name", "a demo warning")
        return result

    monkeypatch.setattr(structure, "run", structure_run)
    return lambda: monkeypatch.setattr(validate_pass, "validate_document", validate_document)


def test_ignore_silences_a_warning_in_text_and_json(repo, warnings):
    settings(repo)
    result = run("check", "plans/weekly.taskplan.yaml")
    assert result.exit_code == 0
    assert result.stdout.startswith("warning[DEMO_WARNING]: a demo warning")
    data = json.loads(run("check", "plans/weekly.taskplan.yaml", "--format", "json").stdout)
    assert [d["code"] for d in data["diagnostics"]] == ["DEMO_WARNING"] and data["summary"]["warnings"] == 1

    settings(repo, 'ignore = ["DEMO_WARNING"]\n')
    result = run("check", "plans/weekly.taskplan.yaml")
    assert result.exit_code == 0
    assert "DEMO_WARNING" not in result.stdout
    assert result.stdout == "ok: 1 plan checked\n"
    data = json.loads(run("check", "plans/weekly.taskplan.yaml", "--format", "json").stdout)
    assert data == {"diagnostics": [], "summary": {"errors": 0, "warnings": 0, "files": 1}}
    for fmt in ("sarif", "github"):
        assert "DEMO_WARNING" not in run("check", "plans/weekly.taskplan.yaml", "--format", fmt).stdout


def test_the_ignore_flag_adds_to_the_configuration(repo, warnings):
    settings(repo)
    result = run("check", "plans/weekly.taskplan.yaml", "--ignore", "DEMO_WARNING", "--format", "json")
    assert json.loads(result.stdout)["diagnostics"] == []
    result = run("check", "plans/weekly.taskplan.yaml", "--ignore", "DEMO_WARNNG")
    assert result.exit_code == 2
    assert "unknown diagnostic code `DEMO_WARNNG` (did you mean `DEMO_WARNING`?)" in result.stderr
    result = run("check", "plans/weekly.taskplan.yaml", "--ignore", "TASK_ID_INVALID")
    assert result.exit_code == 2
    assert "`TASK_ID_INVALID` is an error: errors cannot be silenced" in result.stderr


def test_errors_are_never_silenced(repo, warnings):
    from taskplan.diagnostics import Diagnostic, Location
    from taskplan.project import silence

    settings(repo, 'ignore = ["DEMO_WARNING"]\n')
    (repo / "plans" / "weekly.taskplan.yaml").write_text(WEEKLY.replace("source: title,", "source: titel,"))
    result = run("check", "plans/weekly.taskplan.yaml", "--format", "json")
    assert result.exit_code == 1
    assert [d["code"] for d in json.loads(result.stdout)["diagnostics"]] == ["TASK_REFERENCE_UNKNOWN"]
    # an error is kept even when reported under a silenced code
    where = Location("p.yaml", "", 1, 1, 1, 2)
    error = Diagnostic("DEMO_WARNING", Severity.ERROR, "promoted", where)
    warning = Diagnostic("DEMO_WARNING", Severity.WARNING, "plain", where)
    assert silence([error, warning], {"DEMO_WARNING"}) == [error]


def test_ignore_applies_to_compile_validate_and_gate(repo, warnings):
    settings(repo, 'ignore = ["DEMO_WARNING"]\n')
    result = run("compile", "plans/weekly.taskplan.yaml", "-o", "plans/weekly.workflow.yaml", "--format", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["diagnostics"] == []
    result = run("gate", "plans/weekly.taskplan.yaml", "--format", "json")
    assert result.exit_code == 0 and json.loads(result.stdout)["diagnostics"] == []
    settings(repo)
    result = run("gate", "plans/weekly.taskplan.yaml", "--format", "json")
    assert [d["code"] for d in json.loads(result.stdout)["diagnostics"]] == ["DEMO_WARNING"]

    warnings()  # the validate pass warns too, from here on
    result = run("validate", "plans/weekly.workflow.yaml", "--format", "json")
    assert [d["code"] for d in json.loads(result.stdout)["diagnostics"]] == ["DEMO_WARNING"]
    result = run("validate", "plans/weekly.workflow.yaml", "--ignore", "DEMO_WARNING")
    assert result.exit_code == 0 and result.stdout == "ok: 1 workflow checked\n"
    settings(repo, 'ignore = ["DEMO_WARNING"]\n')
    result = run("validate", "plans/weekly.workflow.yaml", "--format", "json")
    assert json.loads(result.stdout)["diagnostics"] == []


# ------------------------------------------------------------------ limits


def test_limits_reach_the_passes(repo):
    (repo / "plans" / "four.taskplan.yaml").write_text(FOUR_TASKS, encoding="utf-8")
    settings(repo)
    assert run("check", "plans/four.taskplan.yaml").exit_code == 0
    settings(repo, limits="max-tasks = 3\n")
    for command in (["check"], ["compile", "-o", "plans/four.workflow.yaml"], ["gate"]):
        result = run(*command, "plans/four.taskplan.yaml", "--format", "json")
        assert result.exit_code == 1, (command, result.output)
        (diagnostic,) = json.loads(result.stdout)["diagnostics"]
        assert diagnostic["code"] == "PLAN_LIMIT" and "more than 3 tasks" in diagnostic["message"]
        assert diagnostic["location"]["pointer"] == "/root/tasks/3"
    assert not (repo / "plans" / "four.workflow.yaml").exists()


def test_limits_reach_validate(repo):
    settings(repo)
    assert run("compile", "plans/weekly.taskplan.yaml", "-o", "plans/weekly.workflow.yaml").exit_code == 0
    assert run("validate", "plans/weekly.workflow.yaml").exit_code == 0
    settings(repo, limits="max-workflow-bytes = 100\n")
    result = run("validate", "plans/weekly.workflow.yaml", "--format", "json")
    assert result.exit_code == 1
    assert [d["code"] for d in json.loads(result.stdout)["diagnostics"]] == ["WORKFLOW_LIMIT"]


# --------------------------------------------------- issue 5: compile and validate agree
# (the API side: tests/test_workflow_size_limit.py)


def _workflow_size() -> int:
    compiled = api.compile_plan("plans/weekly.taskplan.yaml", text=WEEKLY.encode("utf-8"))
    assert compiled.yaml is not None, compiled.diagnostics
    return len(compiled.yaml.encode("utf-8"))


def test_compile_refuses_an_oversized_workflow_on_the_command_line(repo):
    workflow_size = _workflow_size()
    settings(repo, limits=f"max-workflow-bytes = {workflow_size - 1}\n")
    result = run("compile", "plans/weekly.taskplan.yaml", "-o", "plans/weekly.workflow.yaml")
    assert result.exit_code == 1
    assert "error[PLAN_LIMIT]: the plan compiles to a workflow of" in result.stdout
    assert not (repo / "plans" / "weekly.workflow.yaml").exists()
