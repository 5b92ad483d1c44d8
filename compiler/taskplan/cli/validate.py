"""`taskplan validate WORKFLOW... [--ignore CODE]... [--format text|json]`.

Validates workflow YAML (or JSON) files, the compiler's own output or files a
person wrote, against the workflow dialect: schema, expressions, references and
graph rules, with the `limits` of the nearest `[tool.taskplan]` (a workflow
file is read up to `max-workflow-bytes`, so that whatever compile writes
validates). Writes every file's diagnostics in one sorted output (without the
silenced warnings: `ignore` and `--ignore`). The exit code is the worst of all
files: 0 clean, 1 errors, 2 bad usage or an unreadable file, 3 a compiler
failure.
"""

from __future__ import annotations

import os

import click

from taskplan.cli._common import (
    EXIT_ERRORS,
    EXIT_INTERNAL,
    EXIT_OK,
    EXIT_USAGE,
    color_option,
    emit,
    format_option,
    guard,
    ignore_option,
    report_unreadable,
)


@click.command()
@click.argument("workflows", nargs=-1, required=True, metavar="WORKFLOW...")
@ignore_option()
@format_option()
@color_option()
@guard
def validate(workflows: tuple[str, ...], ignore: tuple[str, ...], fmt: str, color: str) -> int:
    """Validate workflow YAML files against the workflow dialect (schemas/workflow.schema.json)."""
    from taskplan.api import UnreadableInput, internal_error, validate_workflow
    from taskplan.diagnostics import Diagnostics
    from taskplan.project import config_start_dir, load_project_config, silence

    sink = Diagnostics()
    project = load_project_config(config_start_dir(workflows), sink)
    documents = {}
    unreadable: list[UnreadableInput] = []
    exit_code = EXIT_ERRORS if sink.has_errors else EXIT_OK
    seen: set[str] = set()
    checked = 0
    for path in workflows:
        display = os.fspath(path)
        if display in seen:
            continue
        seen.add(display)
        try:
            result = validate_workflow(display, limits=project.limits)
        except UnreadableInput as exc:
            unreadable.append(exc)
            exit_code = max(exit_code, EXIT_USAGE)
            continue
        except Exception as exc:  # noqa: BLE001 - a bug of ours, reported as such
            checked += 1
            sink.add(internal_error(display, "validate", exc))
            exit_code = EXIT_INTERNAL
            continue
        checked += 1
        documents[display] = result.document
        sink.extend(result.diagnostics)
        if result.errors:
            exit_code = max(exit_code, EXIT_ERRORS)
    report_unreadable(unreadable, color)
    emit(
        silence(sink.sorted(), project.silenced(ignore)),
        fmt=fmt,
        color=color,
        documents=documents,
        files=checked,
        unreadable=len(unreadable),
        noun="workflow",
    )
    return exit_code
