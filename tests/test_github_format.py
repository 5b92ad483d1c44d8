"""`--format github`: GitHub Actions workflow commands, one annotation per diagnostic."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from taskplan.diagnostics import Diagnostic, Location, Related, Severity
from taskplan.diagnostics.render_github import annotation, escape_data, escape_property, render

ROOT = Path(__file__).resolve().parents[1]
ERRORS = ROOT / "fixtures" / "errors"


def _diag(file="plans/triage.taskplan.yaml", line=14, column=11, code="TASK_ID_DUPLICATE", message="m", **kw):
    return Diagnostic(
        code=code,
        severity=kw.pop("severity", Severity.ERROR),
        message=message,
        location=Location(file, "/root", line, column, kw.pop("end_line", line), kw.pop("end_column", column + 5)),
        **kw,
    )


def _unescape(text: str) -> str:
    """What the Actions runner does to a command's data and properties."""
    return (
        text.replace("%0D", "\r").replace("%0A", "\n").replace("%3A", ":").replace("%2C", ",").replace("%25", "%")
    )


_COMMAND = re.compile(r"^::(error|warning) ([^:]*)::(.*)$")


def _parse(line: str) -> tuple[str, dict[str, str], str]:
    """A workflow command as the runner reads it: the command, its properties, its message."""
    match = _COMMAND.match(line)
    assert match, line
    props = {}
    for item in match.group(2).split(","):
        key, _, value = item.partition("=")
        props[key] = _unescape(value)
    return match.group(1), props, _unescape(match.group(3))


def test_the_documented_annotation():
    d = _diag(
        message="task ID `fetch` is declared twice",
        related=(Related("the first declaration", Location("plans/triage.taskplan.yaml", "/x", 6, 11, 6, 16)),),
        hint="rename one of the tasks",
    )
    assert annotation(d) == (
        "::error file=plans/triage.taskplan.yaml,line=14,col=11,endLine=14,endColumn=16,title=TASK_ID_DUPLICATE"
        "::task ID `fetch` is declared twice%0Anote: the first declaration at plans/triage.taskplan.yaml:6:11"
        "%0Ahelp: rename one of the tasks"
    )


def test_columns_only_on_one_line():
    d = _diag(line=21, column=7, end_line=23, end_column=3, code="WORKFLOW_EXPRESSION")
    command, props, _ = _parse(annotation(d))
    assert props == {"file": "plans/triage.taskplan.yaml", "line": "21", "endLine": "23", "title": "WORKFLOW_EXPRESSION"}
    assert list(props) == ["file", "line", "endLine", "title"]
    same = _parse(annotation(_diag(line=4, column=2, end_column=9)))[1]
    assert list(same) == ["file", "line", "col", "endLine", "endColumn", "title"]
    assert (same["line"], same["col"], same["endLine"], same["endColumn"]) == ("4", "2", "4", "9")


def test_warnings_are_warning_commands():
    assert annotation(_diag(severity=Severity.WARNING)).startswith("::warning file=")
    assert annotation(_diag()).startswith("::error file=")


def test_messages_escape_percent_cr_and_lf():
    d = _diag(message="100% sure\r\nreally", hint="50%")
    line = annotation(d)
    assert line.endswith("::100%25 sure  really%0Ahelp: 50%25")  # a line break inside a message is a space
    assert "\n" not in line and "\r" not in line
    assert escape_data("a%b\rc\nd") == "a%25b%0Dc%0Ad"
    assert escape_data("a:b,c") == "a:b,c"  # only properties escape : and ,


def test_properties_escape_colon_and_comma_too():
    assert escape_property("C:\\plans,a%b\r\n") == "C%3A\\plans%2Ca%25b%0D%0A"
    d = _diag(file="plans/a,b:c.taskplan.yaml")
    line = annotation(d)
    assert "file=plans/a%2Cb%3Ac.taskplan.yaml," in line
    assert _parse(line)[1]["file"] == "plans/a,b:c.taskplan.yaml"


def test_an_injected_command_stays_inside_its_message():
    d = _diag(message="bad\n::error file=evil.yaml::pwned\x1b[31m", hint="x\u202ey")
    out = render([d])
    lines = out.splitlines()
    assert len(lines) == 2 and lines[0].startswith("::error file=plans/triage.taskplan.yaml,")
    assert "\x1b" not in out and "\u202e" not in out  # controls and bidi overrides made visible
    assert lines[1] == "error: 1 error in 1 file"


@given(st.text())
def test_escaping_round_trips_and_never_breaks_the_command(text):
    assert _unescape(escape_data(text)) == text
    assert _unescape(escape_property(text)) == text
    assert not set("\r\n") & set(escape_data(text))
    assert not set("\r\n:,") & set(escape_property(text))


def test_sorted_deduplicated_then_a_summary():
    a = _diag(file="b.yaml", line=2)
    b = _diag(file="a.yaml", line=9, severity=Severity.WARNING, code="NAME_DUPLICATE")
    out = render([a, b, a], files=2)
    lines = out.splitlines()
    assert [line.split(" ", 1)[0] for line in lines[:2]] == ["::warning", "::error"]
    assert "file=a.yaml" in lines[0] and "file=b.yaml" in lines[1]
    assert lines[2] == "error: 1 error, 1 warning in 1 file"
    assert out.endswith("\n")
    assert render([], files=3) == "ok: 3 plans checked\n"
    assert render([], files=2, noun="workflow") == "ok: 2 workflows checked\n"


def _taskplan(*args: str):
    done = subprocess.run(
        [sys.executable, "-m", "taskplan", *args], cwd=ROOT, capture_output=True, text=True, check=False
    )
    return done.returncode, done.stdout, done.stderr


def test_a_real_check_run():
    plan = (ERRORS / "identity" / "id-duplicate.taskplan.yaml").relative_to(ROOT).as_posix()
    code, out, err = _taskplan("check", plan, "--format", "github")
    assert code == 1, err
    *annotations, summary = out.splitlines()
    assert annotations and summary.startswith("error: ")
    for line in annotations:
        command, props, message = _parse(line)
        assert command == "error" and props["file"] == plan and props["title"] == "TASK_ID_DUPLICATE"
        assert props["line"] == props["endLine"] and int(props["endColumn"]) > int(props["col"])
        assert "\nnote: " in message and "\nhelp: " in message
    assert annotations[0].startswith(f"::error file={plan},line=16,col=17,endLine=16,endColumn=24,title=TASK_ID_DUPLICATE::")


def test_a_real_validate_run_spanning_lines():
    workflow = (ERRORS / "workflow" / "expression.workflow.yaml").relative_to(ROOT).as_posix()
    code, out, _ = _taskplan("validate", workflow, "--format", "github")
    assert code == 1
    multi = [_parse(line)[1] for line in out.splitlines() if line.startswith("::") and "col=" not in line]
    assert multi and all(int(p["endLine"]) > int(p["line"]) for p in multi)
