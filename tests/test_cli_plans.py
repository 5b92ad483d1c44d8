"""`taskplan check` end to end, on real plans through the real passes."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from taskplan import api
from taskplan.cli import main
from taskplan.diagnostics.render_json import render as render_json
from taskplan.diagnostics.render_text import render as render_text

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "pr-review.taskplan.yaml"
CATALOG = ROOT / "examples" / "catalog.yaml"
FIXTURE_PLANS = sorted(p for p in (ROOT / "fixtures").glob("**/*.taskplan.*") if p.suffix in (".yaml", ".yml", ".json"))


def run(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_the_readme_quickstart_checks_clean():
    result = run("check", str(EXAMPLE), "--catalog", str(CATALOG))
    assert result.stdout == "ok: 1 plan checked\n", result.stdout
    assert result.exit_code == 0


def test_a_syntax_error_is_located_with_a_caret(tmp_path):
    plan = tmp_path / "broken.taskplan.yaml"
    plan.write_text("version: 1\nroot:\n  tasks: [\n", encoding="utf-8")
    result = run("check", str(plan))
    assert result.exit_code == 1
    assert result.stdout.startswith("error[PLAN_SYNTAX]: ")
    assert f" --> {plan}:" in result.stdout
    assert "^" in result.stdout
    assert result.stdout.endswith("error: 1 error in 1 file\n")


def test_a_duplicate_id_shows_the_first_declaration(tmp_path):
    plan = tmp_path / "dup.taskplan.yaml"
    plan.write_text(
        "version: 1\n"
        "root:\n"
        "  tasks:\n"
        "    - id: greet\n"
        "      kind: value\n"
        "      objective: Say hello\n"
        "      outputs: [{name: text, value: {kind: string, text: hi}}]\n"
        "    - id: greet\n"
        "      kind: value\n"
        "      objective: Say hello again\n"
        "      outputs: [{name: text, value: {kind: string, text: hi}}]\n",
        encoding="utf-8",
    )
    result = run("check", str(plan))
    assert result.exit_code == 1, result.stdout
    lines = result.stdout.splitlines()
    assert lines[0].startswith("error[TASK_ID_DUPLICATE]: ")
    assert lines[1] == f" --> {plan}:8:11"
    assert lines[3:5] == ["8 |     - id: greet", "  |           ^^^^^"]
    assert any(line.startswith("  = note: ") and line.endswith(f"{plan}:4:11") for line in lines)
    data = json.loads(run("check", str(plan), "--format", "json").stdout)
    (d,) = data["diagnostics"]
    assert d["location"]["pointer"] == "/root/tasks/1/id"
    assert d["related"][0]["location"]["pointer"] == "/root/tasks/0/id"


def test_json_and_text_for_every_fixture_plan_are_deterministic():
    """All fixture plans in one run, twice: same bytes; both renderings work on each."""
    if not FIXTURE_PLANS:
        pytest.skip("no fixture plans yet")
    paths = [str(p) for p in FIXTURE_PLANS]
    first = run("check", *paths, "--format", "json")
    second = run("check", *reversed(paths), "--format", "json")
    assert first.exit_code in (0, 1), first.stdout[-2000:]
    assert first.stdout_bytes == second.stdout_bytes
    assert "COMPILER_INTERNAL" not in first.stdout
    text = run("check", *paths)
    assert text.exit_code == first.exit_code
    assert "Traceback" not in text.output


def test_renderers_on_real_results_agree_on_counts():
    if not FIXTURE_PLANS:
        pytest.skip("no fixture plans yet")
    checked = api.check_plans(FIXTURE_PLANS)
    data = json.loads(render_json(checked.diagnostics, files=checked.checked))
    text = render_text(checked.diagnostics, documents=checked.documents, files=checked.checked)
    assert data["summary"]["files"] == len(FIXTURE_PLANS)
    assert text.count("\nerror[") + text.startswith("error[") == data["summary"]["errors"]


GOOD_PLAN = "version: 1\nroot:\n  tasks:\n    - {id: hello, kind: value, objective: Say hello, outputs: []}\n"


def test_catalog_problems_are_reported_in_the_catalog_file(tmp_path):
    plan = tmp_path / "p.taskplan.yaml"
    plan.write_text(GOOD_PLAN, encoding="utf-8")
    catalog = tmp_path / "broken.catalog.yaml"
    catalog.write_text("version: 1\nsources: [\n", encoding="utf-8")
    result = run("check", str(plan), "--catalog", str(catalog), "--catalog", str(catalog))
    assert result.exit_code == 1, result.stdout
    assert result.stdout.startswith("error[CATALOG_SYNTAX]: ")
    assert f" --> {catalog}:" in result.stdout
    assert result.stdout.count("error[CATALOG_SYNTAX]") == 1  # loaded once, reported once
    data = json.loads(run("check", str(plan), "--catalog", str(catalog), "--format", "json").stdout)
    assert {d["location"]["file"] for d in data["diagnostics"]} == {str(catalog)}
    assert data["summary"]["files"] == 1


def test_one_catalog_for_many_plans_is_reported_once(tmp_path):
    paths = []
    for name in ("a", "b"):
        path = tmp_path / f"{name}.taskplan.yaml"
        path.write_text(GOOD_PLAN, encoding="utf-8")
        paths.append(str(path))
    catalog = tmp_path / "c.yaml"
    catalog.write_text("version: 2\nsources: []\n", encoding="utf-8")
    checked = api.check_plans(paths, catalogs=[catalog])
    assert len(checked.diagnostics) == 1 and checked.diagnostics[0].code.startswith("CATALOG_")
    assert checked.exit_code == 1 and checked.checked == 2


def test_an_unreadable_catalog_exits_2(tmp_path):
    plan = tmp_path / "p.taskplan.yaml"
    plan.write_text(GOOD_PLAN, encoding="utf-8")
    result = run("check", str(plan), "--catalog", str(tmp_path / "nope.yaml"))
    assert result.exit_code == 2
    assert result.stderr == f"error: cannot read {tmp_path / 'nope.yaml'}: no such file\n"
    assert result.stdout == f"error: 1 file could not be read; 1 plan checked\n"


def test_catalogs_come_from_the_project_configuration(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "plans").mkdir()
    plan = tmp_path / "plans" / "p.taskplan.yaml"
    plan.write_text(GOOD_PLAN, encoding="utf-8")
    (tmp_path / "cat.yaml").write_text("version: 1\nsources: 3\n", encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text('[tool.taskplan]\ncatalogs = ["cat.yaml"]\n', encoding="utf-8")
    result = run("check", str(plan))
    assert result.exit_code == 1 and "cat.yaml:2:" in result.stdout, result.stdout
    # A flag replaces the configured catalogs.
    good = tmp_path / "good.yaml"
    good.write_text("version: 1\nsources: []\n", encoding="utf-8")
    assert run("check", str(plan), "--catalog", str(good)).exit_code == 0
    # A configuration error is a located diagnostic too.
    (tmp_path / "pyproject.toml").write_text('[tool.taskplan]\ncatalogz = ["cat.yaml"]\n', encoding="utf-8")
    result = run("check", str(plan))
    assert result.exit_code == 1
    assert "error[CONFIG_INVALID]" in result.stdout and "pyproject.toml:2:1" in result.stdout


def test_the_readme_quickstart_is_two_commands_and_ci_runs_the_test_one(monkeypatch):
    monkeypatch.chdir(ROOT)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    blocks = [b.split("\n", 1)[1].strip() for b in section.split("```")[1::2]]
    assert len(blocks) == 2 and all("\n" not in b for b in blocks), blocks
    install_and_compile, install_and_test = blocks
    assert install_and_compile.startswith("python3 -m venv .venv && ")
    # The main command compiles the bundled example: run exactly its taskplan part.
    args = shlex.split(install_and_compile.rsplit(".venv/bin/taskplan ", 1)[1])
    assert args[:2] == ["compile", "examples/pr-review.taskplan.yaml"]
    compiled = CliRunner().invoke(main, args, catch_exceptions=False)
    assert compiled.exit_code == 0, compiled.stderr
    assert compiled.stdout.startswith("version: 1\nname: pr-review\n")
    test_command = ".venv/bin/python -m pytest"
    assert install_and_test.endswith(f"&& {test_command}")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert test_command in ci.splitlines()
    assert "set -euo pipefail" in ci and "'.[test]'" in ci
