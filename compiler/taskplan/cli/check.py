"""`taskplan check PLAN... [--catalog FILE]... [--ignore CODE]... [--format text|json]`.

Checks every plan (as pre-commit passes them: many files in one run) against
the catalogs (`--catalog`, else `[tool.taskplan] catalogs` of the nearest
pyproject.toml; loaded once), with the configured `limits`, and writes all
diagnostics of plans, catalogs and configuration in one sorted output (without
the silenced warnings: `ignore` and `--ignore`). The exit code is the worst of all: 0 clean
(warnings allowed), 1 errors, 2 bad usage or an unreadable file, 3 a compiler
failure.
"""

from __future__ import annotations

import click

from taskplan import api
from taskplan.cli._common import (
    EXIT_ERRORS,
    EXIT_OK,
    color_option,
    emit,
    format_option,
    guard,
    ignore_option,
    report_unreadable,
)


@click.command()
@click.argument("plans", nargs=-1, required=True, metavar="PLAN...")
@click.option(
    "--catalog",
    "catalogs",
    multiple=True,
    metavar="FILE",
    help="A capability catalog the plans' operations come from (repeatable). "
    "Default: `catalogs` of [tool.taskplan] in the nearest pyproject.toml.",
)
@ignore_option()
@format_option()
@color_option()
@guard
def check(plans: tuple[str, ...], catalogs: tuple[str, ...], ignore: tuple[str, ...], fmt: str, color: str) -> int:
    """Check TaskPlans (YAML or JSON) and report every error with its exact location."""
    from taskplan.diagnostics import Diagnostics
    from taskplan.project import config_start_dir, load_project_config, silence

    config = Diagnostics()  # CONFIG_INVALID: then the configured catalogs are not used
    project = load_project_config(config_start_dir(plans), config)
    run = api.check_plans(plans, catalogs=project.catalog_paths(catalogs), limits=project.limits)
    diagnostics = Diagnostics()
    diagnostics.extend(config.sorted())
    diagnostics.extend(run.diagnostics)
    report_unreadable(run.input_errors, color)
    emit(
        silence(diagnostics.sorted(), project.silenced(ignore)),
        fmt=fmt,
        color=color,
        documents=run.documents,
        files=run.checked,
        unreadable=len(run.input_errors),
    )
    return max(run.exit_code, EXIT_ERRORS if config.has_errors else EXIT_OK)
