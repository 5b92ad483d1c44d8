"""The text renderer: header, location, caret under the exact node, notes, help, summary."""

from __future__ import annotations

import re
import unicodedata

from taskplan.diagnostics import Diagnostic, Location, Related, Severity
from taskplan.diagnostics.render_text import render, summary
from taskplan.source.document import SourceDocument

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def doc(text: str, path: str = "plan.yaml") -> SourceDocument:
    return SourceDocument(path=path, text=text, format="yaml", digest="")


def diag(line, column, end_line, end_column, *, code="TASK_ID_INVALID", message="bad", file="plan.yaml", **kw):
    return Diagnostic(
        code=code,
        severity=kw.pop("severity", Severity.ERROR),
        message=message,
        location=Location(file, kw.pop("pointer", "/x"), line, column, end_line, end_column),
        **kw,
    )


def caret_line(output: str, source_fragment: str) -> tuple[str, str]:
    """The shown source line containing `source_fragment` and the marker line under it."""
    lines = output.splitlines()
    for i, line in enumerate(lines):
        if "|" in line and source_fragment in line:
            return line, lines[i + 1]
    raise AssertionError(f"{source_fragment!r} not shown in:\n{output}")


def cells(ch: str) -> int:
    if unicodedata.combining(ch):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def marked(source: str, markers: str, mark: str = "^") -> str:
    """The part of the shown source line that lies above the run of markers, by screen cell."""
    code = source.split("| ", 1)[1]
    under = markers.split("| ", 1)[1]
    start = under.index(mark)
    end = start
    while end < len(under) and under[end] == mark:
        end += 1
    out, col = [], 0
    for ch in code:
        if start <= col < end or (cells(ch) == 0 and out and col <= end):
            out.append(ch)
        col += cells(ch)
    return "".join(out)


SOURCE = "version: 1\nroot:\n  tasks:\n    - id: 'bad id'\n      objective: do it\n"


def test_header_location_snippet_and_caret():
    out = render([diag(4, 11, 4, 19, message="task ID `bad id` is not valid")], documents={"plan.yaml": doc(SOURCE)})
    lines = out.splitlines()
    assert lines[0] == "error[TASK_ID_INVALID]: task ID `bad id` is not valid"
    assert lines[1] == " --> plan.yaml:4:11"
    assert lines[2] == "  |"
    assert lines[3] == "4 |     - id: 'bad id'"
    assert lines[4] == "  |           ^^^^^^^^"
    assert lines[-1] == "error: 1 error in 1 file"
    assert out.endswith("\n") and not out.endswith("\n\n")


def test_no_document_no_snippet():
    out = render([diag(4, 11, 4, 19)], documents={})
    assert out.splitlines()[:2] == ["error[TASK_ID_INVALID]: bad", " --> plan.yaml:4:11"]
    assert "|" not in out


def test_gutter_width_follows_the_largest_line_number():
    text = "".join(f"k{i}: v\n" for i in range(1, 120))
    out = render([diag(105, 1, 105, 5)], documents={"plan.yaml": doc(text)})
    assert "  --> plan.yaml:105:1" in out
    source, markers = caret_line(out, "k105")
    assert source == "105 | k105: v"
    assert markers == "    | ^^^^"


def test_tabs_are_expanded_and_the_caret_follows():
    text = "a:\n\tb:\t\tvalue\n"
    # `value` starts at code point column 6 (tab, b, :, tab, tab, v).
    out = render([diag(2, 6, 2, 11)], documents={"plan.yaml": doc(text)})
    source, markers = caret_line(out, "value")
    assert "\t" not in source
    assert marked(source, markers) == "value"


def test_wide_and_combining_characters_do_not_misalign_the_caret():
    text = 'name: "日本語テキスト"\nnote: "e\u0301te\u0301" target\n'
    # Line 1: the span of `日本語` (code points 8..10).
    out = render([diag(1, 8, 1, 11)], documents={"plan.yaml": doc(text)})
    source, markers = caret_line(out, "日本語")
    assert marked(source, markers) == "日本語"
    assert markers.count("^") == 6  # three wide characters, two cells each
    # Line 2: `target` after two combining accents (code points 15..20).
    out = render([diag(2, 15, 2, 21)], documents={"plan.yaml": doc(text)})
    source, markers = caret_line(out, "target")
    assert marked(source, markers) == "target"
    # Combining marks take no cell: 14 code points before `target`, 12 cells.
    assert markers.split("| ", 1)[1].index("^") == 12


def test_emoji_span():
    text = "text: 🙂🙂 end\n"
    out = render([diag(1, 7, 1, 9)], documents={"plan.yaml": doc(text)})
    assert marked(*caret_line(out, "end")) == "🙂🙂"
    out = render([diag(1, 10, 1, 13)], documents={"plan.yaml": doc(text)})
    source, markers = caret_line(out, "end")
    assert marked(source, markers) == "end"
    assert markers.split("| ", 1)[1].index("^") == 11  # 'text: ' 6 cells, two emoji 4, a space 1


def test_control_and_bidi_characters_are_shown_not_executed():
    text = "id: \x1b[31mred\u202e evil\n"
    out = render([diag(1, 5, 1, 10, message="bad \x1b[2J id\nsecond line")], documents={"plan.yaml": doc(text)})
    assert "\x1b" not in out
    assert "\u202e" not in out
    assert "␛[31mred<U+202E> evil" in out
    assert "bad ␛[2J id second line" in out


def test_multi_line_span_marks_the_first_line_and_says_so():
    text = "root:\n  tasks:\n    - id: a\n      kind: foo\n      objective: x\nafter: 1\n"
    # A block mapping (the task) from 3:7 ending at the start of line 6: through line 5.
    out = render([diag(3, 7, 6, 1)], documents={"plan.yaml": doc(text)})
    source, markers = caret_line(out, "- id: a")
    assert marked(source, markers) == "id: a"
    assert markers.endswith("(through line 5)")
    # A block that ends inside its last line says that line.
    out = render([diag(3, 7, 5, 19)], documents={"plan.yaml": doc(text)})
    assert caret_line(out, "- id: a")[1].endswith("(through line 5)")
    # Ending at column 1 of the next line is a one-line span: no "through".
    out = render([diag(4, 7, 5, 1)], documents={"plan.yaml": doc(text)})
    source, markers = caret_line(out, "kind: foo")
    assert marked(source, markers) == "kind: foo"
    assert "through" not in markers


def test_empty_span_and_position_past_the_end_get_one_caret():
    text = "version: 1\nroot: {\n"
    out = render([diag(2, 8, 2, 8, code="PLAN_SYNTAX")], documents={"plan.yaml": doc(text)})
    source, markers = caret_line(out, "root: {")
    assert markers.split("| ", 1)[1] == "       ^"
    # The end of the stream: one line past the text.
    out = render([diag(3, 1, 3, 1, code="PLAN_SYNTAX")], documents={"plan.yaml": doc(text)})
    assert out.splitlines()[3:5] == ["3 |", "  | ^"]


def test_long_lines_are_cut_around_the_span():
    text = '{"a": ' + ", ".join(f'"k{i}": {i}' for i in range(2000)) + ', "needle": true}'
    column = text.index('"needle"') + 1
    out = render([diag(1, column, 1, column + 8)], documents={"plan.yaml": doc(text)})
    source, markers = caret_line(out, "needle")
    assert len(source) < 150
    assert "…" in source
    assert marked(source, markers) == '"needle"'


def test_related_notes_show_their_source_and_help_comes_last():
    text = "tasks:\n  - id: fetch\n  - id: other\n  - id: fetch\n"
    d = diag(
        4,
        9,
        4,
        14,
        code="TASK_ID_DUPLICATE",
        message="task ID `fetch` is declared twice",
        related=(Related("the first declaration", Location("plan.yaml", "/tasks/0/id", 2, 9, 2, 14)),),
        hint="rename one of the tasks",
    )
    out = render([d], documents={"plan.yaml": doc(text)})
    assert out.splitlines()[:11] == [
        "error[TASK_ID_DUPLICATE]: task ID `fetch` is declared twice",
        " --> plan.yaml:4:9",
        "  |",
        "4 |   - id: fetch",
        "  |         ^^^^^",
        "  = note: the first declaration at plan.yaml:2:9",
        "  |",
        "2 |   - id: fetch",
        "  |         -----",
        "  = help: rename one of the tasks",
        "",
    ]


def test_related_in_an_unread_file_is_a_note_without_source():
    d = diag(
        1,
        1,
        1,
        2,
        related=(Related("the port is declared here", Location("catalog.yaml", "/x", 40, 13, 40, 20)),),
    )
    out = render([d], documents={"plan.yaml": doc("x\n")})
    assert "  = note: the port is declared here at catalog.yaml:40:13" in out.splitlines()


def test_internal_errors_show_a_source_line_only_when_located_at_a_node():
    documents = {"plan.yaml": doc("a: 1\nb: 2\n")}
    out = render([diag(1, 1, 1, 1, code="COMPILER_INTERNAL", message="boom", pointer="")], documents=documents)
    assert "a: 1" not in out
    out = render([diag(2, 4, 2, 5, code="COMPILER_INTERNAL", message="boom", pointer="/b")], documents=documents)
    assert "2 | b: 2" in out


def test_output_is_sorted_and_deduplicated():
    a = diag(5, 1, 5, 2, message="second", file="b.yaml")
    b = diag(2, 1, 2, 2, message="first", file="b.yaml")
    c = diag(9, 1, 9, 2, message="zeroth", file="a.yaml")
    out = render([a, b, c, a], files=2)
    headers = [line for line in out.splitlines() if line.startswith("error[")]
    assert headers == ["error[TASK_ID_INVALID]: zeroth", "error[TASK_ID_INVALID]: first", "error[TASK_ID_INVALID]: second"]
    assert out.splitlines()[-1] == "error: 3 errors in 2 files"


def test_summary_lines():
    warning = diag(1, 1, 1, 2, severity=Severity.WARNING)
    assert summary([], files=1) == "ok: 1 plan checked"
    assert summary([], files=2) == "ok: 2 plans checked"
    assert summary([warning], files=2) == "ok: 2 plans checked, 1 warning"
    assert summary([diag(1, 1, 1, 2), warning], files=3) == "error: 1 error, 1 warning in 1 file"
    assert summary([], files=1, unreadable=1) == "error: 1 file could not be read; 1 plan checked"
    assert summary([], files=1, noun="workflow") == "ok: 1 workflow checked"


def test_warning_header():
    out = render([diag(1, 1, 1, 2, severity=Severity.WARNING, message="unused")], files=1)
    assert out.startswith("warning[TASK_ID_INVALID]: unused\n")


def test_colour_only_when_asked_and_identical_text_without_escapes():
    d = diag(4, 11, 4, 19, hint="h", related=(Related("r", Location("plan.yaml", "/y", 2, 1, 2, 5)),))
    documents = {"plan.yaml": doc(SOURCE)}
    plain = render([d], documents=documents, files=1)
    coloured = render([d], documents=documents, files=1, color=True)
    assert "\x1b[" not in plain
    assert "\x1b[1;31merror[TASK_ID_INVALID]\x1b[0m" in coloured
    assert ANSI.sub("", coloured) == plain


def test_deterministic():
    ds = [diag(i % 4 + 1, 1, i % 4 + 1, 3, message=f"m{i}") for i in range(20)]
    documents = {"plan.yaml": doc(SOURCE)}
    assert render(ds, documents=documents) == render(list(reversed(ds)), documents=documents)
