"""The catalog fixtures: fixtures/errors/catalog/manifest.yaml, checked at the catalog
level (load_catalogs, exactly the diagnostics listed), and the valid fixture catalogs
load clean. (tests/test_manifest.py runs the same cases through check_plan.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from ruamel.yaml import YAML

from taskplan.catalog import load_catalogs
from taskplan.diagnostics import Diagnostics
from taskplan.diagnostics.registry import REGISTRY

ROOT = Path(__file__).resolve().parents[1]
CATALOGS = ROOT / "fixtures" / "catalogs"
MANIFEST = ROOT / "fixtures" / "errors" / "catalog" / "manifest.yaml"
POSITION = ("line", "column", "endLine", "endColumn")


def _cases() -> list[dict]:
    return YAML(typ="safe").load(MANIFEST.read_text(encoding="utf-8"))["cases"]


CASES = _cases()


@pytest.mark.parametrize("case", CASES, ids=lambda c: "+".join(Path(p).stem for p in c["catalogs"]))
def test_case(case):
    assert (MANIFEST.parent / case["plan"]).is_file()
    sink = Diagnostics()
    # deliberately in reverse order: the result must not depend on it
    catalog = load_catalogs([CATALOGS / c for c in reversed(case["catalogs"])], sink)
    assert not catalog.input_errors
    actual = []
    for d in sink.sorted():
        loc = d.location
        actual.append(
            {
                "code": d.code,
                "file": Path(loc.file).resolve().relative_to(CATALOGS.resolve()).as_posix(),
                "pointer": loc.pointer,
                "line": loc.line,
                "column": loc.column,
                "endLine": loc.end_line,
                "endColumn": loc.end_column,
            }
        )
    expected = [{k: e[k] for k in ("code", "file", "pointer", *POSITION) if k in e} for e in case["expect"]]
    assert [{k: a[k] for k in e} for a, e in zip(actual, expected)] == expected
    assert len(actual) == len(expected), actual


def test_every_catalog_code_has_a_fixture():
    covered = {e["code"] for c in CASES for e in c["expect"]}
    wanted = {code for code, info in REGISTRY.items() if info.owner == "catalog"}
    assert wanted <= covered, sorted(wanted - covered)


def test_duplicate_relates_to_the_first_file():
    sink = Diagnostics()
    load_catalogs([CATALOGS / "invalid" / "duplicate-b.catalog.yaml", CATALOGS / "invalid" / "duplicate-a.catalog.yaml"], sink)
    first = sink.sorted()[0]
    assert Path(first.related[0].location.file).name == "duplicate-a.catalog.yaml"
    assert (first.related[0].location.line, first.related[0].location.column) == (7, 13)


@pytest.mark.parametrize(
    "path",
    sorted(CATALOGS.glob("*.catalog.yaml")) + sorted(CATALOGS.glob("mcp/*.catalog.yaml")),
    ids=lambda p: p.name,
)
def test_valid_fixture_catalogs_load_clean(path):
    sink = Diagnostics()
    catalog = load_catalogs([path], sink)
    assert not sink.sorted(), [f"{d.code} {d.location.pointer}: {d.message}" for d in sink.sorted()]
    assert len(catalog) > 0


def test_the_review_catalog_covers_what_it_promises():
    sink = Diagnostics()
    catalog = load_catalogs([CATALOGS / "review.catalog.yaml"], sink)
    assert 10 <= len(catalog) <= 20
    assert len({op.source for op in catalog}) == 3
    assert {op.effect for op in catalog} == {"read", "write", "destroy"}
    assert catalog.versions("github.create_review") == ("1", "2")
    assert catalog.resolve("github.create_review").reason == "ambiguous"
    assert any(op.fixed for op in catalog)
    assert {k for op in catalog for k in op.produces.values()} >= {"patch", "report", "sandbox"}
    assert {k for op in catalog for k in op.consumes.values()} >= {"patch", "report", "sandbox"}
    assert any(op.opaque for op in catalog)
    outputs = [op.output_type for op in catalog if op.output_type is not None]
    assert any(f.type.nullable for t in outputs for f in t.fields)
    assert any(f.type.enum for t in outputs for f in t.fields)
