"""The benchmark's generated plans are what the harness says they are: realistic plans
that compile with no diagnostic at all (not even a warning), with the task count asked for."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from taskplan import api

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
if str(BENCHMARKS) not in sys.path:
    sys.path.insert(0, str(BENCHMARKS))

from generate import catalog, count_tasks, plan  # noqa: E402


@pytest.mark.parametrize("n", [1, 14, 15, 16, 30, 44, 200])
def test_a_generated_plan_compiles_without_any_diagnostic(tmp_path, n):
    doc = plan(n, 100)
    assert count_tasks(doc) == n + 1  # the group body's task counts too
    plan_path = tmp_path / "plan.json"
    plan_path.write_text(json.dumps(doc))
    catalog_path = tmp_path / "catalog.json"
    catalog_path.write_text(json.dumps(catalog(100)))
    result = api.compile_plan(plan_path, catalogs=[catalog_path], auto=True)
    assert [(d.code, d.location.pointer) for d in result.diagnostics] == []
    assert result.ok and result.yaml
    assert result.graph is not None and result.graph.check() == []  # compile leaves it to the tests
