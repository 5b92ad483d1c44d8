"""Hostile input, end to end: every case goes through the whole `check` pipeline (and
some through the real command line) in a child process with a generous time limit,
and must give located diagnostics (every line and column inside the file) with exit
code 1, or 2 when the input cannot be read at all, or 0 where it is fine.

The readers' own unit tests (tests/test_read_*.py) cover the same refusals at the
reader; here the point is that nothing after the reader breaks, hangs, or blows up
on what the reader lets through, and that the limits hold for whole plans."""

from __future__ import annotations

import json
import multiprocessing
import os
import stat
import subprocess
import sys
import traceback
from pathlib import Path

import pytest

if str(Path(__file__).resolve().parent) not in sys.path:  # tests/faults, whatever pytest's import mode
    sys.path.insert(0, str(Path(__file__).resolve().parent))
from faults.core import location_problems  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 30  # seconds: a hang guard, not a performance target
MIB = 1024 * 1024

HEAD = "version: 1\nroot:\n  tasks:\n"


def task(task_id: str = "greet", value: str = '{kind: string, text: "hello"}', objective: str = "Say hello") -> str:
    return (f"    - id: {task_id}\n      kind: value\n      objective: {json.dumps(objective, ensure_ascii=False)}\n"
            f"      outputs:\n        - name: text\n          value: {value}\n")


def read(*task_ids: str) -> str:
    """Root outputs reading each task's `text` whole, so that a plan of such tasks checks
    without any diagnostic (an output nothing reads is a warning, TASK_OUTPUT_UNUSED)."""
    return "  outputs:\n" + "".join(f"    - {{name: {t}, value: {{kind: output, source: {t}, port: null}}}}\n" for t in task_ids)


# ------------------------------------------------------------------ the guard


@pytest.fixture(scope="module", autouse=True)
def _warm():
    """Import and warm the pipeline once in this process, so that each forked child
    starts with it loaded (the child's time is then the case's own)."""
    from click.testing import CliRunner  # noqa: F401

    import taskplan.cli.check  # noqa: F401
    from taskplan.api import check_plan

    check_plan("warm.taskplan.yaml", text=(HEAD + task()).encode())


def _child(conn, path, data, catalogs, cli):
    try:
        if cli:
            from click.testing import CliRunner

            from taskplan.cli import main

            result = CliRunner().invoke(main, ["check", path, "--format", "json", *sum((["--catalog", c] for c in catalogs), [])])
            report = json.loads(result.stdout) if result.stdout.strip().startswith("{") else {"diagnostics": []}
            conn.send({"exit": result.exit_code, "diagnostics": report["diagnostics"], "problems": [],
                       "stderr": result.stderr, "text": None})
            return
        from taskplan.api import check_plan

        result = check_plan(path, catalogs=catalogs, text=data)
        texts = {p: d.text for p, d in result.documents.items()}
        conn.send({
            "exit": result.exit_code,
            "diagnostics": [d.to_json() for d in result.diagnostics],
            "problems": location_problems(result.diagnostics, texts),
            "input_errors": [e.reason for e in result.input_errors],
            "stderr": "",
        })
    except BaseException:  # noqa: BLE001 - reported to the parent
        conn.send({"raised": traceback.format_exc()})
    finally:
        conn.close()


def check(data: bytes | None, path: str = "hostile.taskplan.yaml", *, catalogs=(), cli: bool = False) -> dict:
    """check_plan (or `taskplan check --format json`) in a forked child, killed after
    TIMEOUT seconds: the result's exit code, diagnostics (JSON) and location problems."""
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    process = ctx.Process(target=_child, args=(child, path, data, list(catalogs), cli))
    process.start()
    child.close()
    try:
        if not parent.poll(TIMEOUT):
            pytest.fail(f"checking {path} did not finish within {TIMEOUT} s (a hang)")
        out = parent.recv()
    finally:
        if process.is_alive():
            process.kill()
        process.join()
    assert "raised" not in out, out.get("raised")
    codes = [d["code"] for d in out["diagnostics"]]
    assert "COMPILER_INTERNAL" not in codes, out["diagnostics"]
    assert not out["problems"], out["problems"]
    return out


def codes(out: dict) -> list[str]:
    return [d["code"] for d in out["diagnostics"]]


def at(out: dict) -> list[tuple]:
    return [(d["code"], d["location"]["pointer"], d["location"]["line"], d["location"]["column"]) for d in out["diagnostics"]]


# ------------------------------------------------------------------ YAML bombs


def test_a_billion_laughs_is_never_expanded():
    lines = ['version: 1', 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for prev, name in zip("abcdefghi", "bcdefghij"):
        lines.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 10) + "]")
    text = "\n".join(lines) + "\nroot: {tasks: [{id: t, kind: value, objective: O, outputs: [{name: x, value: *j}]}]}\n"
    out = check(text.encode())
    assert out["exit"] == 1
    assert set(codes(out)) == {"PLAN_SYNTAX"}
    assert 10 <= len(codes(out)) <= 100  # every anchor and alias up to the cap, never an expansion


def test_a_merge_key_bomb_is_refused():
    text = HEAD + task() + "base: &base {kind: string, text: x}\nother:\n  <<: *base\n"
    out = check(text.encode())
    assert out["exit"] == 1 and set(codes(out)) == {"PLAN_SYNTAX"}


# ------------------------------------------------------------------ depth


@pytest.mark.parametrize(
    ("name", "make"),
    [
        ("yaml-flow", lambda n: HEAD + task(value="[" * n + "]" * n)),
        ("yaml-flow-maps", lambda n: HEAD + task(value="{a: " * n + "x" + "}" * n)),
        # block indentation grows with depth: 300 levels (past the limit) keep the text small
        ("yaml-block", lambda n: HEAD + task(value="\n" + "".join("  " * (6 + i) + "-\n" for i in range(300)))),
        ("yaml-compact", lambda n: HEAD + task(value="\n            " + "- " * n + "x")),
        ("json-arrays", lambda n: '{"version": 1, "root": {"tasks": [' + "[" * n + "]" * n + "]}}"),
        ("json-objects", lambda n: '{"version": 1, "root": ' + '{"a": ' * n + "1" + "}" * n + "}"),
    ],
)
def test_10000_deep_nesting_is_a_located_limit(name, make):
    path = "deep.taskplan.json" if name.startswith("json") else "deep.taskplan.yaml"
    out = check(make(10_000).encode(), path)
    assert out["exit"] == 1
    assert codes(out) == ["PLAN_LIMIT"], out["diagnostics"]
    pointer = out["diagnostics"][0]["location"]["pointer"]
    assert pointer.count("/") == 256, pointer  # the first node past the limit


def test_65_deep_values_are_one_value_error():
    value = "{kind: null}"
    for _ in range(65):
        value = "{kind: array, items: [" + value + "]}"
    out = check((HEAD + task(value=value)).encode())
    assert out["exit"] == 1
    assert codes(out) == ["TASK_VALUE_INVALID"]
    assert out["diagnostics"][0]["location"]["pointer"] == "/root/tasks/0/outputs/0/value" + "/items/0" * 64


def test_250_deep_values_within_the_readers_limit_are_one_value_error():
    value = "{kind: null}"
    for _ in range(120):  # two levels of the document per value: 240 deep in all
        value = "{kind: array, items: [" + value + "]}"
    out = check((HEAD + task(value=value)).encode())
    assert codes(out) == ["TASK_VALUE_INVALID"]


# ------------------------------------------------------------------ size


def test_a_file_over_16_mib_is_a_limit_at_the_start(tmp_path):
    big = tmp_path / "big.taskplan.yaml"
    with open(big, "wb") as handle:
        handle.write(HEAD.encode() + task().encode())
        filler = b"# " + b"x" * 1022 + b"\n"
        for _ in range(17 * 1024):
            handle.write(filler)
    assert big.stat().st_size > 16 * MIB
    out = check(None, str(big))
    assert out["exit"] == 1
    assert at(out) == [("PLAN_LIMIT", "", 1, 1)]


def test_a_100_mb_file_is_refused_without_reading_it_all(tmp_path):
    """A sparse 100 MB file: only the first 16 MiB + 1 byte are read."""
    big = tmp_path / "huge.taskplan.json"
    with open(big, "wb") as handle:
        handle.write(b'{"version": 1, "root": {"tasks": []}, "pad": "')
        handle.truncate(100 * 1000 * 1000)
    out = check(None, str(big), cli=True)
    assert out["exit"] == 1
    assert [(d["code"], d["location"]["line"]) for d in out["diagnostics"]] == [("PLAN_LIMIT", 1)]


def test_a_plan_just_under_the_size_limit_is_read(tmp_path):
    """~15 MiB of comments around a valid plan: read and checked clean."""
    big = tmp_path / "padded.taskplan.yaml"
    with open(big, "wb") as handle:
        handle.write(HEAD.encode() + task().encode() + read("greet").encode())
        for _ in range(15 * 1024):
            handle.write(b"# " + b"y" * 1022 + b"\n")
    out = check(None, str(big))
    assert out["exit"] == 0 and out["diagnostics"] == []


# ------------------------------------------------------------------ long lines and strings


def test_a_string_over_the_scalar_limit_is_located():
    out = check((HEAD + task(objective="x" * (MIB + 1))).encode())
    assert at(out) == [("PLAN_LIMIT", "/root/tasks/0/objective", 6, 18)]


def test_a_long_line_locates_what_follows_it_in_code_points():
    """A one-line JSON plan with a 1,000,000-character objective of two-byte characters,
    then an unknown field: the column counts code points."""
    objective = "\u00e9" * 1_000_000
    prefix = '{"version": 1, "root": {"tasks": [{"id": "t", "kind": "value", "objective": "' + objective + '", '
    text = prefix + '"bogus": 1, "outputs": []}]}}\n'
    out = check(text.encode(), "long.taskplan.json")
    assert at(out) == [("PLAN_FIELD_UNKNOWN", "/root/tasks/0/bogus", 1, len(prefix) + 1)]


def test_many_long_lines_check_clean():
    tasks = "".join(task(f"t{i}", objective="z" * 50_000) for i in range(100))
    out = check((HEAD + tasks + read(*(f"t{i}" for i in range(100)))).encode())
    assert out["exit"] == 0 and out["diagnostics"] == []


# ------------------------------------------------------------------ numbers


@pytest.mark.parametrize(
    ("written", "code"),
    [(".nan", "PLAN_FIELD_TYPE"), (".inf", "PLAN_FIELD_TYPE"), ("-.Inf", "PLAN_FIELD_TYPE"),
     ("1e400", "PLAN_LIMIT"), ("9" * 5000, "PLAN_LIMIT"), ("18446744073709551616", "TASK_VALUE_INVALID"),
     ("-9007199254740992", "TASK_VALUE_INVALID"), ("9007199254740991", None)],
)
def test_nan_infinity_and_huge_numbers_in_yaml(written, code):
    out = check((HEAD + task(value="{kind: number, number: " + written + "}") + read("greet")).encode())
    if code is None:
        assert out["exit"] == 0 and out["diagnostics"] == []
        return
    assert out["exit"] == 1
    assert [(c, p) for c, p, _, _ in at(out)] == [(code, "/root/tasks/0/outputs/0/value/number")]
    assert out["diagnostics"][0]["location"]["line"] == 9


@pytest.mark.parametrize("written", ["NaN", "Infinity", "-Infinity", "1e400", "9" * 5000])
def test_nan_infinity_and_huge_numbers_in_json(written):
    text = ('{"version": 1, "root": {"tasks": [{"id": "t", "kind": "value", "objective": "O",\n'
            '  "outputs": [{"name": "n", "value": {"kind": "number", "number": ' + written + '}}]}]}}\n')
    out = check(text.encode(), "numbers.taskplan.json")
    assert out["exit"] == 1
    expected = "PLAN_LIMIT" if written[0] in "19" else "PLAN_SYNTAX"
    assert codes(out) == [expected]
    line = text.splitlines()[1]
    assert (out["diagnostics"][0]["location"]["line"], out["diagnostics"][0]["location"]["column"]) == (
        2, line.index(written) + 1)


def test_huge_integers_in_bounds():
    text = (HEAD + "    - id: each\n      kind: foreach\n      objective: Loop\n"
            "      items: {kind: array, items: []}\n      maxItems: 18446744073709551616\n"
            "      body: {}\n")
    out = check(text.encode())
    assert at(out) == [("TASK_ITERATION_BOUND", "/root/tasks/0/maxItems", 8, 17)]


# ------------------------------------------------------------------ encodings


PLAN_TEXT = (HEAD + task(objective="caf\u00e9 cr\u00e8me")).encode()


@pytest.mark.parametrize(
    ("at_byte", "bad"),
    [(40, b"\xff"), (PLAN_TEXT.index(b"\xc3\xa9"), b"\xe9"), (len(PLAN_TEXT), b"\xed\xa0\x80"),
     (PLAN_TEXT.index(b"cr"), b"\xc0\x80"), (PLAN_TEXT.index(b"\xc3\xa8") + 2, b"\xf0\x9f")],
    ids=["stray-0xff", "latin-1", "encoded-surrogate", "overlong-nul", "cut-short"],
)
def test_invalid_utf8_is_located_at_the_byte(at_byte, bad):
    data = PLAN_TEXT[:at_byte] + bad + PLAN_TEXT[at_byte:]
    prefix = PLAN_TEXT[:at_byte].decode("utf-8")
    line = prefix.count("\n") + 1
    column = len(prefix.rsplit("\n", 1)[-1]) + 1
    out = check(data)
    assert out["exit"] == 1
    assert at(out) == [("PLAN_SYNTAX", "", line, column)]


def test_a_utf8_byte_order_mark_is_accepted_without_shifting_columns():
    out = check(b"\xef\xbb\xbf" + (HEAD + task(value='{kind: strin, text: "hello"}')).encode())
    assert at(out) == [("TASK_VALUE_INVALID", "/root/tasks/0/outputs/0/value/kind", 9, 25)]


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-be", "utf-32", "utf-32-be"])
@pytest.mark.parametrize("path", ["bom.taskplan.yaml", "bom.taskplan.json"])
def test_utf16_and_utf32_are_refused_at_the_start(codec, path):
    bom = {"utf-16-be": "\ufeff", "utf-32-be": "\ufeff"}.get(codec, "")
    out = check((bom + HEAD + task()).encode(codec), path)
    assert out["exit"] == 1
    assert at(out) == [("PLAN_SYNTAX", "", 1, 1)]
    assert "UTF" in out["diagnostics"][0]["message"]


# ------------------------------------------------------------------ duplicate keys


@pytest.mark.parametrize("fmt", ["yaml", "json"])
def test_ten_thousand_duplicate_keys_stop_at_the_cap(fmt):
    """Reading stops at the cap of 100 diagnostics; the document is then refused (no
    'a TaskPlan must be an object, got null' from a shape pass given no tree)."""
    if fmt == "yaml":
        text = HEAD + task() + "".join(f"name: n{i}\n" for i in range(10_000))
    else:
        text = '{"version": 1, "root": {"tasks": []},\n' + ",\n".join(f'"name": "n{i}"' for i in range(10_000)) + "}"
    out = check(text.encode(), f"dups.taskplan.{fmt}")
    assert out["exit"] == 1
    assert set(codes(out)) == {"PLAN_DUPLICATE_KEY"} and len(codes(out)) == 100


def test_duplicate_keys_in_json_are_located():
    text = '{"version": 1,\n "version": 1, "root": {"tasks": []}}\n'
    out = check(text.encode(), "dup.taskplan.json")
    assert at(out) == [("PLAN_DUPLICATE_KEY", "/version", 2, 2)]


# ------------------------------------------------------------------ IDs


@pytest.mark.parametrize("char", ["\x07", "\x00", "\x1b", "\u202e", "\u200b", "\t"])
def test_control_and_invisible_characters_in_ids_are_invalid_ids(char):
    """Written escaped (so the reader accepts the text), the ID is read and refused by the
    lexical rule; the text rendering never prints the raw character."""
    escaped = json.dumps(f"fetch{char}pr")
    text = HEAD + task(task_id=escaped)
    out = check(text.encode())
    assert at(out) == [("TASK_ID_INVALID", "/root/tasks/0/id", 4, 11)]
    from taskplan.api import check_plan
    from taskplan.diagnostics.render_text import render

    result = check_plan("ids.taskplan.yaml", text=text.encode())
    rendered = render(result.diagnostics, documents=result.documents, files=1, color=False)
    assert char not in rendered or char == "\t"


@pytest.mark.parametrize("char", ["\x07", "\x1b", "\x7f"])
def test_raw_control_characters_are_refused_where_they_are(char):
    text = HEAD + task(task_id="fetch" + char + "pr")
    out = check(text.encode())
    assert out["exit"] == 1
    assert at(out)[0][:1] == ("PLAN_SYNTAX",) and at(out)[0][2:] == (4, 16)


def test_a_raw_control_character_in_json_is_refused():
    text = '{"version": 1, "root": {"tasks": [{"id": "fetch\x07pr"}]}}'
    out = check(text.encode(), "ctl.taskplan.json")
    assert out["exit"] == 1 and codes(out) == ["PLAN_SYNTAX"]
    assert out["diagnostics"][0]["location"]["column"] == 48


CYRILLIC_A = "\u0430"


def test_a_lookalike_id_is_invalid_and_its_own_references_say_nothing_more():
    lookalike = f"fetch_p{CYRILLIC_A}ge"
    text = HEAD + task(task_id=lookalike) + task("use", value=f"{{kind: output, source: {lookalike}, port: text}}")
    out = check(text.encode())
    assert at(out) == [("TASK_ID_INVALID", "/root/tasks/0/id", 4, 11)]


def test_a_lookalike_reference_is_not_confused_with_the_ascii_id():
    text = HEAD + task("fetch_page") + task("use", value=f"{{kind: output, source: fetch_p{CYRILLIC_A}ge, port: text}}")
    out = check(text.encode())
    assert at(out) == [("TASK_REFERENCE_UNKNOWN", "/root/tasks/1/outputs/0/value/source", 15, 41)]


def test_an_ascii_id_and_its_lookalike_are_two_ids_not_a_duplicate():
    text = HEAD + task("fetch_page") + task(f"fetch_p{CYRILLIC_A}ge")
    out = check(text.encode())
    assert at(out) == [("TASK_ID_INVALID", "/root/tasks/1/id", 10, 11)]


# ------------------------------------------------------------------ counts


def test_50001_tasks_are_one_limit_at_the_first_over(tmp_path):
    tasks = [{"id": f"t{i}", "kind": "value"} for i in range(50_001)]  # counted before anything else is checked
    path = tmp_path / "many.taskplan.json"
    path.write_text(json.dumps({"version": 1, "root": {"tasks": tasks}}), encoding="utf-8")
    out = check(None, str(path))
    assert out["exit"] == 1
    assert [(c, p) for c, p, _, _ in at(out)] == [("PLAN_LIMIT", "/root/tasks/50000")]


# ------------------------------------------------------------------ unreadable inputs


def test_unreadable_inputs_exit_2(tmp_path):
    directory = tmp_path / "plans"
    directory.mkdir()
    for path in (str(directory), str(tmp_path / "missing.taskplan.yaml")):
        out = check(None, path, cli=True)
        assert out["exit"] == 2 and out["diagnostics"] == []
        assert "cannot read" in out["stderr"]


@pytest.mark.skipif(os.geteuid() == 0 if hasattr(os, "geteuid") else True, reason="root reads anything")
def test_a_file_without_read_permission_exits_2(tmp_path):
    path = tmp_path / "secret.taskplan.yaml"
    path.write_text(HEAD + task())
    path.chmod(0)
    out = check(None, str(path), cli=True)
    assert out["exit"] == 2 and "permission denied" in out["stderr"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX named pipes")
def test_a_named_pipe_without_a_writer_does_not_hang(tmp_path):
    """Opening a FIFO for reading blocks until a writer comes: the compiler must not wait."""
    fifo = tmp_path / "pipe.taskplan.yaml"
    os.mkfifo(fifo)
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    out = check(None, str(fifo), cli=True)
    assert out["exit"] in (1, 2)
    catalog = check((HEAD + task()).encode(), catalogs=[str(fifo)], cli=False)
    assert catalog["exit"] in (1, 2)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX named pipes")
def test_a_named_pipe_with_a_writer_is_read(tmp_path):
    """`taskplan check <(generate-plan)`: a pipe with a writer is read as usual."""
    fifo = tmp_path / "gen.taskplan.yaml"
    os.mkfifo(fifo)
    writer = subprocess.Popen(["sh", "-c", f"cat > '{fifo}'"], stdin=subprocess.PIPE)
    try:
        writer.stdin.write((HEAD + task()).encode())
        writer.stdin.close()
        done = subprocess.run([sys.executable, "-m", "taskplan", "check", str(fifo)], capture_output=True,
                              timeout=TIMEOUT, check=False, cwd=ROOT)
    finally:
        writer.kill()
        writer.wait()
    assert done.returncode == 0, done.stdout.decode() + done.stderr.decode()
