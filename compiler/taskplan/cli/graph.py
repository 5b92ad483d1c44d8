"""`taskplan graph PLAN [--catalog FILE]... [--auto] [--choose CHOICE=ALT]... [--format mermaid|dot] [-o OUT]`

Compiles the plan (every pass, as `taskplan compile`) and draws its PlanningGraph:
workflows as clusters, steps as nodes, data edges labelled with the paths they
read, calls into child workflows, cleanup edges dashed with their guard
(compiler/taskplan/render/graph.py). Without `-o` (or with `-o -`) the drawing
goes to stdout. A plan that does not compile draws nothing: its diagnostics go to
stderr (text) and the exit code is that of `taskplan compile`.
"""

from __future__ import annotations

import os
import sys

import click

from taskplan.cli._common import EXIT_ERRORS, EXIT_OK, EXIT_USAGE, color_option, guard, report_unreadable, write


@click.command("graph")
@click.argument("plan", metavar="PLAN")
@click.option(
    "--catalog",
    "catalogs",
    multiple=True,
    metavar="FILE",
    help="A capability catalog (repeatable). Default: `catalogs` of [tool.taskplan] in the nearest pyproject.toml.",
)
@click.option("--auto", is_flag=True, help="Take the recommended alternative of every choice that has no selection.")
@click.option("--choose", multiple=True, metavar="CHOICE=ALT", help="Select an alternative of a choice (repeatable).")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["mermaid", "dot"]),
    default="mermaid",
    show_default=True,
    help="mermaid (a flowchart for Markdown) or dot (Graphviz: `dot -Tsvg`).",
)
@click.option("-o", "--output", metavar="OUT", help="Where to write the drawing (default, or `-`: stdout).")
@color_option()
@guard
def graph(
    plan: str,
    catalogs: tuple[str, ...],
    auto: bool,
    choose: tuple[str, ...],
    fmt: str,
    output: str | None,
    color: str,
) -> int:
    """Draw the compiled workflow graph of a TaskPlan (Mermaid or Graphviz dot)."""
    from taskplan import api
    from taskplan.cli._common import renderer, use_color
    from taskplan.cli.compile import _parse_choose
    from taskplan.diagnostics import Diagnostics
    from taskplan.project import config_start_dir, resolve_catalog_paths

    selections = _parse_choose(choose)
    config = Diagnostics()
    catalog_paths = resolve_catalog_paths(catalogs, config_start_dir((plan,)), config)
    result = api.compile_plan(plan, catalogs=catalog_paths, choose=selections, auto=auto)
    diagnostics = Diagnostics()
    diagnostics.extend(config.sorted())
    diagnostics.extend(result.diagnostics)
    report_unreadable(result.input_errors, color)
    for message in result.usage_errors:
        write(f"error: {message}\n", err=True)
    code = max(result.exit_code, EXIT_ERRORS if config.has_errors else EXIT_OK)
    findings = diagnostics.sorted()
    if findings or result.graph is None:
        text = renderer("text")(
            findings, documents=result.documents, files=1, unreadable=len(result.input_errors),
            color=use_color(color, sys.stderr), noun="plan",
        )
        write(text, err=True)
    if result.graph is None or code != EXIT_OK:
        return code or EXIT_ERRORS

    from taskplan.render.graph import render

    drawing = render(result.graph, fmt)
    if output in (None, "-"):
        write(drawing)
        return EXIT_OK
    assert output is not None
    from taskplan.workflow.emit import write_atomic

    if os.path.isdir(output):
        write(f"error: cannot write {output}: is a directory\n", err=True)
        return EXIT_USAGE
    try:
        write_atomic(output, drawing)
    except OSError as exc:
        write(f"error: cannot write {output}: {exc.strerror or exc}\n", err=True)
        return EXIT_USAGE
    write(f"ok: drew {output}\n")
    return EXIT_OK
