"""Data safety of `taskplan compile -o OUT`: the output is written atomically (a
temporary file beside OUT, then a rename), so a compile that fails, raises or is
interrupted leaves the previous OUT exactly as it was and no temporary file behind;
the compiler writes nothing but OUT (and only when the compile succeeds); a symlink
at OUT is replaced, never written through; `--check` never writes; an output that
cannot be written is exit code 2 with a message; OUT is never one of the command's
inputs (plan, catalog, project configuration, MCP tools list; by path, symlink or
hard link), for compile, graph, gate and catalog import-mcp."""

from __future__ import annotations

import errno
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from taskplan.cli import main

ROOT = Path(__file__).resolve().parents[1]
PLAN = ROOT / "examples" / "pr-review.taskplan.yaml"
CATALOG = ROOT / "examples" / "catalog.yaml"
PREVIOUS = "# the previous output\nversion: 1\n"


def compile_(out: Path | str, *extra: str, plan: Path = PLAN):
    result = CliRunner().invoke(main, ["compile", str(plan), "--catalog", str(CATALOG), "--auto", "-o", str(out), *extra])
    return result.exit_code, result.stdout, result.stderr


def listing(directory: Path) -> dict[str, tuple[int, int, str]]:
    """Every entry below `directory`: (size, mtime_ns, kind), without following symlinks."""
    out = {}
    for path in sorted(directory.rglob("*")):
        st = path.lstat()
        kind = "link" if stat.S_ISLNK(st.st_mode) else "dir" if stat.S_ISDIR(st.st_mode) else "file"
        out[path.relative_to(directory).as_posix()] = (st.st_size, st.st_mtime_ns, kind)
    return out


@pytest.fixture
def out_dir(tmp_path: Path) -> Path:
    directory = tmp_path / "out"
    directory.mkdir()
    return directory


@pytest.fixture
def previous(out_dir: Path) -> Path:
    path = out_dir / "pr-review.workflow.yaml"
    path.write_text(PREVIOUS)
    return path


def assert_untouched(path: Path, before: dict) -> None:
    assert path.read_text() == PREVIOUS
    assert listing(path.parent) == before, "a file appeared, disappeared or changed beside the output"


# ------------------------------------------------------------------ atomic replacement


def test_a_successful_compile_renames_a_complete_temporary_file_over_the_output(previous, monkeypatch):
    import taskplan.workflow.emit as emit

    seen = []
    real_replace = os.replace

    def replace(src, dst):
        src, dst = Path(src), Path(dst)
        seen.append((src.parent, src.name, dst, src.read_text()))
        assert previous.read_text() == PREVIOUS, "the output changed before the rename"
        real_replace(src, dst)

    monkeypatch.setattr(emit.os, "replace", replace)
    code, stdout, stderr = compile_(previous)
    assert code == 0, stderr
    [(parent, name, dst, text)] = seen
    assert parent == previous.parent and dst == previous
    assert name.startswith(".pr-review.workflow.yaml.") and name.endswith(".tmp")
    assert text == previous.read_text() and text.startswith("version: 1\n")
    assert sorted(p.name for p in previous.parent.iterdir()) == [previous.name]


def test_a_plan_error_leaves_the_previous_output(tmp_path, previous):
    broken = tmp_path / "broken.taskplan.yaml"
    broken.write_text(PLAN.read_text().replace("port: files}", "port: filez}"))
    before = listing(previous.parent)
    code, stdout, _ = compile_(previous, plan=broken)
    assert code == 1 and "TASK_OUTPUT_UNKNOWN" in stdout
    assert_untouched(previous, before)


def test_an_emit_that_raises_leaves_the_previous_output(previous, monkeypatch):
    import taskplan.workflow.emit as emit

    def boom(data):
        raise RuntimeError("emit failed")

    monkeypatch.setattr(emit, "emit_yaml", boom)
    before = listing(previous.parent)
    code, stdout, _ = compile_(previous)
    assert code == 3 and "COMPILER_INTERNAL" in stdout
    assert_untouched(previous, before)


@pytest.mark.parametrize("where", ["write", "fsync", "chmod", "replace"])
@pytest.mark.parametrize("error", [KeyboardInterrupt, OSError])
def test_an_interruption_or_error_while_writing_leaves_the_previous_output_and_no_temp_file(where, error, previous,
                                                                                            monkeypatch):
    """Ctrl-C (or a disk error) at each step of the write: exit 130 (or 2), the old file
    intact, the temporary file removed."""
    import taskplan.workflow.emit as emit

    def fail(*args, **kwargs):
        raise error(errno.EIO, "injected") if error is OSError else error()

    if where == "write":
        real_fdopen = os.fdopen

        def fdopen(fd, *args, **kwargs):
            handle = real_fdopen(fd, *args, **kwargs)

            class Failing:
                def __enter__(self):
                    return self

                def __exit__(self, *exc):
                    handle.close()
                    return False

                def write(self, data):
                    handle.write(data[: len(data) // 2])  # half written, then interrupted
                    fail()

            return Failing()

        monkeypatch.setattr(emit.os, "fdopen", fdopen)
    else:
        monkeypatch.setattr(emit.os, where, fail)
    before = listing(previous.parent)
    code, _, stderr = compile_(previous)
    assert code == (130 if error is KeyboardInterrupt else 2), stderr
    assert "Traceback" not in stderr
    assert_untouched(previous, before)


def test_an_existing_outputs_permissions_are_kept(previous):
    previous.chmod(0o640)
    assert compile_(previous)[0] == 0
    assert stat.S_IMODE(previous.stat().st_mode) == 0o640


# ------------------------------------------------------------------ nothing but OUT


def test_compile_writes_only_the_output_in_a_real_process(tmp_path):
    """A real process, its working directory empty: afterwards the plan's directory, the
    working directory and the output directory differ by exactly the output file."""
    plans, cwd, out_dir = tmp_path / "plans", tmp_path / "cwd", tmp_path / "out"
    for d in (plans, cwd, out_dir):
        d.mkdir()
    shutil.copy(PLAN, plans / PLAN.name)
    shutil.copy(CATALOG, plans / "catalog.yaml")
    before = listing(tmp_path)
    out = out_dir / "pr-review.workflow.yaml"
    done = subprocess.run(
        [sys.executable, "-m", "taskplan", "compile", str(plans / PLAN.name), "--catalog", str(plans / "catalog.yaml"),
         "--auto", "-o", str(out)],
        cwd=cwd, capture_output=True, timeout=120, check=False, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    assert done.returncode == 0, done.stderr.decode()
    after = listing(tmp_path)
    assert set(after) - set(before) == {"out/pr-review.workflow.yaml"}
    assert {k: v for k, v in after.items() if k in before and k != "out"} == {k: v for k, v in before.items() if k != "out"}


def test_a_symlink_at_the_output_is_replaced_not_written_through(tmp_path, out_dir):
    elsewhere = tmp_path / "elsewhere.yaml"
    elsewhere.write_text("keep me\n")
    link = out_dir / "pr-review.workflow.yaml"
    link.symlink_to(elsewhere)
    assert compile_(link)[0] == 0
    assert not link.is_symlink() and link.read_text().startswith("version: 1\n")
    assert elsewhere.read_text() == "keep me\n"


def test_a_dangling_symlink_at_the_output_is_replaced_and_its_target_not_created(tmp_path, out_dir):
    link = out_dir / "pr-review.workflow.yaml"
    link.symlink_to(tmp_path / "nowhere" / "target.yaml")
    assert compile_(link)[0] == 0
    assert not link.is_symlink() and link.is_file()
    assert not (tmp_path / "nowhere").exists()


def test_a_symlink_to_a_directory_is_refused(tmp_path, out_dir):
    target = tmp_path / "somedir"
    target.mkdir()
    link = out_dir / "out.yaml"
    link.symlink_to(target)
    code, _, stderr = compile_(link)
    assert code == 2 and "cannot write" in stderr
    assert list(target.iterdir()) == [] and link.is_symlink()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX named pipes")
def test_a_named_pipe_at_the_output_is_refused_not_replaced(out_dir):
    """A special file at OUT is not a file to replace (as root, `-o /dev/null` would
    otherwise replace the device with a regular file)."""
    fifo = out_dir / "pipe.yaml"
    os.mkfifo(fifo)
    code, _, stderr = compile_(fifo)
    assert code == 2 and "cannot write" in stderr and "not a regular file" in stderr
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert sorted(p.name for p in out_dir.iterdir()) == ["pipe.yaml"]


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="creating a device node needs root")
def test_a_device_node_at_the_output_is_refused_not_replaced(out_dir):
    null = out_dir / "null"
    try:
        os.mknod(null, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except OSError as exc:  # a container without CAP_MKNOD
        pytest.skip(f"cannot create a device node here: {exc}")
    code, _, stderr = compile_(null)
    assert code == 2 and "not a regular file" in stderr
    assert stat.S_ISCHR(null.lstat().st_mode)


# ------------------------------------------------------------------ --check


def test_check_never_writes(previous, monkeypatch):
    import taskplan.workflow.emit as emit

    def no_write(*args, **kwargs):
        raise AssertionError("--check wrote")

    monkeypatch.setattr(emit, "write_atomic", no_write)
    before = listing(previous.parent)
    code, _, stderr = compile_(previous, "--check")  # stale
    assert code == 1 and "is stale" in stderr
    assert_untouched(previous, before)
    missing = previous.parent / "missing.yaml"
    assert compile_(missing, "--check")[0] == 1 and not missing.exists()
    assert listing(previous.parent) == before


def test_check_on_an_up_to_date_output_changes_nothing(previous):
    assert compile_(previous)[0] == 0
    before = listing(previous.parent)
    code, stdout, _ = compile_(previous, "--check")
    assert code == 0 and "up to date" in stdout
    assert listing(previous.parent) == before


# ------------------------------------------------------------------ unwritable


def test_a_read_only_output_directory_is_exit_2_with_a_message(previous, monkeypatch):
    """Simulated (the tests may run as root, who writes anywhere): creating the temporary
    file beside OUT is refused."""
    import taskplan.workflow.emit as emit

    def refuse(*args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(emit.tempfile, "mkstemp", refuse)
    before = listing(previous.parent)
    code, _, stderr = compile_(previous)
    assert code == 2
    assert f"cannot write {previous}: Permission denied" in stderr and "Traceback" not in stderr
    assert_untouched(previous, before)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root writes into read-only directories")
def test_a_really_read_only_output_directory_is_exit_2(previous):
    before = listing(previous.parent)
    previous.parent.chmod(0o555)
    try:
        code, _, stderr = compile_(previous)
    finally:
        previous.parent.chmod(0o755)
    assert code == 2 and "cannot write" in stderr
    assert_untouched(previous, before)


@pytest.mark.parametrize("make", ["missing-dir", "parent-is-a-file", "is-a-directory"])
def test_impossible_output_paths_are_exit_2(tmp_path, make):
    if make == "missing-dir":
        out = tmp_path / "no" / "such" / "dir.yaml"
    elif make == "parent-is-a-file":
        (tmp_path / "file").write_text("x")
        out = tmp_path / "file" / "out.yaml"
    else:
        out = tmp_path
    before = listing(tmp_path)
    code, _, stderr = compile_(out)
    assert code == 2 and "cannot write" in stderr
    assert listing(tmp_path) == before


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX named pipes")
def test_check_against_a_named_pipe_does_not_hang_or_write(out_dir):
    """`--check` reads OUT: a named pipe there (no writer) must not block the compiler."""
    fifo = out_dir / "pipe.yaml"
    os.mkfifo(fifo)
    done = subprocess.run(
        [sys.executable, "-m", "taskplan", "compile", str(PLAN), "--catalog", str(CATALOG), "--auto", "-o", str(fifo),
         "--check"],
        capture_output=True, timeout=60, check=False,
    )
    assert done.returncode in (1, 2), done.stderr.decode()
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert sorted(p.name for p in out_dir.iterdir()) == ["pipe.yaml"]


# ------------------------------------------------------------------ the output is never an input

TOOLS = '{"tools": [{"name": "fetch", "description": "Fetch a URL", ' \
    '"inputSchema": {"type": "object", "properties": {"url": {"type": "string"}}, "required": ["url"]}}]}\n'


@pytest.fixture
def inputs(tmp_path, monkeypatch):
    """A plan, its catalog and an MCP tools list, in the working directory."""
    shutil.copy(PLAN, tmp_path / "pr-review.taskplan.yaml")
    shutil.copy(CATALOG, tmp_path / "catalog.yaml")
    (tmp_path / "tools.json").write_text(TOOLS)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _alias(directory: Path, name: str, how: str) -> str:
    """`name` itself, or a symlink or a hard link to it."""
    if how == "path":
        return name
    alias = directory / f"alias-{how}.yaml"
    if how == "symlink":
        alias.symlink_to(directory / name)
    else:
        os.link(directory / name, alias)
    return alias.name


def _cli(*args: str):
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("how", ["path", "symlink", "hardlink"])
def test_compile_never_overwrites_its_catalog(inputs, how):
    out = _alias(inputs, "catalog.yaml", how)
    before = listing(inputs)
    code, stdout, stderr = _cli("compile", "pr-review.taskplan.yaml", "--catalog", "catalog.yaml", "--auto", "-o", out)
    assert code == 2, stdout + stderr
    assert f"the workflow would overwrite the catalog catalog.yaml ({out})" in stderr
    assert listing(inputs) == before and (inputs / "catalog.yaml").read_bytes() == CATALOG.read_bytes()


@pytest.mark.parametrize("how", ["path", "symlink", "hardlink"])
def test_compile_never_overwrites_the_plan(inputs, how):
    out = _alias(inputs, "pr-review.taskplan.yaml", how)
    before = listing(inputs)
    code, _, stderr = _cli("compile", "pr-review.taskplan.yaml", "--catalog", "catalog.yaml", "--auto", "-o", out)
    assert code == 2 and f"the workflow would overwrite the plan itself ({out})" in stderr
    assert listing(inputs) == before


def test_compile_never_overwrites_a_configured_catalog_or_the_project_configuration(inputs):
    (inputs / "pyproject.toml").write_text('[tool.taskplan]\ncatalogs = ["*.yaml"]\n')
    before = listing(inputs)
    code, _, stderr = _cli("compile", "pr-review.taskplan.yaml", "--auto", "-o", "catalog.yaml")
    assert code == 2 and "the workflow would overwrite the catalog catalog.yaml (catalog.yaml)" in stderr
    code, _, stderr = _cli("compile", "pr-review.taskplan.yaml", "--auto", "-o", "pyproject.toml")
    assert code == 2 and "would overwrite the project configuration" in stderr
    code, _, stderr = _cli("compile", "pr-review.taskplan.yaml", "--auto", "-o", "pyproject.toml", "--check")
    assert code == 2 and "would overwrite the project configuration" in stderr
    assert listing(inputs) == before


def test_graph_never_overwrites_its_catalog(inputs):
    before = listing(inputs)
    code, _, stderr = _cli("graph", "pr-review.taskplan.yaml", "--catalog", "catalog.yaml", "--auto", "-o", "./catalog.yaml")
    assert code == 2 and "the drawing would overwrite the catalog catalog.yaml (./catalog.yaml)" in stderr
    assert listing(inputs) == before


@pytest.mark.parametrize("how", ["path", "symlink", "hardlink"])
def test_import_mcp_never_overwrites_the_tools_list(inputs, how):
    out = _alias(inputs, "tools.json", how)
    before = listing(inputs)
    code, _, stderr = _cli("catalog", "import-mcp", "tools.json", "--source", "f", "-o", out)
    assert code == 2 and f"the catalog would overwrite the tools list itself ({out})" in stderr
    assert listing(inputs) == before and (inputs / "tools.json").read_text() == TOOLS
    # another output is written as before
    assert _cli("catalog", "import-mcp", "tools.json", "--source", "f", "-o", "f.catalog.yaml")[0] == 0


def test_import_mcp_never_overwrites_a_tool_file_of_the_directory_it_reads(inputs):
    tools = inputs / "tools"
    tools.mkdir()
    (tools / "fetch.json").write_text(TOOLS)
    before = listing(inputs)
    code, _, stderr = _cli("catalog", "import-mcp", "tools", "--source", "f", "-o", os.path.join("tools", "fetch.json"))
    assert code == 2 and "the catalog would overwrite the tool file" in stderr
    assert listing(inputs) == before


def test_the_gate_never_writes_a_workflow_over_its_catalog(inputs):
    """`workflow-name = "{stem}.yaml"` makes `catalog.taskplan.yaml`'s workflow `catalog.yaml`."""
    (inputs / "pyproject.toml").write_text('[tool.taskplan]\ncatalogs = ["catalog.yaml"]\nworkflow-name = "{stem}.yaml"\n')
    os.rename(inputs / "pr-review.taskplan.yaml", inputs / "catalog.taskplan.yaml")
    before = listing(inputs)
    code, _, stderr = _cli("gate", "--write", "catalog.taskplan.yaml")
    assert code == 1
    assert "error: catalog.taskplan.yaml: its workflow would overwrite the catalog catalog.yaml (catalog.yaml)" in stderr
    assert listing(inputs) == before and (inputs / "catalog.yaml").read_bytes() == CATALOG.read_bytes()
