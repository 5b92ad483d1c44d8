"""The users' snapshot gate: the `taskplan_workflow` fixture of the pytest plugin
(compiler/taskplan/pytest_plugin.py, entry point `pytest11`), run in scratch
projects with pytester: pass, fail on change (with the diff), update, compile
errors, configuration defaults, and that the plugin costs nothing unused."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from taskplan import api

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[1]
CATALOG = (ROOT / "examples" / "catalog.yaml").read_text(encoding="utf-8")

PLAN = """\
version: 1
name: scratch-notes
inputs:
  - {name: label, type: {kind: string}}
root:
  tasks:
    - id: scratch
      objective: "Open a scratch workspace"
      operation: workspace.create
      inputs:
        - {name: label, value: {kind: input, source: label}}
  outputs:
    - {name: handle, value: {kind: output, source: scratch, port: handle}}
  always:
    - id: drop
      objective: "Delete the scratch workspace"
      operation: workspace.delete
      inputs:
        - {name: handle, value: {kind: output, source: scratch, port: handle}}
"""

TEST_MODULE = """\
import pytest

@pytest.mark.parametrize("plan", ["plans/notes.taskplan.yaml"], ids=["notes"])
def test_workflow(taskplan_workflow, plan):
    result = taskplan_workflow(plan)
    assert result.yaml.startswith("version: 1")
"""

SNAPSHOT = Path("tests/__snapshots__/test_workflows/test_workflow[notes].yaml")


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    """A user's repository: a plan, a catalog named by [tool.taskplan], one test module."""
    pytester.makefile(".toml", pyproject='[tool.taskplan]\ncatalogs = ["catalogs/*.yaml"]\n')
    (pytester.path / "catalogs").mkdir()
    (pytester.path / "catalogs" / "workspace.yaml").write_text(CATALOG, encoding="utf-8")
    (pytester.path / "plans").mkdir()
    (pytester.path / "plans" / "notes.taskplan.yaml").write_text(PLAN, encoding="utf-8")
    (pytester.path / "tests").mkdir()
    (pytester.path / "tests" / "test_workflows.py").write_text(TEST_MODULE, encoding="utf-8")
    return pytester


# pytester's in-process runs forget the modules imported inside them: import what the
# fixture needs once here, and keep hypothesis's plugin (which imports all of hypothesis
# at the end of every run) out of the inner runs, so that each run costs a compile.
import syrupy.extensions.single_file  # noqa: E402,F401
import taskplan.diagnostics.render_text  # noqa: E402,F401
import taskplan.passes.lower  # noqa: E402,F401
import taskplan.passes.validate  # noqa: E402,F401
import taskplan.project  # noqa: E402,F401
import taskplan.workflow.emit  # noqa: E402,F401

INNER = ("-p", "no:cacheprovider", "-p", "no:hypothesispytest")


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest(*INNER, *args)


def _compiled(pytester: pytest.Pytester) -> str:
    """What `taskplan compile` makes of the plan, with the display path the fixture uses."""
    path = pytester.path / "plans" / "notes.taskplan.yaml"
    result = api.compile_plan(
        "plans/notes.taskplan.yaml",
        catalogs=[pytester.path / "catalogs" / "workspace.yaml"],
        text=path.read_bytes(),
    )
    assert result.yaml is not None, [d.message for d in result.diagnostics]
    return result.yaml


def test_the_plugin_is_registered_as_a_pytest11_entry_point():
    found = [e for e in entry_points(group="pytest11") if e.name == "taskplan"]
    assert [e.value for e in found] == ["taskplan.pytest_plugin"]


def test_a_missing_snapshot_fails_and_says_how_to_write_it(project):
    result = _run(project)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*no snapshot of the workflow compiled from plans/notes.taskplan.yaml yet*",
            "*run pytest with --snapshot-update to write it*",
        ]
    )
    assert not (project.path / SNAPSHOT).exists()


def test_update_writes_the_snapshot_then_the_test_passes(project):
    _run(project, "--snapshot-update").assert_outcomes(passed=1)
    stored = (project.path / SNAPSHOT).read_text(encoding="utf-8")
    assert stored == _compiled(project)
    # The recorded plan path is relative to the rootdir: the snapshot is the same on every checkout.
    assert "  plan: plans/notes.taskplan.yaml\n" in stored

    result = _run(project)
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*1 snapshot passed*"])


def test_running_from_a_subdirectory_uses_the_same_snapshot(project):
    _run(project, "--snapshot-update").assert_outcomes(passed=1)
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(project.path / "tests")
        result = project.runpytest(*INNER, "--rootdir", str(project.path), "test_workflows.py")
    result.assert_outcomes(passed=1)


def test_an_edited_plan_fails_with_the_diff_until_updated(project):
    _run(project, "--snapshot-update").assert_outcomes(passed=1)
    before = (project.path / SNAPSHOT).read_text(encoding="utf-8")
    plan = project.path / "plans" / "notes.taskplan.yaml"
    plan.write_text(PLAN.replace('"Open a scratch workspace"', '"Open a scratch workspace for notes"'), encoding="utf-8")

    result = _run(project)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*the workflow compiled from plans/notes.taskplan.yaml differs from its snapshot*",
            "--- tests/__snapshots__/test_workflows/test_workflow[[]notes[]].yaml (reviewed)",
            "+++ compiled from plans/notes.taskplan.yaml",
            "-  digest: sha256:*",
            "+  digest: sha256:*",
            "*run pytest with --snapshot-update, review the diff and commit it*",
        ]
    )
    # A failing gate never touches the reviewed snapshot.
    assert (project.path / SNAPSHOT).read_text(encoding="utf-8") == before

    _run(project, "--snapshot-update").assert_outcomes(passed=1)
    after = (project.path / SNAPSHOT).read_text(encoding="utf-8")
    assert after != before and after == _compiled(project)
    _run(project).assert_outcomes(passed=1)


def test_a_changed_workflow_shape_shows_the_changed_lines(project):
    _run(project, "--snapshot-update").assert_outcomes(passed=1)
    plan = project.path / "plans" / "notes.taskplan.yaml"
    # Drop the cleanup task: the `finally` section disappears from the workflow.
    plan.write_text(PLAN.split("  always:")[0], encoding="utf-8")
    result = _run(project)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["-    finally:", "-    - id: drop"])


def test_a_plan_that_does_not_compile_fails_with_its_diagnostics(project):
    _run(project, "--snapshot-update").assert_outcomes(passed=1)
    before = (project.path / SNAPSHOT).read_text(encoding="utf-8")
    plan = project.path / "plans" / "notes.taskplan.yaml"
    plan.write_text(PLAN.replace("operation: workspace.create", "operation: workspace.craete"), encoding="utf-8")

    result = _run(project)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "taskplan: plans/notes.taskplan.yaml does not compile",
            "error[[]TASK_OPERATION_UNKNOWN[]]: *workspace.craete*",
            "*--> plans/notes.taskplan.yaml:9:18",
            "*operation: workspace.craete*",
            "*^^^^^^^^^^^^^^^^*",
        ]
    )
    assert "Traceback" not in result.stdout.str()

    # Not even --snapshot-update rewrites or deletes the snapshot of a plan in error.
    result = _run(project, "--snapshot-update")
    result.assert_outcomes(failed=1)
    assert (project.path / SNAPSHOT).read_text(encoding="utf-8") == before


def test_an_unreadable_plan_fails_cleanly(project):
    (project.path / "tests" / "test_workflows.py").write_text(
        "def test_missing(taskplan_workflow):\n    taskplan_workflow('plans/nope.taskplan.yaml')\n", encoding="utf-8"
    )
    result = _run(project)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["taskplan: cannot read plans/nope.taskplan.yaml: no such file"])


def test_an_invalid_configuration_fails_with_its_diagnostic(project):
    (project.path / "pyproject.toml").write_text('[tool.taskplan]\ncatalogz = ["x.yaml"]\n', encoding="utf-8")
    result = _run(project)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*[[]tool.taskplan[]] configuration is invalid*", "*CONFIG_INVALID*catalogz*"])


def test_explicit_catalogs_choices_and_names(project):
    """Catalogs given to the fixture replace the configured ones; `choose` selects an
    alternative; `name` tells apart two plans compiled by one test."""
    (project.path / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")
    (project.path / "other").mkdir()
    (project.path / "other" / "catalog.yaml").write_text(CATALOG, encoding="utf-8")
    (project.path / "plans" / "pr.taskplan.yaml").write_text(
        (ROOT / "examples" / "pr-review.taskplan.yaml").read_text(encoding="utf-8"), encoding="utf-8"
    )
    (project.path / "tests" / "test_workflows.py").write_text(
        "def test_both(taskplan_workflow):\n"
        "    taskplan_workflow('plans/notes.taskplan.yaml', catalogs=['other/catalog.yaml'], name='notes')\n"
        "    r = taskplan_workflow('plans/pr.taskplan.yaml', catalogs=['other/catalog.yaml'],\n"
        "                          choose={'tone': 'formal'}, name='pr')\n"
        "    assert r.graph is not None and 'review_files.body' in r.graph.workflows\n",
        encoding="utf-8",
    )
    _run(project, "--snapshot-update").assert_outcomes(passed=1)
    folder = project.path / "tests" / "__snapshots__" / "test_workflows"
    assert sorted(p.name for p in folder.iterdir()) == ["test_both[notes].yaml", "test_both[pr].yaml"]
    assert "selected: formal" in (folder / "test_both[pr].yaml").read_text(encoding="utf-8")
    _run(project).assert_outcomes(passed=1)


def test_a_choice_without_selection_fails_unless_auto(project):
    (project.path / "plans" / "pr.taskplan.yaml").write_text(
        (ROOT / "examples" / "pr-review.taskplan.yaml").read_text(encoding="utf-8"), encoding="utf-8"
    )
    (project.path / "tests" / "test_workflows.py").write_text(
        "def test_pr(taskplan_workflow):\n    taskplan_workflow('plans/pr.taskplan.yaml')\n", encoding="utf-8"
    )
    result = _run(project, "--snapshot-update")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["error[[]CHOICE_REQUIRED[]]*"])
    (project.path / "tests" / "test_workflows.py").write_text(
        "def test_pr(taskplan_workflow):\n    taskplan_workflow('plans/pr.taskplan.yaml', auto=True)\n", encoding="utf-8"
    )
    _run(project, "--snapshot-update").assert_outcomes(passed=1)
    _run(project).assert_outcomes(passed=1)


def test_a_suite_that_does_not_use_the_fixture_is_not_affected(pytester):
    pytester.makepyfile(test_plain="def test_plain():\n    assert 1 + 1 == 2\n")
    result = pytester.runpytest(*INNER)
    result.assert_outcomes(passed=1)
    assert "snapshot" not in result.stdout.str().lower()


def test_importing_the_plugin_imports_neither_the_compiler_nor_syrupy():
    code = (
        "import sys, taskplan.pytest_plugin\n"
        "heavy = sorted(m for m in sys.modules if m.startswith(('taskplan.api', 'taskplan.passes', 'syrupy', 'ruamel', 'lark', 'jsonschema', 'pydantic')))\n"
        "print(heavy)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# ---------------------------------------------------------------- the docs

DOC = ROOT / "docs" / "snapshot-gate.md"


def _doc_block(tag: str) -> str:
    import re

    text = DOC.read_text(encoding="utf-8")
    m = re.search(rf"<!-- example: {tag} -->\s*\n```[a-z]*\n(.*?)^```", text, re.S | re.M)
    assert m, f"docs/snapshot-gate.md has no `{tag}` example"
    return m.group(1)


def test_the_documented_setup_works(pytester):
    """docs/snapshot-gate.md, run as written: its pyproject.toml and test module, the
    bundled example as plans/pr-review.taskplan.yaml; first run, update, pass, change."""
    pytester.makefile(".toml", pyproject=_doc_block("pyproject"))
    (pytester.path / "catalogs").mkdir()
    (pytester.path / "catalogs" / "github.catalog.yaml").write_text(CATALOG, encoding="utf-8")
    (pytester.path / "plans").mkdir()
    plan = pytester.path / "plans" / "pr-review.taskplan.yaml"
    source = (ROOT / "examples" / "pr-review.taskplan.yaml").read_text(encoding="utf-8")
    plan.write_text(source, encoding="utf-8")
    (pytester.path / "tests").mkdir()
    (pytester.path / "tests" / "test_workflows.py").write_text(_doc_block("test-module"), encoding="utf-8")
    snapshot = pytester.path / "tests/__snapshots__/test_workflows/test_compiled_workflow_is_reviewed[pr-review].yaml"

    first = _run(pytester)
    first.assert_outcomes(failed=1)
    first.stdout.fnmatch_lines(["*no snapshot of the workflow compiled from plans/pr-review.taskplan.yaml yet*"])
    _run(pytester, "--snapshot-update").assert_outcomes(passed=1)
    assert snapshot.is_file()
    _run(pytester).assert_outcomes(passed=1)

    plan.write_text(source.replace("maxConcurrency: 8", "maxConcurrency: 4"), encoding="utf-8")
    changed = _run(pytester)
    changed.assert_outcomes(failed=1)
    changed.stdout.fnmatch_lines(["-      max_concurrency: 8", "+      max_concurrency: 4"])

    plan.write_text(source.replace("workspace.create", "workspace.craete"), encoding="utf-8")
    broken = _run(pytester)
    broken.assert_outcomes(failed=1)
    broken.stdout.fnmatch_lines(
        [
            "taskplan: plans/pr-review.taskplan.yaml does not compile",
            "error[[]TASK_OPERATION_UNKNOWN[]]: task `scratch`: unknown operation `workspace.craete`",
            "  --> plans/pr-review.taskplan.yaml:13:18",
        ]
    )


def test_without_syrupy_the_fixture_says_what_is_missing(project):
    result = _run(project, "-p", "no:syrupy")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*taskplan_workflow needs syrupy*pip install syrupy*"])
