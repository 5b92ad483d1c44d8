"""`taskplan check PLAN... [--catalog FILE]... [--format text|json]`.

Checks every plan (as pre-commit passes them: many files in one run) and writes
all their diagnostics in one sorted output. The exit code is the worst of all
plans: 0 clean (warnings allowed), 1 errors, 2 bad usage or an unreadable
file, 3 a compiler failure.
"""

from __future__ import annotations

import click

from taskplan import api
from taskplan.cli._common import color_option, emit, format_option, guard, report_unreadable


@click.command()
@click.argument("plans", nargs=-1, required=True, metavar="PLAN...")
@click.option(
    "--catalog",
    "catalogs",
    multiple=True,
    metavar="FILE",
    type=click.Path(exists=True, dir_okay=False),
    help="A capability catalog the plans' operations come from (repeatable). "
    "Operation contracts are not type-checked yet: the file must exist but is not read.",
)
@format_option()
@color_option()
@guard
def check(plans: tuple[str, ...], catalogs: tuple[str, ...], fmt: str, color: str) -> int:
    """Check TaskPlans (YAML or JSON) and report every error with its exact location."""
    run = api.check_plans(plans, catalogs=catalogs)
    report_unreadable(run.input_errors, color)
    emit(
        run.diagnostics,
        fmt=fmt,
        color=color,
        documents=run.documents,
        files=run.checked,
        unreadable=len(run.input_errors),
    )
    return run.exit_code
