"""Snapshots of the compiled workflow YAML of every valid fixture (and the bundled
example), one reviewable `.yaml` file each under tests/__snapshots__/.

A change to the compiler that changes any output fails here until the snapshot
is reviewed and updated:

    python -m pytest tests/test_snapshots.py --snapshot-update

Unused snapshots fail the run too (syrupy), so a removed fixture must take its
snapshot with it.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import pytest
from ruamel.yaml import YAML
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

from taskplan import api
from taskplan.workflow import dialect

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
SNAPSHOTS = Path(__file__).resolve().parent / "__snapshots__" / "test_snapshots"


class YAMLSnapshot(SingleFileSnapshotExtension):
    """One text file per snapshot, with a .yaml extension, so a reviewer reads the workflow as written."""

    _write_mode = WriteMode.TEXT
    file_extension = "yaml"


@pytest.fixture
def snapshot_yaml(snapshot):
    return snapshot.use_extension(YAMLSnapshot)


def _compile_cases() -> list[tuple[str, Path, list[Path], dict]]:
    cases = [("pr-review-example", ROOT / "examples/pr-review.taskplan.yaml", [ROOT / "examples/catalog.yaml"], {})]
    manifest = FIXTURES / "valid" / "manifest.yaml"
    if manifest.exists():
        data = YAML(typ="safe").load(manifest.read_text(encoding="utf-8")) or {}
        for case in data.get("cases") or []:
            plan = FIXTURES / "valid" / case["plan"]
            catalogs = [(FIXTURES / "catalogs" / c).resolve() for c in case.get("catalogs") or []]
            name = Path(case["plan"]).name.split(".")[0]
            cases.append((name, plan, catalogs, dict(case.get("choose") or {})))
    return cases


CASES = _compile_cases()


@lru_cache(maxsize=None)
def _compiled(name: str) -> api.CompileResult:
    _, plan, catalogs, choose = next(c for c in CASES if c[0] == name)
    # Display paths relative to the repository, so snapshots do not depend on the checkout's location.
    return api.compile_plan(
        plan.relative_to(ROOT).as_posix(),
        catalogs=[_rel(c) for c in catalogs],
        choose=choose,
        auto=True,
    )


def _rel(path: Path) -> str:
    try:
        return path.relative_to(ROOT).as_posix()
    except ValueError:
        return str(path)


@pytest.fixture(autouse=True)
def _in_root(monkeypatch):
    monkeypatch.chdir(ROOT)


@pytest.mark.parametrize("name", [c[0] for c in CASES])
def test_compiled_workflow_matches_snapshot(name, snapshot_yaml):
    result = _compiled(name)
    assert result.exit_code == 0, [(d.code, d.location.pointer, d.message) for d in result.diagnostics]
    assert result.yaml is not None
    assert result.graph is not None and result.graph.check() == []  # compile leaves it to the tests
    assert result.yaml == snapshot_yaml


def _snapshot_files() -> list[Path]:
    return sorted(SNAPSHOTS.glob("*.yaml")) if SNAPSHOTS.is_dir() else []


def test_every_snapshot_validates_against_the_workflow_schema():
    """The committed snapshots are valid workflows: the published JSON Schema (jsonschema
    itself, not the compiler's fast path) and the validate pass both accept them."""
    from jsonschema import Draft202012Validator

    from taskplan.passes.validate import validate_text

    schema = json.loads((ROOT / "schemas" / "workflow.schema.json").read_text(encoding="utf-8"))
    validator = Draft202012Validator(schema)
    files = _snapshot_files()
    assert files, "no snapshots: run pytest with --snapshot-update"
    for path in files:
        text = path.read_text(encoding="utf-8")
        data = YAML(typ="safe").load(text)
        errors = sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path))
        assert not errors, f"{path.name}: {errors[0].message} at {list(errors[0].absolute_path)}"
        result = validate_text(text.encode("utf-8"), path.name)
        assert result.diagnostics == [], f"{path.name}: {[d.message for d in result.diagnostics]}"


RECIPES = {
    "operation (a catalog executor)": lambda s: dialect.step_kind(s["type"]) == dialect.EXECUTOR,
    "value (set)": lambda s: s["type"] == "set" and not s["id"].startswith("__"),
    "transform (template.render)": lambda s: s["type"] == "template.render",
    "transform (llm.call)": lambda s: s["type"] == "llm.call",
    "transform result check (value.validate)": lambda s: s["type"] == "value.validate" and not s["id"].startswith("__"),
    "child scope (workflow.call)": lambda s: s["type"] == "workflow.call",
    "conditional (switch)": lambda s: s["type"] == "switch",
    "branch merge (value.project)": lambda s: s["type"] == "value.project" and ".merge." in s["id"],
    "parallel": lambda s: s["type"] == "parallel" and "max_concurrency" in s,
    "foreach size check (value.validate)": lambda s: s["type"] == "value.validate" and "max_items" in s,
    "foreach (loop.parallel)": lambda s: s["type"] == "loop.parallel",
    "foreach (loop.sequential)": lambda s: s["type"] == "loop.sequential",
    "collection projection (array.project)": lambda s: s["type"] == "array.project",
    "checked projection at the consumer (value.project)": lambda s: s["type"] == "value.project"
    and s["id"].endswith(".project"),
    "json (the json() function)": lambda s: "json(" in json.dumps(s),
    "cleanup guard (finally with when)": lambda s: s.get("_section") == "finally" and "when" in s,
}


def test_every_lowering_recipe_appears_in_a_snapshot():
    seen: set[str] = set()
    for path in _snapshot_files():
        data = YAML(typ="safe").load(path.read_text(encoding="utf-8"))
        for wf in data["workflows"].values():
            for section in ("steps", "finally"):
                for step in wf.get(section) or []:
                    step = dict(step, _section=section)
                    for recipe, test in RECIPES.items():
                        if test(step):
                            seen.add(recipe)
    missing = sorted(set(RECIPES) - seen)
    assert not missing, f"no snapshot shows: {missing}"
