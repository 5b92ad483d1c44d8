"""The JSON renderer: the contract's fields and order, sorted, deduplicated, byte-stable."""

from __future__ import annotations

import json

from taskplan.diagnostics import Diagnostic, Location, Related, Severity
from taskplan.diagnostics.render_json import render


def diag(file, line, column, code="TASK_INPUT_TYPE", message="m", **kw):
    return Diagnostic(
        code=code,
        severity=kw.pop("severity", Severity.ERROR),
        message=message,
        location=Location(file, kw.pop("pointer", "/root"), line, column, line, column + 3),
        **kw,
    )


def test_the_contract_example():
    d = Diagnostic(
        code="TASK_INPUT_TYPE",
        severity=Severity.ERROR,
        message="input `count` of task `list_issues` expects integer, got string",
        location=Location("plans/triage.taskplan.yaml", "/root/tasks/2/inputs/0/value", 14, 16, 14, 46),
        subject=(("task", "list_issues"), ("port", "count")),
        related=(
            Related(
                "the port is declared here",
                Location("catalog.yaml", "/sources/0/operations/3/input/properties/count", 40, 13, 40, 20),
            ),
        ),
        hint="bind a number, or add a transform that converts the text",
    )
    out = render([d], files=1)
    data = json.loads(out)
    assert list(data) == ["diagnostics", "summary"]
    assert data["summary"] == {"errors": 1, "warnings": 0, "files": 1}
    (item,) = data["diagnostics"]
    assert list(item) == ["code", "severity", "message", "location", "subject", "related", "hint"]
    assert list(item["location"]) == ["file", "pointer", "line", "column", "endLine", "endColumn"]
    assert item["location"] == {
        "file": "plans/triage.taskplan.yaml",
        "pointer": "/root/tasks/2/inputs/0/value",
        "line": 14,
        "column": 16,
        "endLine": 14,
        "endColumn": 46,
    }
    assert item["subject"] == {"task": "list_issues", "port": "count"}
    assert item["related"][0]["message"] == "the port is declared here"
    assert item["related"][0]["location"]["line"] == 40
    assert item["hint"] == "bind a number, or add a transform that converts the text"


def test_optional_fields_are_left_out():
    (item,) = json.loads(render([diag("a.yaml", 1, 1)]))["diagnostics"]
    assert list(item) == ["code", "severity", "message", "location"]


def test_sorted_deduplicated_and_counted():
    ds = [
        diag("b.yaml", 3, 1, message="b3"),
        diag("a.yaml", 9, 2, code="TASK_ID_INVALID", message="a9-id"),
        diag("a.yaml", 9, 2, code="NAME_DUPLICATE", message="a9-name", severity=Severity.WARNING),
        diag("b.yaml", 3, 1, message="b3"),
        diag("a.yaml", 2, 7, message="a2"),
    ]
    data = json.loads(render(ds, files=2))
    assert [d["message"] for d in data["diagnostics"]] == ["a2", "a9-name", "a9-id", "b3"]
    assert data["summary"] == {"errors": 3, "warnings": 1, "files": 2}


def test_byte_identical_whatever_the_input_order_and_utf8():
    ds = [diag("ü.yaml", i % 5 + 1, i % 3 + 1, message=f"“{i}” 日本") for i in range(30)]
    first = render(ds, files=1)
    assert render(list(reversed(ds)), files=1) == first
    assert first.endswith("}\n") and not first.endswith("\n\n")
    assert "“0” 日本" in first and "\\u" not in first
    assert first.encode("utf-8") == render(ds[::-1], files=1).encode("utf-8")


def test_empty():
    assert json.loads(render([], files=3)) == {"diagnostics": [], "summary": {"errors": 0, "warnings": 0, "files": 3}}


def test_one_diagnostic_per_line():
    out = render([diag("a.yaml", i + 1, 1, message=f"line\nbreak {i}") for i in range(3)], files=1)
    lines = out.splitlines()
    assert lines[:2] == ["{", '  "diagnostics": [']
    assert [json.loads(line.strip().rstrip(","))["message"] for line in lines[2:5]] == [
        "line\nbreak 0",
        "line\nbreak 1",
        "line\nbreak 2",
    ]
    assert lines[5:] == ["  ],", '  "summary": {"errors": 3, "warnings": 0, "files": 1}', "}"]
