"""The `check` and `explain` commands and the shared CLI helpers: formats, colour,
exit codes, unreadable inputs, and no traceback ever.

These tests replace the passes with small fakes so that they test the command
line and the API's pipeline on their own; tests/test_cli_plans.py runs the real
passes end to end."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from taskplan import api
from taskplan.cli import main
from taskplan.cli import _common
from taskplan.diagnostics import Diagnostics, Location, Reporter, Severity
from taskplan.diagnostics.registry import REGISTRY
from taskplan.source.document import SourceDocument


def run(*args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(main, list(args), env=env, catch_exceptions=False)


@pytest.fixture
def fake_passes(monkeypatch):
    """Passes that report TASK_ID_INVALID (an error) at each `bad` and NAME_DUPLICATE
    (as a warning) at each `meh` of the text, and record which passes ran."""
    ran: list[str] = []

    def read_document(data, path, sink, *, codes=None, limits=None, format=None):
        ran.append("read")
        return SourceDocument(path=path, text=data.decode("utf-8"), format="yaml", digest="", ok=True)

    def shape(document, reporter: Reporter, limits=None):
        ran.append("shape")
        for number, line in enumerate(document.text.splitlines(), start=1):
            for word, code, severity in (("bad", "TASK_ID_INVALID", Severity.ERROR), ("meh", "NAME_DUPLICATE", Severity.WARNING)):
                column = line.find(word) + 1
                if column:
                    loc = Location(document.path, f"/{number}", number, column, number, column + 3)
                    reporter.sink.add(api.Diagnostic(code, severity, f"`{word}` found", loc, hint="fix it"))
        return object()

    def step(name, result=None):
        def run_pass(*args, **kwargs):
            ran.append(name)
            return result

        return run_pass

    monkeypatch.setattr("taskplan.source.read.read_document", read_document)
    monkeypatch.setattr("taskplan.passes.shape.shape", shape)
    monkeypatch.setattr("taskplan.passes.structure.run", step("structure"))
    monkeypatch.setattr("taskplan.passes.identity.run", step("identity", "table"))
    monkeypatch.setattr("taskplan.passes.scope.run", step("scope", "checked"))
    monkeypatch.setattr("taskplan.passes.types.run", step("types", "typed"))
    monkeypatch.setattr("taskplan.passes.usage.run", step("usage"))
    return ran


@pytest.fixture
def plans(tmp_path):
    def write(name: str, text: str) -> str:
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return str(path)

    return write


# ---------------------------------------------------------------- API


def test_api_runs_every_pass_in_order_and_returns_typed_results(fake_passes, plans):
    path = plans("a.taskplan.yaml", "ok: 1\nid: bad\nx: meh\n")
    result = api.check_plan(path)
    assert fake_passes == ["read", "shape", "structure", "identity", "scope", "types", "usage"]
    assert tuple(fake_passes) == api.CHECK_PASSES
    assert [d.code for d in result.diagnostics] == ["TASK_ID_INVALID", "NAME_DUPLICATE"]
    assert result.plan == "checked" and result.typed == "typed"
    assert set(result.documents) == {path}
    assert not result.ok and result.exit_code == 1
    assert (result.errors, result.warnings) == (1, 1)


def test_api_warnings_alone_are_ok(fake_passes, plans):
    result = api.check_plan(plans("a.yaml", "x: meh\n"))
    assert result.ok and result.exit_code == 0


def test_api_stops_when_a_pass_has_nothing_to_give(fake_passes, plans, monkeypatch):
    monkeypatch.setattr("taskplan.passes.shape.shape", lambda *a, **k: fake_passes.append("shape"))
    result = api.check_plan(plans("a.yaml", "x: 1\n"))
    assert fake_passes == ["read", "shape"]
    assert result.plan is None and result.ok


def test_api_text_argument_reads_no_file(fake_passes):
    result = api.check_plan("virtual/plan.yaml", text=b"id: bad\n")
    assert result.diagnostics[0].location.file == "virtual/plan.yaml"


def test_api_an_exception_in_a_pass_is_one_internal_diagnostic(fake_passes, plans, monkeypatch):
    def boom(*args, **kwargs):
        raise KeyError("lost")

    monkeypatch.setattr("taskplan.passes.identity.run", boom)
    path = plans("a.yaml", "id: bad\n")
    result = api.check_plan(path)
    internal = [d for d in result.diagnostics if d.code == "COMPILER_INTERNAL"]
    assert len(internal) == 1
    assert internal[0].location.file == path
    assert "identity pass" in internal[0].message and "KeyError" in internal[0].message and "lost" in internal[0].message
    assert "tests/test_cli.py" not in internal[0].message  # only frames of the package are named
    assert result.exit_code == 3 and result.plan is None
    assert "TASK_ID_INVALID" in {d.code for d in result.diagnostics}  # what was found before stays
    assert "types" not in fake_passes  # nothing runs after the failure


@pytest.mark.parametrize(
    "error, reason",
    [
        (FileNotFoundError, "no such file"),
        (IsADirectoryError, "is a directory, not a file"),
        (PermissionError, "permission denied"),
    ],
)
def test_api_unreadable_input(monkeypatch, error, reason):
    def fake_open(*args, **kwargs):
        raise error(13, "whatever")

    monkeypatch.setattr(api, "open", fake_open, raising=False)
    result = api.check_plan("plans/x.yaml")
    assert [(e.path, e.reason) for e in result.input_errors] == [("plans/x.yaml", reason)]
    assert result.diagnostics == [] and result.exit_code == 2 and not result.ok and not result.readable


def test_api_reads_at_most_one_byte_past_the_limit(tmp_path):
    path = tmp_path / "big.yaml"
    path.write_bytes(b"x" * 5000)
    assert len(api.read_input(path, api.Limits(max_bytes=100))) == 101


def test_api_many_plans_worst_exit_code_and_one_sorted_list(fake_passes, plans):
    a = plans("a.yaml", "id: bad\n")
    b = plans("b.yaml", "x: meh\n")
    run_ = api.check_plans([b, a, b])
    assert [r.path for r in run_.results] == [b, a]
    assert [d.location.file for d in run_.diagnostics] == [a, b]
    assert run_.exit_code == 1 and run_.checked == 2
    assert api.check_plans([a, str(Path(a).parent / "missing.yaml")]).exit_code == 2
    assert api.check_plans([]).exit_code == 0


# ---------------------------------------------------------------- check


def test_check_text_output(fake_passes, plans):
    path = plans("a.taskplan.yaml", "ok: 1\nid: bad\n")
    result = run("check", path)
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "error[TASK_ID_INVALID]: `bad` found",
        f" --> {path}:2:5",
        "  |",
        "2 | id: bad",
        "  |     ^^^",
        "  = help: fix it",
        "",
        "error: 1 error in 1 file",
    ]
    assert result.stderr == ""


def test_check_clean_and_warnings(fake_passes, plans):
    assert run("check", plans("a.yaml", "ok: 1\n")).stdout == "ok: 1 plan checked\n"
    result = run("check", plans("b.yaml", "x: meh\n"), plans("c.yaml", "y: 2\n"))
    assert result.exit_code == 0
    assert result.stdout.startswith("warning[NAME_DUPLICATE]")
    assert result.stdout.endswith("ok: 2 plans checked, 1 warning\n")


def test_check_json_is_the_contract_and_byte_identical(fake_passes, plans):
    a = plans("a.yaml", "id: bad\nx: meh\n")
    b = plans("b.yaml", "bad\n  bad\n")
    first = run("check", b, a, "--format", "json")
    second = run("check", a, b, "--format", "json")
    assert first.exit_code == 1
    assert first.stdout_bytes == second.stdout_bytes
    data = json.loads(first.stdout)
    assert data["summary"] == {"errors": 3, "warnings": 1, "files": 2}
    assert [(d["location"]["file"], d["location"]["line"], d["location"]["column"]) for d in data["diagnostics"]] == [
        (a, 1, 5),
        (a, 2, 4),
        (b, 1, 1),
        (b, 2, 3),
    ]


def test_check_unreadable_inputs_exit_2_with_a_message_on_stderr(fake_passes, plans, tmp_path):
    good = plans("a.yaml", "id: bad\n")
    result = run("check", good, str(tmp_path / "missing.yaml"), str(tmp_path))
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"error: cannot read {tmp_path / 'missing.yaml'}: no such file",
        f"error: cannot read {tmp_path}: is a directory, not a file",
    ]
    assert "error[TASK_ID_INVALID]" in result.stdout  # the readable plan is still checked
    assert result.stdout.endswith("error: 1 error in 1 file; 2 files could not be read\n")
    alone = run("check", str(tmp_path / "missing.yaml"), "--format", "json")
    assert alone.exit_code == 2
    assert json.loads(alone.stdout)["summary"] == {"errors": 0, "warnings": 0, "files": 0}


def test_check_internal_error_exits_3_without_traceback(fake_passes, plans, monkeypatch):
    def boom(*args, **kwargs):
        raise RuntimeError("scope exploded")

    monkeypatch.setattr("taskplan.passes.scope.run", boom)
    result = run("check", plans("a.yaml", "x: 1\n"), str(Path(plans("b.yaml", "x")).parent / "gone.yaml"))
    assert result.exit_code == 3  # worse than the unreadable file's 2
    assert "error[COMPILER_INTERNAL]: internal compiler error in the scope pass: RuntimeError: scope exploded" in result.stdout
    assert "Traceback" not in result.output


def test_a_bug_in_the_command_itself_exits_3(fake_passes, plans, monkeypatch):
    def broken(name):
        raise ValueError("renderer bug")

    monkeypatch.setattr(_common, "renderer", broken)
    result = run("check", plans("a.yaml", "x: 1\n"))
    assert result.exit_code == 3
    assert "COMPILER_INTERNAL" in result.stderr and "renderer bug" in result.stderr
    assert "Traceback" not in result.output


def test_ctrl_c_is_quiet(fake_passes, plans, monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("taskplan.passes.shape.shape", interrupted)
    result = run("check", plans("a.yaml", "x: 1\n"))
    assert result.exit_code == 130
    assert "Traceback" not in result.output and "interrupted" in result.stderr


def test_check_usage_errors_exit_2(plans):
    assert run("check").exit_code == 2
    assert run("check", plans("a.yaml", "x"), "--format", "xml").exit_code == 2
    assert run("check", plans("a.yaml", "x"), "--color", "sometimes").exit_code == 2


def test_colour_follows_the_flag_and_never_leaks_into_a_pipe(fake_passes, plans):
    path = plans("a.yaml", "id: bad\n")
    assert "\x1b[" not in run("check", path).stdout  # CliRunner's stdout is not a terminal
    assert "\x1b[1;31merror[TASK_ID_INVALID]" in run("check", path, "--color", "always").stdout
    assert "\x1b[" not in run("check", path, "--color", "never").stdout
    assert "\x1b[" not in run("check", path, "--color", "always", "--format", "json").stdout


class _Tty(io.StringIO):
    def isatty(self):
        return True


@pytest.mark.parametrize("no_color", ["1", "", "0"])
def test_no_color_set_to_any_value_disables_auto_colour(monkeypatch, no_color):
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert _common.use_color("auto", _Tty()) is True
    assert _common.use_color("auto", io.StringIO()) is False
    monkeypatch.setenv("NO_COLOR", no_color)
    assert _common.use_color("auto", _Tty()) is False
    assert _common.use_color("never", _Tty()) is False
    assert _common.use_color("always", io.StringIO()) is True  # an explicit flag wins


def test_renderer_registry_names_the_format_choices():
    assert list(_common.RENDERERS)[:2] == ["text", "json"]
    for name in _common.RENDERERS:
        assert callable(_common.renderer(name))


# ---------------------------------------------------------------- explain


def test_explain_text():
    result = run("explain", "PLAN_DUPLICATE_KEY")
    assert result.exit_code == 0
    info = REGISTRY["PLAN_DUPLICATE_KEY"]
    lines = result.stdout.splitlines()
    assert lines[0] == f"PLAN_DUPLICATE_KEY: {info.title}"
    assert lines[2] == "family: reading; reported by the read pass; severity: error"
    assert " ".join(result.stdout.split()).count(" ".join(info.explanation.split())) == 1
    if info.wrong:
        assert "Wrong:" in result.stdout and "Right:" in result.stdout
        assert "    " + info.wrong.splitlines()[0] in lines


def test_explain_is_case_insensitive():
    assert run("explain", "plan_syntax").stdout == run("explain", "PLAN_SYNTAX").stdout


def test_explain_json():
    data = json.loads(run("explain", "TASK_ID_DUPLICATE", "--format", "json").stdout)
    info = REGISTRY["TASK_ID_DUPLICATE"]
    assert data["code"] == "TASK_ID_DUPLICATE"
    assert (data["title"], data["family"], data["owner"]) == (info.title, info.family, info.owner)
    assert (data["explanation"], data["wrong"], data["right"]) == (info.explanation, info.wrong, info.right)


def test_explain_unknown_code_suggests_close_ones():
    result = run("explain", "TASK_ID_DUPLICAT")
    assert result.exit_code == 2
    assert "unknown diagnostic code `TASK_ID_DUPLICAT`" in result.stderr
    assert "did you mean `TASK_ID_DUPLICATE`" in result.stderr
    result = run("explain", "NOTHING_LIKE_IT_AT_ALL_XYZ")
    assert result.exit_code == 2 and "did you mean" not in result.stderr
    assert "\x1b" not in run("explain", "\x1b[2J").stderr


def test_explain_list():
    result = run("explain", "--list")
    assert result.exit_code == 0
    listed = [line.split()[0] for line in result.stdout.splitlines() if line.startswith("  ")]
    assert sorted(listed) == sorted(REGISTRY)
    assert result.stdout.startswith("reading:\n  PLAN_SYNTAX ")
    data = json.loads(run("explain", "--list", "--format", "json").stdout)
    assert {row["code"] for row in data} == set(REGISTRY)


def test_explain_usage_errors():
    assert run("explain").exit_code == 2
    assert run("explain", "PLAN_SYNTAX", "--list").exit_code == 2


def test_help_lists_the_commands():
    result = run("--help")
    assert result.exit_code == 0
    assert "check" in result.stdout and "explain" in result.stdout


# ---------------------------------------------------------------- a real process


def test_the_console_entry_point_never_shows_a_traceback(tmp_path):
    env = {**os.environ, "NO_COLOR": "1"}
    missing = subprocess.run(
        [sys.executable, "-m", "taskplan", "check", str(tmp_path / "nope.yaml")], capture_output=True, text=True, env=env
    )
    assert missing.returncode == 2
    assert "cannot read" in missing.stderr and "Traceback" not in missing.stderr
    listing = subprocess.run([sys.executable, "-m", "taskplan", "explain", "--list"], capture_output=True, env=env)
    assert listing.returncode == 0 and b"PLAN_SYNTAX" in listing.stdout


def test_a_closed_pipe_is_not_an_error():
    """`taskplan check ... | head`: the reader goes away; the output ends quietly."""
    script = "from taskplan.cli._common import write\nfor _ in range(50):\n    write('x' * 100000 + '\\n')\n"
    proc = subprocess.run(
        f'"{sys.executable}" -c "$SCRIPT" | head -c 10',
        shell=True,
        capture_output=True,
        text=True,
        env={**os.environ, "SCRIPT": script},
    )
    assert proc.stdout == "x" * 10
    assert proc.stderr == ""
