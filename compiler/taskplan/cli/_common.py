"""What every subcommand that reports diagnostics shares: the `--format` and
`--color` options, the renderer registry, writing to stdout/stderr, exit codes,
and the guard that turns a bug into exit code 3 instead of a traceback.

A command reads its inputs through the API and ends with `emit(...)`:

    @click.command()
    @click.argument("plans", nargs=-1, required=True)
    @format_option()
    @color_option()
    @guard
    def check(plans, fmt, color):
        run = api.check_plans(plans)
        report_unreadable(run.input_errors, color)
        emit(run.diagnostics, fmt=fmt, color=color, documents=run.documents, files=run.checked)
        return run.exit_code
"""

from __future__ import annotations

import functools
import importlib
import os
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import IO, TYPE_CHECKING, Any

import click

from taskplan.api import EXIT_ERRORS, EXIT_INTERNAL, EXIT_OK, EXIT_USAGE, UnreadableInput

if TYPE_CHECKING:
    from taskplan.diagnostics import Diagnostic
    from taskplan.source.document import SourceDocument

__all__ = [
    "EXIT_ERRORS",
    "EXIT_INTERNAL",
    "EXIT_OK",
    "EXIT_USAGE",
    "RENDERERS",
    "color_option",
    "emit",
    "format_option",
    "guard",
    "ignore_option",
    "renderer",
    "report_unreadable",
    "use_color",
    "write",
]

RENDERERS: dict[str, str] = {
    "text": "taskplan.diagnostics.render_text:render",
    "json": "taskplan.diagnostics.render_json:render",
    "sarif": "taskplan.diagnostics.render_sarif:render",
    "github": "taskplan.diagnostics.render_github:render",
}
"""`--format` name -> "module:function". A renderer is one module whose function takes
`(diagnostics, *, documents, files, unreadable, color, noun) -> str`; adding a
format (sarif, github) is that module and one line here."""


def renderer(name: str) -> Callable[..., str]:
    module_name, attr = RENDERERS[name].split(":")
    return getattr(importlib.import_module(module_name), attr)


def format_option(default: str = "text") -> Callable:
    """`--format text|json|...` (every registered renderer), stored as `fmt`."""
    return click.option(
        "--format",
        "fmt",
        type=click.Choice(list(RENDERERS)),
        default=default,
        show_default=True,
        help="How to write the diagnostics.",
    )


def color_option() -> Callable:
    """`--color auto|always|never`, stored as `color`."""
    return click.option(
        "--color",
        type=click.Choice(["auto", "always", "never"]),
        default="auto",
        show_default=True,
        help="Colour the text output: auto = only on a terminal and when NO_COLOR is not set.",
    )


def ignore_option() -> Callable:
    """`--ignore CODE` (repeatable), stored as `ignore`: warning codes to silence, added to
    `ignore` of [tool.taskplan]. An unknown code or an error's code is bad usage."""

    def check(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> tuple[str, ...]:
        from taskplan.project import ignore_problem

        for code in values:
            problem = ignore_problem(code)
            if problem is not None:
                message, hint = problem
                raise click.BadParameter(message + (f" ({hint})" if hint else ""), ctx=ctx, param=param)
        return values

    return click.option(
        "--ignore",
        "ignore",
        multiple=True,
        metavar="CODE",
        callback=check,
        help="Silence a warning code (repeatable; adds to `ignore` of [tool.taskplan]). Errors cannot be silenced.",
    )


def use_color(choice: str, stream: IO[Any] | None = None) -> bool:
    """Whether to colour output on `stream` (stdout by default). `auto` colours only a
    terminal, and never when NO_COLOR is set to any value; an explicit
    `--color always|never` wins, as no-color.org asks of command-line flags."""
    if choice == "always":
        return True
    if choice == "never" or "NO_COLOR" in os.environ:
        return False
    stream = stream if stream is not None else sys.stdout
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def write(text: str, *, err: bool = False) -> None:
    """Write `text` as UTF-8 whatever the locale (a lone surrogate is escaped, never
    fatal). A closed pipe (`taskplan check ... | head`) ends the output quietly."""
    stream = sys.stderr if err else sys.stdout
    try:
        binary = getattr(stream, "buffer", None)
        if binary is None:  # a replaced stream without bytes underneath
            stream.write(text)
            stream.flush()
        else:
            stream.flush()
            binary.write(text.encode("utf-8", "backslashreplace"))
            binary.flush()
    except BrokenPipeError:
        # Python would complain again when flushing at exit: point stdout at nothing.
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, (sys.stderr if err else sys.stdout).fileno())
        except (OSError, ValueError, AttributeError):
            pass
        finally:
            os.close(devnull)


def emit(
    diagnostics: Sequence["Diagnostic"],
    *,
    fmt: str,
    color: str = "auto",
    documents: Mapping[str, "SourceDocument"] | None = None,
    files: int = 0,
    unreadable: int = 0,
    noun: str = "plan",
) -> None:
    """Render `diagnostics` in format `fmt` to stdout."""
    text = renderer(fmt)(
        diagnostics,
        documents=documents or {},
        files=files,
        unreadable=unreadable,
        color=use_color(color),
        noun=noun,
    )
    write(text)


def report_unreadable(errors: Iterable[UnreadableInput], color: str = "auto") -> None:
    """`error: cannot read plans/x.yaml: no such file`, one line per input, on stderr."""
    coloured = use_color(color, sys.stderr)
    head = "\x1b[1;31merror\x1b[0m" if coloured else "error"
    for error in errors:
        write(f"{head}: cannot read {error.path}: {error.reason}\n", err=True)


def guard(command: Callable[..., int]) -> Callable[..., None]:
    """Wrap a command body that returns an exit code: exit with it, and turn an
    unexpected exception (a bug of ours) into a one-line message and exit code 3
    (Ctrl-C: exit code 130, no traceback)."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        try:
            code = command(*args, **kwargs)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except KeyboardInterrupt:  # Ctrl-C: stop quietly, as shells expect
            write("\ninterrupted\n", err=True)
            code = 130
        except Exception as exc:  # noqa: BLE001
            from taskplan.api import internal_error

            diagnostic = internal_error("<taskplan>", "command-line", exc)
            write(f"error[{diagnostic.code}]: {diagnostic.message}\n  = help: {diagnostic.hint}\n", err=True)
            code = EXIT_INTERNAL
        raise click.exceptions.Exit(code)

    return wrapper
