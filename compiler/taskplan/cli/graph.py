"""`taskplan graph PLAN [--catalog FILE]... [--auto] [--choose CHOICE=ALT]... [--format mermaid|dot] [-o OUT]`

Compiles the plan (every pass, as `taskplan compile`) and draws its PlanningGraph:
workflows as clusters, steps as nodes, data edges labelled with the paths they
read, calls into child workflows, cleanup edges dashed with their guard
(compiler/taskplan/render/graph.py). Without `-o` (or with `-o -`) the drawing
goes to stdout. A plan that does not compile draws nothing: its diagnostics go to
stderr (text) and the exit code is that of `taskplan compile`.
"""

from __future__ import annotations

import sys

import click

from taskplan.cli._common import EXIT_ERRORS, EXIT_OK, color_option, guard, refuse_overwriting_inputs, write
from taskplan.cli.compile import compile_options, input_files, load_project, run_compile, write_file


@click.command("graph")
@click.argument("plan", metavar="PLAN")
@compile_options
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
    ignore: tuple[str, ...],
    fmt: str,
    output: str | None,
    color: str,
) -> int:
    """Draw the compiled workflow graph of a TaskPlan (Mermaid or Graphviz dot)."""
    from taskplan.cli._common import renderer, use_color

    project = load_project(plan)
    if output not in (None, "-"):
        assert output is not None
        refuse_overwriting_inputs(output, input_files(plan, project[0], catalogs), "the drawing")
    result, findings, code = run_compile(plan, catalogs, choose, auto, color, ignore, project)
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
    return write_file(output, drawing, "drew")
