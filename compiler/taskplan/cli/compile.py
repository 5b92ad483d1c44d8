"""`taskplan compile PLAN [--catalog FILE]... [-o OUT] [--check] [--auto] [--choose CHOICE=ALT]... [--ignore CODE]...`

Runs every pass and writes the workflow YAML, validated before it is written,
atomically (a failed compile leaves OUT as it was). Where it goes:

- `-o FILE`: that file (flags win);
- no `-o`, with `output-dir` in [tool.taskplan]: the plan's workflow name
  (`workflow-name`, default `<stem>.workflow.yaml`) in that directory, created
  when missing;
- no `-o` and no `output-dir`, or `-o -`: stdout (diagnostics go to stderr).

`--check` is the CI gate: it compiles, compares with the existing OUT and fails
without writing when OUT is missing or would change, as `taskplan gate` does for
many plans: the diff and the command that recompiles OUT (this one's catalogs,
`--auto` and `--choose`, shell-quoted) on stderr, and the stale workflow in every
`--format` (a `github` annotation; `stale` in `json` and `sarif`: diagnostics/stale.py).
OUT is never one of the command's inputs (the plan, a catalog, the project
configuration; also through a symlink or a hard link): bad usage. The configured `limits`
apply; a workflow larger than `max-workflow-bytes` is refused (PLAN_LIMIT), so
that `taskplan validate` accepts whatever compile writes.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import click

from taskplan import api
from taskplan.cli._common import (
    EXIT_ERRORS,
    EXIT_OK,
    EXIT_USAGE,
    InputFiles,
    color_option,
    compile_command,
    emit,
    format_option,
    guard,
    ignore_option,
    refuse_overwriting_inputs,
    report_unreadable,
    stale_message,
    write,
)
from taskplan.diagnostics.stale import StaleWorkflow

if TYPE_CHECKING:
    from taskplan.project import ProjectConfig


def _parse_choose(values: tuple[str, ...]) -> dict[str, str]:
    out: dict[str, str] = {}
    for value in values:
        choice, sep, alt = value.partition("=")
        if not sep or not choice or not alt:
            raise click.BadParameter(f"expected CHOICE=ALTERNATIVE, got {value!r}", param_hint="--choose")
        if out.get(choice, alt) != alt:
            raise click.BadParameter(f"choice {choice!r} selected twice", param_hint="--choose")
        out[choice] = alt
    return out


def compile_options(command):
    """The options every command that compiles a plan takes: --catalog, --auto, --choose, --ignore."""
    command = ignore_option()(command)
    command = click.option("--choose", multiple=True, metavar="CHOICE=ALT", help="Select an alternative of a choice (repeatable).")(command)
    command = click.option("--auto", is_flag=True, help="Take the recommended alternative of every choice that has no selection.")(command)
    return click.option(
        "--catalog",
        "catalogs",
        multiple=True,
        metavar="FILE",
        help="A capability catalog (repeatable). Default: `catalogs` of [tool.taskplan] in the nearest pyproject.toml.",
    )(command)


def load_project(plan: str) -> tuple["ProjectConfig", list]:
    """The [tool.taskplan] settings for `plan`, and the CONFIG_INVALID diagnostics."""
    from taskplan.diagnostics import Diagnostics
    from taskplan.project import config_start_dir, load_project_config

    config = Diagnostics()
    project = load_project_config(config_start_dir((plan,)), config)
    return project, config.sorted()


def run_compile(
    plan: str,
    catalogs: tuple[str, ...],
    choose: tuple[str, ...],
    auto: bool,
    color: str,
    ignore: tuple[str, ...] = (),
    project: "tuple[ProjectConfig, list] | None" = None,
) -> tuple[api.CompileResult, list, int]:
    """Compile `plan` with the configured catalogs and limits (`project`: the settings
    and their problems, as load_project gives them; read here when not given);
    report unreadable files and bad selections on stderr. Returns the result, every
    diagnostic (configuration's included, silenced warnings dropped, sorted) and the
    exit code so far."""
    from taskplan.diagnostics import Diagnostics
    from taskplan.project import silence

    selections = _parse_choose(choose)
    settings, config = project if project is not None else load_project(plan)
    result = api.compile_plan(
        plan, catalogs=settings.catalog_paths(catalogs), choose=selections, auto=auto, limits=settings.limits
    )
    diagnostics = Diagnostics()
    diagnostics.extend(config)
    diagnostics.extend(result.diagnostics)
    report_unreadable(result.input_errors, color)
    for message in result.usage_errors:
        write(f"error: {message}\n", err=True)
    code = max(result.exit_code, EXIT_ERRORS if any(d.is_error for d in config) else EXIT_OK)
    return result, silence(diagnostics.sorted(), settings.silenced(ignore)), code


def write_file(output: str, text: str, done: str, *, status_to_stderr: bool = False, make_dir: bool = False) -> int:
    """Write `text` to `output` atomically (never half a file, never outside `output`);
    with `make_dir`, its directory is created first when missing."""
    from taskplan.workflow.emit import write_atomic

    if os.path.isdir(output):
        write(f"error: cannot write {output}: is a directory\n", err=True)
        return EXIT_USAGE
    try:
        if make_dir:
            os.makedirs(os.path.dirname(output) or ".", exist_ok=True)
        write_atomic(output, text)
    except OSError as exc:
        write(f"error: cannot write {output}: {exc.strerror or exc}\n", err=True)
        return EXIT_USAGE
    write(f"ok: {done} {output}\n", err=status_to_stderr)
    return EXIT_OK


@click.command("compile")
@click.argument("plan", metavar="PLAN")
@compile_options
@click.option(
    "-o",
    "--output",
    metavar="OUT",
    help="Where to write the workflow YAML (`-`: stdout). "
    "Default: the plan's workflow in `output-dir` of [tool.taskplan], else stdout.",
)
@click.option("--check", "check_only", is_flag=True, help="Fail (without writing) when OUT is missing or would change.")
@format_option()
@color_option()
@guard
def compile_(
    plan: str,
    catalogs: tuple[str, ...],
    output: str | None,
    check_only: bool,
    auto: bool,
    choose: tuple[str, ...],
    ignore: tuple[str, ...],
    fmt: str,
    color: str,
) -> int:
    """Compile a TaskPlan to validated, executable workflow YAML."""
    from taskplan.project import workflow_path

    project = load_project(plan)
    settings = project[0]
    configured = output is None and settings.output_dir is not None  # flags win
    if configured:
        output = workflow_path(plan, settings)
    to_stdout = output in (None, "-")
    if check_only and to_stdout:
        raise click.UsageError(
            "--check compares with an existing file: give it with -o OUT (or set output-dir in [tool.taskplan])"
        )
    if not to_stdout:
        assert output is not None
        refuse_overwriting_inputs(
            output, input_files(plan, settings, catalogs), "the workflow", "choose another -o or workflow-name"
        )
    result, findings, code = run_compile(plan, catalogs, choose, auto, color, ignore, project)
    failed = result.yaml is None or code != EXIT_OK
    stale: list[StaleWorkflow] | None = None
    verdict = None
    if check_only:
        stale = []
        if not failed:
            from taskplan.cli.gate import judge, read_committed

            assert output is not None and result.yaml is not None
            committed, problem = read_committed(output)
            verdict = judge(plan, output, result.yaml, committed, problem)
            if verdict.state in ("stale", "missing"):
                command = compile_command(
                    plan, catalogs=catalogs, auto=auto, choose=_parse_choose(choose),
                    output=None if configured else output,
                )
                stale.append(
                    StaleWorkflow(plan, output, verdict.state, command, stale_message(verdict.state, output, command))
                )
    if findings or failed or (fmt != "text" and not to_stdout):
        # Diagnostics share stdout only when the YAML does not go there; a machine
        # format always gets its (maybe empty) report.
        emit(findings, fmt=fmt, color=color, documents=result.documents, files=1,
             unreadable=len(result.input_errors), stale=stale, err=to_stdout)
    if failed:
        return code or EXIT_ERRORS
    assert result.yaml is not None
    if to_stdout:
        write(result.yaml)
        return EXIT_OK
    assert output is not None
    # Machine-readable formats keep stdout for their document: status lines go to stderr.
    status_to_stderr = fmt != "text"
    if verdict is not None:
        if verdict.state == "unreadable":
            write(f"error: cannot read {output}: {verdict.detail}\n", err=True)
            return EXIT_USAGE
        if verdict.state == "ok":
            write(f"ok: {output} is up to date\n", err=status_to_stderr)
            return EXIT_OK
        assert stale
        if verdict.state == "stale":
            write(verdict.detail, err=True)
        write(f"error: {stale[0].message}\n", err=True)
        return EXIT_ERRORS
    return write_file(output, result.yaml, "compiled to", status_to_stderr=status_to_stderr, make_dir=configured)


def input_files(plan: str, settings: "ProjectConfig", catalogs: tuple[str, ...] = ()) -> InputFiles:
    """What compiling `plan` reads: the plan, its catalogs (given or configured) and the
    project configuration."""
    inputs = InputFiles([(plan, "the plan itself")])
    for catalog in settings.catalog_paths(catalogs):
        inputs.add(catalog, f"the catalog {os.fspath(catalog)}")
    if settings.path is not None:
        inputs.add(settings.path, f"the project configuration {os.fspath(settings.path)}")
    return inputs
