"""The fixture corpus: every case of fixtures/errors/*/manifest.yaml produces exactly the
diagnostics it lists, warnings included (a case whose expectations are all warnings exits
0, any other 1); every case of fixtures/valid/manifest.yaml checks without any diagnostic,
not even a warning.
Plan cases run `check_plan`; workflow cases (`workflow:`) run the validate pass.

Manifest format (docs/architecture.md, Fixture corpus):

    cases:
      - plan: duplicate-key.taskplan.yaml      # relative to the manifest's folder
        catalogs: []                           # relative to fixtures/catalogs/
        expect:
          - {code: PLAN_DUPLICATE_KEY, pointer: /root/tasks/0/id, line: 6, column: 7}

An expectation matches a diagnostic with the same code, file (default: the
plan; else relative to fixtures/catalogs/) and pointer, and the same line,
column, endLine, endColumn and subject (a mapping, compared whole: `{}` for none)
where those are given. The expected and actual
diagnostics must match one to one: nothing missing, nothing extra.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from taskplan.api import CHECK_PASSES, EXIT_ERRORS, EXIT_OK, check_plan, read_input
from taskplan.diagnostics import Diagnostic, Severity
from taskplan.diagnostics.registry import REGISTRY
from taskplan.passes.validate import validate_text

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
CATALOGS = FIXTURES / "catalogs"

CASE_KEYS = {"plan", "workflow", "catalogs", "expect", "note"}
EXPECT_KEYS = {"code", "pointer", "file", "line", "column", "endLine", "endColumn", "subject"}
POSITION_KEYS = ("line", "column", "endLine", "endColumn")

BUILT_OWNERS = frozenset(CHECK_PASSES) | {"validate", "catalog"}
"""The owners (CodeInfo.owner) whose pass exists: each of their codes needs a fixture case.
Add an owner here when its pass lands."""

OTHER_RUNNERS = {"config": "tests/test_project_config.py (pyproject.toml cases, not plans)"}
"""Folders of fixtures/errors/ whose manifests another test runs."""

COMPILE_ONLY = {"CHOICE_REQUIRED": "needs a compile without a selection; check checks every alternative"}
"""Codes owned by a check pass that `check` itself never reports."""


@dataclass(frozen=True)
class Case:
    manifest: Path
    index: int
    data: dict[str, Any]
    valid: bool

    @property
    def id(self) -> str:
        family = "valid" if self.valid else self.manifest.parent.name
        name = self.data.get("plan") or self.data.get("workflow") or f"case{self.index}"
        stem = str(name).split(".")[0]
        catalogs = self.data.get("catalogs") or []
        suffix = f"+{'+'.join(Path(str(c)).stem for c in catalogs)}" if catalogs else ""
        return f"{family}/{stem}{suffix}"


def _load(manifest: Path, valid: bool) -> list[Case]:
    data = YAML(typ="safe", pure=False).load(manifest.read_text(encoding="utf-8")) or {}
    if not isinstance(data, dict) or not isinstance(data.get("cases", []), list):
        raise ValueError(f"{manifest}: expected a mapping with a list `cases`")
    return [Case(manifest, i, case, valid) for i, case in enumerate(data.get("cases") or [])]


def _cases() -> list[Case]:
    cases: list[Case] = []
    valid = FIXTURES / "valid" / "manifest.yaml"
    if valid.is_file():
        cases += _load(valid, True)
    for manifest in sorted((FIXTURES / "errors").glob("*/manifest.yaml")):
        if manifest.parent.name not in OTHER_RUNNERS:
            cases += _load(manifest, False)
    return cases


CASES = _cases()


def _validate_case(case: Case) -> None:
    """A typo in a manifest must fail loudly, never pass silently."""
    where = f"{case.manifest.relative_to(ROOT)} case {case.index}"
    assert isinstance(case.data, dict), f"{where}: a case is a mapping"
    unknown = set(case.data) - CASE_KEYS
    assert not unknown, f"{where}: unknown keys {sorted(unknown)}"
    assert ("plan" in case.data) != ("workflow" in case.data), f"{where}: exactly one of plan/workflow"
    expect = case.data.get("expect") or []
    assert isinstance(expect, list), f"{where}: expect is a list"
    if not case.valid:
        assert expect, f"{where}: an error case lists what it expects"
    for item in expect:
        assert isinstance(item, dict), f"{where}: an expectation is a mapping"
        unknown = set(item) - EXPECT_KEYS
        assert not unknown, f"{where}: unknown expectation keys {sorted(unknown)}"
        assert "code" in item and "pointer" in item, f"{where}: an expectation needs code and pointer"
        assert item["code"] in REGISTRY, f"{where}: {item['code']} is not a registered code"
        if "subject" in item:
            assert isinstance(item["subject"], dict), f"{where}: a subject is a mapping"


def _file_key(path: str | Path) -> str:
    return str(Path(path).resolve())


def _unmatched(expect: list[dict[str, Any]], actual: list[Diagnostic], plan: Path) -> tuple[list, list]:
    """Match expectations to diagnostics one to one; return what is left on each side."""
    left = list(actual)
    missing = []
    # The most specific expectations first, so a vaguer one cannot take their diagnostic.
    for item in sorted(expect, key=lambda e: -sum(k in e for k in (*POSITION_KEYS, "subject"))):
        file = _file_key(CATALOGS / item["file"]) if "file" in item else _file_key(plan)
        for i, d in enumerate(left):
            loc = d.location
            if (d.code, _file_key(loc.file), loc.pointer) != (item["code"], file, item["pointer"]):
                continue
            position = {"line": loc.line, "column": loc.column, "endLine": loc.end_line, "endColumn": loc.end_column}
            if "subject" in item and dict(d.subject) != item["subject"]:
                continue
            if all(item[k] == position[k] for k in POSITION_KEYS if k in item):
                del left[i]
                break
        else:
            missing.append(item)
    return missing, left


def _describe(d: Diagnostic) -> str:
    loc = d.location
    return (
        f"{d.code} {loc.pointer} {Path(loc.file).name}:{loc.line}:{loc.column}-{loc.end_line}:{loc.end_column}"
        f" {dict(d.subject)}: {d.message}"
    )


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_case(case: Case) -> None:
    _validate_case(case)
    document = case.manifest.parent / (case.data.get("plan") or case.data["workflow"])
    assert document.is_file(), f"missing fixture {document}"
    if "workflow" in case.data:
        validated = validate_text(read_input(document), str(document))
        diagnostics, exit_code = validated.diagnostics, EXIT_ERRORS if validated.errors else EXIT_OK
    else:
        catalogs = [CATALOGS / c for c in case.data.get("catalogs") or []]
        result = check_plan(document, catalogs=catalogs)
        assert not result.input_errors, result.input_errors
        diagnostics, exit_code = result.diagnostics, result.exit_code
    expect = case.data.get("expect") or []
    missing, extra = _unmatched(expect, diagnostics, document)
    report = "\n".join(
        ["expected but not reported:"]
        + [f"  {item}" for item in missing]
        + ["reported but not expected:"]
        + [f"  {_describe(d)}" for d in extra]
    )
    assert not missing and not extra, report
    errors_expected = any(REGISTRY[item["code"]].severity is Severity.ERROR for item in expect)
    assert exit_code == (EXIT_ERRORS if errors_expected else EXIT_OK), "warnings alone never fail a check"


def test_the_corpus_exists():
    assert any(c.valid for c in CASES), "fixtures/valid/manifest.yaml lists no plan"
    assert any(not c.valid for c in CASES), "no fixtures/errors/*/manifest.yaml lists a case"


def test_every_code_of_a_built_pass_has_a_fixture():
    """Each code whose owner's pass exists (BUILT_OWNERS) is triggered by at least one error case."""
    covered = Counter(item.get("code") for c in CASES if not c.valid for item in c.data.get("expect") or [])
    wanted = [
        info.code
        for info in REGISTRY.values()
        if info.owner in BUILT_OWNERS and info.code not in COMPILE_ONLY and info.family not in OTHER_RUNNERS
    ]
    lacking = [code for code in wanted if not covered[code]]
    assert not lacking, f"codes without a fixture case: {', '.join(lacking)}"


def test_the_matcher_is_exact_about_the_multiset():
    from taskplan.diagnostics import Location

    plan = Path("/tmp/p.taskplan.yaml")

    def d(code, pointer, line=1, column=1):
        return Diagnostic(code, Severity.ERROR, "m", Location(str(plan), pointer, line, column, line, column + 1))

    two = [d("TASK_ID_DUPLICATE", "/a", 3, 5), d("TASK_ID_DUPLICATE", "/a", 7, 5)]
    exp = {"code": "TASK_ID_DUPLICATE", "pointer": "/a"}
    assert _unmatched([exp, exp], two, plan) == ([], [])
    missing, extra = _unmatched([exp], two, plan)
    assert missing == [] and len(extra) == 1  # one too many reported
    missing, extra = _unmatched([exp, exp, exp], two, plan)
    assert len(missing) == 1 and extra == []  # one too few reported
    # A vague expectation cannot steal the diagnostic a precise one needs.
    assert _unmatched([exp, {**exp, "line": 3}], two, plan) == ([], [])
    assert _unmatched([{**exp, "line": 4}], two[:1], plan)[0] != []
    assert _unmatched([{**exp, "pointer": "/b"}], two[:1], plan)[0] != []
    assert _unmatched([{**exp, "file": "other.yaml"}], two[:1], plan)[0] != []


def test_the_matcher_compares_a_subject_whole():
    from taskplan.diagnostics import Location

    plan = Path("/tmp/p.taskplan.yaml")
    loc = Location(str(plan), "/a", 1, 1, 1, 2)
    d = Diagnostic("NAME_DUPLICATE", Severity.ERROR, "m", loc, subject=(("task", "t"), ("port", "p")))
    exp = {"code": "NAME_DUPLICATE", "pointer": "/a"}
    assert _unmatched([{**exp, "subject": {"task": "t", "port": "p"}}], [d], plan) == ([], [])
    assert _unmatched([{**exp, "subject": {"task": "t"}}], [d], plan)[0]  # a part is not the whole
    assert _unmatched([{**exp, "subject": {}}], [d], plan)[0]
