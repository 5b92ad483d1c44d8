"""`taskplan gate PATH... [--catalog FILE]... [--write] [--ignore CODE]... [--format text|json|sarif|github]`

The stale-workflow gate for many plans at once (the `taskplan-compile`
pre-commit hook; `taskplan compile PLAN -o OUT --check` is the one-plan form).
Each plan is compiled and compared with its committed workflow, found by the
naming rule (`taskplan.project.workflow_path`): `<stem>.workflow.yaml` (or the
configured `workflow-name`) beside `<stem>.taskplan.yaml` (or `.taskplan.yml`,
`.taskplan.json`), or in `output-dir` when [tool.taskplan] sets one. A
workflow given as PATH stands for its plan (so that a hand-edited compiled
workflow is caught too): the plan beside it, or for a workflow in `output-dir`
the plan it records; a workflow with no plan was written by hand and is skipped.

The choices are decided as they were when the workflow was compiled: the
committed workflow records them (`choices: {tone: {selected: formal, auto: false}}`),
and the gate replays them as `--choose` (for choices the plan does not select
itself) and `--auto`. So `taskplan compile PLAN -o OUT [--choose ...] [--auto]`
run from the repository root and `taskplan gate PLAN` agree.

Output: the plans' diagnostics (as `check` renders them, in `--format`, without
the silenced warnings, and the stale workflows in that format: diagnostics/stale.py),
then one line per stale or missing workflow (with a short diff and the shell-quoted
`taskplan compile` command that rewrites it: the `--catalog`s given here, the
replayed choices; `-o` unless `output-dir` places it) and a summary. A workflow
that would replace one of the gate's inputs (its plan, a catalog, the project
configuration) is an error and never written. With `--write`, stale and missing workflows are
recompiled in place (`output-dir` is created when missing; nothing is written
while the configuration is invalid), and the gate still fails, so that the
change is reviewed and staged. Exit codes: 0 every workflow up to date; 1
errors or a stale/missing workflow; 2 bad usage or an unreadable file; 3 a
compiler failure.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import click

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
    report_unreadable,
    stale_message,
    write,
)
from taskplan.diagnostics.stale import StaleWorkflow
from taskplan.project import PLAN_SUFFIXES, ProjectConfig, is_workflow, plan_for_workflow, workflow_path

__all__ = [
    "PLAN_SUFFIXES",
    "gate",
    "is_workflow",
    "judge",
    "plan_for_workflow",
    "plans_to_gate",
    "read_committed",
    "workflow_path",
]

_DIFF_LINES = 40


# ------------------------------------------------------------------ naming rule
# The rule itself is taskplan.project.workflow_path (and its inverse,
# plan_for_workflow): compile and the gate share it.


def plans_to_gate(paths: Iterable[str], config: ProjectConfig | None = None) -> list[str]:
    """The plans named by `paths` (workflows mapped to their plans), each once, in the
    order first named."""
    out: dict[str, None] = {}
    for path in paths:
        display = os.fspath(path)
        plan = plan_for_workflow(display, config) if is_workflow(display, config) else display
        if plan is not None:
            out.setdefault(plan, None)
    return list(out)


# ----------------------------------------------------------------- the command


@dataclass(slots=True)
class _Verdict:
    plan: str
    workflow: str
    state: str
    """`ok`, `stale`, `missing`, `unreadable` (the committed file), `failed` (the plan does not compile)."""
    detail: str = ""
    """Why the committed file cannot be read; or the diff of a stale one."""
    compiled: str = ""
    """The workflow as compiled now (stale or missing)."""
    auto: bool = False
    choose: dict[str, str] | None = None
    """The choice flags it was compiled with (`--auto`, `--choose tone=formal`)."""


@click.command("gate")
@click.argument("paths", nargs=-1, required=True, metavar="PATH...")
@click.option(
    "--catalog",
    "catalogs",
    multiple=True,
    metavar="FILE",
    help="A capability catalog (repeatable). Default: `catalogs` of [tool.taskplan] in the nearest pyproject.toml.",
)
@click.option("--write", "write_back", is_flag=True, help="Recompile stale or missing workflows in place (still exit 1).")
@ignore_option()
@format_option()
@color_option()
@guard
def gate(
    paths: tuple[str, ...], catalogs: tuple[str, ...], write_back: bool, ignore: tuple[str, ...], fmt: str, color: str
) -> int:
    """Fail when a committed workflow is stale: recompile each plan (or the plan of each
    workflow) and compare with its committed workflow (<stem>.workflow.yaml beside it,
    or as [tool.taskplan] names and places it)."""
    from taskplan import api
    from taskplan.diagnostics import Diagnostics
    from taskplan.project import config_start_dir, load_project_config, silence

    config = Diagnostics()
    project = load_project_config(config_start_dir(paths), config)
    plans = plans_to_gate(paths, project)
    catalog_paths = project.catalog_paths(catalogs)
    loaded = api.load_catalog_set(catalog_paths, limits=project.limits)
    if write_back and config.has_errors:
        write("error: not writing any workflow: the [tool.taskplan] configuration is invalid\n", err=True)
        write_back = False

    diagnostics = Diagnostics()
    diagnostics.extend(config.sorted())
    documents: dict = {}
    unreadable: dict[str, api.UnreadableInput] = {}
    code = EXIT_ERRORS if config.has_errors else EXIT_OK
    verdicts: list[_Verdict] = []
    claimed: dict[str, str] = {}
    checked = 0
    inputs = InputFiles((path, f"the catalog {os.fspath(path)}") for path in catalog_paths)
    if project.path is not None:
        inputs.add(project.path, f"the project configuration {os.fspath(project.path)}")
    for plan in plans:
        target = workflow_path(plan, project)
        key = os.path.normcase(os.path.abspath(target))
        role = InputFiles([(plan, "the plan itself")]).clash(target) or inputs.clash(target)
        if role is not None:
            write(f"error: {plan}: its workflow would overwrite {role} ({target}): change workflow-name\n", err=True)
            code = max(code, EXIT_ERRORS)
            continue
        if claimed.setdefault(key, plan) != plan:
            write(f"error: {claimed[key]} and {plan} both compile to {target}: rename one of them\n", err=True)
            code = max(code, EXIT_ERRORS)
            continue
        committed, problem = read_committed(target)
        result, auto, choose = _compile(api, plan, loaded, committed, project.limits)
        diagnostics.extend(result.diagnostics)
        documents.update(result.documents)
        for error in result.input_errors:
            unreadable.setdefault(error.path, error)
        for message in result.usage_errors:
            write(f"error: {plan}: {message}\n", err=True)
        if result.readable:
            checked += 1
        code = max(code, result.exit_code)
        if result.yaml is None or result.exit_code != EXIT_OK:
            verdicts.append(_Verdict(plan, target, "failed"))
            continue
        verdict = judge(plan, target, result.yaml, committed, problem)
        verdict.auto, verdict.choose = auto, choose
        verdicts.append(verdict)

    stale: list[StaleWorkflow] = []
    reported: list[tuple[_Verdict, StaleWorkflow]] = []
    for verdict in verdicts:
        if verdict.state not in ("stale", "missing"):
            continue
        # The command that writes the same file: the catalogs given here, the recorded
        # choices; no -o when output-dir places it (compile then creates the directory).
        command = compile_command(
            verdict.plan, catalogs=catalogs, auto=verdict.auto, choose=verdict.choose,
            output=None if project.output_dir is not None else verdict.workflow,
        )
        message = stale_message(verdict.state, verdict.workflow, command)
        if write_back:
            message = _write(verdict, make_dir=project.output_dir is not None)
            if message.startswith("cannot"):
                code = max(code, EXIT_USAGE)
        stale.append(StaleWorkflow(verdict.plan, verdict.workflow, verdict.state, command, message))
        reported.append((verdict, stale[-1]))

    report_unreadable(unreadable.values(), color)
    findings = silence(diagnostics.sorted(), project.silenced(ignore))
    if findings or fmt != "text":
        emit(findings, fmt=fmt, color=color, documents=documents, files=checked, unreadable=len(unreadable), stale=stale)

    for verdict in verdicts:
        if verdict.state == "unreadable":
            write(f"error: cannot read {verdict.workflow}: {verdict.detail}\n", err=True)
            code = max(code, EXIT_USAGE)
    for verdict, entry in reported:
        code = max(code, EXIT_ERRORS)
        if verdict.state == "stale":
            write(verdict.detail, err=True)
        fixed = entry.message.startswith("recompiled")
        write(f"{'fixed' if fixed else 'error'}: {entry.message}\n", err=True)

    up_to_date = sum(1 for v in verdicts if v.state == "ok")
    if stale:
        line = f"error: stale or missing: {len(stale)} of {_count(len(verdicts), 'workflow')}"
        if write_back:
            line += " (recompiled: review and stage the change)"
        write(line + "\n", err=True)
    elif code == EXIT_OK:
        write(f"ok: {_count(up_to_date, 'workflow')} up to date\n", err=fmt != "text")
    return code


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def read_committed(path: str) -> tuple[str | None, str]:
    """The committed workflow's text (None when missing or unreadable) and why not."""
    from taskplan.source.read import nonblocking_opener

    try:
        with open(path, encoding="utf-8", opener=nonblocking_opener) as handle:  # a named pipe never blocks
            return handle.read(), ""
    except FileNotFoundError:
        return None, ""
    except IsADirectoryError:
        return None, "is a directory, not a file"
    except UnicodeDecodeError:
        return None, "not UTF-8"
    except OSError as exc:
        return None, (exc.strerror or type(exc).__name__).lower()


def _recorded_choices(text: str | None) -> dict[str, tuple[str, bool]]:
    """`choices` of a compiled workflow: choice ID -> (selected alternative, auto).
    Anything unexpected counts as no record (the comparison then decides)."""
    if not text:
        return {}
    try:
        from ruamel.yaml import YAML

        data = YAML(typ="safe", pure=False).load(text)
    except Exception:  # noqa: BLE001 - a broken committed file is simply stale
        return {}
    choices = data.get("choices") if isinstance(data, dict) else None
    out: dict[str, tuple[str, bool]] = {}
    if isinstance(choices, dict):
        for choice, entry in choices.items():
            if isinstance(choice, str) and isinstance(entry, dict) and isinstance(entry.get("selected"), str):
                out[choice] = (entry["selected"], entry.get("auto") is True)
    return out


def _compile(api, plan: str, loaded, committed: str | None, limits):
    """Compile `plan` with the choices recorded in its committed workflow: `--auto` when
    one was taken automatically, and `--choose` for the others, except for choices the
    plan now selects itself or no longer has (a plan's own selection wins). Returns the
    result and those flags (`auto`, `choose`)."""
    recorded = _recorded_choices(committed)
    auto = any(was_auto for _, was_auto in recorded.values())
    result = api.compile_plan(plan, catalogs=loaded, auto=auto, limits=limits)
    if result.typed is None or not recorded:
        return result, auto, {}
    choose: dict[str, str] = {}
    for choice in result.typed.checked.choices:
        entry = recorded.get(choice.id)
        if entry is None or entry[1] or getattr(choice.model, "selected", None):
            continue
        alternatives = [a.id for a in choice.model.alternatives]
        if entry[0] in alternatives:
            choose[choice.id] = entry[0]
    if not choose:
        return result, auto, {}
    choose = dict(sorted(choose.items()))
    return api.compile_plan(plan, catalogs=loaded, auto=auto, choose=choose, limits=limits), auto, choose


def judge(plan: str, target: str, compiled: str, committed: str | None, problem: str) -> _Verdict:
    if problem:
        return _Verdict(plan, target, "unreadable", problem)
    if committed is None:
        return _Verdict(plan, target, "missing", compiled=compiled)
    if committed == compiled:
        return _Verdict(plan, target, "ok")
    diff = list(
        difflib.unified_diff(
            committed.splitlines(keepends=True),
            compiled.splitlines(keepends=True),
            fromfile=f"{target} (committed)",
            tofile=f"{target} (compiled from {plan})",
        )
    )
    shown = "".join(line if line.endswith("\n") else line + "\n" for line in diff[:_DIFF_LINES])
    more = f"... ({len(diff) - _DIFF_LINES} more diff lines)\n" if len(diff) > _DIFF_LINES else ""
    return _Verdict(plan, target, "stale", shown + more, compiled)


def _write(verdict: _Verdict, *, make_dir: bool = False) -> str:
    """Write the compiled workflow to `verdict.workflow` (atomically; with `make_dir`,
    its directory, the configured output-dir, is created when missing); what happened."""
    from taskplan.workflow.emit import write_atomic

    try:
        if make_dir:
            os.makedirs(os.path.dirname(verdict.workflow) or ".", exist_ok=True)
        write_atomic(verdict.workflow, verdict.compiled)
    except OSError as exc:
        return f"cannot write {verdict.workflow}: {(exc.strerror or type(exc).__name__).lower()}"
    return f"recompiled {verdict.workflow} from {verdict.plan}"
