"""The fault-injection corpus (tests/faults/): for every registered code, operators that
inject exactly that fault into valid plans, catalogs, compiled workflows or the project
configuration; the compiler must report exactly that code, at the injected pointer
(and, for faults in the text, at the injected line and column), and nothing else.

Each operator runs on a few seeds here (rotating, so that every seed is used); the
full matrix is `python -m tests.faults --report` (docs/robustness.md).

COMPILER_INTERNAL has no input that triggers it: each pass is monkeypatched to raise,
and the API and the command line must turn that into COMPILER_INTERNAL, exit code 3,
and no traceback.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

if str(Path(__file__).resolve().parent) not in sys.path:  # tests/faults, whatever pytest's import mode
    sys.path.insert(0, str(Path(__file__).resolve().parent))
import faults  # noqa: E402
from faults.core import catalog_set, run  # noqa: E402
from faults.seeds import ROOT, plan_seeds, workflow_seeds  # noqa: E402
from faults.serialize import dump  # noqa: E402

from taskplan.diagnostics import Severity  # noqa: E402
from taskplan.diagnostics.registry import REGISTRY  # noqa: E402

SEEDS_PER_OPERATOR = 3

KNOWN: dict[tuple[str, str], str] = {}
"""(operator, seed) cases the corpus found that the compiler gets wrong, with what is wrong:
always run, expected to fail until fixed. Empty: the four it found (cascades in the types
pass) are fixed, and REGRESSIONS keeps them in the run."""

REGRESSIONS = {
    ("PLAN_FIELD_TYPE:object_as_list", "incident-response"),
    ("TASK_GROUP_INPUTS:call_leaves_required_input_unbound", "dependency-upgrade"),
    ("TASK_GROUP_INPUT_TYPE:call_binds_wrong_type", "dependency-upgrade"),
    ("PLAN_FIELD_UNKNOWN:unknown_value_field", "onboarding"),
}
"""Cases that once failed (docs/robustness.md, Findings): always run."""


def _cases():
    out, seen = [], set()
    for i, op in enumerate(faults.OPERATORS):
        chosen = faults.cases(op, SEEDS_PER_OPERATOR, start=i)
        pinned = {name for op_id, name in set(KNOWN) | REGRESSIONS if op_id == op.id} - {s.name for s, _ in chosen}
        if pinned:
            chosen += [(s, inj) for s, inj in faults.cases(op) if s.name in pinned]
        for seed, injection in chosen:
            marks = [pytest.mark.xfail(strict=True, reason=KNOWN[op.id, seed.name])] if (op.id, seed.name) in KNOWN else []
            seen.add((op.id, seed.name))
            out.append(pytest.param(op, seed, injection, id=f"{op.id}@{seed.name}", marks=marks))
    assert set(KNOWN) | REGRESSIONS <= seen, (set(KNOWN) | REGRESSIONS) - seen
    return out


CASES = _cases()


@pytest.mark.parametrize(("op", "seed", "injection"), CASES)
def test_the_injected_fault_is_reported_exactly_once_and_alone(op, seed, injection):
    outcome = run(op, seed, injection)
    problems = outcome.problems(op.code, injection)
    assert not problems, f"{op.doc}\n" + "\n".join(problems)
    warning = REGISTRY[op.code].severity is Severity.WARNING
    assert outcome.exit_code in (None, 0 if warning else 1), "a warning alone never fails a run"


def test_every_code_has_an_operator():
    covered = {op.code for op in faults.OPERATORS}
    missing = sorted(set(REGISTRY) - covered - set(faults.EXEMPT))
    assert not missing, f"codes without a fault operator: {missing}"
    assert not covered - set(REGISTRY), "operators for codes that are not registered"
    assert set(faults.EXEMPT) <= set(REGISTRY)


def test_every_operator_applies_somewhere_and_is_documented():
    applied = {param.values[0].id for param in CASES}
    for op in faults.OPERATORS:
        assert op.doc, f"{op.id} has no docstring"
        assert op.id in applied, f"{op.id} applies to no seed"


@pytest.mark.parametrize("seed", plan_seeds(), ids=lambda s: s.name)
@pytest.mark.parametrize("fmt", ["yaml", "json"])
def test_seeds_written_back_read_the_same_and_check_clean(seed, fmt):
    """The operators' serializer: a seed written back (in either format) is the same
    tree and still a valid plan, so an injected fault is the only change."""
    from taskplan.api import check_plan
    from taskplan.diagnostics import Diagnostics
    from taskplan.source.read import read_document

    data = dump(seed.tree(), fmt)
    document = read_document(data, f"seed.{fmt}", Diagnostics())
    assert document.tree == seed.tree()
    catalogs = catalog_set(tuple(str(p.relative_to(ROOT)) for p in seed.catalogs))
    os.chdir(ROOT)
    result = check_plan(f"fixtures/valid/{seed.name}.taskplan.{fmt}", catalogs=catalogs, text=data)
    assert result.ok, [d.message for d in result.diagnostics]


def test_the_workflow_seeds_validate_clean():
    from taskplan.passes.validate import validate_text

    assert len(workflow_seeds()) >= 2
    for seed in workflow_seeds():
        assert validate_text(seed.path.read_bytes(), seed.display).diagnostics == [], seed.display


# ------------------------------------------------------------------ COMPILER_INTERNAL

PLAN = "examples/pr-review.taskplan.yaml"
CATALOG = "examples/catalog.yaml"


def _boom(*args, **kwargs):
    raise RuntimeError("injected failure")


PASSES = [
    ("read", "taskplan.source.read", "read_document"),
    ("shape", "taskplan.passes.shape", "shape"),
    ("structure", "taskplan.passes.structure", "run"),
    ("identity", "taskplan.passes.identity", "run"),
    ("scope", "taskplan.passes.scope", "run"),
    ("types", "taskplan.passes.types", "run"),
    ("lower", "taskplan.passes.lower", "lower"),
    ("emit", "taskplan.workflow.emit", "emit_yaml"),
    ("validate", "taskplan.passes.validate", "validate_data"),
    ("catalog", "taskplan.catalog", "load_catalogs"),
]


def _invoke(*args: str):
    from taskplan.cli import main

    return CliRunner().invoke(main, list(args))


@pytest.mark.parametrize(("stage", "module", "attr"), PASSES, ids=[p[0] for p in PASSES])
def test_a_pass_that_raises_is_compiler_internal_exit_3_no_traceback(stage, module, attr, monkeypatch, tmp_path):
    import importlib

    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(importlib.import_module(module), attr, _boom)
    out = tmp_path / "out.workflow.yaml"
    out.write_text("previous\n")
    result = _invoke("compile", PLAN, "--catalog", CATALOG, "--auto", "-o", str(out), "--format", "json")
    assert result.exit_code == 3, (result.stdout, result.stderr)
    assert "Traceback" not in result.stdout + result.stderr
    diagnostics = json.loads(result.stdout)["diagnostics"]
    # one per document the failing pass worked on (the read pass also reads the catalog)
    assert {d["code"] for d in diagnostics} == {"COMPILER_INTERNAL"}
    assert len(diagnostics) == (2 if stage == "read" else 1)
    for d in diagnostics:
        assert "injected failure" in d["message"]
        assert d["hint"].startswith("this is a bug in taskplan")
    assert any(f"in the {stage} pass" in d["message"] for d in diagnostics), diagnostics
    assert out.read_text() == "previous\n", "a failed compile must leave the output alone"
    if stage not in ("lower", "emit", "validate"):
        check = _invoke("check", PLAN, "--catalog", CATALOG)
        assert check.exit_code == 3 and "COMPILER_INTERNAL" in check.stdout
        assert "Traceback" not in check.stdout + check.stderr


def test_a_failure_outside_the_passes_is_exit_3_without_traceback(monkeypatch):
    from taskplan import api

    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(api, "compile_plan", _boom)
    result = _invoke("compile", PLAN, "--catalog", CATALOG, "--auto")
    assert result.exit_code == 3
    assert "COMPILER_INTERNAL" in result.stderr and "Traceback" not in result.stdout + result.stderr


def test_compiler_internal_in_a_real_process_prints_no_traceback(tmp_path):
    """The same through a real interpreter: stderr and stdout carry no traceback."""
    code = (
        "import sys, taskplan.passes.scope as s\n"
        "def boom(*a, **k): raise KeyError('injected')\n"
        "s.run = boom\n"
        "from taskplan.cli import main\n"
        "sys.argv = ['taskplan', 'check', sys.argv[1], '--catalog', sys.argv[2]]\n"
        "main()\n"
    )
    done = subprocess.run([sys.executable, "-c", code, PLAN, CATALOG], cwd=ROOT, capture_output=True, timeout=120,
                          check=False)
    assert done.returncode == 3
    text = (done.stdout + done.stderr).decode()
    assert "COMPILER_INTERNAL" in text and "Traceback" not in text
